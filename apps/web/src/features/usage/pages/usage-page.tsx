import { useSearchParams } from 'react-router';
import { Download, RefreshCw } from 'lucide-react';
import { currentYearMonth, formatDateTime } from '@poi/shared/format';
import { yearMonthOf } from '@poi/shared/billing-time';
import { useAuth } from '../../../lib/auth-store';
import { Button } from '../../../components/ui/button';
import { FiguresTable } from '../../../components/ui/figures-table';
import { FIRST_MONTH, MonthPicker } from '../../../components/ui/month-picker';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { USAGE_FETCH_FAILED, USAGE_REFRESH_SECONDS, useUsageSummary } from '../api/usage-api';
import { UsageFigures } from '../../../components/charts/usage-figures';
import { DailyChart } from '../../../components/charts/daily-chart';
import { downloadBlob } from '../../../lib/browser-files';
import { usageCsv } from '../usage-csv';

const YEAR_MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
type Metric = 'searches' | 'amount';

/** /usage: the month (?month=YYYY-MM) and the chart's figure (?chart=amount) live in the URL, so a reload or a shared link keeps them. */
const formatTime = (ms: number) => new Date(ms).toLocaleTimeString('ja-JP', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function UsagePage() {
  const [params, setParams] = useSearchParams();
  const { user } = useAuth();
  // The months offered start at the account's first month (Japan time), not the service's.
  const created = user?.created_at ? new Date(user.created_at) : null;
  const firstMonth = created && !Number.isNaN(created.getTime()) ? yearMonthOf(created) : FIRST_MONTH;
  const monthParam = params.get('month');
  const yearMonth = monthParam && YEAR_MONTH.test(monthParam) && monthParam <= currentYearMonth() && monthParam >= firstMonth ? monthParam : currentYearMonth();
  const metric: Metric = params.get('chart') === 'amount' ? 'amount' : 'searches';
  const update = (key: 'month' | 'chart', value: string | null) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value === null) next.delete(key);
        else next.set(key, value);
        return next;
      },
      { replace: true },
    );
  const setYearMonth = (m: string) => update('month', m === currentYearMonth() ? null : m);
  const setMetric = (m: Metric) => update('chart', m === 'searches' ? null : m);
  const usage = useUsageSummary(yearMonth);

  let body;
  if (usage.isPending) body = <LoadingBlock />;
  else if (usage.isError) body = <ErrorBlock message={getErrorMessage(usage.error, USAGE_FETCH_FAILED)} onRetry={() => void usage.refetch()} />;
  else {
    const data = usage.data;
    body = (
      <div className="space-y-6" aria-busy={usage.isFetching}>
        <UsageFigures data={data} />
        <p className="text-xs text-gray-700">
          {formatDateTime(data.as_of)} 時点の集計です(直前までの検索を含みます)。
          <span data-testid="usage-updated-at">最終更新 {formatTime(usage.dataUpdatedAt)}</span>(画面を開いている間は{USAGE_REFRESH_SECONDS}秒ごとと、ウィンドウに戻ったときに更新します)
        </p>
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
                  className={`min-h-11 rounded px-3 py-1 sm:min-h-0 ${metric === m ? 'bg-blue-700 text-white' : 'text-gray-800 hover:bg-gray-100'}`}
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
          <FiguresTable
            caption="APIキー別"
            nameHeader="APIキー"
            yenHeader="料金"
            rows={data.by_key.map((k) => ({ id: k.api_key_id, name: k.name, sub: k.prefix ? `${k.prefix}…` : undefined, searches: k.searches, yen: k.amount }))}
          />
          <FiguresTable
            caption="データセット別"
            nameHeader="データセット"
            yenHeader="料金"
            rows={data.by_dataset.map((d) => ({ id: d.dataset_id, name: d.dataset_name, searches: d.searches, yen: d.amount }))}
          />
        </div>
        <FiguresTable
          caption="日別"
          nameHeader="日付"
          yenHeader="料金"
          rows={data.daily.filter((d) => d.searches > 0).map((d) => ({ id: d.date, name: d.date.replaceAll('-', '/'), searches: d.searches, yen: d.amount }))}
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
            <Button variant="secondary" disabled={!usage.data} onClick={() => usage.data && downloadBlob(`usage-${usage.data.year_month}.csv`, new Blob([usageCsv(usage.data)], { type: 'text/csv;charset=utf-8' }))}>
              <Download className="h-4 w-4" aria-hidden="true" />
              CSVダウンロード
            </Button>
          </>
        }
      />
      <div className="mb-6">
        <MonthPicker id="usage-month" value={yearMonth} onChange={setYearMonth} first={firstMonth} />
      </div>
      {body}
    </div>
  );
}
