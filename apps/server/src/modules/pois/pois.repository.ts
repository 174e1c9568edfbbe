import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
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

/** A keyword as the search binds it: the LIKE pattern, and the bigram when it has 2 characters. */
export interface KeywordTerms {
  like: string;
  bigram?: string;
}

function keywordTerms(keyword: string): KeywordTerms | undefined {
  const normalized = normalizeSearchText(keyword);
  if (!normalized) return undefined;
  return { like: `%${escapeLike(normalized)}%`, bigram: Array.from(normalized).length === 2 ? normalized : undefined };
}

/**
 * The keyword condition of ARCHITECTURE.md: 3+ characters go through the trigram index,
 * 2 characters through the bigram array (then confirmed), 1 character by substring alone.
 */
function keywordCondition(t: KeywordTerms): SQL {
  const like = sql`${pois.searchText} LIKE ${t.like}`;
  return t.bigram === undefined ? like : sql`${pois.searchBigrams} @> ARRAY[${t.bigram}]::text[] AND ${like}`;
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

export type PoiSearchRow = Omit<PoiRow, 'earth' | 'searchText' | 'searchBigrams'> & { distance: number | null };

const earthOf = pois.earth;
// What a search answers: not the stored earth cube nor the derived search columns, which are
// large (the bigram array) and never leave the server.
const { earth: _earth, searchText: _searchText, searchBigrams: _searchBigrams, ...resultColumns } = getTableColumns(pois);

/** The two statements of a search (the page and the capped count), built but not run. */
export function buildSearchQueries(ex: Executor, f: PoiSearchFilter & { terms?: KeywordTerms }) {
  const center = f.point ? sql`ll_to_earth(${f.point.latitude}::float8, ${f.point.longitude}::float8)` : undefined;
  const radius = f.point?.radius;
  const terms = f.terms ?? (f.keyword ? keywordTerms(f.keyword) : undefined);
  const where = and(
    f.datasetIds.length === 1 ? eq(pois.datasetId, f.datasetIds[0]!) : inArray(pois.datasetId, f.datasetIds),
    terms ? keywordCondition(terms) : undefined,
    center && radius !== undefined ? sql`earth_box(${center}, ${radius}::float8) @> ${earthOf}` : undefined,
    center && radius !== undefined ? sql`earth_distance(${center}, ${earthOf}) <= ${radius}::float8` : undefined,
  );
  const distance = center ? sql<number>`earth_distance(${center}, ${earthOf})` : sql<null>`NULL::float8`;
  // Nearest first by the KNN operator alone: a second sort key would make the planner sort all
  // candidates instead of reading the GiST index in distance order.
  const order = center ? [sql`${earthOf} <-> ${center}`] : [desc(pois.createdAt), desc(pois.id)];
  return {
    page: ex
      .select({ ...resultColumns, distance })
      .from(pois)
      .where(where)
      .orderBy(...order)
      .limit(f.limit)
      .offset(f.offset),
    count: ex
      .select({ total: sql<number>`count(*)::int` })
      // In the page's order, so the planner can stop after the cap instead of collecting every match.
      .from(ex.select({ one: sql`1` }).from(pois).where(where).orderBy(...order).limit(SEARCH_TOTAL_CAP + 1).as('matches')),
  };
}

type PageStatement = { execute(values: Record<string, unknown>): Promise<PoiSearchRow[]> };
const pageStatements = new WeakMap<object, Map<string, PageStatement>>();

/**
 * The page of a point search as a prepared statement: buildSearchQueries' page with
 * placeholders for every value, built once per executor and statement shape (number of
 * datasets, with or without radius, keyword kind). PostgreSQL skips planning (a third of a
 * radius search's cost on 1M POIs, 0.4 of 1.2 ms) and the query is not rebuilt per request.
 * Only point pages: their plan (the GiST index in distance order) is right for every value —
 * without a keyword the planner picks it by itself, with one the connection is knnDb's, where
 * nothing else is allowed — whereas a generic plan for a keyword alone could suit one keyword
 * and not another.
 */
function pointPage(ex: Executor, f: PoiSearchFilter & { point: NonNullable<PoiSearchFilter['point']> }, terms?: KeywordTerms): Promise<PoiSearchRow[]> {
  let byShape = pageStatements.get(ex);
  if (!byShape) {
    byShape = new Map();
    pageStatements.set(ex, byShape);
  }
  const withRadius = f.point.radius !== undefined;
  const keywordKind = !terms ? 'none' : terms.bigram === undefined ? 'like' : 'bigram';
  const shape = `${f.datasetIds.length}_${withRadius ? 'radius' : 'nearest'}_${keywordKind}`;
  let statement = byShape.get(shape);
  if (!statement) {
    // Placeholders stand where buildSearchQueries puts values: the same SQL, bound later.
    const slot = <T>(name: string) => sql.placeholder(name) as unknown as T;
    const template: PoiSearchFilter & { terms?: KeywordTerms } = {
      datasetIds: f.datasetIds.map((_, i) => slot<string>(`dataset${i}`)),
      point: { latitude: slot('latitude'), longitude: slot('longitude'), radius: withRadius ? slot<number>('radius') : undefined },
      terms: terms && { like: slot('like'), bigram: terms.bigram === undefined ? undefined : slot('bigram') },
      limit: slot('limit'),
      offset: slot('offset'),
    };
    statement = buildSearchQueries(ex, template).page.prepare(`poi_page_${shape}_v3`) as unknown as PageStatement;
    byShape.set(shape, statement);
  }
  const values: Record<string, unknown> = { ...f.point, limit: f.limit, offset: f.offset, ...terms };
  f.datasetIds.forEach((id, i) => (values[`dataset${i}`] = id));
  return statement.execute(values);
}

/**
 * The search of ARCHITECTURE.md "Data": radius by earth_box on the GiST index plus the exact
 * earth_distance, ordered by the KNN operator (never by earth_distance); keywords through the
 * trigram or bigram index. Without a point the order is newest first, which is stable.
 * `knn`: the executor for nearest-first searches with a keyword (Database.knnDb), if any.
 */
export async function searchPois(ex: Executor, f: PoiSearchFilter, knn?: Executor): Promise<{ rows: PoiSearchRow[]; total: number; capped: boolean }> {
  const finish = (rows: PoiSearchRow[], total: number, capped: boolean) => ({
    rows: rows.map((r) => ({ ...r, distance: r.distance === null ? null : Number(r.distance) })),
    total,
    capped,
  });
  if (f.point) {
    // Around a point the total is what the page saw, plus one when there is more: counting
    // would walk the index far past the page in dense areas (cube's containment has no
    // statistics, so the planner cannot even tell how far). One row of look-ahead tells
    // whether a next page exists.
    const ahead = { ...f, point: f.point, limit: f.limit + 1 };
    const terms = f.keyword ? keywordTerms(f.keyword) : undefined;
    // With a keyword as well, the planner (blind to how many POIs a box holds) would gather the
    // keyword's matches in a dense box and sort them; reading the GiST index in distance order
    // and filtering stops after the page. Measured on 1M POIs: 37 ms → 7 ms at p50.
    const rows = !terms
      ? await pointPage(ex, ahead)
      : knn
        ? await pointPage(knn, ahead, terms)
        : await ex.transaction(async (tx) => {
            await tx.execute(sql`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`);
            return buildSearchQueries(tx, { ...ahead, terms }).page;
          });
    if (rows.length > 0 || f.offset === 0) {
      const more = rows.length > f.limit;
      return finish(rows.slice(0, f.limit), f.offset + Math.min(rows.length, f.limit) + (more ? 1 : 0), more);
    }
    // Paged past the end: the capped count says where the end was.
  }
  const q = buildSearchQueries(ex, f);
  const rows = await q.page;
  // A first page that is not full is the whole answer: no count needed.
  const total = f.offset === 0 && rows.length < f.limit ? rows.length : ((await q.count)[0]?.total ?? 0);
  return finish(rows, Math.min(total, SEARCH_TOTAL_CAP), total > SEARCH_TOTAL_CAP);
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

/**
 * One page of a dataset for walking it end to end (keyset on the id, not offset). The id, not
 * created_at: a JavaScript Date cannot carry PostgreSQL's microseconds, so a timestamp cursor
 * would return its own last row again.
 */
export async function listPoisAfter(ex: Executor, datasetId: string, afterId: string | undefined, limit: number): Promise<PoiRow[]> {
  return ex
    .select()
    .from(pois)
    .where(and(eq(pois.datasetId, datasetId), afterId ? sql`${pois.id} > ${afterId}::uuid` : undefined))
    .orderBy(asc(pois.id))
    .limit(limit);
}

/** A PostgreSQL array literal of text items, quoted and escaped. */
const arrayLiteral = (items: string[]) => `{${items.map((t) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

type PoiColumns = ReturnType<typeof toPoiColumns>;

/** Where many POIs of one dataset are written: rows are added one by one, then finished or aborted. */
export interface PoiSink {
  add(fields: PoiFields): Promise<void>;
  /** Writes what is left; resolves once every row is in the table (still inside the caller's transaction). */
  finish(): Promise<void>;
  /** Stops the write (the caller's transaction then rolls back). Never throws. */
  abort(): Promise<void>;
}

/**
 * Inserts many POIs in one statement: one array parameter per column, unnested into rows
 * (list-valued columns travel as array literals and are cast back per row).
 */
async function insertPoisBulk(ex: Executor, datasetId: string, cols: PoiColumns[]): Promise<void> {
  const text = (pick: (c: PoiColumns) => string | null) => sql.param(cols.map(pick));
  await ex.execute(sql`
    INSERT INTO pois (dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams)
    SELECT ${datasetId}::uuid, u.name, u.latitude, u.longitude, u.address, u.category, u.description, u.phone, u.website, u.image_url,
           u.tags::text[], u.search_text, u.search_bigrams::text[]
      FROM unnest(
        ${text((c) => c.name)}::text[], ${sql.param(cols.map((c) => c.latitude))}::float8[], ${sql.param(cols.map((c) => c.longitude))}::float8[],
        ${text((c) => c.address)}::text[], ${text((c) => c.category)}::text[], ${text((c) => c.description)}::text[],
        ${text((c) => c.phone)}::text[], ${text((c) => c.website)}::text[], ${text((c) => c.imageUrl)}::text[],
        ${text((c) => arrayLiteral(c.tags))}::text[], ${text((c) => c.searchText)}::text[], ${text((c) => arrayLiteral(c.searchBigrams))}::text[]
      ) AS u(name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams)`);
}

/** A sink of batched multi-row INSERTs (PGlite: it runs in this thread, so there is nothing to overlap). */
export function insertSink(ex: Executor, datasetId: string, batchSize = 1000): PoiSink {
  let batch: PoiColumns[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    await insertPoisBulk(ex, datasetId, rows);
  };
  return {
    async add(fields) {
      batch.push(toPoiColumns(fields));
      if (batch.length >= batchSize) await flush();
    },
    finish: flush,
    async abort() {
      batch = [];
    },
  };
}

export const POI_COPY_COLUMNS = 'dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams';

const copyText = (s: string | null) => (s === null ? '\\N' : s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')));

/** One POI as a line of COPY's text format (POI_COPY_COLUMNS, tab-separated, \N for null). */
export function copyLine(datasetId: string, c: PoiColumns): string {
  return `${[
    datasetId,
    copyText(c.name),
    String(c.latitude),
    String(c.longitude),
    copyText(c.address),
    copyText(c.category),
    copyText(c.description),
    copyText(c.phone),
    copyText(c.website),
    copyText(c.imageUrl),
    copyText(arrayLiteral(c.tags)),
    copyText(c.searchText),
    copyText(arrayLiteral(c.searchBigrams)),
  ].join('\t')}\n`;
}

/**
 * A sink streaming COPY FROM STDIN on the connection of a PostgreSQL transaction. PostgreSQL
 * stores rows while this process is still parsing the next ones (two processes, two cores), and
 * COPY is the cheapest way in: the import costs about what a raw COPY of its rows costs.
 * Lines are sent in chunks, waiting whenever the socket is full, so memory stays bounded.
 */
export function copySink(client: PoolClient, datasetId: string, chunkLines = 500): PoiSink {
  const stream = client.query(copyFrom(`COPY pois (${POI_COPY_COLUMNS}) FROM STDIN`));
  const done = finished(stream);
  done.catch(() => undefined);
  let lines: string[] = [];
  const send = async () => {
    if (!lines.length) return;
    const chunk = lines.join('');
    lines = [];
    if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), done]);
  };
  return {
    async add(fields) {
      lines.push(copyLine(datasetId, toPoiColumns(fields)));
      if (lines.length >= chunkLines) await send();
    },
    async finish() {
      await send();
      stream.end();
      await done;
    },
    async abort() {
      lines = [];
      // Sends CopyFail: PostgreSQL drops the rows of this COPY and the connection is usable again.
      stream.destroy();
      await done.catch(() => undefined);
    },
  };
}

/** PGlite never autovacuums; after a bulk write the planner needs fresh statistics. */
export async function refreshPoiStatistics(ex: Executor, engine: 'pglite' | 'postgres'): Promise<void> {
  await ex.execute(engine === 'pglite' ? sql`VACUUM ANALYZE pois` : sql`ANALYZE pois`);
}

/** Which dataset each of these POIs belongs to (POIs that do not exist are absent). */
export async function findPoiDatasets(ex: Executor, ids: string[]): Promise<Map<string, string>> {
  const rows = await ex.select({ id: pois.id, datasetId: pois.datasetId }).from(pois).where(inArray(pois.id, ids));
  return new Map(rows.map((r) => [r.id, r.datasetId]));
}

/**
 * Updates many POIs in one statement (the same unnest shape as insertPoisBulk), joined on the
 * primary key alone: the caller has checked in its transaction that every id is a POI of the
 * dataset it holds locked (findPoiDatasets), and a dataset_id condition here let the planner,
 * misled by a freshly loaded dataset's statistics, hash the whole dataset for every batch
 * (60,000 updates took 55 s instead of 7 s in the bench on a loaded machine). A row equal to the stored POI is left
 * alone: re-importing an unchanged export rewrites nothing (no new row versions, updated_at kept).
 */
export async function updatePoisBulk(ex: Executor, rows: Array<{ id: string; fields: PoiFields }>): Promise<void> {
  if (!rows.length) return;
  const cols = rows.map((r) => toPoiColumns(r.fields));
  const text = (pick: (c: PoiColumns) => string | null) => sql.param(cols.map(pick));
  await ex.execute(sql`
    UPDATE pois AS p
       SET name = u.name, latitude = u.latitude, longitude = u.longitude, address = u.address, category = u.category,
           description = u.description, phone = u.phone, website = u.website, image_url = u.image_url,
           tags = u.tags::text[], search_text = u.search_text, search_bigrams = u.search_bigrams::text[], updated_at = now()
      FROM unnest(
        ${sql.param(rows.map((r) => r.id))}::uuid[],
        ${text((c) => c.name)}::text[], ${sql.param(cols.map((c) => c.latitude))}::float8[], ${sql.param(cols.map((c) => c.longitude))}::float8[],
        ${text((c) => c.address)}::text[], ${text((c) => c.category)}::text[], ${text((c) => c.description)}::text[],
        ${text((c) => c.phone)}::text[], ${text((c) => c.website)}::text[], ${text((c) => c.imageUrl)}::text[],
        ${text((c) => arrayLiteral(c.tags))}::text[], ${text((c) => c.searchText)}::text[], ${text((c) => arrayLiteral(c.searchBigrams))}::text[]
      ) AS u(id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams)
     WHERE p.id = u.id
       AND (p.name, p.latitude, p.longitude, p.address, p.category, p.description, p.phone, p.website, p.image_url, p.tags)
           IS DISTINCT FROM (u.name, u.latitude, u.longitude, u.address, u.category, u.description, u.phone, u.website, u.image_url, u.tags::text[])`);
}

/**
 * Deletes the dataset's POIs a replace import neither inserted nor named: `kept` are the ids
 * the file named (updated or equal already); the rows inserted by this transaction carry its
 * start time, now(), in created_at, which no older row can.
 */
export async function deleteUntouchedPois(ex: Executor, datasetId: string, kept: string[]): Promise<number> {
  const rows = await ex
    .delete(pois)
    .where(and(eq(pois.datasetId, datasetId), sql`${pois.createdAt} <> now()`, sql`${pois.id} <> ALL(${sql.param(kept)}::uuid[])`))
    .returning({ id: pois.id });
  return rows.length;
}
