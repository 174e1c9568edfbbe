import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greatCircleMeters } from '@poi/shared/geo';
import { keywordWords, SEARCH_TOTAL_CAP } from '@poi/shared/schemas/pois';
import { foldSearchWord } from '@poi/shared/search-fold';
import { buildSearchStatements } from '../src/modules/pois/pois.repository';
import { searchColumns } from '../src/modules/pois/search-columns';
import { bearer, createTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
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
  /** created_at in microseconds since the epoch (the API's ISO text stops at milliseconds). */
  micros: bigint;
}
const stored = new Map<string, Stored>();

const api: TestContext['api'] = (...args) => ctx.api(...args);

const WORDS = ['カフェ', 'ｶﾌｪ', '東京', '東京駅', '公園', '稚内', 'ラーメン', 'ＡＢＣ', 'abc', '寿司', '書店', 'Bakery', '銀座', '京都'];
/** The folded fields and the name's reading, romaji and loanword English: a word matches inside one of them. */
const searchWordsOf = (p: Stored) => searchColumns(p).searchText.split(' ');
/** A few spots many POIs share (equal distances: the tie-breaker decides), and open country. */
const SPOTS = [
  { lat: 35.681236, lon: 139.767125 },
  { lat: 35.690921, lon: 139.700258 },
  { lat: 35.658034, lon: 139.701636 },
  { lat: 35.7295, lon: 139.7109 },
];
const poiArb = fc.record({
  spot: fc.option(fc.constantFrom(...SPOTS), { nil: undefined, freq: 2 }),
  lat: fc.double({ min: 35.4, max: 35.95, noNaN: true }),
  lon: fc.double({ min: 139.4, max: 140.1, noNaN: true }),
  name: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  tag: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
  category: fc.option(fc.constantFrom('飲食', 'ショップ', '観光'), { nil: undefined }),
  inB: fc.boolean(),
});
type PoiSeed = typeof poiArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
async function insert(r: PoiSeed): Promise<Stored> {
  const res = await api('POST', '/poi/register', provider, {
    dataset_id: r.inB ? datasetB : datasetA,
    name: `${r.name.join('')} ${++serial}`,
    latitude: r.spot ? r.spot.lat : Math.round(r.lat * 1e6) / 1e6,
    longitude: r.spot ? r.spot.lon : Math.round(r.lon * 1e6) / 1e6,
    category: r.category,
    tags: r.tag ? [r.tag] : undefined,
  });
  expect(res.statusCode, res.body).toBe(200);
  const poi = res.json().data.poi as Omit<Stored, 'micros'>;
  const [row] = await ctx.query<{ micros: string }>(`SELECT (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros FROM pois WHERE id = $1`, [poi.poi_id]);
  const entry = { ...poi, micros: BigInt(row!.micros) };
  stored.set(entry.poi_id, entry);
  return entry;
}

async function remove(id: string): Promise<void> {
  const res = await api('POST', `/poi/remove/${id}`, provider);
  expect(res.statusCode, res.body).toBe(200);
  stored.delete(id);
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('provider');
  datasetA = await ctx.newDataset(provider, { name: 'A' });
  datasetB = await ctx.newDataset(provider, { name: 'B' });
  // Randomised but reproducible POIs around Tokyo (about ±30 km), a third of them on 4 shared spots.
  for (const r of fc.sample(poiArb, { numRuns: 260, seed: 20261122 })) await insert(r);
}, 180_000);
afterAll(async () => {
  await ctx?.close();
});

interface Query {
  datasets: 'A' | 'B' | 'AB';
  keyword?: string;
  point?: { lat: number; lon: number; radius?: number };
  limit: number;
}

