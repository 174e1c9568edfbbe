import fc from 'fast-check';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchColumns } from '../src/modules/pois/search-columns';
import { tuneIndexSearch } from '../src/modules/pois/dataset-index';
import { setBuildPageSize } from '../src/modules/pois/search-index';
import { bearer, buildAppOn, createTestContext, consoleApi, type ApiMethod, type Actor, type Caller, type TestContext } from './helpers';

/**
 * The public API's point searches from the in-memory index give exactly what the SQL
 * path gives (same POIs, order, totals and distances), and the index follows every write.
 */
let ctx: TestContext;
let provider: Actor;
let apiKey: string;
let datasetA: string;
let datasetB: string;
/** POIs the tests may delete or move. */
const known: Array<{ id: string; dataset: string }> = [];

/** ctx.api, or the same call on another instance of the server. */
const api = (method: ApiMethod, url: string, who?: Caller, body?: unknown, app: FastifyInstance = ctx.app) => consoleApi(app, method, url, who, body);

const SPOTS = [
  { lat: 35.681236, lon: 139.767125 },
  { lat: 35.690921, lon: 139.700258 },
  { lat: 35.658034, lon: 139.701636 },
];

/** Names the keyword searches find in several ways (kana, romaji readings, variants, Latin with diacritics). */
const NAMES = ['さくらカフェ', '東京ラーメン', 'Café Blue', '霞ヶ関書店', '寿司処 千代田', '稚内ホテル', '索引テスト'];
const KEYWORDS = ['カフェ', 'かふぇ', 'ラーメン', '東京', 'さくら', 'cafe', 'BLUE', '霞が関', '寿司', 'ホテル', 'テスト', '取込', '1', '東', 'a', 'カフェ 東京', '千代田 寿司', 'ない言葉', 'sakura', 'tokyo', 'ﾗｰﾒﾝ', 'テスト 7', 'ラーメン 大阪', '大阪 cafe', 'かふぇ とうきょう'];

