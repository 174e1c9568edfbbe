import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Download } from 'lucide-react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/button';
import { DataTable } from '../../../components/ui/data-table';
import { inputClass } from '../../../components/ui/form-field';
import { Pagination } from '../../../components/ui/pagination';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { useUrlParams } from '../../../lib/use-url-params';
import type { InvoiceSummary } from '@poi/shared/schemas/invoices';
import { downloadInvoicesCsv, INVOICE_PAGE_SIZE, isPayableByCard, useInvoices, type InvoiceFilters } from '../api/invoices-api';
import { InvoiceStatusBadge, slashDate, yen } from '../../../components/ui/billing-labels';

/**
 * The state of a list row. A card invoice whose charge failed does not look like a plain 「発行済」:
 * 「カード決済失敗」 with the reason, or 「支払期限超過」 once the retries are over, each with a link to
 * the invoice page's 「今すぐ支払う」.
 */
function InvoiceRowStatus({ invoice: i }: { invoice: InvoiceSummary }) {
  if (!isPayableByCard(i) || (i.status !== 'overdue' && !i.last_payment_error)) return <InvoiceStatusBadge status={i.status} fullyCredited={i.credited > 0 && i.remaining === 0} />;
  const label = i.status === 'overdue' ? '支払期限超過' : 'カード決済失敗';
  return (
    <div className="max-w-xs space-y-1">
      <span className="inline-block whitespace-nowrap rounded bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900">{label}</span>
      {i.last_payment_error ? <p className="text-xs text-gray-800">{i.last_payment_error}</p> : null}
      <Link to={`/billing/invoices/${i.id}`} className="inline-block text-xs font-semibold text-blue-800 underline" aria-label={`請求書 ${i.number ?? ''} を今すぐ支払う`}>
        今すぐ支払う
      </Link>
    </div>
  );
}

const URL_DEFAULTS = { issued_from: '', issued_to: '', amount_min: '', amount_max: '', page: '1' };

/**
 * Issued invoices with combined filters, every page reachable, and the filtered list as CSV. The
 * applied filters and the page live in the URL (?issued_from=…&page=2), so a reload, the back
 * button or a shared link shows the same list.
 */
export function InvoiceList() {
  const [view, update] = useUrlParams(URL_DEFAULTS);
  const { page: pageParam, ...filters } = view;
  const page = Number(pageParam);
  const filtered = Object.values(filters).some((v) => v !== '');
  // The inputs follow the URL when it changes (back, a link); typing changes only them until 絞り込む.
  const [draft, setDraft] = useState<InvoiceFilters>(filters);
  const urlKey = JSON.stringify(filters);
  const [draftOf, setDraftOf] = useState(urlKey);
  if (draftOf !== urlKey) {
    setDraftOf(urlKey);
    setDraft(filters);
  }
  const invoices = useInvoices(filters, page);
  const setPage = (p: number) => update({ page: String(p) });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    update(draft);
  };
  const field = (key: keyof InvoiceFilters, label: string, type: 'date' | 'number') => (
    <label className="text-sm text-gray-800">
      {label}
      <input
        type={type}
        min={type === 'number' ? 0 : undefined}
        inputMode={type === 'number' ? 'numeric' : undefined}
        className={inputClass}
        value={draft[key]}
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
      />
    </label>
  );

  let body;
  if (invoices.isPending) body = <LoadingBlock />;
  else if (invoices.isError) body = <ErrorBlock message={getErrorMessage(invoices.error, '請求書一覧の取得に失敗しました')} onRetry={() => void invoices.refetch()} />;
  else if (invoices.data.total === 0) body = <EmptyBlock message={filtered ? '条件に合う請求書はありません' : '請求書はまだありません'} />;
  else {
    const { total } = invoices.data;
    body = (
      <>
        <DataTable
          caption="請求書一覧"
          rows={invoices.data.invoices}
          rowKey={(i) => i.id}
          columns={[
            {
              header: '請求書番号',
              cell: (i) => (
                <Link to={`/billing/invoices/${i.id}`} className="font-mono text-blue-800 underline">
                  {i.number}
                </Link>
              ),
            },
            // State and total come right after the number: on a phone the table scrolls sideways and
            // a failed card payment (with its 「今すぐ支払う」) must show without scrolling.
            { header: '状態', cell: (i) => <InvoiceRowStatus invoice={i} />, className: 'px-3 py-2' },
            { header: '合計', cell: (i) => yen(i.total), align: 'right' },
            { header: '対象月', cell: (i) => i.year_month.replace('-', '/') },
            { header: '発行日', cell: (i) => slashDate(i.issue_date) },
            { header: 'お支払期限', cell: (i) => slashDate(i.due_date) },
          ]}
        />
        <Pagination page={page} totalPages={Math.max(1, Math.ceil(total / INVOICE_PAGE_SIZE))} total={total} onChange={setPage} />
      </>
    );
  }

  return (
    <div className="space-y-3">
      <form onSubmit={apply} className="grid grid-cols-1 gap-3 rounded-lg border border-gray-200 bg-white p-3 sm:grid-cols-2 lg:grid-cols-5 lg:items-end" aria-label="請求書の絞り込み">
        {field('issued_from', '発行日(から)', 'date')}
        {field('issued_to', '発行日(まで)', 'date')}
        {field('amount_min', '合計(円以上)', 'number')}
        {field('amount_max', '合計(円以下)', 'number')}
        <div className="flex flex-wrap gap-2">
          <Button type="submit">絞り込む</Button>
          <Button
            variant="secondary"
            onClick={() =>
              void downloadInvoicesCsv(filters).catch((err: unknown) => toast.error(getErrorMessage(err, 'CSVのダウンロードに失敗しました')))
            }
          >
            <Download className="h-4 w-4" aria-hidden="true" />
            CSVダウンロード
          </Button>
        </div>
      </form>
      {body}
    </div>
  );
}
