import { dayOf, yearMonthOf } from '@poi/shared/billing-time';
import { senToYen } from '@poi/shared/money';
import type {
  AdminDashboard,
  MonthFigures,
  PlatformRevenue,
  ProviderRevenueDetail,
  ProvidersRevenue,
} from '@poi/shared/schemas/revenue';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { csvDocument } from '@poi/shared/csv';
import { AppError } from '../../lib/errors';
import { toAuditEntry } from '../audit/audit';
import { previousYearMonth } from '../invoices/charges';
import { commerceOf, missingBank } from '../commerce/commerce';
import { countUsersWithFailedCardPayment } from '../users/users.repository';
import {
  dashboardCounts,
  findUserBrief,
  invoiceFiguresByMonth,
  platformDatasetFigures,
  platformDatasetRevenue,
  providerDatasetMonths,
  providerShares,
  providerShareSenByMonth,
  recentAudit,
  searchesOfDays,
  signupsSince,
} from './revenue.repository';

const num = (v: unknown) => Number(v ?? 0);

/**
 * The admin money views: a month's invoices (billed, tax, collected, outstanding), the
 * providers' shares (exactly their /revenue reports: each dataset's revenue units of the month
 * floored to the sen), per dataset and per provider, the platform's own datasets, and the admin
 * dashboard. Aggregates only (no per-row queries); a closed month's provider shares never change
 * once the month is over, so they are computed once per month and kept.
 */
