import { formatNumber, formatYen } from '@poi/shared/format';
import type { UsageSummary } from '@poi/shared/schemas/usage';
import { StatCard } from '../ui/stat-card';

/** The month's four headline figures, on /usage and /dashboard. */
export function UsageFigures({ data }: { data: UsageSummary }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      <StatCard label="検索回数" value={`${formatNumber(data.searches)}回`} testId="usage-searches" />
      <StatCard label="料金" value={formatYen(data.amount)} note="税抜。データセット料金と基本料金の合計" testId="usage-amount" />
      <StatCard
        label="無料検索の残り"
        value={`${formatNumber(data.free_searches.remaining)}回`}
        note={`今月 ${formatNumber(data.free_searches.limit)}回のうち ${formatNumber(data.free_searches.used)}回を使用`}
        testId="usage-free-remaining"
      />
      <StatCard label="有効なAPIキー" value={`${data.active_keys}個`} testId="usage-active-keys" />
    </div>
  );
}
