import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_TOTAL_CAP } from '@poi/shared/schemas/poi';
import { normalizeSearchText } from '@poi/shared/text';
import { bearer, createTestContext, signIn, uniqueEmail, type TestContext } from './helpers';

let ctx: TestContext;
type Actor = { token: string; id: string };
let admin: Actor;
let provider: Actor;
let datasetA: string;
let datasetB: string;

interface Stored {
  poi_id: string;
  dataset_id: string;
  name: string;
  latitude: number;
  longitude: number;
  address: string | null;
  category: string | null;
  tags: string[];
  created_at: string;
}
const stored: Stored[] = [];

const api = (method: 'GET' | 'POST', url: string, who?: Actor, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method, url: `/console/v1${url}`, headers: who ? bearer(who.token) : {}, ...(payload === undefined ? {} : { payload }) });

// earth_distance uses a sphere of earth() metres; the brute force uses the same radius.
const EARTH_RADIUS = 6378168;
function greatCircle(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(a)));
}

const WORDS = ['カフェ', 'ｶﾌｪ', '東京', '東京駅', '公園', '稚内', 'ラーメン', 'ＡＢＣ', 'abc', '寿司', '書店', 'Bakery', '銀座', '京都'];
const searchTextOf = (p: Stored) => normalizeSearchText([p.name, p.address, p.category, ...p.tags].filter(Boolean).join(' '));

