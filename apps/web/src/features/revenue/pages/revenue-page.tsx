import { Fragment, useState } from 'react';
import { ChevronDown, ChevronRight } from 'lucide-react';
import { currentYearMonth, formatNumber, formatYen } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import { FiguresTable } from '../../../components/ui/figures-table';
import { MonthPicker } from '../../../components/ui/month-picker';
import { PageHeader } from '../../../components/ui/page-header';
import { StatCard } from '../../../components/ui/stat-card';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { useDatasetRevenue, useMonthlyRevenue } from '../api/revenue-api';
import { DailyChart } from '../../../components/charts/daily-chart';

/** The daily figures of one dataset, shown when its row is opened. */
function DatasetDaily({ datasetId, yearMonth }: { datasetId: string; yearMonth: string }) {
  const detail = useDatasetRevenue(datasetId, yearMonth);
  if (detail.isPending) return <LoadingBlock />;
  if (detail.isError) return <ErrorBlock message={messages.revenueFailed} onRetry={() => void detail.refetch()} />;
  return (
    <div className="space-y-3">
      <DailyChart label="日別の収益" metric="yen" points={detail.data.daily.map((d) => ({ date: d.date, value: d.revenue }))} />
      <FiguresTable
        caption="日別"
        nameHeader="日付"
        yenHeader="収益"
        rows={detail.data.daily.filter((d) => d.searches > 0).map((d) => ({ id: d.date, name: d.date.replaceAll('-', '/'), searches: d.searches, yen: d.revenue }))}
      />
    </div>
  );
}

/** Revenue report: month picker, three summary cards, per-dataset table. */
export function RevenuePage() {
  const [yearMonth, setYearMonth] = useState(currentYearMonth());
  const [open, setOpen] = useState<string | null>(null);
  const report = useMonthlyRevenue(yearMonth);

  let body;
  if (report.isPending) body = <LoadingBlock />;
  else if (report.isError) body = <ErrorBlock message={messages.revenueFailed} onRetry={() => void report.refetch()} />;
  else {
    const data = report.data;
    body = (
      <div className="space-y-6" aria-busy={report.isFetching}>
        <div className="grid gap-4 sm:grid-cols-3">
          <StatCard label="総収益" value={formatYen(data.total_revenue, 2)} testId="revenue-total" />
          <StatCard label="総検索回数" value={formatNumber(data.total_searches)} testId="revenue-searches" />
          <StatCard label="データセット数" value={formatNumber(data.dataset_count)} testId="revenue-datasets" />
        </div>
        {data.datasets.length ? (
          // Hand-written, not DataTable: a dataset's row opens a second row below it (its daily
          // figures), which DataTable's one-row-per-item shape does not have.
          <div tabIndex={0} className="overflow-x-auto rounded-lg border border-gray-200 bg-white">
            <table className="min-w-full text-sm">
              <thead className="bg-gray-50 text-left text-xs font-semibold text-gray-700">
                <tr>
                  <th scope="col" className="px-4 py-3">データセット名</th>
                  <th scope="col" className="px-4 py-3 text-right">検索回数</th>
                  <th scope="col" className="px-4 py-3 text-right">収益</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-gray-100">
                {data.datasets.map((d) => {
                  const isOpen = open === d.dataset_id;
                  return (
                    <Fragment key={d.dataset_id}>
                      <tr className="hover:bg-gray-50">
                        <td className="px-4 py-3">
                          <button
                            type="button"
                            aria-expanded={isOpen}
                            onClick={() => setOpen(isOpen ? null : d.dataset_id)}
                            className="flex min-h-6 items-center gap-1 text-left font-medium text-blue-800 hover:underline"
                          >
                            {isOpen ? <ChevronDown className="h-4 w-4 shrink-0" aria-hidden="true" /> : <ChevronRight className="h-4 w-4 shrink-0" aria-hidden="true" />}
                            <span className="break-words">{d.dataset_name}</span>
                          </button>
                        </td>
                        <td className="whitespace-nowrap px-4 py-3 text-right tabular-nums">{formatNumber(d.searches)}</td>
                        <td className="whitespace-nowrap px-4 py-3 text-right tabular-nums">{formatYen(d.revenue, 2)}</td>
                      </tr>
                      {isOpen ? (
                        <tr>
                          <td colSpan={3} className="bg-gray-50 px-4 py-4">
                            <DatasetDaily datasetId={d.dataset_id} yearMonth={yearMonth} />
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : (
          <EmptyBlock message="この月の収益データはありません。" />
        )}
      </div>
    );
  }

  return (
    <div>
      <PageHeader title="収益レポート" description="データセットが公開検索APIで検索された回数と、受け取る収益(価格 × 検索回数 × 収益分配率)です。" />
      <div className="mb-6">
        <MonthPicker
          id="revenue-month"
          value={yearMonth}
          onChange={(m) => {
            setYearMonth(m);
            setOpen(null);
          }}
        />
      </div>
      {body}
    </div>
  );
}
