import type { FastifyBaseLogger } from 'fastify';
import type Stripe from 'stripe';
import type { z } from 'zod';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import { SYSTEM_ACTOR } from '../audit/audit';
import { recordCardPayment } from './charging';
import { metaOf, setupCardOf, type Checkout } from './checkout';
import { declineMessage, paymentMessages } from './payment-messages';
import { hasPaymentForIntent, lockInvoiceForCharge, OPEN, recordCardFailureEvent } from './payments.repository';
import { idOf, isMissing } from './stripe-calls';
import type { StripeClient } from './stripe-client';
import { isProviderEventStored, storeProviderEvent } from './stripe-events.repository';
import { ACTED_ON, eventEnvelopeSchema, objectIdOf, type CardIntent, type checkoutSessionSchema, type EventEnvelope } from './webhook-events';

/** A webhook's outcome: applied, a repeat of one applied (duplicate), or of a shape not acted on (ignored). */
export interface WebhookResult {
  duplicate: boolean;
  ignored: boolean;
  type: string;
}

export interface StripeWebhooks {
  /** POST /webhooks/stripe: verifies the signature on the raw bytes, applies the event once. */
  handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookResult>;
}

export interface StripeWebhooksDeps {
  db: Db;
  config: Pick<Config, 'stripe'>;
  stripe?: StripeClient;
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** A completed setup session saves the card as the console's completion does. */
  checkout: Pick<Checkout, 'applyCompletedSetup' | 'detachLater'>;
}

/** A payment_intent.payment_failed event: the decline message on the invoice, unless newer state or a payment wins. */
async function paymentFailedEvent(tx: Executor, event: EventEnvelope, pi: CardIntent) {
  const invoiceId = pi.metadata?.invoice_id;
  if (!invoiceId) return;
  const invoice = await lockInvoiceForCharge(tx, invoiceId);
  if (!invoice || !OPEN.includes(invoice.status)) return;
  // An older event never undoes a newer state; a payment already booked for this intent wins.
  if (invoice.providerStateAt != null && invoice.providerStateAt > event.created) return;
  if (await hasPaymentForIntent(tx, pi.id)) return;
  const error = pi.last_payment_error;
  await recordCardFailureEvent(tx, invoice.id, pi.id, declineMessage(error?.code ?? undefined, error?.decline_code ?? undefined), event.created);
}

/**
 * Stripe's webhooks. Each event is stored (provider_events) in the transaction that applies it,
 * so it is applied once however often Stripe delivers it.
 */
export function createStripeWebhooks(deps: StripeWebhooksDeps): StripeWebhooks {
  const { db, config, stripe, log, checkout } = deps;

  async function handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookResult> {
    const secret = config.stripe.webhookSecret;
    if (!stripe || !secret) throw new AppError('SERVICE_UNAVAILABLE', stripe ? paymentMessages.webhookNotConfigured : paymentMessages.cardUnavailable);
    if (!signature) throw new AppError('BAD_REQUEST', paymentMessages.badSignature);
    let body: unknown;
    try {
      body = stripe.webhooks.constructEvent(rawBody, signature, secret);
    } catch {
      throw new AppError('BAD_REQUEST', paymentMessages.badSignature);
    }
    // Signed is not well formed (webhook-events.ts): not an event at all is a 400, nothing stored.
    const envelope = eventEnvelopeSchema.safeParse(body);
    if (!envelope.success) {
      log.warn({ issues: envelope.error.issues.slice(0, 3) }, 'signed webhook body is not a Stripe event');
      throw new AppError('BAD_REQUEST', paymentMessages.notAnEvent);
    }
    const event = envelope.data;
    const objectId = objectIdOf(event.data.object);
    const schema = ACTED_ON[event.type];
    const checked = schema?.safeParse(event.data.object);
    if (checked && !checked.success) {
      // An event we act on, of a shape Stripe never sends: retrying cannot fix it, so it is
      // acknowledged, logged for a person, and neither applied nor stored.
      log.warn({ eventId: event.id, type: event.type, issues: checked.error.issues.slice(0, 3) }, 'stripe webhook of an unexpected shape ignored');
      return { duplicate: false, ignored: true, type: event.type };
    }
    let duplicate = false;

    if (event.type === 'checkout.session.completed') {
      const session = checked!.data as z.infer<typeof checkoutSessionSchema>;
      const meta = metaOf(session);
      if (session.mode === 'setup' && meta) {
        if (await isProviderEventStored(db, event.id)) return { duplicate: true, ignored: false, type: event.type };
        // Stripe calls first (outside the transaction), then the event and its effect commit together.
        let pm: Stripe.PaymentMethod;
        try {
          pm = await setupCardOf(stripe, { setup_intent: idOf(session.setup_intent), customer: idOf(session.customer) });
        } catch (err) {
          // A SetupIntent Stripe does not know (not one of this account's): nothing to apply, ever.
          if (!isMissing(err)) throw err;
          log.warn({ err, eventId: event.id }, 'checkout.session.completed names a missing SetupIntent; ignored');
          return { duplicate: false, ignored: true, type: event.type };
        }
        try {
          const applied = await checkout.applyCompletedSetup(meta, pm, SYSTEM_ACTOR, (tx) => storeProviderEvent(tx, event, objectId));
          if (!applied) duplicate = true;
          else checkout.detachLater(applied.replacedPaymentMethod);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          // Not applicable (e.g. the application was rejected meanwhile): remembered, not retried.
          log.warn({ err, eventId: event.id }, 'checkout.session.completed not applied');
          duplicate = !(await inTransaction(db, (tx) => storeProviderEvent(tx, event, objectId)));
        }
        return { duplicate, ignored: false, type: event.type };
      }
      if (session.mode === 'payment' && session.payment_intent) {
        let pi: CardIntent;
        if (typeof session.payment_intent === 'string') {
          try {
            pi = await stripe.paymentIntents.retrieve(session.payment_intent);
          } catch (err) {
            if (!isMissing(err)) throw err;
            log.warn({ err, eventId: event.id }, 'checkout.session.completed names a missing PaymentIntent; ignored');
            return { duplicate: false, ignored: true, type: event.type };
          }
        } else pi = session.payment_intent;
        await inTransaction(db, async (tx) => {
          if (!(await storeProviderEvent(tx, event, objectId))) {
            duplicate = true;
            return;
          }
          await recordCardPayment(tx, pi, event.created, log);
        });
        return { duplicate, ignored: false, type: event.type };
      }
    }

    await inTransaction(db, async (tx) => {
      if (!(await storeProviderEvent(tx, event, objectId))) {
        duplicate = true;
        return;
      }
      if (event.type === 'payment_intent.succeeded') await recordCardPayment(tx, checked!.data as CardIntent, event.created, log);
      else if (event.type === 'payment_intent.payment_failed') await paymentFailedEvent(tx, event, checked!.data as CardIntent);
    });
    return { duplicate, ignored: false, type: event.type };
  }

  return { handleWebhook };
}