/** Every match of a query in the documented order, with distances: the brute-force answer. */
function bruteForce(q: Query): { ids: string[]; distances: Map<string, number> } {
  const ids = q.datasets === 'A' ? [datasetA] : q.datasets === 'B' ? [datasetB] : [datasetA, datasetB];
  const words = q.keyword ? keywordWords(q.keyword) : [];
  const distances = new Map<string, number>();
  let rows = [...stored.values()].filter((p) => ids.includes(p.dataset_id) && words.every((w) => searchWordsOf(p).some((field) => field.includes(w))));
  const byId = (a: Stored, b: Stored) => (a.poi_id < b.poi_id ? -1 : a.poi_id > b.poi_id ? 1 : 0);
  if (q.point) {
    for (const p of rows) distances.set(p.poi_id, greatCircleMeters(q.point.lat, q.point.lon, p.latitude, p.longitude));
    if (q.point.radius !== undefined) rows = rows.filter((p) => distances.get(p.poi_id)! <= q.point!.radius!);
    rows.sort((a, b) => distances.get(a.poi_id)! - distances.get(b.poi_id)! || byId(a, b));
  } else {
    // A keyword ranks the name's exact match (the words joined), then its prefix matches, first.
    const whole = words.join('');
    const rank = (p: Stored) => (!words.length ? 0 : foldSearchWord(p.name) === whole ? 0 : foldSearchWord(p.name).startsWith(whole) ? 1 : 2);
    rows.sort((a, b) => rank(a) - rank(b) || (a.micros === b.micros ? -byId(a, b) : a.micros < b.micros ? 1 : -1));
  }
  return { ids: rows.map((p) => p.poi_id), distances };
}

function expectedTotal(q: Query, matches: number) {
  // Without keyword and point the total is exact at any size; otherwise up to the cap.
  if (!q.keyword && !q.point) return { total: matches, total_capped: false };
  return { total: Math.min(matches, SEARCH_TOTAL_CAP), total_capped: matches > SEARCH_TOTAL_CAP };
}

interface Page {
  pois: Array<{ poi_id: string; distance_m?: number }>;
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
}

function paramsOf(q: Query): URLSearchParams {
  const params = new URLSearchParams({
    dataset_id: q.datasets === 'A' ? datasetA : q.datasets === 'B' ? datasetB : `${datasetA},${datasetB}`,
    limit: String(q.limit),
  });
  if (q.keyword) params.set('keyword', q.keyword);
  if (q.point) {
    params.set('latitude', String(q.point.lat));
    params.set('longitude', String(q.point.lon));
    if (q.point.radius !== undefined) params.set('radius', String(q.point.radius));
  }
  return params;
}

async function search(q: Query, at: { offset?: number; cursor?: string } = {}): Promise<Page> {
  const params = paramsOf(q);
  if (at.offset !== undefined) params.set('offset', String(at.offset));
  if (at.cursor !== undefined) params.set('cursor', at.cursor);
  const res = await api('GET', `/poi/search?${params.toString()}`, provider);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Page;
}

