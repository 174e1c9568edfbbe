import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagonal, grid, layoutCsv, meridian, onePoint, parallel, twoClusters, type LatLon } from './support/layouts';
import { bearer, createTestContext, type TestContext } from './helpers';

/**
 * The cost of an import does not depend on how its points lie. Before migration
 * 0018 the GiST index on the earth cube split degenerately on collinear points: 3,000 points on
 * one line took 45 s on PostgreSQL and froze PGlite for minutes (20,001 rows: > 12 min).
 * The bench compares each layout with random points (npm run bench, "imports by layout");
 * here each must come in well under the 5 s, and searches on them keep the exact order.
 */
let ctx: TestContext;
let seed = 30;
/** Seeded (mulberry32): random points spread over 1° around Tokyo. */
const random = (): LatLon => [35 + next(), 139 + next()];
function next() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
let provider: { token: string };

const LIMIT_MS = 5_000;

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('layouts');
  // The first import loads the readings dictionary: not a layout's cost.
  await importLayout(100, random);
});
afterAll(async () => {
  await ctx?.close();
});

async function importLayout(rows: number, at: (i: number) => LatLon) {
  const created = await ctx.app.inject({ method: 'POST', url: '/console/v1/datasets/public/create', headers: bearer(provider.token), payload: { name: `配置 ${Math.random()}`, price_per_search: 0 } });
  const datasetId = created.json().data.dataset_id as string;
  const form = new FormData();
  form.set('dataset_id', datasetId);
  form.set('format', 'csv');
  form.set('file', new Blob([layoutCsv(rows, at)], { type: 'text/csv' }), 'layout.csv');
  const encoded = new Response(form);
  const payload = Buffer.from(await encoded.arrayBuffer());
  const t0 = performance.now();
  const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), 'content-type': encoded.headers.get('content-type')! }, payload });
  const ms = performance.now() - t0;
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().imported_count).toBe(rows);
  return { datasetId, ms };
}

/** The documented order by its definition: no index, every row's exact KNN value, then the id. */
async function bruteForce(datasetId: string, lat: number, lon: number, radius: number) {
  const rows = await ctx.query<{ id: string }>(
    `SELECT id FROM pois WHERE dataset_id = $1 AND earth_distance(ll_to_earth($2, $3), earth) <= $4 * ${6378168 / 6371008.8}
      ORDER BY earth <-> ll_to_earth($2, $3), id`,
    [datasetId, lat, lon, radius],
  );
  return rows.map((r) => r.id);
}

/** Every page of a console search around the point, by cursor. */
async function walk(datasetId: string, lat: number, lon: number, radius: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  const totals = new Set<number>();
  do {
    const q: URLSearchParams = new URLSearchParams({ dataset_id: datasetId, latitude: String(lat), longitude: String(lon), radius: String(radius), limit: '100', ...(cursor ? { cursor } : {}) });
    const res = await ctx.app.inject({ method: 'GET', url: `/console/v1/poi/search?${q.toString()}`, headers: bearer(provider.token) });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { pois: Array<{ poi_id: string }>; total: number; next_cursor: string | null };
    ids.push(...data.pois.map((p) => p.poi_id));
    totals.add(data.total);
    cursor = data.next_cursor ?? null;
  } while (cursor);
  return { ids, totals };
}

describe('imports of degenerate layouts', () => {
  const cases: Array<[string, number, (i: number) => LatLon, LatLon, number?]> = [
    ['random points (the baseline)', 3_000, random, [35.5, 139.5], 8_000],
    ['one diagonal line', 3_000, diagonal, [35.0015, 139.0015]],
    ['one meridian', 3_000, meridian, [35.015, 139]],
    ['one parallel', 3_000, parallel, [35, 139.015]],
    ['one point 3,000 times', 3_000, onePoint, onePoint()],
    ['two far clusters', 3_000, twoClusters, [43.0602, 141.3502]],
    ['a regular grid', 3_600, grid(60), [35.03, 139.03]],
  ];
  it.each(cases)('%s imports in under 5 s and is searched in the exact order', async (_name, rows, at, [lat, lon], radius = 150) => {
    const { datasetId, ms } = await importLayout(rows, at);
    // Random points are the yardstick, not a degenerate layout: their time is the bench's baseline.
    if (at !== random) expect(ms).toBeLessThan(LIMIT_MS);
    const expected = await bruteForce(datasetId, lat, lon, radius);
    expect(expected.length).toBeGreaterThan(0);
    // Around the point: one page of up to 100 (capped totals past 100) is the brute force's first.
    const first = await ctx.app.inject({
      method: 'GET',
      url: `/console/v1/poi/search?dataset_id=${datasetId}&latitude=${lat}&longitude=${lon}&radius=${radius}&limit=100`,
      headers: bearer(provider.token),
    });
    expect((first.json().data.pois as Array<{ poi_id: string }>).map((p) => p.poi_id)).toEqual(expected.slice(0, 100));
    if (expected.length <= 1_000) {
      const { ids } = await walk(datasetId, lat, lon, radius);
      expect(ids).toEqual(expected);
    }
  });
});
