import type { CreditNote, InvoiceSummary, Payment } from '@poi/shared/schemas/invoices';
import type { creditNotes } from '../../db/schema/credit-notes';
import type { invoices } from '../../db/schema/invoices';
import type { payments } from '../../db/schema/payments';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type CreditNoteRow = typeof creditNotes.$inferSelect;

/**
 * What is still owed, the one definition (its SQL twin is `owedSql` in invoices.repository.ts):
 * total − credit applied − paid (received + fees booked) − credited (Σ credit notes), never below 0;
 * nothing for a void invoice (the SQL callers leave void ones out by status).
 */
export const remainingYen = (inv: Pick<InvoiceRow, 'totalYen' | 'creditAppliedYen' | 'paidYen' | 'creditedYen'> & { status?: InvoiceRow['status'] }): number =>
  inv.status === 'void' ? 0 : Math.max(0, inv.totalYen - inv.creditAppliedYen - inv.paidYen - inv.creditedYen);

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
    credited: row.creditedYen,
    remaining: remainingYen(row),
    payment_method: row.paymentMethod,
    addressee: recipient.addressee ?? '',
    last_payment_error: row.lastPaymentError,
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

export function toCreditNote(row: CreditNoteRow): CreditNote {
  return {
    id: row.id,
    number: row.number,
    invoice_id: row.invoiceId,
    issue_date: row.issueDate,
    amount: row.amountYen,
    subtotal: row.subtotalYen,
    tax: row.taxYen,
    tax_rate_percent: row.taxRateBp / 100,
    applied_to_invoice: row.appliedToInvoiceYen,
    credited_to_account: row.creditedToAccountYen,
    description: row.description,
    reason: row.reason,
    pdf_path: `/billing/credit-notes/${row.id}/pdf`,
  };
}