const queryArb = fc.record({
  datasets: fc.constantFrom<'A' | 'B' | 'AB'>('A', 'B', 'AB'),
  keyword: fc.option(
    fc.oneof(
      fc.constantFrom(...WORDS),
      fc.constantFrom(...WORDS).map((w) => Array.from(w).slice(0, 1).join('')),
      fc.constantFrom('東', '京', 'ka', 'フェ', '駅'),
      // Several words, all required, in any order and with full-width spaces.
      fc.array(fc.constantFrom(...WORDS, '東', 'フェ'), { minLength: 2, maxLength: 3 }).map((ws) => ws.join(ws.length === 2 ? ' ' : '\u3000')),
    ),
    { nil: undefined },
  ),
  point: fc.option(
    fc.record({
      lat: fc.oneof(fc.double({ min: 35.4, max: 35.95, noNaN: true }), fc.constantFrom(...SPOTS.map((s) => s.lat))),
      lon: fc.double({ min: 139.4, max: 140.1, noNaN: true }),
      radius: fc.option(fc.oneof(fc.integer({ min: 1, max: 50_000 }), fc.integer({ min: 1, max: 3_000 })), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  limit: fc.integer({ min: 1, max: 40 }),
});

/** No match lies within 1 cm of the radius, where float rounding may put it either side. */
const clearOfEdge = (q: Query, distances: Map<string, number>) =>
  q.point?.radius === undefined || ![...distances.values()].some((d) => Math.abs(d - q.point!.radius!) < 0.01);

describe('search equals a brute-force computation', () => {
  it('walking every page by offset returns each match once, in order, with one correct total', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const expected = bruteForce(q);
        fc.pre(clearOfEdge(q, expected.distances));
        const total = expectedTotal(q, expected.ids.length);
        const seen: string[] = [];
        for (let offset = 0; ; offset += q.limit) {
          const page = await search(q, { offset });
          expect({ total: page.total, total_capped: page.total_capped }).toEqual(total);
          seen.push(...page.pois.map((p) => p.poi_id));
          if (q.point) {
            for (const p of page.pois) expect(Math.abs(p.distance_m! - expected.distances.get(p.poi_id)!)).toBeLessThan(0.001);
          } else {
            for (const p of page.pois) expect(p.distance_m).toBeUndefined();
          }
          expect(page.next_cursor === null).toBe(offset + q.limit >= expected.ids.length);
          if (page.pois.length < q.limit) break;
        }
        expect(seen).toEqual(expected.ids);
      }),
      { numRuns: 60, seed: 42 },
    );
  }, 300_000);

  it('walking by cursor while POIs are added and deleted returns every POI that stayed exactly once, in order', async () => {
    const changeArb = fc.array(fc.oneof(poiArb.map((r) => ({ insert: r })), fc.nat().map((n) => ({ remove: n }))), { maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(queryArb, fc.array(changeArb, { minLength: 12, maxLength: 12 }), async (q, changes) => {
        const before = bruteForce(q);
        fc.pre(clearOfEdge(q, before.distances));
        const stayed = new Set(before.ids);
        const returned: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; ; i++) {
          const now = bruteForce(q);
          fc.pre(clearOfEdge(q, now.distances));
          const page = await search(q, cursor === undefined ? {} : { cursor });
          expect({ total: page.total, total_capped: page.total_capped }).toEqual(expectedTotal(q, now.ids.length));
          const ids = page.pois.map((p) => p.poi_id);
          // Each row is a match of this moment and comes after the previous one in the order.
          for (const id of ids) expect(now.ids).toContain(id);
          const positions = [...returned.slice(-1), ...ids].map((id) => now.ids.indexOf(id)).filter((at) => at >= 0);
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
          returned.push(...ids);
          if (page.next_cursor === null) break;
          cursor = page.next_cursor;
          // Between pages a provider adds and deletes POIs (possibly ones already returned or still ahead).
          for (const change of changes[i % changes.length]!) {
            if ('insert' in change) await insert(change.insert);
            else {
              const pool = [...stored.values()].filter((p) => p.dataset_id === datasetA || p.dataset_id === datasetB);
              const victim = pool[change.remove % pool.length]!;
              stayed.delete(victim.poi_id);
              await remove(victim.poi_id);
            }
          }
        }
        expect(new Set(returned).size).toBe(returned.length);
        for (const id of stayed) if (stored.has(id)) expect(returned).toContain(id);
      }),
      { numRuns: 25, seed: 7 },
    );
  }, 300_000);
});

describe('totals learnt near a point (capped areas)', () => {
  it('a search whose circle holds a circle known to hold more than 100 matches answers capped, any other counts', async () => {
    const spot = SPOTS[0]!;
    const wide: Query = { datasets: 'AB', point: { lat: spot.lat, lon: spot.lon, radius: 50_000 }, limit: 20 };
    const all = bruteForce(wide);
    expect(all.ids.length).toBeGreaterThan(SEARCH_TOTAL_CAP);
    // The wide search's first page walks past the cap: its 101 nearest matches lie within d.
    const d = all.distances.get(all.ids[SEARCH_TOTAL_CAP]!)!;
    expect({ total: (await search(wide)).total, capped: (await search(wide)).total_capped }).toEqual({ total: SEARCH_TOTAL_CAP, capped: true });
    // Nearby searches with radii on both sides of what the area covers, and keyword/dataset variants
    // (other scopes): each total is the brute force's, whether it was counted or taken from the area.
    const shifts = [0, 0.002, 0.01, 0.03];
    const queries: Query[] = [];
    for (const shift of shifts) {
      const center = { lat: spot.lat + shift, lon: spot.lon - shift };
      const apart = greatCircleMeters(spot.lat, spot.lon, center.lat, center.lon);
      for (const delta of [-2_000, -500, -1, 2, 500, 3_000]) {
        const radius = Math.round(apart + d + delta);
        if (radius < 1 || radius > 50_000) continue;
        queries.push({ datasets: 'AB', point: { ...center, radius }, limit: 5 }, { datasets: 'A', point: { ...center, radius }, limit: 5 });
      }
      queries.push({ datasets: 'AB', point: center, limit: 5 }, { datasets: 'AB', keyword: 'カフェ', point: center, limit: 5 });
    }
    for (const q of queries) {
      const now = bruteForce(q);
      if (!clearOfEdge(q, now.distances)) continue;
      const page = await search(q);
      expect({ q, total: page.total, total_capped: page.total_capped }).toEqual({ q, ...expectedTotal(q, now.ids.length) });
      expect(page.pois.map((p) => p.poi_id)).toEqual(now.ids.slice(0, q.limit));
    }
  });
});

