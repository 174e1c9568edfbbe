import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { and, asc, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { EARTHDISTANCE_RADIUS_M, EARTH_MEAN_RADIUS_M, greatCircleMeters } from '@poi/shared/geo';
import { keywordWords, SEARCH_TOTAL_CAP, type PoiFields, type SearchBbox } from '@poi/shared/schemas/pois';
import { foldKeywordTerms } from '@poi/shared/search-fold';
import { pgClientOf, type Executor } from '../../db/client';
import { arrayLiteral, escapeLike } from '../../db/sql';
import { datasets, pois } from '../../db/schema/datasets';
import { SEARCH_FOLD_VERSION, searchColumns, staleSearchRowsMayExist } from './search-columns';

export type PoiRow = typeof pois.$inferSelect;

/** The stored columns of a POI's fields, with the derived search columns kept in step. */
export function toPoiColumns(fields: PoiFields) {
  const tags = fields.tags ?? [];
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
    ...searchColumns({ name: fields.name, address: fields.address, category: fields.category, tags }),
  };
}

/** One keyword word as the search binds it: the LIKE pattern, and the bigram when it has 2 characters. */
export interface KeywordTerm {
  like: string;
  bigram?: string;
}

/**
 * A keyword word, and while POIs written by the folding before migration 0014 may remain (the
 * back-fill has not finished), the same word as those rows hold it (NFKC + lower case) when that
 * differs: such a form never occurs in a rewritten row (it holds a symbol, hiragana, a small kana,
 * a variant kanji …), so it finds exactly the stale rows the old search found.
 */
export interface KeywordTerms extends KeywordTerm {
  legacy?: KeywordTerm;
}

const termOf = (word: string): KeywordTerm => ({ like: `%${escapeLike(word)}%`, bigram: Array.from(word).length === 2 ? word : undefined });

/** The words of a keyword that each must match: a word contained in another adds nothing and is dropped. */
export function requiredWords<T extends { word: string }>(words: T[]): T[] {
  return words.filter((w) => !words.some((other) => other !== w && other.word.includes(w.word)));
}

/**
 * The words of a keyword, each required (AND, in any field and any order: search_text holds
 * every field). Bigram words come first, so that a prepared statement's shape is just how many
 * of each kind there are.
 */
function keywordTerms(keyword: string | undefined): KeywordTerms[] {
  const legacy = staleSearchRowsMayExist();
  return requiredWords(keyword ? foldKeywordTerms(keyword) : [])
    .map((w) => ({ ...termOf(w.word), legacy: legacy && w.legacy ? termOf(w.legacy) : undefined }))
    .sort((a, b) => Number(a.bigram === undefined) - Number(b.bigram === undefined));
}

/**
 * The keyword condition of docs/search.md "Keywords": 3+ characters go through the trigram index,
 * 2 characters through the bigram array (then confirmed), 1 character by substring alone.
 */
function termCondition(t: KeywordTerm): SQL {
  const like = sql`${pois.searchText} LIKE ${t.like}`;
  return t.bigram === undefined ? like : sql`${pois.searchBigrams} @> ARRAY[${t.bigram}]::text[] AND ${like}`;
}

function keywordCondition(t: KeywordTerms): SQL {
  if (!t.legacy) return termCondition(t);
  return sql`((${termCondition(t)}) OR (${pois.searchVersion} < ${SEARCH_FOLD_VERSION} AND ${termCondition(t.legacy)}))`;
}

/** The kinds of a point search's terms, in order: a prepared statement per shape. */
const termsShape = (terms: KeywordTerms[]) =>
  terms.map((t) => `${t.bigram === undefined ? 'l' : 'b'}${t.legacy ? (t.legacy.bigram === undefined ? 'L' : 'B') : ''}`).join('');

export async function insertPoi(ex: Executor, datasetId: string, fields: PoiFields): Promise<PoiRow> {
  const rows = await ex.insert(pois).values({ datasetId, ...toPoiColumns(fields) }).returning();
  return rows[0]!;
}

/**
 * Rewrites a POI when one of its fields differs from what is stored; an edit that changes nothing
 * writes nothing (updated_at and the search change log stay as they were) and answers undefined,
 * as for a POI that does not exist: the caller reads the row it already checked.
 */
