import { useState, type ComponentProps } from 'react';
import { currentYearMonth, formatYen } from '@poi/shared/format';
import { Modal } from '../../../components/ui/modal';
import { monthLabel, MonthPicker, selectableMonths } from '../../../components/ui/month-picker';
import { PageHeader } from '../../../components/ui/page-header';
import { StatCard } from '../../../components/ui/stat-card';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { yen } from '../../../components/ui/billing-labels';
import { DataTable } from '../../../components/ui/data-table';
import { CsvButton } from '../../../components/admin/admin-list';
import { usePlatformRevenue, useProviderDetail, useProvidersRevenue } from '../api/admin-revenue-api';
import { useUrlParams } from '../../../lib/use-url-params';

const previousMonth = () => selectableMonths()[1] ?? currentYearMonth();
const sen = (v: number) => formatYen(v, 2);

/** A section's heading (the section's label, by `id`) with the CSV of what the section shows. */
function SectionHeading({ id, title, csv }: { id: string; title: string; csv: ComponentProps<typeof CsvButton> }) {
  return (
    <div className="mb-2 flex items-center justify-between gap-2">
      <h2 id={id} className="text-lg font-semibold text-gray-900">
        {title}
      </h2>
      <CsvButton {...csv} />
    </div>
  );
}

/** /admin/revenue: a month's billed, tax, provider share, platform net, collected and outstanding; per dataset and per provider. */
export function AdminRevenuePage() {
  const [view, update] = useUrlParams({ year_month: previousMonth() }, { year_month: selectableMonths() });
  const month = view.year_month;
  const platform = usePlatformRevenue(month);
  const providers = useProvidersRevenue(month);
  const [providerId, setProviderId] = useState<string | null>(null);
  const csv = (url: string, filename: string) => ({ url, filename, params: { year_month: month } });

  let figures;
  if (platform.isPending) figures = <LoadingBlock />;
  else if (platform.isError) figures = <ErrorBlock message={getErrorMessage(platform.error, '収益の取得に失敗しました')} onRetry={() => void platform.refetch()} />;
  else {
    const f = platform.data.figures;
    figures = (
      <>
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          <StatCard label="請求額(税抜)" value={yen(f.billed)} note={`請求書 ${f.invoices.toLocaleString('ja-JP')} 通`} testId="rev-billed" />
          <StatCard label="消費税" value={yen(f.tax)} />
          <StatCard label="提供者への分配" value={sen(f.provider_share)} testId="rev-share" />
          <StatCard label="プラットフォーム純収益" value={sen(f.platform_net)} testId="rev-net" />
          <StatCard label="請求額(税込)" value={yen(f.total)} />
          <StatCard label="回収済" value={yen(f.collected)} />
          <StatCard label="未回収" value={yen(f.outstanding)} />
          <StatCard label="返還（返還請求書）" value={yen(f.credited)} />
        </div>
        <section aria-labelledby="rev-ds-h" className="mt-6">
          <SectionHeading id="rev-ds-h" title="データセット別" csv={csv('/console/v1/admin/platform/revenue.csv', `platform-revenue-${month}.csv`)} />
          {platform.data.datasets.length ? (
            <DataTable
              caption={`${monthLabel(month)}のデータセット別収益`}
              rows={platform.data.datasets}
              rowKey={(d) => d.dataset_id}
              columns={[
                { header: 'データセット', cell: (d) => d.dataset_name },
                { header: '検索数', cell: (d) => d.searches.toLocaleString('ja-JP'), align: 'right' },
                { header: '請求額', cell: (d) => yen(d.billed), align: 'right' },
                { header: '提供者への分配', cell: (d) => sen(d.provider_share), align: 'right' },
                { header: '提供者', cell: (d) => (d.provider_id ? '提供者' : 'プラットフォーム') },
              ]}
            />
          ) : (
            <EmptyBlock message="この月の利用はありません" />
          )}
        </section>
      </>
    );
  }

  let providerTable;
  if (providers.isPending) providerTable = <LoadingBlock />;
  else if (providers.isError) providerTable = <ErrorBlock message={getErrorMessage(providers.error, '提供者別収益の取得に失敗しました')} onRetry={() => void providers.refetch()} />;
  else if (!providers.data.providers.length) providerTable = <EmptyBlock message="この月に収益のあるデータ提供者はいません" />;
  else
    providerTable = (
      <DataTable
        caption={`${monthLabel(month)}のデータ提供者別収益`}
        rows={providers.data.providers}
        rowKey={(p) => p.provider_id}
        columns={[
          {
            header: 'データ提供者',
            cell: (p) => (
              <button type="button" className="min-h-6 text-left text-blue-700 underline hover:text-blue-900" onClick={() => setProviderId(p.provider_id)}>
                {p.display_name ?? p.email ?? p.provider_id}
              </button>
            ),
          },
          { header: '検索数', cell: (p) => p.searches.toLocaleString('ja-JP'), align: 'right' },
          { header: '売上', cell: (p) => sen(p.gross), align: 'right' },
          { header: '分配額', cell: (p) => sen(p.share), align: 'right' },
          { header: '支払予定額', cell: (p) => sen(p.payable), align: 'right' },
        ]}
      />
    );

  return (
    <div className="space-y-6">
      <PageHeader title="収益集計" description="請求額は各月の請求書、提供者への分配は各提供者の収益レポートと同じ計算です。" />
      <MonthPicker id="admin-revenue-month" value={month} onChange={(ym) => update({ year_month: ym })} />
      {figures}
      <section aria-labelledby="rev-pr-h">
        <SectionHeading id="rev-pr-h" title="データ提供者別" csv={csv('/console/v1/admin/data-providers/revenue.csv', `provider-revenue-${month}.csv`)} />
        {providerTable}
      </section>
      {providerId ? <ProviderDetail id={providerId} onClose={() => setProviderId(null)} /> : null}
    </div>
  );
}

function ProviderDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const detail = useProviderDetail(id);
  let content;
  if (detail.isPending) content = <LoadingBlock />;
  else if (detail.isError) content = <ErrorBlock message={getErrorMessage(detail.error, '収益明細の取得に失敗しました')} onRetry={() => void detail.refetch()} />;
  else
    content = (
      <div className="space-y-4 text-sm">
        {detail.data.months.map((m) => (
          <section key={m.year_month} aria-label={monthLabel(m.year_month)}>
            <h3 className="font-semibold text-gray-900">
              {monthLabel(m.year_month)}: {sen(m.revenue)}({m.searches.toLocaleString('ja-JP')}回)
            </h3>
            {m.datasets.length ? (
              <ul className="mt-1 space-y-0.5 text-gray-800">
                {m.datasets.map((d) => (
                  <li key={d.dataset_id}>
                    {d.dataset_name}: {sen(d.revenue)}({d.searches.toLocaleString('ja-JP')}回)
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        ))}
      </div>
    );
  return (
    <Modal title={detail.data ? `収益明細: ${detail.data.provider.display_name ?? detail.data.provider.email}` : '収益明細'} onClose={onClose} size="lg">
      {content}
    </Modal>
  );
}