describe('a dataset past 100 POIs', () => {
  it('lists every POI of a dataset with its exact total, kept exact by moves and imports', async () => {
    const totalOf = async (dataset: string) => (await api('GET', `/poi/search?dataset_id=${dataset}&limit=100&offset=100`, provider)).json().data;
    const countOf = (dataset: string) => [...stored.values()].filter((p) => p.dataset_id === dataset).length;
    const a = await totalOf(datasetA);
    expect(countOf(datasetA)).toBeGreaterThan(SEARCH_TOTAL_CAP);
    expect({ total: a.total, total_capped: a.total_capped }).toEqual({ total: countOf(datasetA), total_capped: false });
    expect(a.pois).toHaveLength(Math.min(100, countOf(datasetA) - 100));

    const moved = [...stored.values()].find((p) => p.dataset_id === datasetA)!;
    expect((await api('POST', `/poi/move/${moved.poi_id}`, provider, { target_dataset_id: datasetB })).statusCode).toBe(200);
    stored.set(moved.poi_id, { ...moved, dataset_id: datasetB });
    const boundary = `----poi${Date.now()}`;
    const csv = '名称,緯度,経度\r\n取込 1,35.6,139.7\r\n取込 2,35.61,139.71\r\n';
    const payload = [`--${boundary}\r\nContent-Disposition: form-data; name="dataset_id"\r\n\r\n${datasetA}`, `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv`, `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}`, `--${boundary}--\r\n`].join('\r\n');
    const imported = await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
    expect(imported.statusCode, imported.body).toBe(200);
    const [row] = await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [datasetA]);
    const [rowB] = await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [datasetB]);
    expect((await totalOf(datasetA)).total).toBe(row!.n);
    expect((await totalOf(datasetB)).total).toBe(rowB!.n);
    expect((await totalOf(`${datasetA},${datasetB}`)).total).toBe(row!.n + rowB!.n);
    // The imported rows take part in later searches as stored rows.
    for (const p of (await api('GET', `/poi/search?dataset_id=${datasetA}&keyword=${encodeURIComponent('取込')}`, provider)).json().data.pois) {
      const [m] = await ctx.query<{ micros: string }>(`SELECT (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros FROM pois WHERE id = $1`, [p.poi_id]);
      stored.set(p.poi_id, { ...p, micros: BigInt(m!.micros) });
    }
  });
});

describe('Japanese-aware keywords', () => {
  it.each([
    ['ｶﾌｪ', 'カフェ'],
    ['ＡＢＣ', 'abc'],
    ['ABC', 'abc'],
  ])('%s finds the same POIs as %s', async (a, b) => {
    const q = (keyword: string) => search({ datasets: 'AB', keyword, limit: 100 });
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
  it('reads radius queries from the GiST index in distance order (KNN), sorting only the window', async () => {
    await ctx.query('ANALYZE pois');
    // The statement the service runs, with the settings it uses for point searches (knnDb's
    // connections; a transaction on PGlite). SET LOCAL holds for the transaction only.
    const plan = await ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      await tx.execute(sql`SET LOCAL enable_bitmapscan = off`);
      await tx.execute(sql`SET LOCAL enable_sort = off`);
      const { point } = buildSearchStatements(tx, { datasetIds: [datasetA], point: { latitude: 35.68, longitude: 139.76, radius: 1000 }, limit: 20, offset: 0 });
      const result = await tx.execute(sql`EXPLAIN ${point!.getSQL()}`);
      return result.rows as Array<Record<string, string>>;
    });
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('pois_earth_idx');
    expect(text).toMatch(/Order By/);
    expect(text).not.toMatch(/Seq Scan|Bitmap/);
    expect(text).toMatch(/Order By: \(\(cube_enlarge\(\(earth\)::cube/);
    // The only sort is of the window's rows (the page's exact order), never of the table's.
    expect(text.match(/Sort Key: .*/g)).toEqual(['Sort Key: ranked.rknn, ranked.rid']);
  });
});
