import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { billingAccounts, invoices } from '../../db/schema/invoices';
import { payments } from '../../db/schema/payments';
import { writeAudit, type AuditActor } from '../audit/audit';
import { remainingYen, type InvoiceRow, type PaymentRow } from '../invoices/invoices.mapper';
import { nextReceiptNumber } from '../invoices/numbering';

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