export function createAdminRevenueService(deps: { db: Db; config: Pick<Config, 'issuer' | 'bank' | 'bankUnset' | 'stripe'>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const shareCache = new Map<string, number>();

  const monthBounds = (ym: string) => {
    const [y, m] = ym.split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    return [`${ym}-01`, `${ym}-${String(last).padStart(2, '0')}`] as const;
  };

  /** Provider shares in sen per month: Σ over (recipient, dataset) of ⌊units / 10,000⌋. */
  async function providerShareSen(months: string[]): Promise<Map<string, number>> {
    const current = yearMonthOf(now());
    const out = new Map<string, number>();
    const todo = months.filter((m) => {
      const kept = shareCache.get(m);
      if (kept !== undefined) out.set(m, kept);
      return kept === undefined;
    });
    if (todo.length) {
      const first = monthBounds([...todo].sort()[0]!)[0];
      const last = monthBounds([...todo].sort().at(-1)!)[1];
      const found = await providerShareSenByMonth(db, first, last);
      const byMonth = new Map(found.map((r) => [String(r.ym), num(r.sen)]));
      for (const m of todo) {
        const sen = byMonth.get(m) ?? 0;
        out.set(m, sen);
        if (m < current) shareCache.set(m, sen);
      }
    }
    return out;
  }

  async function monthFigures(months: string[]): Promise<MonthFigures[]> {
    const [invoiceRows, shares] = await Promise.all([
      invoiceFiguresByMonth(db, months),
      providerShareSen(months),
    ]);
    const byMonth = new Map(invoiceRows.map((r) => [String(r.year_month), r]));
    return months.map((ym) => {
      const r = byMonth.get(ym) ?? {};
      const billed = num(r.billed);
      const shareSen = shares.get(ym) ?? 0;
      return {
        year_month: ym,
        invoices: num(r.invoices),
        billed,
        tax: num(r.tax),
        total: num(r.total),
        provider_share: senToYen(shareSen),
        platform_net: senToYen(billed * 100 - shareSen),
        collected: num(r.collected),
        outstanding: num(r.outstanding),
        credited: num(r.credited),
      };
    });
  }

  const lastMonths = (count: number, endingWith: string) => {
    const out = [endingWith];
    while (out.length < count) out.unshift(previousYearMonth(out[0]!));
    return out;
  };

  async function providers(yearMonth: string): Promise<ProvidersRevenue> {
    const [first, last] = monthBounds(yearMonth);
    const found = await providerShares(db, first, last);
    const list = found.map((r) => ({
      provider_id: String(r.recipient_id),
      email: (r.email as string | null) ?? null,
      display_name: (r.display_name as string | null) ?? null,
      searches: num(r.searches),
      gross: senToYen(num(r.gross_sen)),
      share: senToYen(num(r.share_sen)),
      payable: senToYen(num(r.share_sen)),
    }));
    return { year_month: yearMonth, providers: list, total_share: senToYen(found.reduce((n, r) => n + num(r.share_sen), 0)) };
  }

  return {
    monthFigures,

    async platform(yearMonth: string): Promise<PlatformRevenue> {
      const [first, last] = monthBounds(yearMonth);
      const [[figures], datasetRows] = await Promise.all([
        monthFigures([yearMonth]),
        platformDatasetFigures(db, first, last, yearMonth),
      ]);
      return {
        figures: figures!,
        datasets: datasetRows.map((r) => ({
          dataset_id: String(r.dataset_id),
          dataset_name: String(r.name),
          provider_id: (r.provider_id as string | null) ?? null,
          searches: num(r.searches),
          billed: num(r.billed),
          provider_share: senToYen(num(r.share_sen)),
        })),
      };
    },

    providers,

    async providerDetail(providerId: string, months = 12): Promise<ProviderRevenueDetail> {
      const [user] = await findUserBrief(db, providerId);
      if (!user) throw new AppError('NOT_FOUND', 'データ提供者が見つかりません');
      const list = lastMonths(months, yearMonthOf(now()));
      const found = await providerDatasetMonths(db, providerId, monthBounds(list[0]!)[0], monthBounds(list.at(-1)!)[1]);
      return {
        provider: { id: String(user.id), email: String(user.email), display_name: (user.display_name as string | null) ?? null, account_type: String(user.account_type) },
        months: list
          .map((ym) => {
            const ds = found.filter((r) => r.ym === ym);
            return {
              year_month: ym,
              searches: ds.reduce((n, r) => n + num(r.searches), 0),
              revenue: senToYen(ds.reduce((n, r) => n + num(r.sen), 0)),
              datasets: ds.map((r) => ({ dataset_id: String(r.dataset_id), dataset_name: String(r.name), searches: num(r.searches), revenue: senToYen(num(r.sen)) })),
            };
          })
          .reverse(),
      };
    },

    async platformDatasets(yearMonth: string) {
      const [first, last] = monthBounds(yearMonth);
      const found = await platformDatasetRevenue(db, first, last);
      const datasets = found.map((r) => ({ dataset_id: String(r.dataset_id), dataset_name: String(r.name), searches: num(r.searches), revenue: senToYen(num(r.sen)) }));
      return {
        year_month: yearMonth,
        total_revenue: senToYen(found.reduce((n, r) => n + num(r.sen), 0)),
        total_searches: datasets.reduce((n, d) => n + d.searches, 0),
        datasets,
      };
    },

    async dashboard(): Promise<AdminDashboard> {
      const at = now();
      const thisMonth = yearMonthOf(at);
      const billedMonth = previousYearMonth(thisMonth);
      const [first, last] = monthBounds(thisMonth);
      const today = dayOf(at);
      const [months, [counts], failedCards, signups, [searches], audit] = await Promise.all([
        monthFigures(lastMonths(12, billedMonth)),
        dashboardCounts(db),
        // Users, not invoices: the figure links to /admin/users?card_failed=1 and equals its rows.
        countUsersWithFailedCardPayment(db),
        signupsSince(db, new Date(`${first}T00:00:00+09:00`)),
        searchesOfDays(db, today, first, last),
        recentAudit(db, 10),
      ]);
      const warnings: string[] = [];
      const commerce = commerceOf(deps.config);
      if (!commerce.complete) warnings.push(`特定商取引法に基づく表記の必須項目が未設定です: ${commerce.missing.join(', ')}`);
      if (!deps.config.issuer.registrationNumber) warnings.push('ISSUER_REGISTRATION_NUMBER が未設定のため、請求書が適格請求書になりません');
      if (!deps.config.bank) warnings.push(`${missingBank(deps.config).join(', ')} が未設定のため、銀行振込をご案内できません`);
      if (!deps.config.stripe.secretKey) warnings.push('STRIPE_SECRET_KEY が未設定のため、カード決済が使えません');
      else if (!deps.config.stripe.webhookSecret) warnings.push('STRIPE_WEBHOOK_SECRET が未設定のため、Stripe からの通知を受け取れません');
      return {
        billed_month: months.at(-1)!,
        months,
        overdue: { count: num(counts!.overdue_count), amount: num(counts!.overdue_amount) },
        failed_card_payments: failedCards,
        pending_applications: num(counts!.pending_applications),
        pending_transfers: num(counts!.pending_transfers),
        signups_this_month: signups.map((r) => ({ account_type: String(r.account_type), count: num(r.n) })),
        searches_today: num(searches!.today),
        searches_this_month: num(searches!.month),
        recent_audit: audit.map(toAuditEntry),
        warnings,
        as_of: at.toISOString(),
      };
    },

    /** CSV of a revenue table, every row. */
    csv(kind: 'platform' | 'providers', data: PlatformRevenue | ProvidersRevenue): string {
      if (kind === 'platform') {
        const d = data as PlatformRevenue;
        return csvDocument(
          ['データセットID', 'データセット名', '提供者ID', '検索数', '請求額(円)', '提供者分配(円)'],
          d.datasets.map((r) => [r.dataset_id, r.dataset_name, r.provider_id, r.searches, r.billed, r.provider_share]),
        );
      }
      const p = data as ProvidersRevenue;
      return csvDocument(
        ['提供者ID', 'メールアドレス', '表示名', '検索数', '売上(円)', '分配額(円)', '支払予定額(円)'],
        p.providers.map((r) => [r.provider_id, r.email, r.display_name, r.searches, r.gross, r.share, r.payable]),
      );
    },
  };
}
export type AdminRevenueService = ReturnType<typeof createAdminRevenueService>;
