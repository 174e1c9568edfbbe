import { and, asc, between, eq, sql, type SQL } from 'drizzle-orm';
import { daysOfMonth } from '@poi/shared/billing-time';
import type { Executor } from '../../db/client';
import { apiKeys } from '../../db/schema/api-keys';
import { BASE_FEE_LINE, usageDaily, usageDatasetDaily, usagePlatformDatasetDaily } from '../../db/schema/usage';
import { datasets } from '../../db/schema/datasets';

function monthDays(yearMonth: string): [string, string] {
  const days = daysOfMonth(yearMonth);
  return [days[0]!, days[days.length - 1]!];
}

/** Free searches of a user stored for a month (what the quota starts from). */
export async function freeSearchesUsed(ex: Executor, userId: string, yearMonth: string): Promise<number> {
  const [first, last] = monthDays(yearMonth);
  const rows = await ex
    .select({ n: sql<string>`coalesce(sum(${usageDaily.freeSearches}), 0)` })
    .from(usageDaily)
    .where(and(eq(usageDaily.userId, userId), between(usageDaily.day, first, last)));
  return Number(rows[0]?.n ?? 0);
}

export interface DailyUsageRow {
  day: string;
  searches: number;
  freeSearches: number;
  amountSen: number;
}

export async function dailyUsage(ex: Executor, userId: string, yearMonth: string): Promise<DailyUsageRow[]> {
  const [first, last] = monthDays(yearMonth);
  return ex
    .select({
      day: usageDaily.day,
      searches: sql<number>`sum(${usageDaily.searches})::float8`,
      freeSearches: sql<number>`sum(${usageDaily.freeSearches})::float8`,
      amountSen: sql<number>`sum(${usageDaily.amountSen})::float8`,
    })
    .from(usageDaily)
    .where(and(eq(usageDaily.userId, userId), between(usageDaily.day, first, last)))
    .groupBy(usageDaily.day)
    .orderBy(asc(usageDaily.day));
}

export interface KeyUsageRow {
  apiKeyId: string;
  name: string | null;
  prefix: string | null;
  searches: number;
  amountSen: number;
}

export async function usageByKey(ex: Executor, userId: string, yearMonth: string): Promise<KeyUsageRow[]> {
  const [first, last] = monthDays(yearMonth);
  return ex
    .select({
      apiKeyId: usageDaily.apiKeyId,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      searches: sql<number>`sum(${usageDaily.searches})::float8`,
      amountSen: sql<number>`sum(${usageDaily.amountSen})::float8`,
    })
    .from(usageDaily)
    .leftJoin(apiKeys, eq(apiKeys.id, usageDaily.apiKeyId))
    .where(and(eq(usageDaily.userId, userId), between(usageDaily.day, first, last)))
    .groupBy(usageDaily.apiKeyId, apiKeys.name, apiKeys.prefix)
    .orderBy(sql`sum(${usageDaily.searches}) DESC`, asc(usageDaily.apiKeyId));
}

export interface DatasetUsageRow {
  datasetId: string;
  name: string | null;
  searches: number;
  amountSen: number;
}

export async function usageByDataset(ex: Executor, userId: string, yearMonth: string): Promise<DatasetUsageRow[]> {
  const [first, last] = monthDays(yearMonth);
  return ex
    .select({
      datasetId: usageDatasetDaily.datasetId,
      name: datasets.name,
      searches: sql<number>`sum(${usageDatasetDaily.searches})::float8`,
      amountSen: sql<number>`sum(${usageDatasetDaily.amountSen})::float8`,
    })
    .from(usageDatasetDaily)
    .leftJoin(datasets, eq(datasets.id, usageDatasetDaily.datasetId))
    .where(and(eq(usageDatasetDaily.userId, userId), between(usageDatasetDaily.day, first, last)))
    .groupBy(usageDatasetDaily.datasetId, datasets.name)
    .orderBy(sql`sum(${usageDatasetDaily.searches}) DESC`, asc(usageDatasetDaily.datasetId));
}

