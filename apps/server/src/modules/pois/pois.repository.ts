import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { characterBigrams, normalizeSearchText } from '@poi/shared/text';
import type { PoiFields } from '@poi/shared/schemas/poi';
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

export interface PoiListFilter {
  datasetIds: string[];
  keyword?: string;
  limit: number;
  offset: number;
}

export async function listPois(ex: Executor, f: PoiListFilter): Promise<{ rows: PoiRow[]; total: number }> {
  const where = and(inArray(pois.datasetId, f.datasetIds), f.keyword ? keywordCondition(f.keyword) : undefined);
  const [rows, count] = await Promise.all([
    ex.select().from(pois).where(where).orderBy(desc(pois.createdAt), desc(pois.id)).limit(f.limit).offset(f.offset),
    ex.select({ total: sql<number>`count(*)::int` }).from(pois).where(where),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
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
