import { and, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import type { z } from 'zod';
import { dayOf } from '@poi/shared/billing-time';
import { toSen } from '@poi/shared/money';
import type { CheckoutPurpose, CompleteResult } from '@poi/shared/schemas/payments';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/client';
import { datasets } from '../../db/schema/datasets';
import { auditLogs } from '../../db/schema/audit';
import { billingAccounts, invoices } from '../../db/schema/invoices';
import { corporateAccounts } from '../../db/schema/corporate';
import { payments, providerEvents } from '../../db/schema/payments';
import { users } from '../../db/schema/users';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import type { Mailer } from '../../plugins/mail';
import { SYSTEM_ACTOR, writeAudit, type AuditActor } from '../audit/audit';
import { activateCorporateAccount } from '../corporate/corporate-activation';
import { ensureBillingAccountForUser, ensureCorporateBillingAccount, findBillingAccountByUser, type BillingAccountRow } from '../invoices/billing-accounts.repository';
import { remainingYen, type InvoiceRow } from '../invoices/invoices.mapper';
import { recordPayment } from './payments.repository';
import { buildDeclinedMail, buildPayNowMail } from './payment-mail';
import { declineMessage, paymentMessages } from './payment-messages';
import { MAX_CARD_ATTEMPTS, nextRetryAt } from './retry-schedule';
import type { StripeClient } from './stripe-client';
import { ACTED_ON, eventEnvelopeSchema, objectIdOf, type CardIntent, type checkoutSessionSchema, type EventEnvelope } from './webhook-events';

/** Stripe's minimum charge in JPY: the close carries smaller card totals to the next month. */
export const STRIPE_MIN_JPY = 50;
const RETRY_JOB_INTERVAL_MS = 5 * 60 * 1000;
/** Stripe could not be reached: the same attempt (same idempotency key) is tried again this much later. */
const UNREACHABLE_RETRY_MS = 15 * 60 * 1000;
const CHARGEABLE: InvoiceRow['status'][] = ['issued', 'partially_paid'];
const OPEN: InvoiceRow['status'][] = ['issued', 'partially_paid', 'overdue'];

export type ChargeOutcome =
  | { outcome: 'paid'; paymentIntentId: string }
  | { outcome: 'processing'; paymentIntentId: string }
  | { outcome: 'declined' | 'authentication_required'; attempts: number; overdue: boolean }
  | { outcome: 'retry_later'; reason: string }
  | { outcome: 'skipped'; reason: string };

/** A webhook's outcome: applied, a repeat of one applied (duplicate), or of a shape not acted on (ignored). */
export interface WebhookResult {
  duplicate: boolean;
  ignored: boolean;
  type: string;
}

export interface PaymentsService {
  /** STRIPE_SECRET_KEY is set: card features work. */
  readonly cardPaymentsAvailable: boolean;
  startCheckout(user: CurrentUser, purpose: CheckoutPurpose): Promise<{ url: string }>;
  completeCheckout(user: CurrentUser, sessionId: string, actor: AuditActor): Promise<CompleteResult>;
  removeCard(user: CurrentUser, actor: AuditActor): Promise<{ removed: boolean }>;
  /** Charges an issued card invoice off-session for what remains. */
  chargeInvoice(invoiceId: string): Promise<ChargeOutcome>;
  /** The close's afterIssue: charges each card invoice in turn; never throws (failures are logged). */
  chargeInvoices(invoiceIds: string[]): Promise<void>;
  /** Charges every card invoice whose retry is due (the retry job; tests call it with a date). */
  runDueRetries(now?: Date): Promise<{ attempted: number }>;
  /** POST /webhooks/stripe: verifies the signature on the raw bytes, applies the event once. */
  handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookResult>;
  /** Creates the Stripe Product of a paid dataset (after its write committed); never throws. */
  syncDatasetProduct(datasetId: string): void;
  /** Waits for background work (product syncs, mails) started so far. */
  idle(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export interface PaymentsDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
  log: FastifyBaseLogger;
  stripe?: StripeClient;
  changes?: ChangeFeed;
}

/** A Stripe failure that is not the customer's doing: unreachable, 5xx, rate limit, bad key. */
function isStripeOutage(err: unknown): boolean {
  return (
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    err instanceof Stripe.errors.StripeAuthenticationError ||
    (err instanceof Stripe.errors.StripeError && (err.statusCode ?? 500) >= 500)
  );
}

const isMissing = (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing';

/**
 * An invoice of the account is issued, partially paid or overdue with something still owed: the
 * card cannot be removed (and GET /billing/account shows has_open_invoice).
 */
export async function hasOpenInvoice(ex: Executor, billingAccountId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: invoices.id })
    .from(invoices)
    .where(
      and(
        eq(invoices.billingAccountId, billingAccountId),
        inArray(invoices.status, OPEN),
        sql`${invoices.totalYen} - ${invoices.creditAppliedYen} - ${invoices.paidYen} > 0`,
      ),
    )
    .limit(1);
  return Boolean(row);
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === 'string' ? v : v.id);

export function createPaymentsService(deps: PaymentsDeps): PaymentsService {
  const { db, config, mailer, log, stripe, changes } = deps;
  const background = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  let retrying: Promise<unknown> | undefined;

  function inBackground(p: Promise<unknown>) {
    const tracked = p.catch((err) => log.warn({ err }, 'payments background task failed'));
    background.add(tracked);
    void tracked.finally(() => background.delete(tracked));
  }

  function requireStripe(): StripeClient {
    if (!stripe) throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.cardUnavailable);
    return stripe;
  }

  /** Runs a Stripe call from a user's request: an outage becomes a clear 503, a missing object a 404. */
  async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (isMissing(err)) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      log.error({ err, what }, 'Stripe call failed');
      throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.stripeDown);
    }
  }

  /** The Stripe Customer of a billing account, created on first need (idempotent per account). */
  async function ensureCustomer(s: StripeClient, account: BillingAccountRow): Promise<string> {
    if (account.stripeCustomerId) return account.stripeCustomerId;
    const customer = await s.customers.create(
      {
        name: account.addressee,
        ...(account.billingEmails[0] ? { email: account.billingEmails[0] } : {}),
        metadata: { billing_account_id: account.id, customer_number: account.customerNumber },
      },
      { idempotencyKey: `billing_account:${account.id}:customer` },
    );
    await db
      .update(billingAccounts)
      .set({ stripeCustomerId: customer.id, updatedAt: sql`now()` })
      .where(and(eq(billingAccounts.id, account.id), isNull(billingAccounts.stripeCustomerId)));
    const [row] = await db.select({ id: billingAccounts.stripeCustomerId }).from(billingAccounts).where(eq(billingAccounts.id, account.id));
    return row?.id ?? customer.id;
  }

  async function pendingCardApplication(ex: Executor, userId: string, statuses: Array<'pending' | 'active'>) {
    const [corp] = await ex
      .select()
      .from(corporateAccounts)
      .where(and(eq(corporateAccounts.appliedBy, userId), eq(corporateAccounts.paymentMethod, 'card'), inArray(corporateAccounts.status, statuses)))
      .orderBy(sql`${corporateAccounts.createdAt} desc`)
      .limit(1);
    return corp;
  }

  /** Corporate members other than the owner and billing contacts may not change the company's card. */
  function assertMayManageCard(user: CurrentUser) {
    if (user.corporateAccountId && user.corporateRole === 'member') throw new AppError('FORBIDDEN', paymentMessages.notBillingManager);
  }

  // ------------------------------------------------------------------ saving a card

  /**
   * Saves the card of a completed setup session on the billing account and applies the purpose
   * (upgrade, corporate activation), in one transaction with audit rows; a repeat is a no-op.
   */
  async function applyCompletedSetup(
    meta: { userId: string; billingAccountId: string; purpose: CheckoutPurpose },
    pm: Stripe.PaymentMethod,
    actor: AuditActor,
    /** Runs first in the same transaction (the webhook stores its event); false = already applied. */
    first?: (tx: Executor) => Promise<boolean>,
  ): Promise<{ result: CompleteResult; replacedPaymentMethod: string | null } | undefined> {
    const card = pm.card;
    if (!card) throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
    const cardView = { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year };
    let userChanged = false;
    const alsoChanged: string[] = [];
    const out = await db.transaction(async (tx) => {
      if (first && !(await first(tx))) return undefined;
      const [user] = await tx.select().from(users).where(eq(users.id, meta.userId)).for('update').limit(1);
      if (!user) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      const [account] = await tx.select().from(billingAccounts).where(eq(billingAccounts.id, meta.billingAccountId)).for('update').limit(1);
      if (!account) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);

      let corp: typeof corporateAccounts.$inferSelect | undefined;
      if (meta.purpose === 'corporate') {
        [corp] = await tx.select().from(corporateAccounts).where(eq(corporateAccounts.id, account.corporateAccountId ?? '00000000-0000-0000-0000-000000000000')).for('update').limit(1);
        if (!corp || corp.appliedBy !== user.id) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
        if (corp.status !== 'pending' && corp.status !== 'active') throw new AppError('CONFLICT', paymentMessages.corporateApplicationClosed);
      } else if (account.userId !== user.id && (!account.corporateAccountId || account.corporateAccountId !== user.corporateAccountId)) {
        throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      }

      let replaced: string | null = null;
      if (account.cardPaymentMethodId !== pm.id) {
        replaced = account.cardPaymentMethodId;
        await tx
          .update(billingAccounts)
          .set({ cardPaymentMethodId: pm.id, cardBrand: card.brand, cardLast4: card.last4, cardExpMonth: card.exp_month, cardExpYear: card.exp_year, updatedAt: sql`now()` })
          .where(eq(billingAccounts.id, account.id));
        await writeAudit(tx, actor, {
          action: 'billing_account.card_saved',
          targetType: 'billing_account',
          targetId: account.id,
          before: account.cardLast4 ? { brand: account.cardBrand, last4: account.cardLast4 } : null,
          after: { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year, purpose: meta.purpose },
        });
      }

      let accountType = user.accountType;
      if (meta.purpose === 'upgrade_individual' && user.accountType === 'trial') {
        accountType = 'individual';
        await tx.update(users).set({ accountType, updatedAt: sql`now()` }).where(eq(users.id, user.id));
        await writeAudit(tx, actor, { action: 'user.account_type_changed', targetType: 'user', targetId: user.id, before: { account_type: 'trial' }, after: { account_type: 'individual', via: 'card_saved' } });
        userChanged = true;
      }
      if (meta.purpose === 'corporate' && corp?.status === 'pending') {
        // The same activation an administrator's approval runs (billing/corporate-activation.ts).
        const activated = await activateCorporateAccount(tx, actor, corp, { via: 'card_saved' });
        accountType = 'corporate';
        userChanged = true;
        for (const id of activated.affectedUserIds) if (id !== user.id) alsoChanged.push(id);
      }
      const result: CompleteResult = { card: cardView, purpose: meta.purpose, account_type: accountType, next: meta.purpose === 'card' ? '/billing' : '/upgrade' };
      return { result, replacedPaymentMethod: replaced };
    });
    if (userChanged) changes?.changed('user', meta.userId);
    for (const id of alsoChanged) changes?.changed('user', id);
    return out;
  }

  /** The card of a completed setup session (its SetupIntent's PaymentMethod), made the customer's default. */
  async function setupCardOf(s: StripeClient, session: Pick<Stripe.Checkout.Session, 'setup_intent' | 'customer'>): Promise<Stripe.PaymentMethod> {
    let si = session.setup_intent;
    if (typeof si === 'string') si = await s.setupIntents.retrieve(si, { expand: ['payment_method'] });
    if (!si || si.status !== 'succeeded') throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
    let pm = si.payment_method;
    if (typeof pm === 'string') pm = await s.paymentMethods.retrieve(pm);
    if (!pm) throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
    const customer = idOf(session.customer);
    if (customer) await s.customers.update(customer, { invoice_settings: { default_payment_method: pm.id } });
    return pm;
  }

  function metaOf(session: { metadata?: Stripe.Metadata | null }): { userId: string; billingAccountId: string; purpose: CheckoutPurpose } | undefined {
    const m = session.metadata ?? {};
    const purpose = m.purpose as CheckoutPurpose | undefined;
    if (!m.user_id || !m.billing_account_id || !purpose || !['card', 'upgrade_individual', 'corporate'].includes(purpose)) return undefined;
    return { userId: m.user_id, billingAccountId: m.billing_account_id, purpose };
  }

  function detachLater(paymentMethodId: string | null) {
    if (!paymentMethodId || !stripe) return;
    inBackground(stripe.paymentMethods.detach(paymentMethodId).catch((err) => log.info({ err, paymentMethodId }, 'old card not detached')));
  }

  // ------------------------------------------------------------------ charging

  async function loadInvoice(ex: Executor, id: string, lock = false) {
    const q = ex.select().from(invoices).where(eq(invoices.id, id)).limit(1);
    const [row] = lock ? await q.for('update') : await q;
    return row;
  }

  /**
   * Books a succeeded PaymentIntent against its invoice, once: the charge's own answer and the
   * webhook may both arrive (in either order); payments.stripe_payment_intent_id is unique and
   * the invoice row lock orders them, so the second finds the payment and does nothing.
   */
  async function recordCardPayment(ex: Executor, pi: CardIntent, eventCreated: number | null): Promise<'recorded' | 'duplicate' | 'ignored'> {
    const invoiceId = pi.metadata?.invoice_id;
    if (!invoiceId || pi.status !== 'succeeded') return 'ignored';
    if (pi.currency !== 'jpy') {
      log.error({ paymentIntent: pi.id, currency: pi.currency }, 'card payment in a currency other than JPY ignored');
      return 'ignored';
    }
    const invoice = await loadInvoice(ex, invoiceId, true);
    if (!invoice || !invoice.number) return 'ignored';
    const [existing] = await ex.select({ id: payments.id }).from(payments).where(eq(payments.stripePaymentIntentId, pi.id)).limit(1);
    if (existing) return 'duplicate';
    const amount = pi.amount_received || pi.amount;
    if (['paid', 'void', 'uncollectible'].includes(invoice.status)) {
      // Money arrived for an invoice settled meanwhile (e.g. by transfer): it becomes credit, once.
      const [seen] = await ex
        .select({ id: auditLogs.id })
        .from(auditLogs)
        .where(and(eq(auditLogs.action, 'billing_account.card_payment_credited'), eq(auditLogs.targetId, pi.id)))
        .limit(1);
      if (seen) return 'duplicate';
      await ex.update(billingAccounts).set({ creditYen: sql`${billingAccounts.creditYen} + ${amount}`, updatedAt: sql`now()` }).where(eq(billingAccounts.id, invoice.billingAccountId));
      await writeAudit(ex, SYSTEM_ACTOR, { action: 'billing_account.card_payment_credited', targetType: 'payment_intent', targetId: pi.id, after: { invoice_id: invoice.id, amount, billing_account_id: invoice.billingAccountId } });
      return 'recorded';
    }
    await recordPayment(ex, SYSTEM_ACTOR, { invoiceId: invoice.id, method: 'card', amountYen: amount, receivedOn: dayOf(new Date()), stripePaymentIntentId: pi.id });
    await ex
      .update(invoices)
      .set({
        stripePaymentIntentId: pi.id,
        lastPaymentError: null,
        payNowUrl: null,
        ...(eventCreated ? { providerStateAt: sql`greatest(coalesce(${invoices.providerStateAt}, 0), ${eventCreated})` } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(invoices.id, invoice.id));
    return 'recorded';
  }

  function mailInvoiceOf(invoice: InvoiceRow, amount: number) {
    const r = invoice.recipientSnapshot as { addressee?: string; honorific?: string };
    return { number: invoice.number ?? '', amountYen: amount, addressee: r.addressee ?? '', honorific: r.honorific ?? '様' };
  }

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
        success_url: `${config.publicUrl}/billing?invoice=${invoice.id}&paid=1`,
        cancel_url: `${config.publicUrl}/billing?invoice=${invoice.id}`,
        locale: 'ja',
      },
      { idempotencyKey: `invoice:${invoice.id}:attempt:${attempt}:pay_now` },
    );
    return session.url;
  }

  async function recordFailure(invoice: InvoiceRow, attempt: number, kind: 'declined' | 'authentication_required', message: string, paymentIntentId: string | null, payNowUrl: string | null, amount: number): Promise<ChargeOutcome> {
    const overdue = attempt >= MAX_CARD_ATTEMPTS;
    const retryAt = overdue ? null : nextRetryAt(invoice.issueDate ?? dayOf(new Date()), attempt);
    const applied = await db.transaction(async (tx) => {
      const current = await loadInvoice(tx, invoice.id, true);
      // Someone else already handled this attempt (a concurrent retry), or it got paid meanwhile.
      if (!current || current.paymentAttempts !== attempt - 1 || !CHARGEABLE.includes(current.status)) return undefined;
      const [updated] = await tx
        .update(invoices)
        .set({
          paymentAttempts: attempt,
          nextRetryAt: retryAt,
          lastPaymentError: message,
          status: overdue ? 'overdue' : current.status,
          ...(paymentIntentId ? { stripePaymentIntentId: paymentIntentId } : {}),
          ...(payNowUrl ? { payNowUrl } : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(invoices.id, invoice.id))
        .returning();
      await writeAudit(tx, SYSTEM_ACTOR, {
        action: 'invoice.card_payment_failed',
        targetType: 'invoice',
        targetId: invoice.id,
        before: { status: current.status, payment_attempts: current.paymentAttempts },
        after: { status: updated!.status, payment_attempts: attempt, reason: kind, next_retry_at: retryAt?.toISOString() ?? null, payment_intent: paymentIntentId, pay_now_url: payNowUrl },
      });
      return updated!;
    });
    if (!applied) return { outcome: 'skipped', reason: 'handled elsewhere' };
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.id, invoice.billingAccountId)).limit(1);
    const to = account?.billingEmails ?? [];
    const inv = mailInvoiceOf(applied, amount);
    for (const address of to) {
      const mail =
        kind === 'authentication_required' && payNowUrl
          ? buildPayNowMail(address, inv, payNowUrl)
          : buildDeclinedMail(address, inv, message, retryAt ? dayOf(retryAt) : null, `${config.publicUrl}/billing`);
      inBackground(mailer.send(mail));
    }
    return { outcome: kind, attempts: attempt, overdue };
  }

  async function chargeInvoice(invoiceId: string): Promise<ChargeOutcome> {
    if (!stripe) {
      log.warn({ invoiceId }, 'card invoice not charged: Stripe is not configured');
      return { outcome: 'skipped', reason: 'stripe not configured' };
    }
    const invoice = await loadInvoice(db, invoiceId);
    if (!invoice || !invoice.number || invoice.paymentMethod !== 'card' || !CHARGEABLE.includes(invoice.status)) return { outcome: 'skipped', reason: 'not a chargeable card invoice' };
    const amount = remainingYen(invoice);
    if (amount <= 0) return { outcome: 'skipped', reason: 'nothing remains' };
    if (amount < STRIPE_MIN_JPY) return { outcome: 'skipped', reason: 'below the card minimum' };
    const attempt = invoice.paymentAttempts + 1;
    const [account] = await db.select().from(billingAccounts).where(eq(billingAccounts.id, invoice.billingAccountId)).limit(1);
    if (!account?.cardPaymentMethodId || !account.stripeCustomerId) {
      return recordFailure(invoice, attempt, 'declined', paymentMessages.noCardForCharge, null, null, amount);
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
          return recordFailure(invoice, attempt, 'authentication_required', paymentMessages.authenticationRequired, piId, url, amount);
        }
        return recordFailure(invoice, attempt, 'declined', declineMessage(err.code, err.decline_code), piId, null, amount);
      }
      if (!isStripeOutage(err)) {
        // Refused for another reason (e.g. the card was detached on Stripe's side): a failed attempt.
        log.error({ err, invoiceId, attempt }, 'card charge refused by Stripe');
        return recordFailure(invoice, attempt, 'declined', paymentMessages.chargeFailed, null, null, amount);
      }
      // Stripe unreachable or failing: nothing changed there; the same attempt (same key) runs again later.
      log.error({ err, invoiceId, attempt }, 'card charge failed: Stripe unavailable');
      await db
        .update(invoices)
        .set({ nextRetryAt: new Date(Date.now() + UNREACHABLE_RETRY_MS), updatedAt: sql`now()` })
        .where(and(eq(invoices.id, invoice.id), eq(invoices.paymentAttempts, invoice.paymentAttempts)));
      return { outcome: 'retry_later', reason: 'stripe unavailable' };
    }
    if (pi.status === 'succeeded') {
      await db.transaction((tx) => recordCardPayment(tx, pi, null));
      return { outcome: 'paid', paymentIntentId: pi.id };
    }
    // processing (or anything else): the webhook books it.
    await db.update(invoices).set({ stripePaymentIntentId: pi.id, nextRetryAt: null, updatedAt: sql`now()` }).where(eq(invoices.id, invoice.id));
    return { outcome: 'processing', paymentIntentId: pi.id };
  }

  async function runDueRetries(now: Date = new Date()): Promise<{ attempted: number }> {
    const due = await db
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.paymentMethod, 'card'), inArray(invoices.status, CHARGEABLE), isNotNull(invoices.number), lte(invoices.nextRetryAt, now)))
      .orderBy(invoices.nextRetryAt)
      .limit(500);
    for (const { id } of due) {
      try {
        await chargeInvoice(id);
      } catch (err) {
        log.error({ err, invoiceId: id }, 'card retry failed');
      }
    }
    return { attempted: due.length };
  }

  // ------------------------------------------------------------------ webhooks

  async function storeEvent(tx: Executor, event: EventEnvelope, objectId: string | null): Promise<boolean> {
    const rows = await tx
      .insert(providerEvents)
      .values({ id: event.id, type: event.type, providerCreated: event.created, objectId })
      .onConflictDoNothing()
      .returning({ id: providerEvents.id });
    return rows.length === 1;
  }

  async function paymentFailedEvent(tx: Executor, event: EventEnvelope, pi: CardIntent) {
    const invoiceId = pi.metadata?.invoice_id;
    if (!invoiceId) return;
    const invoice = await loadInvoice(tx, invoiceId, true);
    if (!invoice || !OPEN.includes(invoice.status)) return;
    // An older event never undoes a newer state; a payment already booked for this intent wins.
    if (invoice.providerStateAt != null && invoice.providerStateAt > event.created) return;
    const [paid] = await tx.select({ id: payments.id }).from(payments).where(eq(payments.stripePaymentIntentId, pi.id)).limit(1);
    if (paid) return;
    const error = pi.last_payment_error;
    await tx
      .update(invoices)
      .set({ lastPaymentError: declineMessage(error?.code ?? undefined, error?.decline_code ?? undefined), providerStateAt: event.created, stripePaymentIntentId: pi.id, updatedAt: sql`now()` })
      .where(eq(invoices.id, invoice.id));
  }

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
        const [seen] = await db.select({ id: providerEvents.id }).from(providerEvents).where(eq(providerEvents.id, event.id)).limit(1);
        if (seen) return { duplicate: true, ignored: false, type: event.type };
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
          const applied = await applyCompletedSetup(meta, pm, SYSTEM_ACTOR, (tx) => storeEvent(tx, event, objectId));
          if (!applied) duplicate = true;
          else detachLater(applied.replacedPaymentMethod);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          // Not applicable (e.g. the application was rejected meanwhile): remembered, not retried.
          log.warn({ err, eventId: event.id }, 'checkout.session.completed not applied');
          duplicate = !(await db.transaction((tx) => storeEvent(tx, event, objectId)));
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
        await db.transaction(async (tx) => {
          if (!(await storeEvent(tx, event, objectId))) {
            duplicate = true;
            return;
          }
          await recordCardPayment(tx, pi, event.created);
        });
        return { duplicate, ignored: false, type: event.type };
      }
    }

    await db.transaction(async (tx) => {
      if (!(await storeEvent(tx, event, objectId))) {
        duplicate = true;
        return;
      }
      if (event.type === 'payment_intent.succeeded') await recordCardPayment(tx, checked!.data as CardIntent, event.created);
      else if (event.type === 'payment_intent.payment_failed') await paymentFailedEvent(tx, event, checked!.data as CardIntent);
    });
    return { duplicate, ignored: false, type: event.type };
  }

  // ------------------------------------------------------------------ products of paid datasets

  async function createProduct(s: StripeClient, datasetId: string) {
    const [dataset] = await db.select({ id: datasets.id, name: datasets.name, price: datasets.pricePerSearch, productId: datasets.stripeProductId }).from(datasets).where(eq(datasets.id, datasetId)).limit(1);
    if (!dataset || dataset.productId || toSen(dataset.price) <= 0) return;
    const product = await s.products.create({ name: dataset.name, metadata: { dataset_id: dataset.id } }, { idempotencyKey: `dataset:${dataset.id}:product` });
    await db.update(datasets).set({ stripeProductId: product.id }).where(and(eq(datasets.id, dataset.id), isNull(datasets.stripeProductId)));
  }

  return {
    cardPaymentsAvailable: Boolean(stripe),

    async startCheckout(user, purpose) {
      const s = requireStripe();
      let account: BillingAccountRow;
      if (purpose === 'upgrade_individual') {
        if (user.accountType !== 'trial') throw new AppError('CONFLICT', paymentMessages.alreadyUpgraded);
        account = await ensureBillingAccountForUser(db, user.id);
      } else if (purpose === 'corporate') {
        const corp = await pendingCardApplication(db, user.id, ['pending']);
        if (!corp) throw new AppError('CONFLICT', paymentMessages.noCorporateApplication);
        account = await ensureCorporateBillingAccount(db, corp);
      } else {
        if (user.accountType === 'trial') throw new AppError('CONFLICT', paymentMessages.trialUseUpgrade);
        assertMayManageCard(user);
        account = await ensureBillingAccountForUser(db, user.id);
      }
      const customer = await call('customers.create', () => ensureCustomer(s, account));
      const session = await call('checkout.sessions.create', () =>
        s.checkout.sessions.create({
          mode: 'setup',
          customer,
          currency: 'jpy',
          allowed_payment_method_types: ['card'],
          success_url: `${config.publicUrl}/payment-method/complete?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${config.publicUrl}${purpose === 'card' ? '/payment-method' : '/upgrade'}`,
          metadata: { user_id: user.id, billing_account_id: account.id, purpose },
          setup_intent_data: { metadata: { user_id: user.id, billing_account_id: account.id, purpose } },
          locale: 'ja',
        }),
      );
      if (!session.url) throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.stripeDown);
      return { url: session.url };
    },

    async completeCheckout(user, sessionId, actor) {
      const s = requireStripe();
      const session = await call('checkout.sessions.retrieve', () => s.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] }));
      const meta = metaOf(session);
      // Someone else's session (or not one of ours) is not found, as any other id.
      if (!meta || meta.userId !== user.id || session.mode !== 'setup') throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      if (session.status !== 'complete') throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
      const pm = await call('setup card', () => setupCardOf(s, session));
      const applied = (await applyCompletedSetup(meta, pm, actor))!;
      detachLater(applied.replacedPaymentMethod);
      return applied.result;
    },

    async removeCard(user, actor) {
      assertMayManageCard(user);
      const account = await findBillingAccountByUser(db, user.id);
      if (!account?.cardPaymentMethodId) return { removed: false };
      const s = requireStripe();
      if (await hasOpenInvoice(db, account.id)) throw new AppError('CONFLICT', paymentMessages.openInvoice);
      await call('paymentMethods.detach', async () => {
        try {
          await s.paymentMethods.detach(account.cardPaymentMethodId!);
        } catch (err) {
          // Already detached or gone on Stripe's side: clearing ours is what is left to do.
          if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
        }
      });
      await db.transaction(async (tx) => {
        await tx
          .update(billingAccounts)
          .set({ cardPaymentMethodId: null, cardBrand: null, cardLast4: null, cardExpMonth: null, cardExpYear: null, updatedAt: sql`now()` })
          .where(eq(billingAccounts.id, account.id));
        await writeAudit(tx, actor, { action: 'billing_account.card_removed', targetType: 'billing_account', targetId: account.id, before: { brand: account.cardBrand, last4: account.cardLast4 }, after: null });
      });
      return { removed: true };
    },

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

    runDueRetries,
    handleWebhook,

    syncDatasetProduct(datasetId) {
      if (!stripe) return;
      inBackground(createProduct(stripe, datasetId).catch((err) => log.warn({ err, datasetId }, 'Stripe product not created for the dataset')));
    },

    async idle() {
      while (background.size) await Promise.all([...background]);
    },

    start() {
      if (!config.billingJobs || !stripe || timer) return;
      timer = setInterval(() => {
        if (retrying) return;
        retrying = runDueRetries()
          .catch((err) => log.error({ err }, 'card retry job failed'))
          .finally(() => {
            retrying = undefined;
          });
      }, RETRY_JOB_INTERVAL_MS);
      timer.unref();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await retrying;
      await Promise.all([...background]);
    },
  };
}
