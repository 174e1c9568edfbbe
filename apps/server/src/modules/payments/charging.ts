import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import { dayOf } from '@poi/shared/billing-time';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { Mailer } from '../../plugins/mail';
import { SYSTEM_ACTOR, writeAudit } from '../audit/audit';
import { addCredit, findBillingAccountById } from '../billing-accounts/billing-accounts.repository';
import { remainingYen, type InvoiceRow } from '../invoices/invoices.mapper';
import { buildDeclinedMail, buildPayNowMail } from './payment-mail';
import { declineMessage, paymentMessages } from './payment-messages';
import {
  CARD_PAYMENT_CREDITED,
  cardInvoicesToChargeWithNewCard,
  CHARGEABLE,
  dueCardRetries,
  findInvoice,
  hasPaymentForIntent,
  isCardPaymentCredited,
  lockInvoiceForCharge,
  markCardProcessing,
  markInvoiceCardPaid,
  OPEN,
  postponeCardAttempt,
  recordCardFailure,
  recordPayment,
} from './payments.repository';
import { MAX_CARD_ATTEMPTS, nextRetryAt } from './retry-schedule';
import { isStripeOutage, type Background } from './stripe-calls';
import type { StripeClient } from './stripe-client';
import type { CardIntent } from './webhook-events';

/** Stripe's minimum charge in JPY: the close carries smaller card totals to the next month. */
export const STRIPE_MIN_JPY = 50;
/** How often the card-retries job looks for due retries (app.ts registers it with the job runner). */
export const RETRY_JOB_INTERVAL_MS = 5 * 60 * 1000;
/** Stripe could not be reached: the same attempt (same idempotency key) is tried again this much later. */
const UNREACHABLE_RETRY_MS = 15 * 60 * 1000;

export type ChargeOutcome =
  | { outcome: 'paid'; paymentIntentId: string }
  | { outcome: 'processing'; paymentIntentId: string }
  | { outcome: 'declined' | 'authentication_required'; attempts: number; overdue: boolean }
  | { outcome: 'retry_later'; reason: string }
  | { outcome: 'skipped'; reason: string };

export interface Charging {
  /**
   * Charges an issued card invoice off-session for what remains. `includeOverdue` (only the
   * new-card path) also charges an overdue one; the automatic retries never do.
   */
  chargeInvoice(invoiceId: string, options?: { includeOverdue?: boolean }): Promise<ChargeOutcome>;
  /** A new card was saved: charges the account's overdue and declined card invoices with it, at once. */
  chargeWithNewCard(billingAccountId: string): Promise<void>;
  /** The close's afterIssue: charges each card invoice in turn; never throws (failures are logged). */
  chargeInvoices(invoiceIds: string[]): Promise<void>;
  /** Charges every card invoice whose retry is due (the card-retries job; tests call it with a date). */
  runDueRetries(now?: Date): Promise<{ attempted: number }>;
}

export interface ChargingDeps {
  db: Db;
  config: Pick<Config, 'publicUrl'>;
  stripe?: StripeClient;
  mailer: Pick<Mailer, 'send'>;
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  background: Pick<Background, 'run'>;
}

/**
 * Books a succeeded PaymentIntent against its invoice, once: the charge's own answer and the
 * webhook may both arrive (in either order); payments.stripe_payment_intent_id is unique and
 * the invoice row lock orders them, so the second finds the payment and does nothing.
 * Runs in the caller's transaction.
 */
export async function recordCardPayment(
  ex: Executor,
  pi: CardIntent,
  eventCreated: number | null,
  log: Pick<FastifyBaseLogger, 'error'>,
): Promise<'recorded' | 'duplicate' | 'ignored'> {
  const invoiceId = pi.metadata?.invoice_id;
  if (!invoiceId || pi.status !== 'succeeded') return 'ignored';
  if (pi.currency !== 'jpy') {
    log.error({ paymentIntent: pi.id, currency: pi.currency }, 'card payment in a currency other than JPY ignored');
    return 'ignored';
  }
  const invoice = await lockInvoiceForCharge(ex, invoiceId);
  if (!invoice || !invoice.number) return 'ignored';
  if (await hasPaymentForIntent(ex, pi.id)) return 'duplicate';
  const amount = pi.amount_received || pi.amount;
  if (['paid', 'void', 'uncollectible'].includes(invoice.status)) {
    // Money arrived for an invoice settled meanwhile (e.g. by transfer): it becomes credit, once.
    if (await isCardPaymentCredited(ex, pi.id)) return 'duplicate';
    await addCredit(ex, invoice.billingAccountId, amount);
    await writeAudit(ex, SYSTEM_ACTOR, { action: CARD_PAYMENT_CREDITED, targetType: 'payment_intent', targetId: pi.id, after: { invoice_id: invoice.id, amount, billing_account_id: invoice.billingAccountId } });
    return 'recorded';
  }
  await recordPayment(ex, SYSTEM_ACTOR, { invoiceId: invoice.id, method: 'card', amountYen: amount, receivedOn: dayOf(new Date()), stripePaymentIntentId: pi.id });
  await markInvoiceCardPaid(ex, invoice.id, pi.id, eventCreated);
  return 'recorded';
}

