import { and, asc, desc, eq, getTableColumns, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { DatasetFilter, DatasetSort } from '@poi/shared/schemas/datasets';
import { foldKeywordWords, foldSearchWord } from '@poi/shared/search-fold';
import { characterBigrams } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { escapeLike } from '../../db/sql';
import { datasetPriceHistory, datasets } from '../../db/schema/datasets';

// search_text and search_grams serve the list's keyword and never leave the server.
const { searchText: _searchText, searchGrams: _searchGrams, ...rowColumns } = getTableColumns(datasets);
export type DatasetRow = Omit<typeof datasets.$inferSelect, 'searchText' | 'searchGrams'>;
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

/** The folding datasets' search columns are written with (0: rewritten by the back-fill). */
export const DATASET_SEARCH_VERSION = 1;

/**
 * What a dataset's keywords match: its name and its description, each folded as POI text is
 * (search-fold.ts: one run of letters each, space-separated), so a word matches inside one of them.
 */
export function datasetSearchColumns(name: string, description: string | null): { searchText: string; searchGrams: string[]; searchVersion: number } {
  const searchText = [name, description ?? ''].map(foldSearchWord).filter(Boolean).join(' ');
  const characters = new Set(Array.from(searchText).filter((c) => !/\s/u.test(c)));
  return { searchText, searchGrams: [...characters, ...characterBigrams(searchText)], searchVersion: DATASET_SEARCH_VERSION };
}

/**
 * Every white-space separated word of the keyword must occur (docs/import-export.md "Dataset lists and pickers"):
 * 3+ characters through the trigram index, 1 and 2 characters through the grams array (exact:
 * it holds every character and 2-character substring). Undefined for a keyword that normalises
 * to nothing.
 */
function datasetKeywordCondition(keyword: string | undefined): SQL | undefined {
  const words = keyword ? foldKeywordWords(keyword) : [];
  if (!words.length) return undefined;
  return and(
    ...words.map((word) =>
      Array.from(word).length <= 2 ? sql`${datasets.searchGrams} @> ARRAY[${word}]::text[]` : sql`${datasets.searchText} LIKE ${`%${escapeLike(word)}%`}`,
    ),
  );
}

/** Each order ends with the id, so a page boundary never splits or repeats equal keys. */
const datasetOrder = (sort: DatasetSort): SQL[] => {
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

function datasetListWhere(f: Pick<DatasetListFilter, 'type' | 'keyword' | 'managedBy'>): SQL | undefined {
  const conditions = [
    filterCondition(f.type),
    datasetKeywordCondition(f.keyword),
    f.managedBy ? or(eq(datasets.createdBy, f.managedBy), eq(datasets.assignedUserId, f.managedBy)) : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

/**
 * The two statements of a list call (the bench runs them raw): the page and the exact count.
 * The page finds its ids first (a "deferred join"): the offset walks the order's index —
 * index-only where the filter allows — instead of sorting whole rows, and only the page's
 * rows are read in full. A deep page of 10,000 datasets costs ~1 ms instead of ~20.
 */
export function buildDatasetListQueries(ex: Executor, f: DatasetListFilter) {
  const where = datasetListWhere(f);
  const order = datasetOrder(f.sort);
  const pageIds = ex.select({ id: datasets.id }).from(datasets).where(where).orderBy(...order).limit(f.limit).offset(f.offset).as('page_ids');
  return {
    page: ex
      .select(rowColumns)
      .from(datasets)
      .innerJoin(pageIds, eq(datasets.id, pageIds.id))
      .orderBy(...order),
    count: ex.select({ total: sql<number>`count(*)::int` }).from(datasets).where(where),
  };
}

/**
 * The statement that steers a keyword list onto its GIN indexes. At 10,000 datasets the planner
 * rates a sequential scan and a bitmap scan of a GIN index about equal (the table is small and
 * it expects random page reads), while running them costs 15–35 ms against 2–5 ms on the
 * development machine: the scan deconstructs every row's grams array or matches every row's
 * text. Set for the list's own transaction only.
 */
export const PREFER_INDEX_SQL = 'SET LOCAL enable_seqscan = off';

/** One page in the chosen order and the exact number of matches (past the end: no rows, the total). */
export async function listDatasets(ex: Executor, f: DatasetListFilter): Promise<{ rows: DatasetRow[]; total: number }> {
  if (f.keyword && foldKeywordWords(f.keyword).length) {
    return ex.transaction(async (tx) => {
      await tx.execute(sql.raw(PREFER_INDEX_SQL));
      const q = buildDatasetListQueries(tx, f);
      const rows = await q.page;
      const count = await q.count;
      return { rows, total: count[0]?.total ?? 0 };
    });
  }
  const q = buildDatasetListQueries(ex, f);
  const [rows, count] = await Promise.all([q.page, q.count]);
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
