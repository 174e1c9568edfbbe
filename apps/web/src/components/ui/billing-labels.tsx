import type { InvoiceStatus, PaymentMethod } from '@poi/shared/schemas/invoices';
import { formatYen } from '@poi/shared/format';

export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = {
  draft: '下書き',
  issued: '発行済',
  paid: '支払済',
  partially_paid: '一部入金',
  overdue: '期限超過',
  void: '無効',
  uncollectible: '回収不能',
};

const STATUS_CLASSES: Record<InvoiceStatus, string> = {
  draft: 'bg-gray-100 text-gray-800',
  issued: 'bg-blue-100 text-blue-900',
  paid: 'bg-green-100 text-green-900',
  partially_paid: 'bg-amber-100 text-amber-900',
  overdue: 'bg-red-100 text-red-900',
  void: 'bg-gray-200 text-gray-800',
  uncollectible: 'bg-gray-200 text-gray-900',
};

export function InvoiceStatusBadge({ status }: { status: InvoiceStatus }) {
  return <span className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${STATUS_CLASSES[status]}`}>{INVOICE_STATUS_LABELS[status]}</span>;
}

export const PAYMENT_METHOD_LABELS: Record<PaymentMethod, string> = { card: 'クレジットカード', bank_transfer: '銀行振込(請求書払い)' };
export const PAYMENT_LABELS: Record<'card' | 'bank_transfer' | 'credit', string> = { card: 'カード', bank_transfer: '銀行振込', credit: 'クレジット充当' };

/** Invoice amounts are whole yen. */
export const yen = (value: number) => formatYen(value, 0);
/** Unit prices carry 2 decimals. */
export const unitYen = (value: number) => formatYen(value, 2);
export const slashDate = (value: string | null) => (value ? value.replaceAll('-', '/') : '—');
