import { and, asc, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { characterBigrams, normalizeSearchText } from '@poi/shared/text';
import { SEARCH_TOTAL_CAP, type PoiFields } from '@poi/shared/schemas/poi';
import type { Executor } from '../../db/client';
import { pois } from '../../db/schema/datasets';
import { escapeLike } from '../users/users.repository';

export type PoiRow = typeof pois.$inferSelect;

/** The stored columns of a POI's fields, with the derived search columns kept in step. */
export function toPoiColumns(fields: PoiFields) {
  const tags = fields.tags ?? [];
  const searchText = normalizeSearchText([fields.name, fields.address, fields.category, ...tags].filter(Boolean).join(' '));
  return {
    name: fields.name,
    latitude: fields.latitude,
    longitude: fields.longitude,
    address: fields.address ?? null,
    category: fields.category ?? null,
    description: fields.description ?? null,
    phone: fields.phone ?? null,
    website: fields.website ?? null,
    imageUrl: fields.image_url ?? null,
    tags,
    searchText,
    searchBigrams: characterBigrams(searchText),
  };
}

/**
 * The keyword condition of ARCHITECTURE.md: 3+ characters go through the trigram index,
 * 2 characters through the bigram array (then confirmed), 1 character by substring alone.
 */
export function keywordCondition(keyword: string): SQL | undefined {
  const normalized = normalizeSearchText(keyword);
  if (!normalized) return undefined;
  const like = sql`${pois.searchText} LIKE ${'%' + escapeLike(normalized) + '%'}`;
  if (Array.from(normalized).length === 2) {
    return and(sql`${pois.searchBigrams} @> ARRAY[${normalized}]::text[]`, like);
  }
  return like;
}

export async function insertPoi(ex: Executor, datasetId: string, fields: PoiFields): Promise<PoiRow> {
  const rows = await ex.insert(pois).values({ datasetId, ...toPoiColumns(fields) }).returning();
  return rows[0]!;
}

export async function updatePoi(ex: Executor, id: string, fields: PoiFields): Promise<PoiRow | undefined> {
  const rows = await ex
    .update(pois)
    .set({ ...toPoiColumns(fields), updatedAt: sql`now()` })
    .where(eq(pois.id, id))
    .returning();
  return rows[0];
}

export async function findPoi(ex: Executor, id: string): Promise<PoiRow | undefined> {
  const rows = await ex.select().from(pois).where(eq(pois.id, id)).limit(1);
  return rows[0];
}

export async function deletePoi(ex: Executor, id: string): Promise<PoiRow | undefined> {
  const rows = await ex.delete(pois).where(eq(pois.id, id)).returning();
  return rows[0];
}

export interface PoiSearchFilter {
  datasetIds: string[];
  keyword?: string;
  /** With a point, results are nearest first and carry their distance. */
  point?: { latitude: number; longitude: number; radius?: number };
  limit: number;
  offset: number;
}

export type PoiSearchRow = PoiRow & { distance: number | null };

const earthOf = sql`poi_earth(${pois.latitude}, ${pois.longitude})`;

/**
 * The search of ARCHITECTURE.md "Data": radius by earth_box on the GiST index plus the exact
 * earth_distance, ordered by the KNN operator (never by earth_distance); keywords through the
 * trigram or bigram index. Without a point the order is newest first, which is stable.
 */
export async function searchPois(ex: Executor, f: PoiSearchFilter): Promise<{ rows: PoiSearchRow[]; total: number; capped: boolean }> {
  const center = f.point ? sql`ll_to_earth(${f.point.latitude}::float8, ${f.point.longitude}::float8)` : undefined;
  const radius = f.point?.radius;
  const where = and(
    f.datasetIds.length === 1 ? eq(pois.datasetId, f.datasetIds[0]!) : inArray(pois.datasetId, f.datasetIds),
    f.keyword ? keywordCondition(f.keyword) : undefined,
    center && radius !== undefined ? sql`earth_box(${center}, ${radius}::float8) @> ${earthOf}` : undefined,
    center && radius !== undefined ? sql`earth_distance(${center}, ${earthOf}) <= ${radius}::float8` : undefined,
  );
  const distance = center ? sql<number>`earth_distance(${center}, ${earthOf})` : sql<null>`NULL::float8`;
  const order = center ? [sql`${earthOf} <-> ${center}`, asc(pois.id)] : [desc(pois.createdAt), desc(pois.id)];
  const [rows, count] = await Promise.all([
    ex
      .select({ ...getTableColumns(pois), distance })
      .from(pois)
      .where(where)
      .orderBy(...order)
      .limit(f.limit)
      .offset(f.offset),
    ex
      .select({ total: sql<number>`count(*)::int` })
      .from(ex.select({ one: sql`1` }).from(pois).where(where).limit(SEARCH_TOTAL_CAP + 1).as('matches')),
  ]);
  const total = count[0]?.total ?? 0;
  return { rows: rows.map((r) => ({ ...r, distance: r.distance === null ? null : Number(r.distance) })), total: Math.min(total, SEARCH_TOTAL_CAP), capped: total > SEARCH_TOTAL_CAP };
}

/** Whether the POI is among the first `limit` of its dataset (the preview non-managers see). */
export async function isInPreview(ex: Executor, poi: PoiRow, limit: number): Promise<boolean> {
  const rows = await ex
    .select({ id: pois.id })
    .from(pois)
    .where(eq(pois.datasetId, poi.datasetId))
    .orderBy(desc(pois.createdAt), desc(pois.id))
    .limit(limit);
  return rows.some((r) => r.id === poi.id);
}

export async function movePoi(ex: Executor, id: string, targetDatasetId: string): Promise<PoiRow | undefined> {
  const rows = await ex.update(pois).set({ datasetId: targetDatasetId, updatedAt: sql`now()` }).where(eq(pois.id, id)).returning();
  return rows[0];
}

/** One page of a dataset in a fixed order, for walking it end to end (keyset, not offset). */
export async function listPoisAfter(ex: Executor, datasetId: string, after: { createdAt: Date; id: string } | undefined, limit: number): Promise<PoiRow[]> {
  return ex
    .select()
    .from(pois)
    .where(and(eq(pois.datasetId, datasetId), after ? sql`(${pois.createdAt}, ${pois.id}) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined))
    .orderBy(asc(pois.createdAt), asc(pois.id))
    .limit(limit);
}