const poiArb = fc.record({
  spot: fc.option(fc.constantFrom(...SPOTS), { nil: undefined, freq: 2 }),
  name: fc.constantFrom(...NAMES),
  lat: fc.double({ min: 35.55, max: 35.8, noNaN: true }),
  lon: fc.double({ min: 139.55, max: 139.9, noNaN: true }),
  inB: fc.boolean(),
});
type PoiSeed = typeof poiArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
async function register(r: PoiSeed, app: FastifyInstance = ctx.app): Promise<string> {
  const dataset = r.inB ? datasetB : datasetA;
  const res = await api(
    'POST',
    '/poi/register',
    provider,
    {
      dataset_id: dataset,
      name: `${r.name} ${++serial}`,
      latitude: r.spot ? r.spot.lat : Math.round(r.lat * 1e6) / 1e6,
      longitude: r.spot ? r.spot.lon : Math.round(r.lon * 1e6) / 1e6,
      category: serial % 3 ? 'カフェ' : null,
      tags: serial % 2 ? ['a', 'b'] : [],
    },
    app,
  );
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().data.poi.poi_id as string;
  known.push({ id, dataset });
  return id;
}

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = `----poi${Math.random().toString(36).slice(2)}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** CSV rows around the spots and the area, many on the same point (ties). */
function csvOf(n: number, seed: number): string {
  const rows = fc.sample(poiArb, { numRuns: n, seed }).map((r, i) => {
    const lat = r.spot ? r.spot.lat : Math.round(r.lat * 1e6) / 1e6;
    const lon = r.spot ? r.spot.lon : Math.round(r.lon * 1e6) / 1e6;
    return `${r.name}取込 ${seed}-${i},${lat},${lon},${i % 3 ? '東京都' : '大阪府'},${i % 2 ? 'カフェ' : ''}`;
  });
  return ['名称,緯度,経度,住所,カテゴリ', ...rows].join('\n');
}

async function importCsv(dataset: string, csv: string, app: FastifyInstance = ctx.app) {
  const body = multipart({ dataset_id: dataset, format: 'csv' }, { name: 'pois.csv', content: csv });
  const res = await app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), ...body.headers }, payload: body.payload });
  expect(res.statusCode, res.body).toBe(200);
}

const index = (app: FastifyInstance = ctx.app) => app.searchIndex!;

async function waitUntil(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const at = Date.now();
  while (!(await ok())) {
    if (Date.now() - at > timeoutMs) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - at;
}

const ready = (app: FastifyInstance = ctx.app) => waitUntil('index ready', () => index(app).isReady(datasetA) && index(app).isReady(datasetB));

interface Answer {
  status: number;
  pois: Array<Record<string, unknown> & { poi_id: string; distance_m: number }>;
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
  served: boolean;
}

async function publicSearch(query: string, memory: boolean, app: FastifyInstance = ctx.app, options: { readLogFirst?: boolean } = {}): Promise<Answer> {
  app.searchCache.clear();
  // A fresh read of the log: under load a poll may be late, and the index then (rightly) defers to PostgreSQL.
  if (memory && options.readLogFirst !== false) await index(app).catchUp();
  index(app).setEnabled(memory);
  try {
    const before = index(app).state().served;
    const res = await app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': apiKey } });
    const served = index(app).state().served > before;
    const data = res.statusCode === 200 ? res.json().data : { pois: [], total: -1, total_capped: false, next_cursor: null };
    return { status: res.statusCode, ...data, served };
  } finally {
    index(app).setEnabled(true);
  }
}

/** The index's own answer as it stands (no read of the log forced); undefined when PostgreSQL answered instead. */
async function fromMemory(query: string, app: FastifyInstance = ctx.app): Promise<Answer | undefined> {
  const a = await publicSearch(query, true, app, { readLogFirst: false });
  return a.served ? a : undefined;
}

/** Whether the index's answer holds this POI; undefined while PostgreSQL answers instead. */
async function memoryHolds(query: string, id: string, app: FastifyInstance = ctx.app): Promise<boolean | undefined> {
  return (await fromMemory(query, app))?.pois.some((p) => p.poi_id === id);
}

/** The same search from memory and from PostgreSQL: equal answers, the first from memory. */
async function compare(query: string, app: FastifyInstance = ctx.app) {
  const mem = await publicSearch(query, true, app);
  const sql = await publicSearch(query, false, app);
  expect(mem.served, `${query} answered from memory ${JSON.stringify(index(app).state())} A ${index(app).isReady(datasetA)} B ${index(app).isReady(datasetB)}`).toBe(true);
  expect(sql.served).toBe(false);
  expect(mem.status).toBe(200);
  expect(sql.status).toBe(200);
  expect(mem.pois.map((p) => p.poi_id), query).toEqual(sql.pois.map((p) => p.poi_id));
  expect({ total: mem.total, capped: mem.total_capped }, query).toEqual({ total: sql.total, capped: sql.total_capped });
  expect(mem.next_cursor === null, query).toBe(sql.next_cursor === null);
  mem.pois.forEach((p, i) => {
    const s = sql.pois[i]!;
    expect(Math.abs(p.distance_m - s.distance_m)).toBeLessThan(1e-6);
    expect({ ...p, distance_m: 0 }).toEqual({ ...s, distance_m: 0 });
  });
  return Object.assign(mem, { sqlCursor: sql.next_cursor });
}

const queryArb = fc.record({
  datasets: fc.constantFrom<'A' | 'B' | 'AB'>('A', 'B', 'AB'),
  lat: fc.oneof(fc.double({ min: 35.55, max: 35.8, noNaN: true }), fc.constantFrom(...SPOTS.map((s) => s.lat))),
  lon: fc.oneof(fc.double({ min: 139.55, max: 139.9, noNaN: true }), fc.constantFrom(...SPOTS.map((s) => s.lon))),
  radius: fc.option(fc.oneof(fc.integer({ min: 1, max: 50_000 }), fc.integer({ min: 1, max: 2_000 })), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 40 }),
  offset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 150 })),
  keyword: fc.option(fc.constantFrom(...KEYWORDS), { nil: undefined, freq: 2 }),
});
type Query = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

function queryString(q: Query, page: { offset?: number; cursor?: string } = {}): string {
  const ids = q.datasets === 'A' ? [datasetA] : q.datasets === 'B' ? [datasetB] : [datasetA, datasetB];
  const parts = [`dataset_id=${ids.join(',')}`, `latitude=${q.lat.toFixed(6)}`, `longitude=${q.lon.toFixed(6)}`, `limit=${q.limit}`];
  if (q.radius !== undefined) parts.push(`radius=${q.radius}`);
  if (q.keyword !== undefined) parts.push(`keyword=${encodeURIComponent(q.keyword)}`);
  if (page.cursor) parts.push(`cursor=${encodeURIComponent(page.cursor)}`);
  else parts.push(`offset=${page.offset ?? q.offset}`);
  return parts.join('&');
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('provider');
  const consumer = await ctx.newUser('corporate', 'consumer');
  await ctx.query(
    `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
     VALUES ('corporate', now() - interval '1 second', 0.05, 1000, 7000, 1000000, 10)`,
  );
  ctx.app.changes.changed('pricing');
  apiKey = (await api('POST', '/api-keys', consumer, { name: '索引' })).json().data.key;
  datasetA = await ctx.newDataset(provider, { name: '索引A' });
  datasetB = await ctx.newDataset(provider, { name: '索引B' });
  // A bulk import is built into the static index (base rows); single writes go to its side map.
  await importCsv(datasetA, csvOf(700, 1));
  for (const r of fc.sample(poiArb, { numRuns: 60, seed: 2 })) await register(r);
  await ready();
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

describe('same answers from memory and from PostgreSQL', () => {
  it('every point search: same POIs in the same order, same total and distances, for every offset', async () => {
    // Rows found by growing boxes (the default) and by geokdbush's nearest-first walk.
    for (const boxes of [true, false]) {
      tuneIndexSearch({ boxes });
      try {
        await fc.assert(
          fc.asyncProperty(queryArb, async (q) => {
            await compare(queryString(q));
          }),
          { numRuns: 50, seed: 20261125 },
        );
      } finally {
        tuneIndexSearch();
      }
    }
  }, 120_000);

  it('keyword searches the same whether the index reads boxes, walks nearest first or reads the bigram postings', async () => {
    // Small offsets: most pages hold matches.
    const keyworded = fc.tuple(queryArb, fc.constantFrom(...KEYWORDS), fc.integer({ min: 0, max: 12 })).map(([q, keyword, offset]) => ({ ...q, keyword, offset }));
    let found = 0;
    for (const tuning of [{ postingsScanMax: 0 }, { postingsScanMax: 0, boxes: false }, { postingsScanMax: Infinity }]) {
      tuneIndexSearch(tuning);
      try {
        await fc.assert(
          fc.asyncProperty(keyworded, async (q) => {
            if ((await compare(queryString(q))).pois.length) found += 1;
          }),
          { numRuns: 40, seed: 20261126 },
        );
      } finally {
        tuneIndexSearch();
      }
    }
    // The property compares pages that hold POIs, not only empty ones.
    expect(found).toBeGreaterThan(60);
  }, 120_000);

  it('searches with a bbox (its borders on shared spots too) the same from memory, whichever way rows are found', async () => {
    const edge = fc.constantFrom(...SPOTS.flatMap((s) => [s.lat, s.lon]));
    const coord = (min: number, max: number) => fc.oneof(fc.double({ min, max, noNaN: true }).map((x) => Math.round(x * 1e4) / 1e4), edge.filter((x) => x >= min && x <= max));
    const bboxArb = fc.tuple(coord(139.5, 139.95), coord(35.5, 35.85), coord(139.5, 139.95), coord(35.5, 35.85)).map(([x1, y1, x2, y2]) => [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)]);
    const boxed = fc.tuple(queryArb, bboxArb, fc.integer({ min: 0, max: 12 })).map(([q, bbox, offset]) => ({ ...q, radius: undefined, offset, bbox }));
    let found = 0;
    for (const tuning of [{}, { boxes: false }, { postingsScanMax: Infinity }]) {
      tuneIndexSearch(tuning);
      try {
        await fc.assert(
          fc.asyncProperty(boxed, async (q) => {
            if ((await compare(`${queryString(q)}&bbox=${q.bbox.join(',')}`)).pois.length) found += 1;
          }),
          { numRuns: 30, seed: 20261127 },
        );
      } finally {
        tuneIndexSearch();
      }
    }
    expect(found).toBeGreaterThan(30);
  }, 120_000);

  it('walking by cursor while POIs are added, moved and deleted: each page the same on both paths', async () => {
    const changeArb = fc.array(
      fc.oneof(
        poiArb.map((r) => ({ insert: r })),
        fc.nat().map((n) => ({ remove: n })),
        fc.nat().map((n) => ({ move: n })),
      ),
      { maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(queryArb, fc.array(changeArb, { minLength: 6, maxLength: 6 }), async (q, changes) => {
        let cursor: string | undefined;
        for (let page = 0; page < 6; page++) {
          const mem = await compare(queryString({ ...q, offset: 0 }, { cursor }));
          if (!mem.next_cursor) break;
          // Either path's cursor continues on both (a walk may move between instances and paths).
          cursor = page % 2 ? mem.next_cursor : mem.sqlCursor!;
          for (const c of changes[page]!) {
            if ('insert' in c) await register(c.insert);
            else if (known.length) {
              const [victim] = known.splice(('remove' in c ? c.remove : c.move) % known.length, 1);
              if ('remove' in c) expect((await api('POST', `/poi/remove/${victim!.id}`, provider)).statusCode).toBe(200);
              else {
                const to = victim!.dataset === datasetA ? datasetB : datasetA;
                expect((await api('POST', `/poi/move/${victim!.id}`, provider, { target_dataset_id: to })).statusCode).toBe(200);
                known.push({ id: victim!.id, dataset: to });
              }
            }
          }
        }
      }),
      { numRuns: 12, seed: 7 },
    );
  }, 180_000);
});

const near = (spot: { lat: number; lon: number }, dataset: string) => `dataset_id=${dataset}&latitude=${spot.lat}&longitude=${spot.lon}&radius=5&limit=100`;

describe('answer cache', () => {
  it('an answer from memory is kept from its search\'s second call on; one from PostgreSQL at once', async () => {
    await ready();
    await index().catchUp();
    const calls = async (query: string) => {
      ctx.app.searchCache.clear();
      const before = ctx.app.searchCache.stats();
      for (let i = 0; i < 3; i++) {
        const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': apiKey } });
        expect(res.statusCode, res.body).toBe(200);
      }
      const after = ctx.app.searchCache.stats();
      return { hits: after.hits - before.hits, misses: after.misses - before.misses };
    };
    // Made twice (the first answer is not kept), then served from the cache.
    expect(await calls(`dataset_id=${datasetA}&latitude=35.6812&longitude=139.7671&limit=5`)).toEqual({ hits: 1, misses: 2 });
    index().setEnabled(false);
    try {
      expect(await calls(`dataset_id=${datasetA}&latitude=35.6813&longitude=139.7671&limit=5`)).toEqual({ hits: 2, misses: 1 });
    } finally {
      index().setEnabled(true);
    }
  });
});

describe('kept in step with PostgreSQL', () => {
  it('a moved POI leaves its old dataset and joins the new one at once (a write on this instance)', async () => {
    // A point of its own: the spots hold more than a page of POIs.
    const spot = { lat: 35.600123, lon: 139.600456 };
    const id = await register({ spot, name: '索引テスト', lat: 0, lon: 0, inB: false });
    expect((await compare(near(spot, datasetA))).pois.map((p) => p.poi_id)).toEqual([id]);
    expect((await api('POST', `/poi/move/${id}`, provider, { target_dataset_id: datasetB })).statusCode).toBe(200);
    expect((await compare(near(spot, datasetA))).pois).toEqual([]);
    expect((await compare(near(spot, datasetB))).pois.map((p) => p.poi_id)).toEqual([id]);
  });

  it('a write the instance did not make (no notification) is applied within a second', async () => {
    const first = (await publicSearch(near(SPOTS[0]!, datasetA), true)).pois[0]!;
    const poi = { id: first.poi_id };
    await ctx.query('UPDATE datasets SET poi_count = poi_count - 1 WHERE id = $1', [datasetA]);
    // Measured from the delete's commit (autocommit: when the statement returns).
    await ctx.query('DELETE FROM pois WHERE id = $1', [poi.id]);
    const took = await waitUntil('delete applied', async () => (await memoryHolds(near(SPOTS[0]!, datasetA), poi.id)) === false, 1_000);
    expect(took).toBeLessThan(1_000);
    // A row added behind the server's back, search columns and all, at a point of its own.
    const spot = { lat: 35.630333, lon: 139.630444 };
    const cols = searchColumns({ name: '裏口から', address: null, category: null, tags: [] });
    const [added] = await ctx.query<{ id: string }>(
      `INSERT INTO pois (dataset_id, name, latitude, longitude, tags, search_text, search_bigrams, search_name, search_version)
       VALUES ($1, '裏口から', $2, $3, '{}', $4, $5, $6, $7) RETURNING id`,
      [datasetA, spot.lat, spot.lon, cols.searchText, cols.searchBigrams, cols.searchName, cols.searchVersion],
    );
    await waitUntil('insert applied', async () => (await memoryHolds(near(spot, datasetA), added!.id)) === true, 1_000);
    expect((await compare(near(spot, datasetA))).pois.map((p) => p.poi_id)).toEqual([added!.id]);
    await compare(near(SPOTS[0]!, datasetA));
  });

  it('a change of the search columns alone (the back-fill rewriting a row) is applied to keyword searches', async () => {
    const spot = { lat: 35.650777, lon: 139.650888 };
    const id = await register({ spot, name: '索引テスト', lat: 0, lon: 0, inB: false });
    const q = `${near(spot, datasetA)}&keyword=${encodeURIComponent('ゆうれい')}`;
    expect((await compare(q)).pois).toEqual([]);
    await ctx.query(`UPDATE pois SET search_text = search_text || ' ユウレイ' WHERE id = $1`, [id]);
    await waitUntil('search text applied', async () => (await memoryHolds(q, id)) === true, 1_000);
    expect((await compare(q)).pois.map((p) => p.poi_id)).toEqual([id]);
  });

  it('a bulk import sends the dataset to PostgreSQL until it is built again, then answers from memory', async () => {
    await importCsv(datasetB, csvOf(800, 3));
    // The import answered after the index read the log: the dataset is not served stale meanwhile.
    const during = await publicSearch(near(SPOTS[1]!, datasetB), true);
    if (during.served) expect(index().isReady(datasetB)).toBe(true);
    await ready();
    await compare(near(SPOTS[1]!, datasetB));
    await compare(`dataset_id=${datasetA},${datasetB}&latitude=35.68&longitude=139.75&limit=40&offset=60`);
  });

  it('a deleted dataset is never answered from memory', async () => {
    const gone = (await api('POST', '/datasets/public/create', provider, { name: '消える', price_per_search: 0 })).json().data.dataset_id as string;
    await api('POST', '/poi/register', provider, { dataset_id: gone, name: '消える店', latitude: 35.7, longitude: 139.7 });
    await waitUntil('dataset ready', () => index().isReady(gone));
    expect((await api('DELETE', `/datasets/${gone}`, provider)).statusCode).toBe(200);
    await waitUntil('dataset dropped', () => !index().isReady(gone), 1_000);
    const res = await publicSearch(`dataset_id=${gone}&latitude=35.7&longitude=139.7`, true);
    expect(res.served).toBe(false);
    expect(res.status).toBe(404);
  });

  it('after a restart the index is built again from PostgreSQL, with what changed while it was down', async () => {
    // Text JSON must escape, written by PostgreSQL in a build: quotes, backslashes, controls, emoji, U+2028.
    const spot = { lat: 35.640555, lon: 139.640666 };
    const odd = await api('POST', '/poi/register', provider, {
      dataset_id: datasetA,
      name: '"引用"と\\と\t🍣\u2028店',
      latitude: spot.lat,
      longitude: spot.lon,
      address: '東京都\n港区',
      description: '<b>&amp;</b> \u0001',
      tags: ['"', 'é', '𠮷'],
      website: 'https://example.com/?a=1&b=2',
    });
    expect(odd.statusCode, odd.body).toBe(200);
    // A search text holding a line feed (as a row folded before migration 0014 could): the build
    // pages separate texts by line feeds, and the rows after it must keep their own texts.
    const feedSpot = { lat: 35.645111, lon: 139.645222 };
    const [fed] = await ctx.query<{ id: string }>(
      `INSERT INTO pois (dataset_id, name, latitude, longitude, tags, search_text, search_bigrams, search_name, search_version)
       VALUES ($1, '改行', $2, $3, '{}', E'マエ\nウシロ', '{}', 'マエ', 1) RETURNING id`,
      [datasetA, feedSpot.lat, feedSpot.lon],
    );
    await ctx.app.close();
    await ctx.query(`DELETE FROM pois WHERE id IN (SELECT id FROM pois WHERE dataset_id = $1 AND id <> $2 ORDER BY id LIMIT 5)`, [datasetA, fed!.id]);
    ctx.app = await buildAppOn(ctx.database);
    await ready();
    await compare(`dataset_id=${datasetA},${datasetB}&latitude=35.69&longitude=139.71&limit=40`);
    await compare(`dataset_id=${datasetA}&latitude=35.681236&longitude=139.767125&radius=3000&limit=25&offset=75`);
    const found = await compare(near(spot, datasetA));
    expect(found.pois.map((p) => p.poi_id)).toEqual([odd.json().data.poi.poi_id]);
    expect(found.pois[0]).toMatchObject({ name: odd.json().data.poi.name, tags: ['"', 'é', '𠮷'] });
    expect((await compare(`${near(feedSpot, datasetA)}&keyword=${encodeURIComponent('うしろ')}`)).pois.map((p) => p.poi_id)).toEqual([fed!.id]);
    for (const keyword of ['カフェ', 'テスト', '取込 7', 'ﾗｰﾒﾝ']) {
      await compare(`dataset_id=${datasetA}&latitude=35.69&longitude=139.71&limit=40&keyword=${encodeURIComponent(keyword)}`);
    }
  }, 60_000);

  it('a dataset read by ranges of table blocks gives the same answers as one read by keyset pages', async () => {
    // Pages of 50 rows: dataset A (over 4 pages, over a tenth of the table) is read by blocks.
    await ctx.query('ANALYZE pois');
    setBuildPageSize(50);
    const byBlocks = await buildAppOn(ctx.database);
    try {
      await ready(byBlocks);
      expect(index(byBlocks).state().builtBy.blocks).toBeGreaterThanOrEqual(1);
      await fc.assert(
        fc.asyncProperty(queryArb, async (q) => {
          await compare(queryString(q), byBlocks);
        }),
        { numRuns: 25, seed: 11 },
      );
    } finally {
      setBuildPageSize(undefined);
      await byBlocks.close();
    }
  }, 60_000);

  it('/healthz says how far the index is', async () => {
    const health = (await ctx.app.inject({ method: 'GET', url: '/healthz' })).json().search_index;
    expect(health).toMatchObject({ enabled: true, datasets_building: 0, datasets_over_budget: 0, budget_mb: 1024 });
    expect(health.datasets_ready).toBeGreaterThanOrEqual(2);
    expect(health.pois).toBeGreaterThan(1000);
    expect(health.memory_mb).toBeGreaterThan(0);
  });
});

describe('memory budget', () => {
  it('a dataset over SEARCH_INDEX_MAX_MB is searched on PostgreSQL, with the same answers', async () => {
    const small = await buildAppOn(ctx.database, { SEARCH_INDEX_MAX_MB: '1' });
    try {
      const big = (await api('POST', '/datasets/public/create', provider, { name: '大きい', price_per_search: 0 })).json().data.dataset_id as string;
      await importCsv(big, csvOf(2500, 4));
      // This instance may have built the dataset while it was empty (at creation) and learn of the
      // import's rows from the log a moment later; and datasets of earlier tests may be over the
      // budget already. Wait for this dataset's own decision.
      await index(small).catchUp();
      await waitUntil(
        'budget decided',
        async () => !index(small).isReady(big) && (await small.inject({ method: 'GET', url: '/healthz' })).json().search_index.datasets_over_budget >= 1,
      );
      const health = (await small.inject({ method: 'GET', url: '/healthz' })).json().search_index;
      expect(health.memory_mb).toBeLessThanOrEqual(1);
      expect(index(small).isReady(big)).toBe(false);
      const q = `dataset_id=${big}&latitude=35.68&longitude=139.76&limit=20`;
      const a = await publicSearch(q, true, small);
      expect(a.served).toBe(false);
      expect(a.pois).toHaveLength(20);
    } finally {
      await small.close();
    }
  }, 60_000);
});

describe('memory budget after writes', () => {
  it('writes that take the index past its budget send that dataset to PostgreSQL; memory freed brings it back', async () => {
    const other = await buildAppOn(ctx.database);
    try {
      const create = async (name: string, n: number, seed: number) => {
        const id = (await api('POST', '/datasets/public/create', provider, { name, price_per_search: 0 })).json().data.dataset_id as string;
        await importCsv(id, csvOf(n, seed));
        return id;
      };
      const grows = await create('書き込みで育つ', 100, 71);
      const spare = await create('後で消す', 300, 72);
      await waitUntil('both built', () => index(other).isReady(grows) && index(other).isReady(spare));
      // A dataset can be ready before its import's rows reach it from the log (built when it was
      // created): every committed change applied before the memory is read.
      await index(other).catchUp();
      await index(other).whenIdle();
      // Room for a few more rows, not for the twenty written next (each row of the side map costs hundreds of bytes).
      const budget = index(other).state().memoryBytes + 5_000;
      index(other).setBudget(budget);
      try {
        for (let i = 0; i < 20; i++) {
          const res = await api('POST', '/poi/register', provider, { dataset_id: grows, name: `予算超過 ${i}`, latitude: 35.68 + i / 1e4, longitude: 139.76 });
          expect(res.statusCode, res.body).toBe(200);
        }
        await waitUntil('sent to PostgreSQL', () => !index(other).isReady(grows));
        expect(index(other).state().memoryBytes).toBeLessThanOrEqual(budget);
        expect(index(other).state().overBudget).toBeGreaterThanOrEqual(1);
        const q = `dataset_id=${grows}&latitude=35.68&longitude=139.76&radius=5000&limit=30`;
        const onSql = await publicSearch(q, true, other);
        expect(onSql.served).toBe(false);
        expect(onSql.pois.map((p) => p.name)).toContain('予算超過 0');
        // The other dataset deleted: its memory lets the first one in again.
        expect((await api('DELETE', `/datasets/${spare}`, provider)).statusCode).toBe(200);
        await waitUntil('back in memory', () => index(other).isReady(grows));
        expect(index(other).state().memoryBytes).toBeLessThanOrEqual(budget);
        const back = await compare(q, other);
        expect(back.pois.map((p) => p.name)).toContain('予算超過 0');
      } finally {
        index(other).setBudget(undefined);
      }
    } finally {
      await other.close();
    }
  }, 60_000);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: several instances and out-of-order commits', () => {
  it('two instances on one PostgreSQL converge after writes on either, within a second', async () => {
    const other = await buildAppOn(ctx.database);
    try {
      await ready(other);
      const q = (spot: { lat: number; lon: number }) => `dataset_id=${datasetA},${datasetB}&latitude=${spot.lat}&longitude=${spot.lon}&radius=10&limit=100`;
      const spot = { lat: 35.610321, lon: 139.610654 };
    const here = await register({ spot, name: '索引テスト', lat: 0, lon: 0, inB: true });
      const took = await waitUntil('seen by the other instance', async () => (await memoryHolds(q(spot), here, other)) === true, 1_000);
      expect(took).toBeLessThan(1_000);
      const there = await register({ spot, name: '索引テスト', lat: 0, lon: 0, inB: false }, other);
      await waitUntil('seen by this instance', async () => (await memoryHolds(q(spot), there)) === true, 1_000);
      expect((await api('POST', `/poi/remove/${here}`, provider, undefined, other)).statusCode).toBe(200);
      await waitUntil('removal seen here', async () => (await memoryHolds(q(spot), here)) === false, 1_000);
      const a = await compare(q(spot));
      const b = await compare(q(spot), other);
      expect(a.pois.map((p) => p.poi_id)).toEqual(b.pois.map((p) => p.poi_id));
    } finally {
      await other.close();
    }
  }, 60_000);

  it('a transaction that commits after a later one is still applied (the log is read by snapshot, not by sequence)', async () => {
    const url = ctx.database.url!;
    const spot = { lat: 35.620111, lon: 139.620222 };
    const first = new pg.Client({ connectionString: url });
    const second = new pg.Client({ connectionString: url });
    await Promise.all([first.connect(), second.connect()]);
    try {
      const insert = (c: pg.Client, name: string) => {
        const cols = searchColumns({ name, address: null, category: null, tags: [] });
        return c.query<{ id: string }>(
          `INSERT INTO pois (dataset_id, name, latitude, longitude, tags, search_text, search_bigrams, search_name, search_version)
           VALUES ($1, $2, $3, $4, '{}', $5, $6, $7, $8) RETURNING id`,
          [datasetA, name, spot.lat, spot.lon, cols.searchText, cols.searchBigrams, cols.searchName, cols.searchVersion],
        );
      };
      await first.query('BEGIN');
      const early = (await insert(first, '先に始めた')).rows[0]!.id;
      const late = (await insert(second, '後から始めた')).rows[0]!.id;
      const ids = async () => (await fromMemory(near(spot, datasetA)))?.pois.map((p) => p.poi_id) ?? [];
      await waitUntil('the later commit applied', async () => (await ids()).includes(late), 1_000);
      // The later transaction's log row has the higher sequence number and was read first.
      await first.query('COMMIT');
      await waitUntil('the earlier transaction applied too', async () => (await ids()).includes(early), 1_000);
      expect((await compare(near(spot, datasetA))).pois).toHaveLength(2);
    } finally {
      await first.end();
      await second.end();
    }
  });
});