export async function updatePoi(ex: Executor, id: string, fields: PoiFields): Promise<PoiRow | undefined> {
  const c = toPoiColumns(fields);
  const rows = await ex
    .update(pois)
    .set({ ...c, updatedAt: sql`now()` })
    .where(
      and(
        eq(pois.id, id),
        sql`(${pois.name}, ${pois.latitude}, ${pois.longitude}, ${pois.address}, ${pois.category}, ${pois.description}, ${pois.phone}, ${pois.website}, ${pois.imageUrl}, ${pois.tags})
            IS DISTINCT FROM (${c.name}::text, ${c.latitude}::float8, ${c.longitude}::float8, ${c.address}::text, ${c.category}::text, ${c.description}::text,
                              ${c.phone}::text, ${c.website}::text, ${c.imageUrl}::text, ${arrayLiteral(c.tags)}::text[])`,
      ),
    )
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

/**
 * Where a walk by cursor continues: after this row in the search's order. Around a point the
 * order is the KNN operator's value (the chord between the cube points, monotone in the
 * distance), then the id; otherwise created_at (its text, which keeps PostgreSQL's
 * microseconds), then the id, both descending, after the rank of the name's match (0 exact,
 * 1 prefix, 2 other) for a keyword search.
 */
export type SearchKey = { knn: number; id: string; memory?: boolean } | { ts: string; id: string; rank?: number };

/**
 * How far apart PostgreSQL's KNN value of a row and the in-memory index's may be (metres of
 * chord): the two compute the cube coordinates with different cos/sin (glibc's and V8's), which
 * differ in the last bit for a few percent of angles. A cursor from the other path treats rows
 * within this band of its key as ties of its row (ordered by id), so the group of POIs sharing
 * the cursor row's point is neither repeated nor skipped; a cursor of the same path compares
 * exactly (the band is zero).
 */
export const CROSS_PATH_KNN_BAND = 1e-7;

/** The key's band on the path reading it: [lo, hi] of the KNN values that count as the key's own. */
export const knnBand = (after: { knn: number; memory?: boolean }, onMemoryPath: boolean) => {
  const band = !!after.memory === onMemoryPath ? 0 : CROSS_PATH_KNN_BAND;
  return { lo: after.knn - band, hi: after.knn + band };
};

export interface PoiSearchFilter {
  datasetIds: string[];
  keyword?: string;
  /** With a point, results are nearest first and carry their distance. */
  point?: { latitude: number; longitude: number; radius?: number };
  limit: number;
  offset: number;
  /** Only POIs inside this box (borders included): [minLon, minLat, maxLon, maxLat], min ≤ max. */
  bbox?: SearchBbox;
  /** Only POIs having every one of these tags (folded as search_tags holds them). */
  tags?: string[];
  /** Only POIs of this category (folded as search_category holds it). */
  category?: string;
  /** Continue after this row (a cursor's key); offset is then 0. */
  after?: SearchKey;
  /** The total of these filters, counted a moment ago: the search then skips counting. */
  knownTotal?: { total: number; capped: boolean };
}

export type PoiSearchRow = Omit<PoiRow, 'earth' | 'searchText' | 'searchBigrams' | 'searchName' | 'searchVersion' | 'searchTags' | 'searchCategory'> & {
  distance: number | null;
};

export interface PoiSearchResult {
  rows: PoiSearchRow[];
  /** Exact up to SEARCH_TOTAL_CAP, then SEARCH_TOTAL_CAP with `capped`; exact at any size without keyword and point. */
  total: number;
  capped: boolean;
  /** The key of the page's last row when more rows follow. */
  next?: SearchKey;
  /**
   * Around a point, when the first page's walk found more than SEARCH_TOTAL_CAP matches: they all
   * lie within this many metres (mean Earth) of the point. See the service's capped areas.
   */
  cappedWithin?: number;
}

// What a search answers: not the stored earth cube nor the derived search columns, which are
// large (the bigram array) and never leave the server.
const {
  earth: _earth,
  searchText: _searchText,
  searchBigrams: _searchBigrams,
  searchName: _searchName,
  searchVersion: _searchVersion,
  searchTags: _searchTags,
  searchCategory: _searchCategory,
  ...resultColumns
} = getTableColumns(pois);

/** The radius asked (mean-Earth metres) as earthdistance metres, and earthdistance metres back. */
const RADIUS_TO_EARTHDISTANCE = sql.raw(`${EARTHDISTANCE_RADIUS_M / EARTH_MEAN_RADIUS_M}::float8`);
const EARTHDISTANCE_TO_MEAN = sql.raw(`${EARTH_MEAN_RADIUS_M / EARTHDISTANCE_RADIUS_M}::float8`);

/**
 * What pois_earth_idx holds for a POI (migration 0018): its earth point as a box of ±1 µm, which
 * keeps cube's split from degenerating on points that lie on one line. The walks of a point search
 * read the index in the order of the distance to this box, which is at most the point's own KNN
 * value and less by under 2 µm (1 µm per axis), and never in a different order by more than that.
 */
const earthKey = sql`cube_enlarge(${pois.earth}, 1e-6, 3)`;

/** Great-circle metres (mean Earth) of a KNN value: the chord between cube points on earthdistance's sphere. */
export const chordToMeters = (chord: number) => 2 * EARTH_MEAN_RADIUS_M * Math.asin(Math.min(1, chord / (2 * EARTHDISTANCE_RADIUS_M)));

/** A value, or the placeholder standing for it in a prepared statement. */
type Bound = unknown;

/**
 * A bbox's circumscribing circle, when it has a useful one: all of the box lies within `radius`
 * mean-Earth metres of (latitude, longitude). For a box narrower than 180° of longitude the
 * farthest points from its centre are corners (along a parallel the distance grows with the
 * longitude difference up to 180°; along a meridian it is a cosine of the latitude with its
 * maximum inside (-90°, 90°), so its minimum over an edge is at an end), so the largest corner
 * distance, with a metre and a millionth to spare, bounds it. The circle lets the GiST index find
 * the box's rows (earth_box) instead of every row of the datasets being tested.
 */
export function bboxCircle(b: SearchBbox): { latitude: number; longitude: number; radius: number } | undefined {
  const [minLon, minLat, maxLon, maxLat] = b;
  if (maxLon - minLon >= 180) return undefined;
  const latitude = (minLat + maxLat) / 2;
  const longitude = (minLon + maxLon) / 2;
  const corners = [minLat, maxLat].flatMap((lat) => [minLon, maxLon].map((lon) => greatCircleMeters(latitude, longitude, lat, lon)));
  return { latitude, longitude, radius: Math.max(...corners) * 1.000001 + 1 };
}

/** The filters of docs/search.md "Map viewports and filters" beside datasets, keywords and point. */
interface ExtraParams {
  bbox?: { minLon: Bound; minLat: Bound; maxLon: Bound; maxLat: Bound; circle?: { latitude: Bound; longitude: Bound; radius: Bound } };
  /** The folded tags as one array literal (arrayLiteral). */
  tags?: Bound;
  category?: Bound;
}

function extraParamsOf(f: Pick<PoiSearchFilter, 'bbox' | 'tags' | 'category'>): ExtraParams {
  const b = f.bbox;
  return {
    bbox: b && { minLon: b[0], minLat: b[1], maxLon: b[2], maxLat: b[3], circle: bboxCircle(b) },
    tags: f.tags?.length ? arrayLiteral(f.tags) : undefined,
    category: f.category,
  };
}

const hasExtra = (f: Pick<PoiSearchFilter, 'bbox' | 'tags' | 'category'>) => !!(f.bbox || f.tags?.length || f.category !== undefined);

function extraConditions(e: ExtraParams): SQL[] {
  const out: SQL[] = [];
  if (e.bbox) {
    const b = e.bbox;
    const c = b.circle;
    if (c) {
      out.push(
        sql`earth_box((SELECT ll_to_earth(${c.latitude}::float8, ${c.longitude}::float8)), ${c.radius}::float8 * ${RADIUS_TO_EARTHDISTANCE}) && ${earthKey}`,
      );
    }
    out.push(
      sql`${pois.latitude} >= ${b.minLat}::float8 AND ${pois.latitude} <= ${b.maxLat}::float8 AND ${pois.longitude} >= ${b.minLon}::float8 AND ${pois.longitude} <= ${b.maxLon}::float8`,
    );
  }
  if (e.tags !== undefined) out.push(sql`${pois.searchTags} @> ${e.tags}::text[]`);
  if (e.category !== undefined) out.push(sql`${pois.searchCategory} = ${e.category}::text`);
  return out;
}

interface PointParams extends ExtraParams {
  datasetIds: Bound[];
  latitude: Bound;
  longitude: Bound;
  radius?: Bound;
  terms: Array<{ like: Bound; bigram?: Bound; legacy?: { like: Bound; bigram?: Bound } }>;
  /** How many rows the KNN walk reads, in KNN order, before the exact order is applied. */
  window: Bound;
  offset: Bound;
  limit: Bound;
  after?: { lo: Bound; hi: Bound; id: Bound };
  /** Count the matches (up to the cap) in a walk of their own: a cursor's page cannot tell the total. */
  counted: boolean;
}

/**
 * Whether a cursor page counts its total in an unordered walk of the radius's box: with a radius
 * and no keyword. A keyword's matches are tested on the table row by row, and the nearest-first
 * walk tests fewer rows (those in the circle, not in the box's corners), so keyword searches and
 * searches without a radius count in KNN order.
 */
function boxCount(p: { radius?: unknown; terms: unknown[] }): boolean {
  return p.radius !== undefined && p.terms.length === 0;
}

function datasetCondition(ids: unknown[]): SQL {
  return ids.length === 1 ? eq(pois.datasetId, ids[0] as string) : inArray(pois.datasetId, ids as string[]);
}

/**
 * A search around a point, in the documented order (distance, then poi_id) without giving up
 * the GiST index's KNN order: `ranked` reads the first `window` matches nearest first by the
 * index's key (the planner cannot keep that index order with a second sort key: it would sort
 * every match of a dense box), then only those rows are sorted by (knn, id), knn being the stored
 * point's exact value, and the page cut from them. A row the walk did not reach has a key
 * distance of at least the window's last one (last_box), so its knn is at least that too: the
 * page is exact when its last knn is below last_box. Otherwise (ties at the window's end, or
 * rows within the key's 2 µm of it) the caller asks a larger window. `fetched` also gives the
 * total without a second walk when the window reaches past the cap.
 */
export function buildPointQuery(ex: Executor, p: PointParams) {
  const { filter, boxFilter, center, knnOf, walkOf } = pointWhere(p);
  // Past the key's band, or inside it after the key's id (an exact tie when the band is zero).
  const after = p.after
    ? sql`(${knnOf} > ${p.after.hi}::float8 OR (${knnOf} >= ${p.after.lo}::float8 AND ${pois.id} > ${p.after.id}::uuid))`
    : undefined;
  const ranked = ex.$with('ranked').as(
    ex
      .select({ rid: sql<string>`${pois.id}`.as('rid'), rknn: sql<number>`${knnOf}`.as('rknn'), rbox: sql<number>`${walkOf}`.as('rbox') })
      .from(pois)
      .where(and(filter, after))
      .orderBy(walkOf)
      .limit(p.window as number),
  );
  const page = ex.$with('page').as(
    ex
      .select({ pid: sql<string>`rid`.as('pid'), pknn: sql<number>`rknn`.as('pknn') })
      .from(ranked)
      .orderBy(sql`rknn`, sql`rid`)
      .limit(p.limit as number)
      .offset(p.offset as number),
  );
  // The total needs no order: any cap + 1 matches say "capped". With a radius and no keyword the
  // count reads the GiST index as a plain box scan (index-only: pois_earth_idx includes
  // dataset_id) that stops at the cap + 1st match: 0.4 ms where a KNN walk of as many rows takes
  // 1 ms on 1M POIs. Otherwise it walks in KNN order (see boxCount).
  const cap = sql.raw(String(SEARCH_TOTAL_CAP + 1));
  const count = boxCount(p)
    ? sql<number>`(SELECT count(*)::int FROM (SELECT 1 FROM ${pois} WHERE ${boxFilter} LIMIT ${cap}) AS matches)`
    : sql<number>`(SELECT count(*)::int FROM (SELECT 1 FROM ${pois} WHERE ${filter} ORDER BY ${walkOf} LIMIT ${cap}) AS matches)`;
  const total = p.counted ? count : sql<null>`NULL::int`;
  return ex
    .with(ranked, page)
    .select({
      ...resultColumns,
      distance: sql<number>`earth_distance(${center}, ${pois.earth}) * ${EARTHDISTANCE_TO_MEAN}`,
      knn: sql<number>`pknn`,
      fetched: sql<number>`(SELECT count(*)::int FROM ranked)`,
      lastKnn: sql<number>`(SELECT max(rknn) FROM ranked)`,
      lastBox: sql<number>`(SELECT max(rbox) FROM ranked)`,
      total,
    })
    .from(page)
    .innerJoin(pois, sql`${pois.id} = pid`)
    .orderBy(sql`pknn`, sql`pid`);
}

type PointRow = PoiSearchRow & { knn: number; fetched: number; lastKnn: number; lastBox: number; total: number | null };
type PointStatement = { execute(values: Record<string, unknown>): Promise<PointRow[]> };
const pointStatements = new WeakMap<object, Map<string, PointStatement>>();

interface PointRun {
  extra: ExtraParams;
  datasetIds: string[];
  point: { latitude: number; longitude: number; radius?: number };
  terms: KeywordTerms[];
  window: number;
  offset: number;
  limit: number;
  after?: { lo: number; hi: number; id: string };
  /** Count the total in a walk of its own (a cursor page whose total is not known). */
  counted: boolean;
}

/**
 * A point search as a prepared statement, built once per executor and shape (number of
 * datasets, radius or not, keyword words of each kind, cursor or not): PostgreSQL skips
 * planning (a third of a radius search's cost on 1M POIs) and the query is not rebuilt per
 * request. It runs on knnDb, whose connections keep generic plans with bitmap scans and sorts
 * off, so the plan is the GiST index in distance order for every value.
 */
function runPointPrepared(ex: Executor, r: PointRun): Promise<PointRow[]> {
  let byShape = pointStatements.get(ex);
  if (!byShape) {
    byShape = new Map();
    pointStatements.set(ex, byShape);
  }
  const e = r.extra;
  const extraShape = `${e.bbox ? (e.bbox.circle ? 'B' : 'b') : ''}${e.tags !== undefined ? 't' : ''}${e.category !== undefined ? 'c' : ''}`;
  const shape = `${r.datasetIds.length}_${r.point.radius !== undefined ? 'r' : 'n'}_${termsShape(r.terms)}_${r.after ? 'after' : 'offset'}${r.counted ? '_counted' : ''}${extraShape ? `_${extraShape}` : ''}`;
  let statement = byShape.get(shape);
  if (!statement) {
    const slot = (name: string) => sql.placeholder(name);
    statement = buildPointQuery(ex, {
      datasetIds: r.datasetIds.map((_, i) => slot(`dataset${i}`)),
      latitude: slot('latitude'),
      longitude: slot('longitude'),
      radius: r.point.radius !== undefined ? slot('radius') : undefined,
      terms: r.terms.map((t, i) => ({
        like: slot(`like${i}`),
        bigram: t.bigram === undefined ? undefined : slot(`bigram${i}`),
        legacy: t.legacy ? { like: slot(`legacyLike${i}`), bigram: t.legacy.bigram === undefined ? undefined : slot(`legacyBigram${i}`) } : undefined,
      })),
      window: slot('window'),
      offset: slot('offset'),
      limit: slot('limit'),
      after: r.after ? { lo: slot('afterLo'), hi: slot('afterHi'), id: slot('afterId') } : undefined,
      counted: r.counted,
      bbox: e.bbox && {
        minLon: slot('minLon'),
        minLat: slot('minLat'),
        maxLon: slot('maxLon'),
        maxLat: slot('maxLat'),
        circle: e.bbox.circle && { latitude: slot('boxLatitude'), longitude: slot('boxLongitude'), radius: slot('boxRadius') },
      },
      tags: e.tags !== undefined ? slot('tags') : undefined,
      category: e.category !== undefined ? slot('category') : undefined,
    }).prepare(`poi_point_${shape}_v6`) as unknown as PointStatement;
    byShape.set(shape, statement);
  }
  const values: Record<string, unknown> = { ...r.point, window: r.window, offset: r.offset, limit: r.limit };
  r.datasetIds.forEach((id, i) => (values[`dataset${i}`] = id));
  r.terms.forEach((t, i) => {
    values[`like${i}`] = t.like;
    if (t.bigram !== undefined) values[`bigram${i}`] = t.bigram;
    if (t.legacy) values[`legacyLike${i}`] = t.legacy.like;
    if (t.legacy?.bigram !== undefined) values[`legacyBigram${i}`] = t.legacy.bigram;
  });
  if (r.after) Object.assign(values, { afterLo: r.after.lo, afterHi: r.after.hi, afterId: r.after.id });
  if (e.bbox) Object.assign(values, { minLon: e.bbox.minLon, minLat: e.bbox.minLat, maxLon: e.bbox.maxLon, maxLat: e.bbox.maxLat });
  if (e.bbox?.circle) Object.assign(values, { boxLatitude: e.bbox.circle.latitude, boxLongitude: e.bbox.circle.longitude, boxRadius: e.bbox.circle.radius });
  if (e.tags !== undefined) values.tags = e.tags;
  if (e.category !== undefined) values.category = e.category;
  return statement.execute(values);
}

/** The same statement with its values inline, in a transaction that steers the planner as knnDb's connections are (PGlite). */
async function runPointSteered(ex: Executor, r: PointRun): Promise<PointRow[]> {
  return ex.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`);
    return (await buildPointQuery(tx, { ...r, ...r.point, ...r.extra })) as unknown as PointRow[];
  });
}

/** Counts the matches of a filter up to the cap plus one (in the page's order, so the planner stops there). */
function countQuery(ex: Executor, where: SQL | undefined, order: SQL[]) {
  return ex
    .select({ total: sql<number>`count(*)::int` })
    .from(ex.select({ one: sql`1` }).from(pois).where(where).orderBy(...order).limit(SEARCH_TOTAL_CAP + 1).as('matches'));
}

const capTotal = (n: number) => ({ total: Math.min(n, SEARCH_TOTAL_CAP), capped: n > SEARCH_TOTAL_CAP });

async function searchAroundPoint(ex: Executor, f: PoiSearchFilter & { point: NonNullable<PoiSearchFilter['point']> }, terms: KeywordTerms[], knn?: Executor): Promise<PoiSearchResult> {
  const key = f.after && 'knn' in f.after ? f.after : undefined;
  const after = key ? { ...knnBand(key, false), id: key.id } : undefined;
  const offset = after ? 0 : f.offset;
  const known = f.knownTotal;
  // Past the cap the window's own count tells the total: no second walk for offset pages.
  let window = after || known ? offset + f.limit + 1 : Math.max(offset + f.limit + 1, SEARCH_TOTAL_CAP + 1);
  const extra = extraParamsOf(f);
  for (;;) {
    const run: PointRun = { extra, datasetIds: f.datasetIds, point: f.point, terms, window, offset, limit: f.limit, after, counted: !!after && !known };
    const rows = knn ? await runPointPrepared(knn, run) : await runPointSteered(ex, run);
    const last = rows.at(-1);
    if (!last && known) return { rows: [], ...known };
    if (!last) {
      // Nothing at this offset (or after this cursor): the total comes from a count of its own.
      const { filter, walkOf } = pointWhere({ ...f.point, ...extra, datasetIds: f.datasetIds, terms });
      const [{ total } = { total: 0 }] = await countQuery(ex, filter, [walkOf]);
      return { rows: [], ...capTotal(total) };
    }
    const { fetched, lastKnn } = last;
    // Rows past the window may come before the page's last row (a tie, or within the key's 2 µm
    // of it): read a larger window.
    if (fetched === window && !(Number(last.knn) < Number(last.lastBox))) {
      window = window * 2 + 100;
      continue;
    }
    const more = fetched > offset + f.limit;
    const total = known ?? capTotal(after ? Number(last.total) : fetched);
    return {
      rows: rows.map(({ knn: _k, fetched: _f, lastKnn: _l, lastBox: _b, total: _t, ...row }) => ({ ...row, distance: Number(row.distance) })),
      ...total,
      next: more ? { knn: Number(last.knn), id: last.id } : undefined,
      // The window's rows are all within its last KNN value (a chord of earthdistance's sphere).
      cappedWithin: !after && !known && fetched > SEARCH_TOTAL_CAP ? chordToMeters(Number(lastKnn)) : undefined,
    };
  }
}

/** The filter of a point search, its centre and its KNN order. */
function pointWhere(p: Pick<PointParams, 'datasetIds' | 'latitude' | 'longitude' | 'radius' | 'terms' | 'bbox' | 'tags' | 'category'>) {
  // A scalar subquery, so the centre is computed once per statement: in a generic plan (knnDb)
  // ll_to_earth of parameters is not folded and was computed again for every row the walks
  // test (the distance filter), half the time of a radius search's walks on 1M POIs.
  const center = sql`(SELECT ll_to_earth(${p.latitude}::float8, ${p.longitude}::float8))`;
  const where = (dataset: SQL) =>
    and(
      dataset,
      ...p.terms.map((t) => keywordCondition(t as KeywordTerms)),
      // The key's box overlaps the radius's cube when the point is in it (or within 1 µm of it).
      p.radius !== undefined ? sql`earth_box(${center}, ${p.radius}::float8 * ${RADIUS_TO_EARTHDISTANCE}) && ${earthKey}` : undefined,
      p.radius !== undefined ? sql`earth_distance(${center}, ${pois.earth}) <= ${p.radius}::float8 * ${RADIUS_TO_EARTHDISTANCE}` : undefined,
      ...extraConditions(p),
    )!;
  return {
    filter: where(datasetCondition(p.datasetIds)),
    // The same filter for the unordered count, its dataset test written so that no btree index
    // can serve it (IS TRUE; dataset_id is never null): the count then can only read the GiST
    // box, whatever generic plan statistics of many small datasets would suggest (reading a large
    // dataset through pois_dataset_created_idx until the cap's matches would take seconds).
    boxFilter: where(sql`(${datasetCondition(p.datasetIds)}) IS TRUE`),
    center,
    /** The exact order: the stored point's KNN value. */
    knnOf: sql`${pois.earth} <-> ${center}`,
    /** The order the index can walk (earthKey): never above knnOf, and below it by under 2 µm. */
    walkOf: sql`${earthKey} <-> ${center}`,
  };
}

/**
 * The page of a keyword search without a point, ranked: POIs whose folded name is the
 * keyword (its words joined) first, then those whose name starts with it, then the other matches;
 * newest first, then id, within each rank. The first n rows of that order are among the first n
 * of each rank, so each rank is read on its own (the exact and prefix ranks through
 * pois_dataset_search_name_idx, the rest as an unranked keyword search reads) and only those
 * 3 × n rows are sorted. A cursor carries the rank: ranks before it are skipped, its own rank
 * continues after the key, the later ones start from their top.
 */
function rankedKeywordPage(ex: Executor, f: PoiSearchFilter, filter: SQL, exact: string, after?: { ts: string; id: string; rank?: number }) {
  const n = (f.after ? 0 : f.offset) + f.limit + 1;
  const prefix = `${escapeLike(exact)}%`;
  const dataset = and(datasetCondition(f.datasetIds), ...extraConditions(extraParamsOf(f)))!;
  const ranks: Array<[number, SQL]> = [
    [0, sql`${dataset} AND ${pois.searchName} = ${exact}`],
    [1, sql`${dataset} AND ${pois.searchName} LIKE ${prefix} AND ${pois.searchName} <> ${exact}`],
    [2, sql`${filter} AND ${pois.searchName} NOT LIKE ${prefix}`],
  ];
  const parts = ranks
    .filter(([rank]) => !after || rank >= (after.rank ?? 2))
    .map(([rank, where]) => {
      const cont = after && rank === (after.rank ?? 2) ? sql` AND (${pois.createdAt}, ${pois.id}) < (${after.ts}::timestamptz, ${after.id}::uuid)` : sql``;
      return sql`(SELECT ${pois.id} AS rid, ${sql.raw(String(rank))} AS rrank, ${pois.createdAt} AS rts FROM ${pois}
                  WHERE ${where}${cont} ORDER BY ${pois.createdAt} DESC, ${pois.id} DESC LIMIT ${n})`;
    });
  const ranked = sql`(SELECT rid, rrank, rts FROM (${sql.join(parts, sql` UNION ALL `)}) AS parts
                      ORDER BY rrank, rts DESC, rid DESC LIMIT ${f.limit + 1} OFFSET ${f.after ? 0 : f.offset}) AS ranked`;
  return ex
    .select({ ...resultColumns, distance: sql<null>`NULL::float8`, ts: sql<string>`ranked.rts::text`, rank: sql<number>`ranked.rrank` })
    .from(ranked)
    .innerJoin(pois, sql`${pois.id} = ranked.rid`)
    .orderBy(sql`ranked.rrank`, sql`ranked.rts DESC`, sql`ranked.rid DESC`);
}

/**
 * The statements of a search without a point (newest first, then id), built but not run: the
 * page with one row of look-ahead, the capped count of a keyword search, and the exact total of
 * a plain list (the datasets' POI counts, kept in the same transactions as the POIs).
 */
export function buildListQueries(ex: Executor, f: PoiSearchFilter, terms: KeywordTerms[], ranked = true) {
  const filter = and(datasetCondition(f.datasetIds), ...terms.map(keywordCondition), ...extraConditions(extraParamsOf(f)));
  const listAfter = f.after && 'ts' in f.after ? f.after : undefined;
  const after = listAfter ? sql`(${pois.createdAt}, ${pois.id}) < (${listAfter.ts}::timestamptz, ${listAfter.id}::uuid)` : undefined;
  const order = [desc(pois.createdAt), desc(pois.id)];
  const words = f.keyword && ranked ? keywordWords(f.keyword) : [];
  return {
    page: words.length
      ? rankedKeywordPage(ex, f, filter!, words.join(''), listAfter)
      : ex
          .select({ ...resultColumns, distance: sql<null>`NULL::float8`, ts: sql<string>`${pois.createdAt}::text`, rank: sql<null>`NULL::int` })
          .from(pois)
          .where(and(filter, after))
          .orderBy(...order)
          .limit(f.limit + 1)
          .offset(f.after ? 0 : f.offset),
    count: countQuery(ex, filter, order),
    datasetsTotal: ex
      .select({ total: sql<number>`coalesce(sum(${datasets.poiCount}), 0)::int` })
      .from(datasets)
      .where(f.datasetIds.length === 1 ? eq(datasets.id, f.datasetIds[0]!) : inArray(datasets.id, f.datasetIds)),
  };
}

/**
 * The statements a search runs, built but not run: the benchmark sends them straight to the
 * driver as its baseline. `count: false` leaves the total out (the cost of counting): around a
 * point the window stops after the page instead of reaching past the cap; otherwise no count.
 * `ranked: false` pages a keyword search newest first without the name ranks (the order before
 * names were ranked: what ranking costs).
 */
export function buildSearchStatements(ex: Executor, f: PoiSearchFilter, options: { count: boolean; ranked?: boolean } = { count: true }) {
  const terms = keywordTerms(f.keyword);
  if (f.point) {
    const window = options.count ? Math.max(f.offset + f.limit + 1, SEARCH_TOTAL_CAP + 1) : f.offset + f.limit + 1;
    return { point: buildPointQuery(ex, { ...f.point, ...extraParamsOf(f), datasetIds: f.datasetIds, terms, window, offset: f.offset, limit: f.limit, counted: false }) };
  }
  const q = buildListQueries(ex, f, terms, options.ranked ?? true);
  return { page: q.page, count: options.count ? (terms.length || hasExtra(f) ? q.count : q.datasetsTotal) : undefined };
}

/**
 * The search of docs/search.md "Order and paging" in one documented order with a tie-breaker: nearest
 * first then poi_id around a point, newest first then poi_id otherwise (a keyword search first
 * ranks exact and prefix matches of the name, rankedKeywordPage); every match once over
 * offset pages of unchanged data, and once over a cursor walk whatever changes meanwhile.
 * `knn`: the executor for point searches (Database.knnDb), if any.
 */
export async function searchPois(ex: Executor, f: PoiSearchFilter, knn?: Executor): Promise<PoiSearchResult> {
  const terms = keywordTerms(f.keyword);
  if (f.point) return searchAroundPoint(ex, { ...f, point: f.point }, terms, knn);
  const q = buildListQueries(ex, f, terms);
  // The datasets' POI counts are the total of a plain list only: any filter counts its matches.
  const [page, exact] = await Promise.all([q.page, terms.length || hasExtra(f) ? undefined : q.datasetsTotal]);
  const more = page.length > f.limit;
  const rows = page.slice(0, f.limit).map(({ ts: _ts, rank: _rank, ...row }) => row);
  const last = page[f.limit - 1];
  const next = more && last ? { ts: last.ts, id: last.id, ...(last.rank === null ? {} : { rank: Number(last.rank) }) } : undefined;
  if (exact) return { rows, total: exact[0]?.total ?? 0, capped: false, next };
  if (f.knownTotal) return { rows, ...f.knownTotal, next };
  // A first page that is not full is the whole answer: no count needed.
  if (!f.after && f.offset === 0 && !more) return { rows, total: rows.length, capped: false, next };
  const [{ total } = { total: 0 }] = await q.count;
  return { rows, ...capTotal(total), next };
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
    INSERT INTO pois (dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams, search_name, search_version,
                      search_tags, search_category)
    SELECT ${datasetId}::uuid, u.name, u.latitude, u.longitude, u.address, u.category, u.description, u.phone, u.website, u.image_url,
           u.tags::text[], u.search_text, u.search_bigrams::text[], u.search_name, u.search_version, u.search_tags::text[], u.search_category
      FROM unnest(
        ${text((c) => c.name)}::text[], ${sql.param(cols.map((c) => c.latitude))}::float8[], ${sql.param(cols.map((c) => c.longitude))}::float8[],
        ${text((c) => c.address)}::text[], ${text((c) => c.category)}::text[], ${text((c) => c.description)}::text[],
        ${text((c) => c.phone)}::text[], ${text((c) => c.website)}::text[], ${text((c) => c.imageUrl)}::text[],
        ${text((c) => arrayLiteral(c.tags))}::text[], ${text((c) => c.searchText)}::text[], ${text((c) => arrayLiteral(c.searchBigrams))}::text[],
        ${text((c) => c.searchName)}::text[], ${sql.param(cols.map((c) => c.searchVersion))}::int2[],
        ${text((c) => arrayLiteral(c.searchTags))}::text[], ${text((c) => c.searchCategory)}::text[]
      ) AS u(name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams, search_name, search_version,
             search_tags, search_category)`);
}

