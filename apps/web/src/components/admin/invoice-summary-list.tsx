import type { InvoiceStatus } from '@poi/shared/schemas/invoices';
import { INVOICE_STATUS_LABELS, yen } from '../ui/billing-labels';
import { InvoiceActions } from './invoice-actions';

interface InvoiceSummary {
  id: string;
  number: string | null;
  year_month: string;
  total: number;
  /** Shown when the screen has it (a corporate account's invoices). */
  paid?: number;
  /** Σ of its credit notes; shown when there are any. */
  credited: number;
  status: string;
}

// The user detail's contract types the status as a plain string; an unknown one is shown as sent.
const statusLabel = (status: string): string => (status in INVOICE_STATUS_LABELS ? INVOICE_STATUS_LABELS[status as InvoiceStatus] : status);

/**
 * The invoices of a user or a company in an admin detail: number, month, total, what was paid,
 * what credit notes returned,
 * status in Japanese, and the adjustments an issued invoice allows (void, credit note, write-off).
 */
export function InvoiceSummaryList({ invoices, headingId }: { invoices: InvoiceSummary[]; headingId: string }) {
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className="mb-1 font-semibold text-gray-900">
        請求書
      </h3>
      {invoices.length ? (
        <ul className="space-y-1">
          {invoices.map((i) => (
            <li key={i.id} className="tabular-nums text-gray-900">
              {i.number ?? '(未発行)'} ・ {i.year_month} ・ {yen(i.total)}
              {i.paid === undefined ? ' ・ ' : `(入金 ${yen(i.paid)})・ `}
              {i.credited > 0 ? `返還 ${yen(i.credited)} ・ ` : ''}
              {statusLabel(i.status)}
              {i.number ? <InvoiceActions invoice={i} /> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-gray-700">請求書はありません</p>
      )}
    </section>
  );
}
