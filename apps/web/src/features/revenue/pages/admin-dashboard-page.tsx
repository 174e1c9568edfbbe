import { Link } from 'react-router';
import { AlertTriangle } from 'lucide-react';
import { ACCOUNT_TYPE_LABELS, type AccountType } from '@poi/shared/roles';
import { formatYen } from '@poi/shared/format';
import { BarChartWithTable } from '../../../components/charts/bar-chart';
import { monthLabel } from '../../../components/ui/month-picker';
import { PageHeader } from '../../../components/ui/page-header';
import { StatCard } from '../../../components/ui/stat-card';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { yen } from '../../../components/ui/billing-labels';
import { useAdminDashboard } from '../api/admin-revenue-api';
import { dateTime } from '../../../components/admin/admin-labels';
import { AuditList } from '../../../components/admin/audit-list';

/** /admin/dashboard: the money of the last billed month, 12 months of it, pending work, recent changes, configuration warnings. */
export function AdminDashboardPage() {
  const dashboard = useAdminDashboard();
  if (dashboard.isPending) return <LoadingBlock />;
  if (dashboard.isError) return <ErrorBlock message={getErrorMessage(dashboard.error, '管理ダッシュボードの取得に失敗しました')} onRetry={() => void dashboard.refetch()} />;
  const d = dashboard.data;
  const m = d.billed_month;
  const pending: Array<{ label: string; count: number; to: string; note?: string }> = [
    { label: '審査待ちの法人申し込み', count: d.pending_applications, to: '/admin/corporate?status=pending' },
    { label: '入金待ちの銀行振込', count: d.pending_transfers, to: '/admin/transfers' },
    { label: '支払期限を過ぎた請求書', count: d.overdue.count, to: '/admin/transfers', note: yen(d.overdue.amount) },
    { label: 'カード決済の失敗', count: d.failed_card_payments, to: '/admin/users?card_failed=1' },
  ];
  return (
    <div className="space-y-6">
      <PageHeader title="管理ダッシュボード" description={`${dateTime(d.as_of)} 時点`} />
      {d.warnings.length ? (
        <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
          <p className="flex items-center gap-2 font-semibold">
            <AlertTriangle className="h-4 w-4" aria-hidden /> 本番運用の前に設定が必要です
          </p>
          <ul className="mt-2 list-disc space-y-1 pl-5">
            {d.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <section aria-labelledby="dash-month-h">
        <h2 id="dash-month-h" className="mb-2 text-lg font-semibold text-gray-900">
          {monthLabel(m.year_month)}分(今月発行)
        </h2>
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          <StatCard label="請求額(税抜)" value={yen(m.billed)} note={`請求書 ${m.invoices.toLocaleString('ja-JP')} 通`} testId="dash-billed" />
          <StatCard label="消費税" value={yen(m.tax)} />
          <StatCard label="提供者への分配" value={formatYen(m.provider_share, 2)} />
          <StatCard label="プラットフォーム純収益" value={formatYen(m.platform_net, 2)} />
          <StatCard label="回収済" value={yen(m.collected)} />
          <StatCard label="未回収" value={yen(m.outstanding)} />
          <StatCard label="返還（返還請求書）" value={yen(m.credited)} />
          <StatCard label="今日の検索" value={`${d.searches_today.toLocaleString('ja-JP')}回`} />
          <StatCard label="今月の検索" value={`${d.searches_this_month.toLocaleString('ja-JP')}回`} />
        </div>
      </section>
      <BarChartWithTable
        label="月別の請求額(税抜)"
        metric="yen"
        yenDecimals={0}
        labelHeader="月"
        points={d.months.map((x) => ({ label: monthLabel(x.year_month), value: x.billed }))}
      />
      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="dash-pending-h">
          <h2 id="dash-pending-h" className="mb-2 text-lg font-semibold text-gray-900">
            対応待ち
          </h2>
          <ul className="divide-y divide-gray-100 rounded-lg border border-gray-200 bg-white">
            {pending.map((p) => (
              <li key={p.label}>
                <Link to={p.to} className="flex min-h-11 items-center justify-between gap-3 px-4 py-2 text-sm text-gray-900 hover:bg-gray-50">
                  <span>{p.label}</span>
                  <span className={`tabular-nums font-semibold ${p.count ? 'text-red-800' : 'text-gray-700'}`}>
                    {p.count.toLocaleString('ja-JP')}件{p.note && p.count ? `(${p.note})` : ''}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          <h2 className="mb-2 mt-6 text-lg font-semibold text-gray-900">今月の新規登録</h2>
          {d.signups_this_month.length ? (
            <ul className="grid grid-cols-2 gap-2 text-sm">
              {d.signups_this_month.map((s) => (
                <li key={s.account_type} className="rounded-md border border-gray-200 bg-white px-3 py-2">
                  {ACCOUNT_TYPE_LABELS[s.account_type as AccountType] ?? s.account_type}: <span className="font-semibold tabular-nums">{s.count.toLocaleString('ja-JP')}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-gray-700">今月の新規登録はまだありません</p>
          )}
        </section>
        <section aria-labelledby="dash-audit-h">
          <h2 id="dash-audit-h" className="mb-2 text-lg font-semibold text-gray-900">
            最近の操作
          </h2>
          <AuditList entries={d.recent_audit} />
        </section>
      </div>
    </div>
  );
}