function mailInvoiceOf(invoice: InvoiceRow, amount: number) {
  const r = invoice.recipientSnapshot as { addressee?: string; honorific?: string };
  return { number: invoice.number ?? '', amountYen: amount, addressee: r.addressee ?? '', honorific: r.honorific ?? '様' };
}

/** Off-session card charges of issued invoices, their failures and the retry schedule. */
export function createCharging(deps: ChargingDeps): Charging {
  const { db, config, stripe, mailer, log, background } = deps;

  /** A Checkout Session in payment mode for what remains: the customer pays on-session (3-D Secure). */
  async function createPayNowLink(s: StripeClient, invoice: InvoiceRow, customer: string, amount: number, attempt: number): Promise<string | null> {
    const session = await s.checkout.sessions.create(
      {
        mode: 'payment',
        customer,
        allowed_payment_method_types: ['card'],
        line_items: [{ quantity: 1, price_data: { currency: 'jpy', unit_amount: amount, product_data: { name: `POI Cloud ご利用料金(請求書 ${invoice.number})` } } }],
        payment_intent_data: { metadata: { invoice_id: invoice.id, invoice_number: invoice.number ?? '' }, description: `POI Cloud 請求書 ${invoice.number}` },
        metadata: { invoice_id: invoice.id, purpose: 'pay_invoice' },
        success_url: `${config.publicUrl}/billing/invoices/${invoice.id}?paid=1`,
        cancel_url: `${config.publicUrl}/billing/invoices/${invoice.id}`,
        locale: 'ja',
      },
      { idempotencyKey: `invoice:${invoice.id}:attempt:${attempt}:pay_now` },
    );
    return session.url;
  }

  async function recordFailure(
    invoice: InvoiceRow,
    attempt: number,
    kind: 'declined' | 'authentication_required',
    message: string,
    paymentIntentId: string | null,
    payNowUrl: string | null,
    amount: number,
    chargeable: InvoiceRow['status'][],
  ): Promise<ChargeOutcome> {
    const overdue = attempt >= MAX_CARD_ATTEMPTS;
    const retryAt = overdue ? null : nextRetryAt(invoice.issueDate ?? dayOf(new Date()), attempt);
    const applied = await inTransaction(db, async (tx) => {
      const current = await lockInvoiceForCharge(tx, invoice.id);
      // Someone else already handled this attempt (a concurrent retry), or it got paid meanwhile.
      if (!current || current.paymentAttempts !== attempt - 1 || !chargeable.includes(current.status)) return undefined;
      const updated = await recordCardFailure(tx, current, { attempt, nextRetryAt: retryAt, message, overdue, paymentIntentId, payNowUrl });
      await writeAudit(tx, SYSTEM_ACTOR, {
        action: 'invoice.card_payment_failed',
        targetType: 'invoice',
        targetId: invoice.id,
        before: { status: current.status, payment_attempts: current.paymentAttempts },
        after: { status: updated.status, payment_attempts: attempt, reason: kind, next_retry_at: retryAt?.toISOString() ?? null, payment_intent: paymentIntentId, pay_now_url: payNowUrl },
      });
      return updated;
    });
    if (!applied) return { outcome: 'skipped', reason: 'handled elsewhere' };
    const account = await findBillingAccountById(db, invoice.billingAccountId);
    const to = account?.billingEmails ?? [];
    const inv = mailInvoiceOf(applied, amount);
    const invoiceUrl = `${config.publicUrl}/billing/invoices/${invoice.id}`;
    for (const address of to) {
      const mail =
        kind === 'authentication_required' && payNowUrl
          ? buildPayNowMail(address, inv, payNowUrl, invoiceUrl)
          : buildDeclinedMail(address, inv, message, retryAt ? dayOf(retryAt) : null, invoiceUrl);
      background.run(mailer.send(mail));
    }
    return { outcome: kind, attempts: attempt, overdue };
  }

  async function chargeInvoice(invoiceId: string, options: { includeOverdue?: boolean } = {}): Promise<ChargeOutcome> {
    const chargeable = options.includeOverdue ? OPEN : CHARGEABLE;
    if (!stripe) {
      log.warn({ invoiceId }, 'card invoice not charged: Stripe is not configured');
      return { outcome: 'skipped', reason: 'stripe not configured' };
    }
    const invoice = await findInvoice(db, invoiceId);
    if (!invoice || !invoice.number || invoice.paymentMethod !== 'card' || !chargeable.includes(invoice.status)) return { outcome: 'skipped', reason: 'not a chargeable card invoice' };
    const amount = remainingYen(invoice);
    if (amount <= 0) return { outcome: 'skipped', reason: 'nothing remains' };
    if (amount < STRIPE_MIN_JPY) return { outcome: 'skipped', reason: 'below the card minimum' };
    const attempt = invoice.paymentAttempts + 1;
    const account = await findBillingAccountById(db, invoice.billingAccountId);
    if (!account?.cardPaymentMethodId || !account.stripeCustomerId) {
      return recordFailure(invoice, attempt, 'declined', paymentMessages.noCardForCharge, null, null, amount, chargeable);
    }
    let pi: Stripe.PaymentIntent;
    try {
      pi = await stripe.paymentIntents.create(
        {
          // JPY is a zero-decimal currency in Stripe: the amount is whole yen, never sen.
          amount,
          currency: 'jpy',
          customer: account.stripeCustomerId,
          payment_method: account.cardPaymentMethodId,
          off_session: true,
          confirm: true,
          description: `POI Cloud 請求書 ${invoice.number}`,
          metadata: { invoice_id: invoice.id, invoice_number: invoice.number, billing_account_id: account.id },
        },
        { idempotencyKey: `invoice:${invoice.id}:attempt:${attempt}` },
      );
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) {
        const piId = (err.raw as { payment_intent?: { id?: string } }).payment_intent?.id ?? null;
        if (err.code === 'authentication_required') {
          let url: string | null = null;
          try {
            url = await createPayNowLink(stripe, invoice, account.stripeCustomerId, amount, attempt);
          } catch (linkErr) {
            log.error({ err: linkErr, invoiceId }, 'pay-now link could not be created');
          }
          return recordFailure(invoice, attempt, 'authentication_required', paymentMessages.authenticationRequired, piId, url, amount, chargeable);
        }
        return recordFailure(invoice, attempt, 'declined', declineMessage(err.code, err.decline_code), piId, null, amount, chargeable);
      }
      if (!isStripeOutage(err)) {
        // Refused for another reason (e.g. the card was detached on Stripe's side): a failed attempt.
        log.error({ err, invoiceId, attempt }, 'card charge refused by Stripe');
        return recordFailure(invoice, attempt, 'declined', paymentMessages.chargeFailed, null, null, amount, chargeable);
      }
      // Stripe unreachable or failing: nothing changed there; the same attempt (same key) runs again later.
      log.error({ err, invoiceId, attempt }, 'card charge failed: Stripe unavailable');
      await postponeCardAttempt(db, invoice.id, invoice.paymentAttempts, new Date(Date.now() + UNREACHABLE_RETRY_MS));
      return { outcome: 'retry_later', reason: 'stripe unavailable' };
    }
    if (pi.status === 'succeeded') {
      await inTransaction(db, (tx) => recordCardPayment(tx, pi, null, log));
      return { outcome: 'paid', paymentIntentId: pi.id };
    }
    // processing (or anything else): the webhook books it.
    await markCardProcessing(db, invoice.id, pi.id);
    return { outcome: 'processing', paymentIntentId: pi.id };
  }

  return {
    chargeInvoice,

    async chargeInvoices(invoiceIds) {
      for (const id of invoiceIds) {
        try {
          await chargeInvoice(id);
        } catch (err) {
          log.error({ err, invoiceId: id }, 'card charge after issue failed');
        }
      }
    },

    async chargeWithNewCard(billingAccountId) {
      const ids = await cardInvoicesToChargeWithNewCard(db, billingAccountId);
      for (const id of ids) {
        try {
          await chargeInvoice(id, { includeOverdue: true });
        } catch (err) {
          log.error({ err, invoiceId: id }, 'charge with the new card failed');
        }
      }
    },

    async runDueRetries(now = new Date()) {
      const due = await dueCardRetries(db, now);
      for (const id of due) {
        try {
          await chargeInvoice(id);
        } catch (err) {
          log.error({ err, invoiceId: id }, 'card retry failed');
        }
      }
      return { attempted: due.length };
    },
  };
}
