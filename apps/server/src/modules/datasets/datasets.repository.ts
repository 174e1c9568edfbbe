import { and, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { DatasetFilter } from '@poi/shared/schemas/dataset';
import type { Executor } from '../../db/client';
import { datasetPriceHistory, datasets } from '../../db/schema/datasets';
import { escapeLike } from '../users/users.repository';

export type DatasetRow = typeof datasets.$inferSelect;
export type PriceHistoryRow = typeof datasetPriceHistory.$inferSelect;

export interface DatasetListFilter {
  type: DatasetFilter;
  keyword?: string;
  /** Only datasets this user manages as creator or assigned editor (undefined: all). */
  managedBy?: string;
  limit: number;
  offset: number;
}

const filterCondition = (type: DatasetFilter): SQL | undefined => {
  switch (type) {
    case 'paid':
      return sql`${datasets.pricePerSearch} > 0`;
    case 'free':
      return sql`${datasets.pricePerSearch} = 0`;
    case 'platform':
      return eq(datasets.isPlatformDataset, true);
    case 'provider':
      return eq(datasets.isPlatformDataset, false);
    default:
      return undefined;
  }
};

export async function listDatasets(ex: Executor, f: DatasetListFilter): Promise<{ rows: DatasetRow[]; total: number }> {
  const conditions = [
    filterCondition(f.type),
    f.keyword ? sql`${datasets.name} ILIKE ${'%' + escapeLike(f.keyword) + '%'}` : undefined,
    f.managedBy ? or(eq(datasets.createdBy, f.managedBy), eq(datasets.assignedUserId, f.managedBy)) : undefined,
  ].filter((c): c is SQL => c !== undefined);
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, count] = await Promise.all([
    ex.select().from(datasets).where(where).orderBy(desc(datasets.createdAt), desc(datasets.id)).limit(f.limit).offset(f.offset),
    ex.select({ total: sql<number>`count(*)::int` }).from(datasets).where(where),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}

export async function findDataset(ex: Executor, id: string, options: { forUpdate?: boolean } = {}): Promise<DatasetRow | undefined> {
  const query = ex.select().from(datasets).where(eq(datasets.id, id)).limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0];
}

export async function insertDataset(
  ex: Executor,
  values: Pick<typeof datasets.$inferInsert, 'name' | 'description' | 'pricePerSearch' | 'isPlatformDataset' | 'createdBy' | 'assignedUserId' | 'providerUserId'>,
): Promise<DatasetRow> {
  const rows = await ex.insert(datasets).values(values).returning();
  return rows[0]!;
}

export async function updateDatasetPrice(ex: Executor, id: string, price: string): Promise<void> {
  await ex.update(datasets).set({ pricePerSearch: price, updatedAt: sql`now()` }).where(eq(datasets.id, id));
}

export async function deleteDataset(ex: Executor, id: string): Promise<boolean> {
  const rows = await ex.delete(datasets).where(eq(datasets.id, id)).returning({ id: datasets.id });
  return rows.length === 1;
}

export async function adjustPoiCount(ex: Executor, id: string, delta: number): Promise<void> {
  await ex
    .update(datasets)
    .set({ poiCount: sql`greatest(${datasets.poiCount} + ${delta}, 0)`, updatedAt: sql`now()` })
    .where(eq(datasets.id, id));
}

export async function insertPriceHistory(
  ex: Executor,
  values: { datasetId: string; price: string; reason: string | null; changedBy: string | null },
): Promise<void> {
  await ex.insert(datasetPriceHistory).values(values);
}

/** Ends the price in force now; the new one starts at the same instant. */
export async function closeCurrentPrice(ex: Executor, datasetId: string): Promise<void> {
  await ex
    .update(datasetPriceHistory)
    .set({ effectiveUntil: sql`now()` })
    .where(and(eq(datasetPriceHistory.datasetId, datasetId), isNull(datasetPriceHistory.effectiveUntil)));
}

export async function listPriceHistory(ex: Executor, datasetId: string): Promise<PriceHistoryRow[]> {
  return ex
    .select()
    .from(datasetPriceHistory)
    .where(eq(datasetPriceHistory.datasetId, datasetId))
    .orderBy(desc(datasetPriceHistory.effectiveFrom), desc(datasetPriceHistory.id));
}

export async function countPriceHistory(ex: Executor, datasetId: string): Promise<number> {
  const rows = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(datasetPriceHistory)
    .where(eq(datasetPriceHistory.datasetId, datasetId));
  return rows[0]?.n ?? 0;
}

