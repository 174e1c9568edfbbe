import { and, desc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { auditLogs } from '../../db/schema/audit';
import { corporateAccounts } from '../../db/schema/corporate';
import { datasets } from '../../db/schema/datasets';
import { billingAccounts, invoices } from '../../db/schema/invoices';
import { payments } from '../../db/schema/payments';
import { users } from '../../db/schema/users';
import { writeAudit, type AuditActor } from '../audit/audit';
import { remainingYen, type InvoiceRow, type PaymentRow } from '../invoices/invoices.mapper';
import { nextReceiptNumber } from '../invoices/numbering.repository';
import { owedSql } from '../invoices/invoices.repository';

export interface NewPayment {
  invoiceId: string;
  method: 'card' | 'bank_transfer' | 'credit';
  amountYen: number;
  /** A shortfall booked as the customer's transfer fee (counts toward paid, not received). */
  feeYen?: number;
  receivedOn: string;
  payerName?: string | null;
  note?: string | null;
  stripePaymentIntentId?: string | null;
}

export interface RecordedPayment {
  invoice: InvoiceRow;
  payment: PaymentRow;
  /** What went beyond the invoice's remaining amount: kept as the account's credit. */
  creditAdded: number;
}

export class InvoiceSettledError extends Error {}

/**
 * Records money received against an issued invoice, in the caller's transaction: locks the
 * invoice, refuses one already settled (InvoiceSettledError → 409), books the payment with a
 * receipt number, moves the status (paid when nothing remains, else partially_paid, keeping
 * overdue while something is still owed after the due date), keeps any excess as credit for the
 * next invoice, and writes the audit row.
 */
export async function recordPayment(ex: Executor, actor: AuditActor, p: NewPayment): Promise<RecordedPayment> {
  const [invoice] = await ex.select().from(invoices).where(eq(invoices.id, p.invoiceId)).for('update').limit(1);
  if (!invoice || !invoice.number) throw new Error(`no issued invoice ${p.invoiceId}`);
  if (['paid', 'void', 'uncollectible'].includes(invoice.status)) throw new InvoiceSettledError(invoice.status);
  const owed = remainingYen(invoice);
  const fee = p.feeYen ?? 0;
  const applied = Math.min(p.amountYen + fee, owed);
  const creditAdded = p.amountYen + fee - applied;
  const paidYen = invoice.paidYen + applied;
  const left = remainingYen({ ...invoice, paidYen });
  const status: InvoiceRow['status'] = left === 0 ? 'paid' : invoice.status === 'overdue' ? 'overdue' : 'partially_paid';
  const [payment] = await ex
    .insert(payments)
    .values({
      invoiceId: invoice.id,
      billingAccountId: invoice.billingAccountId,
      method: p.method,
      amountYen: p.amountYen,
      feeYen: fee,
      receivedOn: p.receivedOn,
      payerName: p.payerName ?? null,
      note: p.note ?? null,
      stripePaymentIntentId: p.stripePaymentIntentId ?? null,
      receiptNumber: await nextReceiptNumber(ex, p.receivedOn),
      createdBy: actor.id,
    })
    .returning();
  const [updated] = await ex
    .update(invoices)
    .set({ paidYen, status, paidAt: left === 0 ? sql`now()` : invoice.paidAt, nextRetryAt: left === 0 ? null : invoice.nextRetryAt, updatedAt: sql`now()` })
    .where(eq(invoices.id, invoice.id))
    .returning();
  if (creditAdded > 0) {
    await ex
      .update(billingAccounts)
      .set({ creditYen: sql`${billingAccounts.creditYen} + ${creditAdded}`, updatedAt: sql`now()` })
      .where(eq(billingAccounts.id, invoice.billingAccountId));
  }
  await writeAudit(ex, actor, {
    action: 'invoice.payment_recorded',
    targetType: 'invoice',
    targetId: invoice.id,
    before: { status: invoice.status, paid: invoice.paidYen },
    after: { status, paid: paidYen, payment_id: payment!.id, method: p.method, amount: p.amountYen, fee, credit_added: creditAdded },
  });
  return { invoice: updated!, payment: payment!, creditAdded };
}

// ------------------------------------------------------------------ card invoices

/** Invoice states a card charge may run in. */
export const CHARGEABLE: InvoiceRow['status'][] = ['issued', 'partially_paid'];
/** Invoice states in which something may still be owed. */
export const OPEN: InvoiceRow['status'][] = ['issued', 'partially_paid', 'overdue'];

export async function findInvoice(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await ex.select().from(invoices).where(eq(invoices.id, id)).limit(1);
  return row;
}

/**
 * The invoice, locked for the rest of the transaction: a charge's answer, its webhook and a
 * concurrent retry are ordered by this row lock.
 */
export async function lockInvoiceForCharge(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await ex.select().from(invoices).where(eq(invoices.id, id)).for('update').limit(1);
  return row;
}

/** A payment was booked for this PaymentIntent (payments.stripe_payment_intent_id is unique). */
export async function hasPaymentForIntent(ex: Executor, paymentIntentId: string): Promise<boolean> {
  const [row] = await ex.select({ id: payments.id }).from(payments).where(eq(payments.stripePaymentIntentId, paymentIntentId)).limit(1);
  return Boolean(row);
}

/** The audit action of card money kept as credit because its invoice was settled meanwhile. */
export const CARD_PAYMENT_CREDITED = 'billing_account.card_payment_credited';

/** The money of this PaymentIntent was already kept as credit (its audit row is the record). */
export async function isCardPaymentCredited(ex: Executor, paymentIntentId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: auditLogs.id })
    .from(auditLogs)
    .where(and(eq(auditLogs.action, CARD_PAYMENT_CREDITED), eq(auditLogs.targetId, paymentIntentId)))
    .limit(1);
  return Boolean(row);
}