export interface RevenueRow {
  datasetId: string;
  name: string | null;
  searches: number;
  /** Σ price_sen × share_bp: yen × 1,000,000. */
  revenueUnits: number;
}

/**
 * Revenue per dataset for a month: of one recipient (a provider), or of every recipient (undefined,
 * the platform admin's view). Datasets the recipient currently receives appear even without usage.
 * From the rollup without the consumer (a few thousand rows a month), not the per-consumer one.
 */
export async function revenueByDataset(ex: Executor, yearMonth: string, recipientId: string | undefined): Promise<RevenueRow[]> {
  const [first, last] = monthDays(yearMonth);
  const usageFilter: SQL[] = [between(usagePlatformDatasetDaily.day, first, last)];
  if (recipientId) usageFilter.push(eq(usagePlatformDatasetDaily.recipientId, recipientId));
  const earned = ex
    .select({
      datasetId: usagePlatformDatasetDaily.datasetId,
      searches: sql<number>`sum(${usagePlatformDatasetDaily.searches})`.as('searches'),
      revenueUnits: sql<number>`sum(${usagePlatformDatasetDaily.revenueUnits})`.as('revenue_units'),
    })
    .from(usagePlatformDatasetDaily)
    .where(and(...usageFilter))
    .groupBy(usagePlatformDatasetDaily.datasetId)
    .as('earned');
  const owned = recipientId ? eq(datasets.providerUserId, recipientId) : sql`true`;
  const rows = await ex
    .select({
      datasetId: sql<string>`coalesce(${earned.datasetId}, ${datasets.id})`,
      name: datasets.name,
      searches: sql<number>`coalesce(${earned.searches}, 0)::float8`,
      revenueUnits: sql<number>`coalesce(${earned.revenueUnits}, 0)::float8`,
    })
    .from(earned)
    .fullJoin(datasets, eq(datasets.id, earned.datasetId))
    .where(sql`${earned.datasetId} IS NOT NULL OR ${owned}`)
    .orderBy(sql`coalesce(${earned.revenueUnits}, 0) DESC`, asc(datasets.name), sql`coalesce(${earned.datasetId}, ${datasets.id})`);
  return rows;
}

export interface DailyRevenueRow {
  day: string;
  searches: number;
  revenueUnits: number;
}

export async function dailyRevenue(ex: Executor, datasetId: string, yearMonth: string, recipientId: string | undefined): Promise<DailyRevenueRow[]> {
  const [first, last] = monthDays(yearMonth);
  const filter: SQL[] = [eq(usagePlatformDatasetDaily.datasetId, datasetId), between(usagePlatformDatasetDaily.day, first, last)];
  if (recipientId) filter.push(eq(usagePlatformDatasetDaily.recipientId, recipientId));
  return ex
    .select({
      day: usagePlatformDatasetDaily.day,
      searches: sql<number>`sum(${usagePlatformDatasetDaily.searches})::float8`,
      revenueUnits: sql<number>`sum(${usagePlatformDatasetDaily.revenueUnits})::float8`,
    })
    .from(usagePlatformDatasetDaily)
    .where(and(...filter))
    .groupBy(usagePlatformDatasetDaily.day)
    .orderBy(asc(usagePlatformDatasetDaily.day));
}

/** One billable search, priced when it happened (docs/architecture.md "Money"). */
export interface UsageEvent {
  requestId: string;
  occurredAt: Date;
  /** The Japanese calendar day of occurredAt, 'YYYY-MM-DD'. */
  day: string;
  userId: string;
  apiKeyId: string;
  accountType: string;
  pricingVersionId: number;
  datasetIds: string[];
  datasetPricesSen: number[];
  datasetSharesBp: number[];
  datasetRecipientIds: string[];
  baseFeeSen: number;
  amountSen: number;
  free: boolean;
}