/**
 * Where an import's rows go inside its transaction: COPY on PostgreSQL (the transaction's own
 * connection), batched INSERTs on PGlite (which has no COPY from a stream).
 */
export function importSink(tx: Executor, engine: 'postgres' | 'pglite', datasetId: string): PoiSink {
  return engine === 'postgres' ? copySink(pgClientOf(tx), datasetId) : insertSink(tx, datasetId);
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

export const POI_COPY_COLUMNS =
  'dataset_id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams, search_name, search_version, search_tags, search_category';

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
    copyText(c.searchName),
    String(c.searchVersion),
    copyText(arrayLiteral(c.searchTags)),
    copyText(c.searchCategory),
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

/**
 * After a bulk write: fresh planner statistics, and the new rows' pages marked all-visible, so
 * radius searches keep reading pois_earth_idx alone (index-only) instead of fetching each new
 * row from the table. PGlite never autovacuums, and PostgreSQL's autovacuum may be off or come
 * late; VACUUM skips the pages already all-visible (0.5 s for 1M freshly loaded POIs).
 */
export async function refreshPoiStatistics(ex: Executor): Promise<void> {
  await ex.execute(sql`VACUUM ANALYZE pois`);
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
 * alone: re-importing an unchanged export rewrites nothing (no new row versions, updated_at kept,
 * nothing in the search change log). Answers how many rows were rewritten, counted by the same
 * statement (the others were equal).
 */
export async function updatePoisBulk(ex: Executor, rows: Array<{ id: string; fields: PoiFields }>): Promise<number> {
  if (!rows.length) return 0;
  const cols = rows.map((r) => toPoiColumns(r.fields));
  const text = (pick: (c: PoiColumns) => string | null) => sql.param(cols.map(pick));
  const { rows: counted } = await ex.execute<{ n: number }>(sql`
    WITH changed AS (
    UPDATE pois AS p
       SET name = u.name, latitude = u.latitude, longitude = u.longitude, address = u.address, category = u.category,
           description = u.description, phone = u.phone, website = u.website, image_url = u.image_url,
           tags = u.tags::text[], search_text = u.search_text, search_bigrams = u.search_bigrams::text[],
           search_name = u.search_name, search_version = u.search_version, search_tags = u.search_tags::text[], search_category = u.search_category,
           updated_at = now()
      FROM unnest(
        ${sql.param(rows.map((r) => r.id))}::uuid[],
        ${text((c) => c.name)}::text[], ${sql.param(cols.map((c) => c.latitude))}::float8[], ${sql.param(cols.map((c) => c.longitude))}::float8[],
        ${text((c) => c.address)}::text[], ${text((c) => c.category)}::text[], ${text((c) => c.description)}::text[],
        ${text((c) => c.phone)}::text[], ${text((c) => c.website)}::text[], ${text((c) => c.imageUrl)}::text[],
        ${text((c) => arrayLiteral(c.tags))}::text[], ${text((c) => c.searchText)}::text[], ${text((c) => arrayLiteral(c.searchBigrams))}::text[],
        ${text((c) => c.searchName)}::text[], ${sql.param(cols.map((c) => c.searchVersion))}::int2[],
        ${text((c) => arrayLiteral(c.searchTags))}::text[], ${text((c) => c.searchCategory)}::text[]
      ) AS u(id, name, latitude, longitude, address, category, description, phone, website, image_url, tags, search_text, search_bigrams, search_name, search_version,
             search_tags, search_category)
     WHERE p.id = u.id
       AND (p.name, p.latitude, p.longitude, p.address, p.category, p.description, p.phone, p.website, p.image_url, p.tags)
           IS DISTINCT FROM (u.name, u.latitude, u.longitude, u.address, u.category, u.description, u.phone, u.website, u.image_url, u.tags::text[])
    RETURNING 1)
    SELECT count(*)::int AS n FROM changed`);
  return Number(counted[0]?.n ?? 0);
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

interface SearchColumnsOf {
  searchText: string;
  searchVersion: number;
}

/** A batch of POIs folded by an older version, locked; rows another instance holds are skipped (SKIP LOCKED). */
export async function lockStaleSearchPois(ex: Executor, version: number, size: number) {
  const { rows } = await ex.execute<{ id: string; name: string; address: string | null; category: string | null; tags: string[] }>(
    sql`SELECT id, name, address, category, tags FROM pois WHERE search_version < ${version}
        ORDER BY id LIMIT ${size} FOR UPDATE SKIP LOCKED`,
  );
  return rows;
}

/** A batch of POIs written before migration 0022 (no folded tags yet), locked; rows another instance holds are skipped. */
export async function lockUntaggedPois(ex: Executor, size: number) {
  const { rows } = await ex.execute<{ id: string; category: string | null; tags: string[] }>(
    sql`SELECT id, category, tags FROM pois WHERE search_tags IS NULL ORDER BY id LIMIT ${size} FOR UPDATE SKIP LOCKED`,
  );
  return rows;
}

/** Writes the folded tags and category of these POIs (nothing else). */
export async function writePoiTagColumns(ex: Executor, ids: string[], cols: Array<{ searchTags: string[]; searchCategory: string | null }>): Promise<void> {
  await ex.execute(sql`
    UPDATE pois AS p
       SET search_tags = u.search_tags::text[], search_category = u.search_category
      FROM unnest(${sql.param(ids)}::uuid[], ${sql.param(cols.map((c) => arrayLiteral(c.searchTags)))}::text[], ${sql.param(cols.map((c) => c.searchCategory))}::text[])
        AS u(id, search_tags, search_category)
     WHERE p.id = u.id`);
}

/** Rewrites the search columns of these POIs (the provider's fields and updated_at untouched). */
export async function writePoiSearchColumns(
  ex: Executor,
  ids: string[],
  cols: Array<SearchColumnsOf & { searchBigrams: string[]; searchName: string; searchTags: string[]; searchCategory: string | null }>,
): Promise<void> {
  await ex.execute(sql`
    UPDATE pois AS p
       SET search_text = u.search_text, search_bigrams = u.search_bigrams::text[], search_name = u.search_name, search_version = u.search_version,
           search_tags = u.search_tags::text[], search_category = u.search_category
      FROM unnest(
        ${sql.param(ids)}::uuid[], ${sql.param(cols.map((c) => c.searchText))}::text[],
        ${sql.param(cols.map((c) => arrayLiteral(c.searchBigrams)))}::text[], ${sql.param(cols.map((c) => c.searchName))}::text[],
        ${sql.param(cols.map((c) => c.searchVersion))}::int2[], ${sql.param(cols.map((c) => arrayLiteral(c.searchTags)))}::text[],
        ${sql.param(cols.map((c) => c.searchCategory))}::text[]
      ) AS u(id, search_text, search_bigrams, search_name, search_version, search_tags, search_category)
     WHERE p.id = u.id`);
}

/** A batch of datasets folded by an older version, locked; rows another instance holds are skipped (SKIP LOCKED). */
export async function lockStaleSearchDatasets(ex: Executor, version: number, size: number) {
  const { rows } = await ex.execute<{ id: string; name: string; description: string | null }>(
    sql`SELECT id, name, description FROM datasets WHERE search_version < ${version}
        ORDER BY id LIMIT ${size} FOR UPDATE SKIP LOCKED`,
  );
  return rows;
}

/** Rewrites the search columns of these datasets. */
export async function writeDatasetSearchColumns(ex: Executor, ids: string[], cols: Array<SearchColumnsOf & { searchGrams: string[] }>): Promise<void> {
  await ex.execute(sql`
    UPDATE datasets AS d
       SET search_text = u.search_text, search_grams = u.search_grams::text[], search_version = u.search_version
      FROM unnest(
        ${sql.param(ids)}::uuid[], ${sql.param(cols.map((c) => c.searchText))}::text[],
        ${sql.param(cols.map((c) => arrayLiteral(c.searchGrams)))}::text[], ${sql.param(cols.map((c) => c.searchVersion))}::int2[]
      ) AS u(id, search_text, search_grams, search_version)
     WHERE d.id = u.id`);
}
