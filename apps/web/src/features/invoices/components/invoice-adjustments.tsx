import { Download } from 'lucide-react';
import type { InvoiceDetail } from '@poi/shared/schemas/invoices';
import { Button } from '../../../components/ui/button';
import { slashDate, yen } from '../../../components/ui/billing-labels';

const day = (iso: string | null) => slashDate(iso ? new Date(iso).toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' }) : null);

/** Why an invoice is void (無効) or written off (貸倒れ), or that credit notes left nothing to pay. */
export function InvoiceAdjustmentNotice({ invoice: inv }: { invoice: InvoiceDetail }) {
  if (inv.status === 'void') {
    return (
      <p className="rounded-lg border border-gray-300 bg-gray-50 p-3 text-sm text-gray-900">
        この請求書は {day(inv.voided_at)} に無効になりました(理由: {inv.void_reason ?? '—'})。お支払いは不要です。
      </p>
    );
  }
  if (inv.status === 'uncollectible') {
    return (
      <p className="rounded-lg border border-gray-300 bg-gray-50 p-3 text-sm text-gray-900">
        この請求書は {day(inv.written_off_at)} に貸倒れとして処理されました(理由: {inv.write_off_reason ?? '—'})。
      </p>
    );
  }
  if (inv.credited > 0 && inv.remaining === 0 && inv.status !== 'paid') {
    return <p className="rounded-lg border border-green-200 bg-green-50 p-3 text-sm text-green-900">返還請求書により全額が返還されたため、お支払いは不要です。</p>;
  }
  return null;
}

/** The invoice's credit notes (適格返還請求書): number, date, amount with its tax, how it was returned, the PDF. */
export function CreditNoteList({ invoice: inv, busy, onDownload }: { invoice: InvoiceDetail; busy: string | undefined; onDownload: (key: string, pdfPath: string, number: string) => void }) {
  if (!inv.credit_notes.length) return null;
  return (
    <section aria-labelledby="credit-notes-heading" className="space-y-2">
      <h2 id="credit-notes-heading" className="text-lg font-semibold text-gray-900">
        返還請求書
      </h2>
      <ul className="divide-y divide-gray-100 rounded-lg border border-gray-200 bg-white text-sm">
        {inv.credit_notes.map((n) => (
          <li key={n.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
            <span className="min-w-0 break-words">
              {slashDate(n.issue_date)} ・ {n.number} ・ 返還額 {yen(n.amount)}(うち消費税 {n.tax_rate_percent}% {yen(n.tax)})
              {n.credited_to_account > 0 ? ` ・ うち ${yen(n.credited_to_account)} はクレジット残高として次回以降のご請求に充当` : ''}
              <span className="block text-gray-700">理由: {n.reason}</span>
            </span>
            <Button variant="secondary" aria-label={`返還請求書PDF ${n.number}`} disabled={busy === n.id} onClick={() => onDownload(n.id, n.pdf_path, n.number)}>
              <Download className="h-4 w-4" aria-hidden="true" />
              返還請求書PDF
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
