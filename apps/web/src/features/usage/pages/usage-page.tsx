import { useState } from 'react';
import { Download, RefreshCw } from 'lucide-react';
import { currentYearMonth, formatDateTime, formatNumber, formatYen } from '@poi/shared/format';
import { Button } from '../../../components/ui/button';
import { MonthPicker } from '../../../components/ui/month-picker';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { USAGE_FETCH_FAILED, useUsageSummary } from '../api/usage-api';
import { UsageFigures } from '../components/usage-figures';
import { DailyChart } from '../components/daily-chart';
import { downloadText, usageCsv } from '../usage-csv';

function BreakdownTable({ caption, nameHeader, rows }: { caption: string; nameHeader: string; rows: Array<{ id: string; name: string; sub?: string; searches: number; amount: number }> }) {
  return (
    <section className="rounded-lg border border-gray-200 bg-white">
      <h2 className="border-b border-gray-200 px-4 py-3 font-semibold text-gray-900">{caption}</h2>
      {rows.length ? (
        <div className="overflow-x-auto">
          <table className="min-w-full text-sm">
            <thead className="bg-gray-50 text-left text-xs font-semibold text-gray-700">
              <tr>
                <th scope="col" className="px-4 py-2">{nameHeader}</th>
                <th scope="col" className="px-4 py-2 text-right">検索回数</th>
                <th scope="col" className="px-4 py-2 text-right">料金</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-100">
              {rows.map((r) => (
                <tr key={r.id}>
                  <td className="px-4 py-2">
                    <span className="break-words">{r.name}</span>
                    {r.sub ? <span className="ml-2 font-mono text-xs text-gray-700">{r.sub}</span> : null}
                  </td>
                  <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">{formatNumber(r.searches)}</td>
                  <td className="whitespace-nowrap px-4 py-2 text-right tabular-nums">{formatYen(r.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="px-4 py-6 text-sm text-gray-700">この月の検索はありません。</p>
      )}
    </section>
  );
}

export function UsagePage() {
  const [yearMonth, setYearMonth] = useState(currentYearMonth());
  const [metric, setMetric] = useState<'searches' | 'amount'>('searches');
  const usage = useUsageSummary(yearMonth);

  let body;
  if (usage.isPending) body = <LoadingBlock />;
  else if (usage.isError) body = <ErrorBlock message={getErrorMessage(usage.error, USAGE_FETCH_FAILED)} onRetry={() => void usage.refetch()} />;
  else {
    const data = usage.data;
    body = (
      <div className="space-y-6" aria-busy={usage.isFetching}>
        <UsageFigures data={data} />
        <p className="text-xs text-gray-700">{formatDateTime(data.as_of)} 時点の集計です(直前までの検索を含みます)。</p>
        <section aria-labelledby="daily-heading" className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="daily-heading" className="font-semibold text-gray-900">
              日別の推移
            </h2>
            <div role="group" aria-label="グラフの表示項目" className="inline-flex rounded-md border border-gray-300 bg-white p-0.5 text-sm">
              {(['searches', 'amount'] as const).map((m) => (
                <button
                  key={m}
                  type="button"
                  aria-pressed={metric === m}
                  onClick={() => setMetric(m)}
                  className={`rounded px-3 py-1 ${metric === m ? 'bg-blue-700 text-white' : 'text-gray-800 hover:bg-gray-100'}`}
                >
                  {m === 'searches' ? '検索回数' : '料金'}
                </button>
              ))}
            </div>
          </div>
          <DailyChart
            label={metric === 'searches' ? '日別の検索回数' : '日別の料金'}
            metric={metric === 'searches' ? 'count' : 'yen'}
            points={data.daily.map((d) => ({ date: d.date, value: metric === 'searches' ? d.searches : d.amount }))}
          />
        </section>
        <div className="grid gap-6 lg:grid-cols-2">
          <BreakdownTable
            caption="APIキー別"
            nameHeader="APIキー"
            rows={data.by_key.map((k) => ({ id: k.api_key_id, name: k.name, sub: k.prefix ? `${k.prefix}…` : undefined, searches: k.searches, amount: k.amount }))}
          />
          <BreakdownTable
            caption="データセット別"
            nameHeader="データセット"
            rows={data.by_dataset.map((d) => ({ id: d.dataset_id, name: d.dataset_name, searches: d.searches, amount: d.amount }))}
          />
        </div>
        <BreakdownTable
          caption="日別"
          nameHeader="日付"
          rows={data.daily.filter((d) => d.searches > 0).map((d) => ({ id: d.date, name: d.date.replaceAll('-', '/'), searches: d.searches, amount: d.amount }))}
        />
      </div>
    );
  }

  return (
    <div>
      <PageHeader
        title="使用量"
        description="公開検索APIの検索回数と料金です。成功した検索(HTTP 200)だけが課金されます。"
        actions={
          <>
            <Button variant="secondary" onClick={() => void usage.refetch()} disabled={usage.isFetching}>
              <RefreshCw className={`h-4 w-4 ${usage.isFetching ? 'animate-spin' : ''}`} aria-hidden="true" />
              更新
            </Button>
            <Button variant="secondary" disabled={!usage.data} onClick={() => usage.data && downloadText(`usage-${usage.data.year_month}.csv`, usageCsv(usage.data))}>
              <Download className="h-4 w-4" aria-hidden="true" />
              CSVダウンロード
            </Button>
          </>
        }
      />
      <div className="mb-6">
        <MonthPicker id="usage-month" value={yearMonth} onChange={setYearMonth} />
      </div>
      {body}
    </div>
  );
}
