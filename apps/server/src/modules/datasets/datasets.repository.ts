import { and, asc, desc, eq, getTableColumns, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { DatasetFilter, DatasetSort } from '@poi/shared/schemas/dataset';
import { characterBigrams, normalizeSearchText } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { datasetPriceHistory, datasets } from '../../db/schema/datasets';
import { escapeLike } from '../users/users.repository';

// search_text and search_bigrams serve the list's keyword and never leave the server.
const { searchText: _searchText, searchBigrams: _searchBigrams, ...rowColumns } = getTableColumns(datasets);
export type DatasetRow = Omit<typeof datasets.$inferSelect, 'searchText' | 'searchBigrams'>;
export type PriceHistoryRow = typeof datasetPriceHistory.$inferSelect;

export interface DatasetListFilter {
  type: DatasetFilter;
  keyword?: string;
  sort: DatasetSort;
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

/** What a dataset's keywords match: its name and description, normalised as POI text is. */
export function datasetSearchColumns(name: string, description: string | null): { searchText: string; searchBigrams: string[] } {
  const searchText = normalizeSearchText(description ? `${name} ${description}` : name);
  return { searchText, searchBigrams: characterBigrams(searchText) };
}

/**
 * Every white-space separated word of the keyword must occur (ARCHITECTURE.md "Keyword search"):
 * 3+ characters through the trigram index, 2 through the bigram array (then confirmed by the
 * substring test), 1 by substring alone. Undefined for a keyword that normalises to nothing.
 */
export function datasetKeywordCondition(keyword: string | undefined): SQL | undefined {
  const normalized = keyword ? normalizeSearchText(keyword) : '';
  if (!normalized) return undefined;
  const words = [...new Set(normalized.split(' '))];
  return and(
    ...words.map((word) => {
      const like = sql`${datasets.searchText} LIKE ${`%${escapeLike(word)}%`}`;
      return Array.from(word).length === 2 ? sql`${datasets.searchBigrams} @> ARRAY[${word}]::text[] AND ${like}` : like;
    }),
  );
}

/** Each order ends with the id, so a page boundary never splits or repeats equal keys. */
export const datasetOrder = (sort: DatasetSort): SQL[] => {
  switch (sort) {
    case 'name':
      return [asc(datasets.name), asc(datasets.id)];
    case 'price_asc':
      return [asc(datasets.pricePerSearch), asc(datasets.id)];
    case 'price_desc':
      return [desc(datasets.pricePerSearch), desc(datasets.id)];
    default:
      return [desc(datasets.createdAt), desc(datasets.id)];
  }
};

export function datasetListWhere(f: Pick<DatasetListFilter, 'type' | 'keyword' | 'managedBy'>): SQL | undefined {
  const conditions = [
    filterCondition(f.type),
    datasetKeywordCondition(f.keyword),
    f.managedBy ? or(eq(datasets.createdBy, f.managedBy), eq(datasets.assignedUserId, f.managedBy)) : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

/** One page in the chosen order and the exact number of matches (past the end: no rows, the total). */
export async function listDatasets(ex: Executor, f: DatasetListFilter): Promise<{ rows: DatasetRow[]; total: number }> {
  const where = datasetListWhere(f);
  const [rows, count] = await Promise.all([
    ex
      .select(rowColumns)
      .from(datasets)
      .where(where)
      .orderBy(...datasetOrder(f.sort))
      .limit(f.limit)
      .offset(f.offset),
    ex.select({ total: sql<number>`count(*)::int` }).from(datasets).where(where),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}

export async function findDataset(ex: Executor, id: string, options: { forUpdate?: boolean } = {}): Promise<DatasetRow | undefined> {
  const query = ex.select(rowColumns).from(datasets).where(eq(datasets.id, id)).limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0];
}

export async function insertDataset(
  ex: Executor,
  values: Pick<typeof datasets.$inferInsert, 'name' | 'description' | 'pricePerSearch' | 'isPlatformDataset' | 'createdBy' | 'assignedUserId' | 'providerUserId'>,
): Promise<DatasetRow> {
  const rows = await ex
    .insert(datasets)
    .values({ ...values, ...datasetSearchColumns(values.name, values.description ?? null) })
    .returning(rowColumns);
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