/**
 * After a card payment was recorded: remembers the intent, clears the failure and the pay-now
 * link, and moves the provider state time forward (never back) when an event booked it.
 */
export async function markInvoiceCardPaid(ex: Executor, invoiceId: string, paymentIntentId: string, eventCreated: number | null): Promise<void> {
  await ex
    .update(invoices)
    .set({
      stripePaymentIntentId: paymentIntentId,
      lastPaymentError: null,
      payNowUrl: null,
      ...(eventCreated ? { providerStateAt: sql`greatest(coalesce(${invoices.providerStateAt}, 0), ${eventCreated})` } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(invoices.id, invoiceId));
}

export interface CardFailure {
  attempt: number;
  nextRetryAt: Date | null;
  message: string;
  overdue: boolean;
  paymentIntentId: string | null;
  payNowUrl: string | null;
}

/** Books a failed card attempt on the (locked) invoice: its count, next retry, message and maybe overdue. */
export async function recordCardFailure(ex: Executor, current: InvoiceRow, f: CardFailure): Promise<InvoiceRow> {
  const [updated] = await ex
    .update(invoices)
    .set({
      paymentAttempts: f.attempt,
      nextRetryAt: f.nextRetryAt,
      lastPaymentError: f.message,
      status: f.overdue ? 'overdue' : current.status,
      ...(f.paymentIntentId ? { stripePaymentIntentId: f.paymentIntentId } : {}),
      ...(f.payNowUrl ? { payNowUrl: f.payNowUrl } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(invoices.id, current.id))
    .returning();
  return updated!;
}

/**
 * Stripe could not be reached: the same attempt runs again at `at`, unless another run counted
 * an attempt meanwhile (the attempt count is the guard).
 */
export async function postponeCardAttempt(ex: Executor, invoiceId: string, attemptsSeen: number, at: Date): Promise<void> {
  await ex
    .update(invoices)
    .set({ nextRetryAt: at, updatedAt: sql`now()` })
    .where(and(eq(invoices.id, invoiceId), eq(invoices.paymentAttempts, attemptsSeen)));
}

/** The charge is processing on Stripe's side: no retry; the webhook books it. */
export async function markCardProcessing(ex: Executor, invoiceId: string, paymentIntentId: string): Promise<void> {
  await ex.update(invoices).set({ stripePaymentIntentId: paymentIntentId, nextRetryAt: null, updatedAt: sql`now()` }).where(eq(invoices.id, invoiceId));
}

/** A payment_intent.payment_failed event: the message shown, and the event's time as the invoice's provider state. */
export async function recordCardFailureEvent(ex: Executor, invoiceId: string, paymentIntentId: string, message: string, eventCreated: number): Promise<void> {
  await ex
    .update(invoices)
    .set({ lastPaymentError: message, providerStateAt: eventCreated, stripePaymentIntentId: paymentIntentId, updatedAt: sql`now()` })
    .where(eq(invoices.id, invoiceId));
}

/**
 * Card invoices of the account a newly saved card pays at once: overdue ones (the automatic retries
 * are over) and issued / partially paid ones whose charge was declined and waits for a retry.
 * Only this explicit path charges an overdue invoice; the retry job never selects one.
 */
export async function cardInvoicesToChargeWithNewCard(ex: Executor, billingAccountId: string): Promise<string[]> {
  const rows = await ex
    .select({ id: invoices.id })
    .from(invoices)
    .where(
      and(
        eq(invoices.billingAccountId, billingAccountId),
        eq(invoices.paymentMethod, 'card'),
        isNotNull(invoices.number),
        sql`${owedSql()} > 0`,
        or(eq(invoices.status, 'overdue'), and(inArray(invoices.status, CHARGEABLE), gt(invoices.paymentAttempts, 0), isNotNull(invoices.nextRetryAt))),
      ),
    )
    .orderBy(invoices.issueDate, invoices.id);
  return rows.map((r) => r.id);
}

// ------------------------------------------------------------------ paying an invoice on demand

/** The audit action that records each pay-on-demand Checkout Session (and is where it is looked up). */
export const PAY_SESSION_CREATED = 'invoice.pay_session_created';

export interface PaySession {
  attempt: number;
  sessionId: string;
  url: string;
  amount: number;
}

/** The newest pay-on-demand Checkout Session of the invoice (its audit row), if any. */
export async function latestPaySession(ex: Executor, invoiceId: string): Promise<PaySession | undefined> {
  const [row] = await ex
    .select({ after: auditLogs.after })
    .from(auditLogs)
    .where(and(eq(auditLogs.targetType, 'invoice'), eq(auditLogs.targetId, invoiceId), eq(auditLogs.action, PAY_SESSION_CREATED)))
    .orderBy(desc(auditLogs.id))
    .limit(1);
  const a = row?.after as { attempt?: number; session_id?: string; url?: string; amount?: number } | undefined;
  if (!a?.session_id || !a.url || typeof a.attempt !== 'number' || typeof a.amount !== 'number') return undefined;
  return { attempt: a.attempt, sessionId: a.session_id, url: a.url, amount: a.amount };
}

/** Issued card invoices whose retry is due at `now`, the longest waiting first (at most `limit`). */
export async function dueCardRetries(ex: Executor, now: Date, limit = 500): Promise<string[]> {
  const rows = await ex
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.paymentMethod, 'card'), inArray(invoices.status, CHARGEABLE), isNotNull(invoices.number), lte(invoices.nextRetryAt, now)))
    .orderBy(invoices.nextRetryAt)
    .limit(limit);
  return rows.map((r) => r.id);
}

// ------------------------------------------------------------------ saving a card

export type UserRow = typeof users.$inferSelect;
export type CorporateAccountRow = typeof corporateAccounts.$inferSelect;

/** The newest card-paying corporate application of the user in one of `statuses`. */
export async function findCardApplication(ex: Executor, userId: string, statuses: Array<'pending' | 'active'>): Promise<CorporateAccountRow | undefined> {
  const [corp] = await ex
    .select()
    .from(corporateAccounts)
    .where(and(eq(corporateAccounts.appliedBy, userId), eq(corporateAccounts.paymentMethod, 'card'), inArray(corporateAccounts.status, statuses)))
    .orderBy(desc(corporateAccounts.createdAt))
    .limit(1);
  return corp;
}

export async function lockUser(ex: Executor, id: string): Promise<UserRow | undefined> {
  const [row] = await ex.select().from(users).where(eq(users.id, id)).for('update').limit(1);
  return row;
}

export async function lockCorporateAccount(ex: Executor, id: string): Promise<CorporateAccountRow | undefined> {
  const [row] = await ex.select().from(corporateAccounts).where(eq(corporateAccounts.id, id)).for('update').limit(1);
  return row;
}

export async function setUserAccountType(ex: Executor, id: string, accountType: UserRow['accountType']): Promise<void> {
  await ex.update(users).set({ accountType, updatedAt: sql`now()` }).where(eq(users.id, id));
}

// ------------------------------------------------------------------ Stripe Products of paid datasets

export async function findDatasetForProduct(ex: Executor, id: string) {
  const [row] = await ex.select({ id: datasets.id, name: datasets.name, price: datasets.pricePerSearch, productId: datasets.stripeProductId }).from(datasets).where(eq(datasets.id, id)).limit(1);
  return row;
}

/** Remembers the dataset's Stripe Product unless one was stored meanwhile. */
export async function setDatasetProductId(ex: Executor, id: string, productId: string): Promise<void> {
  await ex.update(datasets).set({ stripeProductId: productId }).where(and(eq(datasets.id, id), isNull(datasets.stripeProductId)));
}
