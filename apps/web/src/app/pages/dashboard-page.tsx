import { Link } from 'react-router';
import { currentYearMonth } from '@poi/shared/format';
import { UsageFigures } from '../../components/charts/usage-figures';
import { PageHeader } from '../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../components/ui/state-blocks';
import { getErrorMessage } from '../../lib/api-client';
import { useAuth } from '../../lib/auth-store';
import { GettingStarted, Shortcuts } from '../../features/dashboard/components/getting-started';
import { USAGE_FETCH_FAILED, useUsageSummary } from '../../features/usage/api/usage-api';

/** /dashboard composes the month's usage (usage) with the first steps and shortcuts (dashboard). */
export function DashboardPage() {
  const { user } = useAuth();
  const name = user?.display_name?.trim() || user?.email || 'ゲスト';
  const usage = useUsageSummary(currentYearMonth());
  const hasKey = (usage.data?.active_keys ?? 0) > 0;
  const hasSearched = (usage.data?.searches ?? 0) > 0;

  return (
    <div className="space-y-8">
      <PageHeader title="ダッシュボード" description={`ようこそ、${name} さん。`} />
      <section aria-labelledby="month">
        <h2 id="month" className="mb-3 font-semibold text-gray-900">
          今月の利用状況
        </h2>
        {usage.isPending ? <LoadingBlock /> : usage.isError ? <ErrorBlock message={getErrorMessage(usage.error, USAGE_FETCH_FAILED)} onRetry={() => void usage.refetch()} /> : <UsageFigures data={usage.data} />}
        <p className="mt-2 text-sm">
          <Link to="/usage" className="inline-flex min-h-6 items-center text-blue-800 underline">
            日別・APIキー別の内訳を見る
          </Link>
        </p>
      </section>

      {!hasSearched ? <GettingStarted hasKey={hasKey} hasSearched={hasSearched} /> : null}

      <Shortcuts />
    </div>
  );
}
