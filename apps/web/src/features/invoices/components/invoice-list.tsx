import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Download } from 'lucide-react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/button';
import { inputClass } from '../../../components/ui/form-field';
import { Pagination } from '../../../components/ui/pagination';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { downloadInvoicesCsv, INVOICE_PAGE_SIZE, useInvoices, type InvoiceFilters } from '../api/invoices-api';
import { InvoiceStatusBadge, slashDate, yen } from '../../../components/ui/billing-labels';

const NO_FILTERS: InvoiceFilters = { issued_from: '', issued_to: '', amount_min: '', amount_max: '' };

/** Issued invoices with combined filters, every page reachable, and the filtered list as CSV. */
export function InvoiceList() {
  const [draft, setDraft] = useState(NO_FILTERS);
  const [filters, setFilters] = useState(NO_FILTERS);
  const [page, setPage] = useState(1);
  const invoices = useInvoices(filters, page);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    setPage(1);
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
  else if (invoices.data.total === 0) body = <EmptyBlock message={filters === NO_FILTERS ? '請求書はまだありません' : '条件に合う請求書はありません'} />;
  else {
    const { total } = invoices.data;
    body = (
      <>
        <div className="overflow-x-auto rounded-lg border border-gray-200 bg-white">
          <table className="min-w-full text-sm">
            <caption className="sr-only">請求書一覧</caption>
            <thead className="bg-gray-50 text-left text-gray-700">
              <tr>
                {['請求書番号', '対象月', '発行日', 'お支払期限', '合計', '状態'].map((h) => (
                  <th key={h} scope="col" className={`whitespace-nowrap px-3 py-2 font-medium ${h === '合計' ? 'text-right' : ''}`}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-100">
              {invoices.data.invoices.map((i) => (
                <tr key={i.id}>
                  <td className="whitespace-nowrap px-3 py-2">
                    <Link to={`/billing/invoices/${i.id}`} className="font-mono text-blue-800 underline">
                      {i.number}
                    </Link>
                  </td>
                  <td className="whitespace-nowrap px-3 py-2">{i.year_month.replace('-', '/')}</td>
                  <td className="whitespace-nowrap px-3 py-2">{slashDate(i.issue_date)}</td>
                  <td className="whitespace-nowrap px-3 py-2">{slashDate(i.due_date)}</td>
                  <td className="whitespace-nowrap px-3 py-2 text-right tabular-nums">{yen(i.total)}</td>
                  <td className="px-3 py-2">
                    <InvoiceStatusBadge status={i.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