/**
 * Inserts the events and adds only the newly inserted ones to the rollups (per user daily and
 * monthly, platform-wide daily), in
 * one statement: a flush retried after an unknown outcome (a timeout after the commit) finds its
 * (request id, instant) pairs already stored and adds nothing, so no search is ever counted twice.
 * The rollups are the source of every screen and of invoices; raw events are kept for disputes
 * (docs/billing.md "Usage data").
 */
export async function writeUsageEvents(ex: Executor, events: readonly UsageEvent[]): Promise<number> {
  if (!events.length) return 0;
  const payload = JSON.stringify(
    events.map((e) => ({
      request_id: e.requestId,
      occurred_at: e.occurredAt.toISOString(),
      day: e.day,
      user_id: e.userId,
      api_key_id: e.apiKeyId,
      account_type: e.accountType,
      pricing_version_id: e.pricingVersionId,
      dataset_ids: e.datasetIds,
      dataset_prices_sen: e.datasetPricesSen,
      dataset_shares_bp: e.datasetSharesBp,
      dataset_recipient_ids: e.datasetRecipientIds,
      base_fee_sen: e.baseFeeSen,
      amount_sen: e.amountSen,
      free: e.free,
    })),
  );
  const result = await ex.execute(sql`
    WITH input AS (
      SELECT * FROM json_to_recordset(${payload}::json) AS x(
        request_id uuid, occurred_at timestamptz, day date, user_id uuid, api_key_id uuid, account_type text,
        pricing_version_id bigint, dataset_ids uuid[], dataset_prices_sen integer[], dataset_shares_bp integer[],
        dataset_recipient_ids uuid[], base_fee_sen integer, amount_sen integer, free boolean)
    ),
    inserted AS (
      INSERT INTO usage_events (request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id,
        dataset_ids, dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free)
      SELECT request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id,
        dataset_ids, dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free
      FROM input
      ON CONFLICT (request_id, occurred_at) DO NOTHING
      RETURNING request_id, occurred_at
    ),
    fresh AS (
      SELECT input.* FROM input JOIN inserted USING (request_id, occurred_at)
    ),
    daily AS (
      INSERT INTO usage_daily (user_id, day, api_key_id, searches, free_searches, amount_sen)
      SELECT user_id, day, api_key_id, count(*), count(*) FILTER (WHERE free), sum(amount_sen)
      FROM fresh GROUP BY user_id, day, api_key_id
      ON CONFLICT (user_id, day, api_key_id) DO UPDATE SET
        searches = usage_daily.searches + EXCLUDED.searches,
        free_searches = usage_daily.free_searches + EXCLUDED.free_searches,
        amount_sen = usage_daily.amount_sen + EXCLUDED.amount_sen
    ),
    per_dataset AS (
      INSERT INTO usage_dataset_daily (dataset_id, day, user_id, recipient_id, searches, amount_sen, revenue_units)
      SELECT d.dataset_id, f.day, f.user_id, d.recipient_id, count(*), sum(d.price_sen), sum(d.price_sen::bigint * d.share_bp)
      FROM fresh f
      CROSS JOIN LATERAL unnest(f.dataset_ids, f.dataset_prices_sen, f.dataset_shares_bp, f.dataset_recipient_ids)
        AS d(dataset_id, price_sen, share_bp, recipient_id)
      GROUP BY d.dataset_id, f.day, f.user_id, d.recipient_id
      ON CONFLICT (dataset_id, day, user_id, recipient_id) DO UPDATE SET
        searches = usage_dataset_daily.searches + EXCLUDED.searches,
        amount_sen = usage_dataset_daily.amount_sen + EXCLUDED.amount_sen,
        revenue_units = usage_dataset_daily.revenue_units + EXCLUDED.revenue_units
    ),
    -- The platform rollups' rows are shared by every instance's flush: taken in key order, so two
    -- concurrent flushes wait for each other instead of deadlocking.
    platform_dataset AS (
      INSERT INTO usage_platform_dataset_daily (day, recipient_id, dataset_id, searches, amount_sen, revenue_units)
      SELECT f.day, d.recipient_id, d.dataset_id, count(*), sum(d.price_sen), sum(d.price_sen::bigint * d.share_bp)
      FROM fresh f
      CROSS JOIN LATERAL unnest(f.dataset_ids, f.dataset_prices_sen, f.dataset_shares_bp, f.dataset_recipient_ids)
        AS d(dataset_id, price_sen, share_bp, recipient_id)
      GROUP BY f.day, d.recipient_id, d.dataset_id
      ORDER BY f.day, d.recipient_id, d.dataset_id
      ON CONFLICT (day, recipient_id, dataset_id) DO UPDATE SET
        searches = usage_platform_dataset_daily.searches + EXCLUDED.searches,
        amount_sen = usage_platform_dataset_daily.amount_sen + EXCLUDED.amount_sen,
        revenue_units = usage_platform_dataset_daily.revenue_units + EXCLUDED.revenue_units
    ),
    platform_daily AS (
      INSERT INTO usage_platform_daily (day, searches, free_searches, amount_sen)
      SELECT day, count(*), count(*) FILTER (WHERE free), sum(amount_sen)
      FROM fresh GROUP BY day ORDER BY day
      ON CONFLICT (day) DO UPDATE SET
        searches = usage_platform_daily.searches + EXCLUDED.searches,
        free_searches = usage_platform_daily.free_searches + EXCLUDED.free_searches,
        amount_sen = usage_platform_daily.amount_sen + EXCLUDED.amount_sen
    ),
    charges AS (
      INSERT INTO usage_charge_monthly (year_month, user_id, dataset_id, unit_price_sen, searches)
      SELECT year_month, user_id, dataset_id, unit_price_sen, count(*)
      FROM (
        SELECT to_char(f.day, 'YYYY-MM') AS year_month, f.user_id, d.dataset_id, d.price_sen AS unit_price_sen
        FROM fresh f CROSS JOIN LATERAL unnest(f.dataset_ids, f.dataset_prices_sen) AS d(dataset_id, price_sen)
        WHERE d.price_sen > 0
        UNION ALL
        SELECT to_char(f.day, 'YYYY-MM'), f.user_id, ${BASE_FEE_LINE}::uuid, f.base_fee_sen
        FROM fresh f WHERE NOT f.free AND f.base_fee_sen > 0
      ) c
      GROUP BY year_month, user_id, dataset_id, unit_price_sen
      ON CONFLICT (year_month, user_id, dataset_id, unit_price_sen) DO UPDATE SET
        searches = usage_charge_monthly.searches + EXCLUDED.searches
    ),
    monthly AS (
      INSERT INTO usage_user_monthly (year_month, user_id, searches, last_occurred_at, last_account_type)
      SELECT DISTINCT ON (year_month, user_id) year_month, user_id, count(*) OVER (PARTITION BY year_month, user_id), occurred_at, account_type
      FROM (SELECT to_char(day, 'YYYY-MM') AS year_month, user_id, occurred_at, account_type FROM fresh) f
      ORDER BY year_month, user_id, occurred_at DESC
      ON CONFLICT (year_month, user_id) DO UPDATE SET
        searches = usage_user_monthly.searches + EXCLUDED.searches,
        last_occurred_at = greatest(usage_user_monthly.last_occurred_at, EXCLUDED.last_occurred_at),
        last_account_type = CASE WHEN EXCLUDED.last_occurred_at >= usage_user_monthly.last_occurred_at
          THEN EXCLUDED.last_account_type ELSE usage_user_monthly.last_account_type END
    )
    -- Data-modifying CTEs run whether or not the final SELECT reads them.
    SELECT count(*)::int AS inserted FROM inserted
  `);
  return Number((result.rows[0] as { inserted: number } | undefined)?.inserted ?? 0);
}
