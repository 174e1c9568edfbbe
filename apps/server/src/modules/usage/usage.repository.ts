import { and, asc, between, eq, sql, type SQL } from 'drizzle-orm';
import { daysOfMonth } from '@poi/shared/billing-time';
import type { Executor } from '../../db/client';
import { apiKeys } from '../../db/schema/api-keys';
import { usageDaily, usageDatasetDaily } from '../../db/schema/usage';
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
 */
export async function revenueByDataset(ex: Executor, yearMonth: string, recipientId: string | undefined): Promise<RevenueRow[]> {
  const [first, last] = monthDays(yearMonth);
  const usageFilter: SQL[] = [between(usageDatasetDaily.day, first, last)];
  if (recipientId) usageFilter.push(eq(usageDatasetDaily.recipientId, recipientId));
  const earned = ex
    .select({
      datasetId: usageDatasetDaily.datasetId,
      searches: sql<number>`sum(${usageDatasetDaily.searches})`.as('searches'),
      revenueUnits: sql<number>`sum(${usageDatasetDaily.revenueUnits})`.as('revenue_units'),
    })
    .from(usageDatasetDaily)
    .where(and(...usageFilter))
    .groupBy(usageDatasetDaily.datasetId)
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
  const filter: SQL[] = [eq(usageDatasetDaily.datasetId, datasetId), between(usageDatasetDaily.day, first, last)];
  if (recipientId) filter.push(eq(usageDatasetDaily.recipientId, recipientId));
  return ex
    .select({
      day: usageDatasetDaily.day,
      searches: sql<number>`sum(${usageDatasetDaily.searches})::float8`,
      revenueUnits: sql<number>`sum(${usageDatasetDaily.revenueUnits})::float8`,
    })
    .from(usageDatasetDaily)
    .where(and(...filter))
    .groupBy(usageDatasetDaily.day)
    .orderBy(asc(usageDatasetDaily.day));
}
