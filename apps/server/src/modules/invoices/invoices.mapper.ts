import type { InvoiceSummary, Payment } from '@poi/shared/schemas/invoices';
import type { invoices } from '../../db/schema/invoices';
import type { payments } from '../../db/schema/payments';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;

/** What is still owed: total − credit applied − paid (received + fees booked), never below 0. */
export const remainingYen = (inv: Pick<InvoiceRow, 'totalYen' | 'creditAppliedYen' | 'paidYen'>): number =>
  Math.max(0, inv.totalYen - inv.creditAppliedYen - inv.paidYen);

export function toInvoiceSummary(row: InvoiceRow): InvoiceSummary {
  const recipient = row.recipientSnapshot as { addressee?: string };
  return {
    id: row.id,
    number: row.number,
    year_month: row.yearMonth,
    status: row.status,
    period_start: row.periodStart,
    period_end: row.periodEnd,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    subtotal: row.subtotalYen,
    tax: row.taxYen,
    total: row.totalYen,
    credit_applied: row.creditAppliedYen,
    paid: row.paidYen,
    remaining: remainingYen(row),
    payment_method: row.paymentMethod,
    addressee: recipient.addressee ?? '',
  };
}

export function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    method: row.method,
    amount: row.amountYen,
    fee: row.feeYen,
    received_on: row.receivedOn,
    payer_name: row.payerName,
    receipt_number: row.receiptNumber,
  };
}
