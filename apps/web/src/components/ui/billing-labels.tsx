import type { InvoiceStatus, PaymentMethod } from '@poi/shared/schemas/invoices';
import { formatYen } from '@poi/shared/format';
import { INVOICE_STATUS_LABEL_TEXT } from '@poi/shared/audit-labels';

/** The one list of invoice status labels (packages/shared/src/audit-labels.ts). */
export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = INVOICE_STATUS_LABEL_TEXT;

const STATUS_CLASSES: Record<InvoiceStatus, string> = {
  draft: 'bg-gray-100 text-gray-800',
  issued: 'bg-blue-100 text-blue-900',
  paid: 'bg-green-100 text-green-900',
  partially_paid: 'bg-amber-100 text-amber-900',
  overdue: 'bg-red-100 text-red-900',
  void: 'bg-gray-200 text-gray-800',
  uncollectible: 'bg-gray-200 text-gray-900',
};

const OPEN_STATUSES: InvoiceStatus[] = ['issued', 'partially_paid', 'overdue'];

/**
 * The status in Japanese. `fullyCredited` (credit notes left nothing owed): an open invoice reads
 * 返還済 — its stored status stays, since nothing was paid (docs/billing.md "Void, credit notes and write-off").
 */
export function InvoiceStatusBadge({ status, fullyCredited = false }: { status: InvoiceStatus; fullyCredited?: boolean }) {
  if (fullyCredited && OPEN_STATUSES.includes(status)) return <span className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${STATUS_CLASSES.void}`}>返還済</span>;
  return <span className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${STATUS_CLASSES[status]}`}>{INVOICE_STATUS_LABELS[status]}</span>;
}

export const PAYMENT_METHOD_LABELS: Record<PaymentMethod, string> = { card: 'クレジットカード', bank_transfer: '銀行振込(請求書払い)' };
export const PAYMENT_LABELS: Record<'card' | 'bank_transfer' | 'credit', string> = { card: 'カード', bank_transfer: '銀行振込', credit: 'クレジット充当' };

/** Invoice amounts are whole yen. */
export const yen = (value: number) => formatYen(value, 0);
/** Unit prices carry 2 decimals. */
export const unitYen = (value: number) => formatYen(value, 2);
export const slashDate = (value: string | null) => (value ? value.replaceAll('-', '/') : '—');
