import { desc, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { auditLogs } from '../../db/schema/audit';
import { PLATFORM_RECIPIENT } from '../../db/schema/usage';
import { owedSql } from '../invoices/invoices.repository';

/*
 * Platform-wide usage comes from the rollups without the consumer (usage_platform_dataset_daily,
 * usage_platform_daily: a few thousand rows a month), never from the per-user ones (millions).
 */

/** A row of an aggregate: numbers come back as strings or numbers, read with Number(). */
export type RevenueRow = Record<string, unknown>;

/** Provider shares in sen per month of [first, last]: Σ over (recipient, dataset) of ⌊units / 10,000⌋. */
export async function providerShareSenByMonth(ex: Executor, first: string, last: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT ym, sum(floor(units / 10000))::bigint AS sen FROM (
      SELECT to_char(day, 'YYYY-MM') AS ym, recipient_id, dataset_id, sum(revenue_units) AS units
      FROM usage_platform_dataset_daily
      WHERE day BETWEEN ${first} AND ${last} AND recipient_id <> ${PLATFORM_RECIPIENT}
      GROUP BY 1, 2, 3) t
    GROUP BY ym`)).rows;
}

/**
 * Monthly invoices' figures per month (billed, tax, total, collected, outstanding), drafts and voided
 * ones left out: the sums kept by migration 0026's trigger, 16 rows a month (reading the invoices
 * themselves was ~0.4 s for 12 months at 100,000 accounts).
 */
export async function invoiceFiguresByMonth(ex: Executor, months: string[]): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT year_month, sum(invoices)::int AS invoices, sum(billed_yen) AS billed, sum(tax_yen) AS tax, sum(total_yen) AS total,
           sum(collected_yen) AS collected, sum(credited_yen) AS credited, sum(outstanding_yen) AS outstanding
    FROM invoice_figures_monthly
    WHERE year_month IN (${sql.join(months.map((m) => sql`${m}`), sql`, `)})
    GROUP BY year_month`)).rows;
}

/** Each provider's searches, gross and share (⌊units / 10,000⌋ per dataset) in [first, last], the largest share first. */
export async function providerShares(ex: Executor, first: string, last: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT t.recipient_id, u.email, u.display_name, sum(t.searches)::bigint AS searches, sum(t.amount_sen)::bigint AS gross_sen,
           sum(floor(t.units / 10000))::bigint AS share_sen
    FROM (SELECT recipient_id, dataset_id, sum(searches) AS searches, sum(amount_sen) AS amount_sen, sum(revenue_units) AS units
          FROM usage_platform_dataset_daily WHERE day BETWEEN ${first} AND ${last} AND recipient_id <> ${PLATFORM_RECIPIENT}
          GROUP BY 1, 2) t
    -- One look-up per provider (a few hundred): a join let the planner hash every user (30–100 ms at
    -- 100,000 users). OFFSET 0 keeps the sub-query from being flattened back into that join.
    LEFT JOIN LATERAL (SELECT email, display_name FROM users WHERE id = t.recipient_id OFFSET 0) u ON true
    GROUP BY t.recipient_id, u.email, u.display_name
    ORDER BY share_sen DESC, t.recipient_id`)).rows;
}

/** Each dataset's searches, billed amount (the month's invoices) and provider share, the most billed first. */
export async function platformDatasetFigures(ex: Executor, first: string, last: string, yearMonth: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    WITH used AS (
      SELECT dataset_id, recipient_id, sum(searches) AS searches, sum(revenue_units) AS units
      FROM usage_platform_dataset_daily WHERE day BETWEEN ${first} AND ${last} GROUP BY 1, 2),
    by_dataset AS (
      SELECT dataset_id, sum(searches) AS searches,
             sum(CASE WHEN recipient_id <> ${PLATFORM_RECIPIENT} THEN floor(units / 10000) ELSE 0 END) AS share_sen,
             max(CASE WHEN recipient_id <> ${PLATFORM_RECIPIENT} THEN recipient_id::text END) AS provider_id
      FROM used GROUP BY 1),
    -- Kept by triggers from the month's monthly invoices neither draft nor void (migration 0025): summing
    -- their lines read a quarter of a million of them a month at 100,000 users.
    billed AS (
      SELECT dataset_id, billed_yen AS billed FROM invoice_dataset_monthly WHERE year_month = ${yearMonth} AND lines > 0)
    SELECT coalesce(b.dataset_id, d2.dataset_id) AS dataset_id, coalesce(ds.name, '(削除されたデータセット)') AS name, d2.provider_id,
           coalesce(d2.searches, 0)::bigint AS searches, coalesce(b.billed, 0)::bigint AS billed, coalesce(d2.share_sen, 0)::bigint AS share_sen
    FROM by_dataset d2 FULL JOIN billed b ON b.dataset_id = d2.dataset_id
    LEFT JOIN datasets ds ON ds.id = coalesce(b.dataset_id, d2.dataset_id)
    ORDER BY billed DESC, searches DESC, dataset_id`)).rows;
}

