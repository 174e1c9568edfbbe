import type { FastifyBaseLogger } from 'fastify';
import type Stripe from 'stripe';
import type { PayInvoiceResult } from '@poi/shared/schemas/payments';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { writeAudit, type AuditActor } from '../audit/audit';
import { findBillingAccountByUser } from '../billing-accounts/billing-accounts.repository';
import { remainingYen, type InvoiceRow } from '../invoices/invoices.mapper';
import { recordCardPayment, STRIPE_MIN_JPY } from './charging';
import { paymentMessages } from './payment-messages';
import { findInvoice, latestPaySession, lockInvoiceForCharge, OPEN, PAY_SESSION_CREATED, type PaySession } from './payments.repository';
import { idOf, requireStripe, userStripeCall } from './stripe-calls';
import type { StripeClient } from './stripe-client';

/** A session this close to its expiry is not handed out again: a new attempt starts instead. */
const EXPIRY_MARGIN_S = 10 * 60;

export interface PayNow {
  /**
   * POST /billing/invoices/:id/pay: a Stripe Checkout Session in payment mode for exactly what
   * remains. Reload-safe: while the session of the current attempt is open and for the same
   * amount, the same URL comes back; a changed amount (a partial payment) or a spent or expired
   * session starts the next attempt (Idempotency-Key `invoice:<id>:pay:<n>`). The payment is
   * booked by the webhooks through recordCardPayment (once, whatever the order).
   */
  payInvoice(user: CurrentUser, invoiceId: string, actor: AuditActor): Promise<PayInvoiceResult>;
}

export interface PayNowDeps {
  db: Db;
  config: Pick<Config, 'publicUrl'>;
  stripe?: StripeClient;
  log: Pick<FastifyBaseLogger, 'error'>;
}

export function createPayNow(deps: PayNowDeps): PayNow {
  const { db, config, stripe, log } = deps;

  /** The caller's own issued invoice, as GET /billing/invoices/:id finds it (someone else's is 404). */
  async function ownInvoice(user: CurrentUser, id: string): Promise<InvoiceRow> {
    const invoice = await findInvoice(db, id);
    if (!invoice?.number) throw new AppError('NOT_FOUND', paymentMessages.invoiceNotFound);
    const account = await findBillingAccountByUser(db, user.id);
    if (!account || account.id !== invoice.billingAccountId) throw new AppError('NOT_FOUND', paymentMessages.invoiceNotFound);
    if (user.corporateAccountId && user.corporateRole === 'member') throw new AppError('FORBIDDEN', paymentMessages.billingMemberForbidden);
    return invoice;
  }

  /** Refuses (409) an invoice that cannot be paid by card now. */
  function assertPayable(invoice: InvoiceRow): number {
    if (invoice.paymentMethod !== 'card') throw new AppError('CONFLICT', paymentMessages.payByTransfer);
    const amount = remainingYen(invoice);
    if (!OPEN.includes(invoice.status) || amount <= 0) throw new AppError('CONFLICT', paymentMessages.nothingOwed);
    if (amount < STRIPE_MIN_JPY) throw new AppError('CONFLICT', paymentMessages.belowCardMinimum);
    return amount;
  }

  /**
   * The previous attempt's session was paid but no webhook booked it yet: books it now from
   * Stripe's PaymentIntent (recordCardPayment is a no-op when the webhook comes first or later).
   */
  async function bookCompleted(s: StripeClient, session: Stripe.Checkout.Session): Promise<void> {
    const piId = idOf(session.payment_intent);
    if (!piId) return;
    const pi = await s.paymentIntents.retrieve(piId);
    await inTransaction(db, (tx) => recordCardPayment(tx, pi, null, log));
  }

  return {
    async payInvoice(user, invoiceId, actor) {
      let invoice = await ownInvoice(user, invoiceId);
      const s = requireStripe(stripe);
      let amount = assertPayable(invoice);
      const previous = await latestPaySession(db, invoice.id);
      let attempt = 1;
      if (previous) {
        const session = await userStripeCall(log, 'checkout.sessions.retrieve', () => s.checkout.sessions.retrieve(previous.sessionId));
        const stillOpen = session.status === 'open' && session.expires_at > Math.floor(Date.now() / 1000) + EXPIRY_MARGIN_S;
        if (stillOpen && previous.amount === amount) return { url: previous.url, amount, attempt: previous.attempt };
        if (session.status === 'open') {
          // For an amount no longer owed (a partial payment came meanwhile): closed so it cannot be paid too.
          await s.checkout.sessions.expire(session.id).catch((err: unknown) => log.error({ err, sessionId: session.id }, 'old pay session not expired'));
        }
        if (session.status === 'complete') {
          await userStripeCall(log, 'book completed session', () => bookCompleted(s, session));
          invoice = (await findInvoice(db, invoice.id))!;
          amount = assertPayable(invoice);
        }
        attempt = previous.attempt + 1;
      }
      const account = await findBillingAccountByUser(db, user.id);
      const pageUrl = `${config.publicUrl}/billing/invoices/${invoice.id}`;
      const session = await userStripeCall(log, 'checkout.sessions.create', () =>
        s.checkout.sessions.create(
          {
            mode: 'payment',
            ...(account?.stripeCustomerId ? { customer: account.stripeCustomerId } : {}),
            allowed_payment_method_types: ['card'],
            // JPY is a zero-decimal currency in Stripe: whole yen, never sen.
            line_items: [{ quantity: 1, price_data: { currency: 'jpy', unit_amount: amount, product_data: { name: `POI Cloud ご利用料金(請求書 ${invoice.number})` } } }],
            payment_intent_data: { metadata: { invoice_id: invoice.id, invoice_number: invoice.number ?? '' }, description: `POI Cloud 請求書 ${invoice.number}` },
            metadata: { invoice_id: invoice.id, attempt: String(attempt), purpose: 'pay_invoice' },
            success_url: `${pageUrl}?paid=1`,
            cancel_url: pageUrl,
            locale: 'ja',
          },
          { idempotencyKey: `invoice:${invoice.id}:pay:${attempt}` },
        ),
      );
      if (!session.url) throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.stripeDown);
      const created: PaySession = { attempt, sessionId: session.id, url: session.url, amount };
      // Two clicks at once reach Stripe with the same key and get the same session: one row is written.
      await inTransaction(db, async (tx) => {
        const locked = await lockInvoiceForCharge(tx, invoice.id);
        const latest = await latestPaySession(tx, invoice.id);
        if (!locked || (latest && latest.attempt >= attempt)) return;
        await writeAudit(tx, actor, {
          action: PAY_SESSION_CREATED,
          targetType: 'invoice',
          targetId: invoice.id,
          before: { status: locked.status, remaining: remainingYen(locked) },
          after: { attempt, session_id: created.sessionId, url: created.url, amount },
        });
      });
      return { url: created.url, amount, attempt };
    },
  };
}