beforeAll(async () => {
  ctx = await createTestContext();
  const a = await signIn(ctx, 'admin@example.com');
  admin = { token: a.token, id: a.user.id };
  const p = await signIn(ctx, uniqueEmail('provider'));
  provider = { token: p.token, id: p.user.id };
  await api('POST', `/admin/users/${provider.id}/change-type`, admin, { account_type: 'data_provider' });
  datasetA = (await api('POST', '/datasets/public/create', provider, { name: 'A', price_per_search: 0 })).json().data.dataset_id;
  datasetB = (await api('POST', '/datasets/public/create', provider, { name: 'B', price_per_search: 0 })).json().data.dataset_id;

  // Randomised but reproducible POIs around Tokyo (about ±30 km), names and tags from WORDS.
  const rng = fc.sample(
    fc.record({
      lat: fc.double({ min: 35.4, max: 35.95, noNaN: true }),
      lon: fc.double({ min: 139.4, max: 140.1, noNaN: true }),
      name: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
      tag: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
      category: fc.option(fc.constantFrom('飲食', 'ショップ', '観光'), { nil: undefined }),
      inB: fc.boolean(),
    }),
    { numRuns: 240, seed: 20261122 },
  );
  // Distinct coordinates: POIs at the same spot are equally near, and their order is unspecified.
  const seen = new Set<string>();
  for (const [i, r] of rng.entries()) {
    const key = `${Math.round(r.lat * 1e6)}:${Math.round(r.lon * 1e6)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const res = await api('POST', '/poi/register', provider, {
      dataset_id: r.inB ? datasetB : datasetA,
      name: `${r.name.join('')} ${i}`,
      latitude: Math.round(r.lat * 1e6) / 1e6,
      longitude: Math.round(r.lon * 1e6) / 1e6,
      category: r.category,
      tags: r.tag ? [r.tag] : undefined,
    });
    expect(res.statusCode).toBe(200);
    stored.push(res.json().data.poi);
  }
}, 120_000);
afterAll(async () => {
  await ctx?.close();
});

interface Query {
  datasets: 'A' | 'B' | 'AB';
  keyword?: string;
  point?: { lat: number; lon: number; radius?: number };
  limit: number;
  offset: number;
}

function bruteForce(q: Query): { ids: string[]; total: number; distances: Map<string, number> } {
  const ids = q.datasets === 'A' ? [datasetA] : q.datasets === 'B' ? [datasetB] : [datasetA, datasetB];
  const kw = q.keyword ? normalizeSearchText(q.keyword) : '';
  const distances = new Map<string, number>();
  let rows = stored.filter((p) => ids.includes(p.dataset_id) && (!kw || searchTextOf(p).includes(kw)));
  if (q.point) {
    for (const p of rows) distances.set(p.poi_id, greatCircle(q.point.lat, q.point.lon, p.latitude, p.longitude));
    if (q.point.radius !== undefined) rows = rows.filter((p) => distances.get(p.poi_id)! <= q.point!.radius!);
    rows.sort((a, b) => distances.get(a.poi_id)! - distances.get(b.poi_id)!);
  } else {
    rows.sort((a, b) => (a.created_at === b.created_at ? (a.poi_id < b.poi_id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
  }
  return { ids: rows.slice(q.offset, q.offset + q.limit).map((p) => p.poi_id), total: rows.length, distances };
}

async function search(q: Query) {
  const params = new URLSearchParams({
    dataset_id: q.datasets === 'A' ? datasetA : q.datasets === 'B' ? datasetB : `${datasetA},${datasetB}`,
    limit: String(q.limit),
    offset: String(q.offset),
  });
  if (q.keyword) params.set('keyword', q.keyword);
  if (q.point) {
    params.set('latitude', String(q.point.lat));
    params.set('longitude', String(q.point.lon));
    if (q.point.radius !== undefined) params.set('radius', String(q.point.radius));
  }
  const res = await api('GET', `/poi/search?${params.toString()}`, provider);
  expect(res.statusCode).toBe(200);
  return res.json().data as { pois: Array<{ poi_id: string; distance_m?: number }>; total: number; total_capped: boolean };
}

const queryArb = fc.record({
  datasets: fc.constantFrom<'A' | 'B' | 'AB'>('A', 'B', 'AB'),
  keyword: fc.option(
    fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS).map((w) => Array.from(w).slice(0, 1).join('')), fc.constantFrom('東', '京', 'ka', 'フェ', '駅')),
    { nil: undefined },
  ),
  point: fc.option(
    fc.record({
      lat: fc.double({ min: 35.4, max: 35.95, noNaN: true }),
      lon: fc.double({ min: 139.4, max: 140.1, noNaN: true }),
      radius: fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  limit: fc.integer({ min: 1, max: 100 }),
  offset: fc.integer({ min: 0, max: 60 }),
});

describe('search equals a brute-force computation', () => {
  it('same POIs, same order, same total, same distances (randomised queries)', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const expected = bruteForce(q);
        const actual = await search(q);
        // A POI sitting exactly on the radius may fall either side of float rounding: none here
        // is closer to the edge than 1 cm, which the property checks too.
        if (q.point?.radius !== undefined) {
          const edge = [...expected.distances.values()].some((d) => Math.abs(d - q.point!.radius!) < 0.01);
          fc.pre(!edge);
        }
        if (q.point && q.offset < expected.total) {
          // Around a point the total is what the page saw, plus one when there is more.
          const more = expected.total > q.offset + q.limit;
          expect(actual.total).toBe(more ? q.offset + q.limit + 1 : expected.total);
          expect(actual.total_capped).toBe(more);
        } else {
          expect(actual.total).toBe(Math.min(expected.total, SEARCH_TOTAL_CAP));
          expect(actual.total_capped).toBe(expected.total > SEARCH_TOTAL_CAP);
        }
        expect(actual.pois.map((p) => p.poi_id)).toEqual(expected.ids);
        if (q.point) {
          for (const p of actual.pois) expect(p.distance_m!).toBeCloseTo(expected.distances.get(p.poi_id)!, 1);
        } else {
          for (const p of actual.pois) expect(p.distance_m).toBeUndefined();
        }
      }),
      { numRuns: 150, seed: 42 },
    );
  }, 120_000);
});

describe('Japanese-aware keywords', () => {
  it.each([
    ['ｶﾌｪ', 'カフェ'],
    ['ＡＢＣ', 'abc'],
    ['ABC', 'abc'],
  ])('%s finds the same POIs as %s', async (a, b) => {
    const q = (keyword: string) => search({ datasets: 'AB', keyword, limit: 100, offset: 0 });
    const [x, y] = await Promise.all([q(a), q(b)]);
    expect(x.total).toBeGreaterThan(0);
    expect(x.pois.map((p) => p.poi_id)).toEqual(y.pois.map((p) => p.poi_id));
  });
});

describe('search parameters', () => {
  it.each([
    ['radius=0&latitude=35&longitude=139', '半径は1から50000メートルの範囲で指定してください'],
    ['radius=50001&latitude=35&longitude=139', '半径は1から50000メートルの範囲で指定してください'],
    ['latitude=35', '緯度と経度は両方を指定してください'],
    ['radius=100', '半径を指定する場合は緯度と経度も指定してください'],
    ['latitude=91&longitude=139', '緯度は-90から90の範囲で指定してください'],
    ['latitude=abc&longitude=139', '緯度は数値で指定してください'],
  ])('%s → 400 %s', async (qs, message) => {
    const res = await api('GET', `/poi/search?dataset_id=${datasetA}&${qs}`, provider);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
  });

  it('accepts the radius bounds', async () => {
    for (const r of [1, 50_000]) {
      expect((await api('GET', `/poi/search?dataset_id=${datasetA}&latitude=35.6&longitude=139.7&radius=${r}`, provider)).statusCode).toBe(200);
    }
  });
});

describe('index use', () => {
  it('reads radius queries from the GiST index in distance order (KNN), never sorting', async () => {
    await ctx.query('ANALYZE pois');
    // The same settings the service uses for point searches.
    // One connection for both statements: SET LOCAL holds for the transaction only.
    const plan = await ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      await tx.execute(sql`SET LOCAL enable_bitmapscan = off`);
      await tx.execute(sql`SET LOCAL enable_sort = off`);
      const result = await tx.execute(
        sql.raw(`EXPLAIN SELECT id FROM pois WHERE earth_box(ll_to_earth(35.68, 139.76), 1000) @> earth
         AND earth_distance(ll_to_earth(35.68, 139.76), earth) <= 1000
         ORDER BY earth <-> ll_to_earth(35.68, 139.76) LIMIT 20`),
      );
      return result.rows as Array<Record<string, string>>;
    });
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('pois_earth_idx');
    expect(text).toMatch(/Order By/);
    expect(text).not.toMatch(/Sort|Seq Scan/);
  });
});