/** A user's id, e-mail, display name and account type. */
export async function findUserBrief(ex: Executor, id: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`SELECT id, email, display_name, account_type FROM users WHERE id = ${id}`)).rows;
}

/** A provider's searches and revenue (sen) per month and dataset in [first, last]. */
export async function providerDatasetMonths(ex: Executor, providerId: string, first: string, last: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT to_char(u.day, 'YYYY-MM') AS ym, u.dataset_id, coalesce(d.name, '(削除されたデータセット)') AS name,
           sum(u.searches)::bigint AS searches, floor(sum(u.revenue_units) / 10000)::bigint AS sen
    FROM usage_platform_dataset_daily u LEFT JOIN datasets d ON d.id = u.dataset_id
    WHERE u.recipient_id = ${providerId} AND u.day BETWEEN ${first} AND ${last}
    GROUP BY 1, 2, 3 ORDER BY 1, sen DESC, 3, 2`)).rows;
}

/** The platform's own datasets' searches and revenue (sen) in [first, last], the largest first. */
export async function platformDatasetRevenue(ex: Executor, first: string, last: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT u.dataset_id, coalesce(d.name, '(削除されたデータセット)') AS name, sum(u.searches)::bigint AS searches, sum(u.amount_sen)::bigint AS sen
    FROM usage_platform_dataset_daily u LEFT JOIN datasets d ON d.id = u.dataset_id
    WHERE u.day BETWEEN ${first} AND ${last} AND u.recipient_id = ${PLATFORM_RECIPIENT}
    GROUP BY 1, 2 ORDER BY sen DESC, 2, 1`)).rows;
}

/** The dashboard's counts: overdue invoices and their amount, pending applications and transfers (failed card payments: users.repository). */
export async function dashboardCounts(ex: Executor): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT
      (SELECT count(*) FROM invoices WHERE status = 'overdue' AND ${owedSql()} > 0)::int AS overdue_count,
      (SELECT coalesce(sum(greatest(${owedSql()}, 0)), 0) FROM invoices WHERE status = 'overdue')::bigint AS overdue_amount,
      (SELECT count(*) FROM corporate_accounts WHERE status = 'pending' AND payment_method = 'bank_transfer')::int AS pending_applications,
      (SELECT count(*) FROM invoices WHERE payment_method = 'bank_transfer' AND status IN ('issued', 'partially_paid', 'overdue'))::int AS pending_transfers`)).rows;
}

/** Sign-ups since an instant, per account type. */
export async function signupsSince(ex: Executor, since: Date): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`SELECT account_type, count(*)::int AS n FROM users WHERE created_at >= ${since} GROUP BY 1 ORDER BY 1`)).rows;
}

/** Searches of a day and of [first, last]. */
export async function searchesOfDays(ex: Executor, today: string, first: string, last: string): Promise<RevenueRow[]> {
  return (await ex.execute<RevenueRow>(sql`
    SELECT coalesce(sum(searches) FILTER (WHERE day = ${today}), 0)::bigint AS today, coalesce(sum(searches), 0)::bigint AS month
    FROM usage_platform_daily WHERE day BETWEEN ${first} AND ${last}`)).rows;
}

/** The latest audit rows, the newest first. */
export async function recentAudit(ex: Executor, limit: number) {
  return ex.select().from(auditLogs).orderBy(desc(auditLogs.occurredAt), desc(auditLogs.id)).limit(limit);
}
