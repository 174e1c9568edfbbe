import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greatCircleMeters } from '@poi/shared/geo';
import { keywordWords, SEARCH_TOTAL_CAP } from '@poi/shared/schemas/pois';
import { foldSearchWord } from '@poi/shared/search-fold';
import { SEARCH_SAMPLES } from '@poi/shared/search-samples';
import { searchColumns } from '../src/modules/pois/search-columns';
import { bearer, createTestContext, type Actor, type TestContext } from './helpers';

// Issue 33 parts 2–4 on the public search: bbox, tags and category filters (brute force, paging by
// cursor, totals), GeoJSON and fields (equal to the JSON answer), and every malformed value a
// 400 that is never billed.

let ctx: TestContext;
let provider: Actor;
let consumer: Actor;
let key: string;
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
  micros: bigint;
}
const stored = new Map<string, Stored>();

const api: TestContext['api'] = (...args) => ctx.api(...args);

/** Tags and categories written differently that fold alike (Wi-Fi = wifi = ＷＩＦＩ, でんげん ≠ 電源). */
const TAGS = ['Wi-Fi', 'wifi', 'ＷＩＦＩ', '電源あり', 'でんげんあり', '駐車場', 'テラス', 'ﾃﾗｽ'];
const CATEGORIES = ['カフェ', 'ｶﾌｪ', 'かふぇ', 'レストラン', '書店'];
const WORDS = ['カフェ', '東京', '公園', '寿司', '書店', 'Bakery'];
/** Spots many POIs share (ties), and the coordinates bbox borders are drawn from. */
const SPOTS = [
  { lat: 35.681236, lon: 139.767125 },
  { lat: 35.690921, lon: 139.700258 },
  { lat: 35.658034, lon: 139.701636 },
];
const LATS = [35.5, 35.6, 35.65, 35.681236, 35.7, 35.8];
const LONS = [139.5, 139.6, 139.700258, 139.75, 139.8, 139.9];

const poiArb = fc.record({
  spot: fc.option(fc.constantFrom(...SPOTS), { nil: undefined, freq: 3 }),
  // Some POIs lie exactly on the grid lines the bboxes are drawn on (their borders).
  lat: fc.oneof(fc.double({ min: 35.45, max: 35.85, noNaN: true }).map((x) => Math.round(x * 1e6) / 1e6), fc.constantFrom(...LATS)),
  lon: fc.oneof(fc.double({ min: 139.45, max: 139.95, noNaN: true }).map((x) => Math.round(x * 1e6) / 1e6), fc.constantFrom(...LONS)),
  name: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }),
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
  category: fc.option(fc.constantFrom(...CATEGORIES), { nil: undefined }),
  inB: fc.boolean(),
});

function form(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = `----vp${Math.random().toString(36).slice(2)}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/json\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { boundary, body: Buffer.from(parts.join('')) };
}

async function importPois(dataset: string, pois: unknown[], mode: 'add' | 'update' = 'add'): Promise<void> {
  const { boundary, body } = form({ dataset_id: dataset, format: 'json', mode }, { name: 'p.json', content: JSON.stringify(pois) });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/console/v1/poi/bulk-import',
    headers: { ...bearer(provider.token), 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
}

const search = (query: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': key, ...headers } });

async function billed(): Promise<number> {
  await ctx.app.usageMeter.flush();
  return (await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [consumer.id])).length;
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('provider');
  consumer = await ctx.newUser('corporate', 'consumer');
  key = (await api('POST', '/api-keys', consumer, { name: 'ビューポート' })).json().data.key;
  datasetA = await ctx.newDataset(provider, { name: 'VP-A' });
  datasetB = await ctx.newDataset(provider, { name: 'VP-B' });
  const seeds = fc.sample(poiArb, { numRuns: 240, seed: 20261126 });
  const toPoi = (r: (typeof seeds)[number], i: number) => ({
    name: `${r.name.join('')} ${i}`,
    latitude: r.spot ? r.spot.lat : r.lat,
    longitude: r.spot ? r.spot.lon : r.lon,
    ...(r.category ? { category: r.category } : {}),
    ...(r.tags.length ? { tags: r.tags } : {}),
  });
  await importPois(datasetA, seeds.flatMap((r, i) => (r.inB ? [] : [toPoi(r, i)])));
  await importPois(datasetB, seeds.flatMap((r, i) => (r.inB ? [toPoi(r, i)] : [])));
  // A few written one by one: another created_at, so the newest-first order is not only the id's.
  for (const [i, r] of fc.sample(poiArb, { numRuns: 12, seed: 7 }).entries()) {
    const res = await api('POST', '/poi/register', provider, { dataset_id: r.inB ? datasetB : datasetA, ...toPoi(r, 1000 + i) });
    expect(res.statusCode, res.body).toBe(200);
  }
  const rows = await ctx.query<Omit<Stored, 'micros'> & { micros: string }>(
    `SELECT id AS poi_id, dataset_id, name, latitude, longitude, address, category, tags, (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros
       FROM pois WHERE dataset_id IN ($1, $2)`,
    [datasetA, datasetB],
  );
  for (const r of rows) stored.set(r.poi_id, { ...r, micros: BigInt(r.micros) });
  expect(stored.size).toBe(252);
}, 180_000);

afterAll(async () => {
  await ctx?.close();
});

interface Query {
  datasets: 'A' | 'B' | 'AB';
  keyword?: string;
  point?: { lat: number; lon: number };
  bbox?: [number, number, number, number];
  tags?: string[];
  category?: string;
  limit: number;
}

const byId = (a: Stored, b: Stored) => (a.poi_id < b.poi_id ? -1 : a.poi_id > b.poi_id ? 1 : 0);

/** Every match in the documented order: the brute force the answers must equal. */
function bruteForce(q: Query): string[] {
  const ids = q.datasets === 'A' ? [datasetA] : q.datasets === 'B' ? [datasetB] : [datasetA, datasetB];
  const words = q.keyword ? keywordWords(q.keyword) : [];
  const wanted = (q.tags ?? []).map(foldSearchWord);
  let rows = [...stored.values()].filter(
    (p) =>
      ids.includes(p.dataset_id) &&
      words.every((w) => searchColumns(p).searchText.split(' ').some((field) => field.includes(w))) &&
      (!q.bbox || (p.longitude >= q.bbox[0] && p.latitude >= q.bbox[1] && p.longitude <= q.bbox[2] && p.latitude <= q.bbox[3])) &&
      wanted.every((t) => p.tags.some((have) => foldSearchWord(have) === t)) &&
      (q.category === undefined || (p.category !== null && foldSearchWord(p.category) === foldSearchWord(q.category))),
  );
  if (q.point) {
    const d = new Map(rows.map((p) => [p.poi_id, greatCircleMeters(q.point!.lat, q.point!.lon, p.latitude, p.longitude)]));
    rows = rows.sort((a, b) => d.get(a.poi_id)! - d.get(b.poi_id)! || byId(a, b));
  } else {
    const whole = words.join('');
    const rank = (p: Stored) => (!words.length ? 0 : foldSearchWord(p.name) === whole ? 0 : foldSearchWord(p.name).startsWith(whole) ? 1 : 2);
    rows = rows.sort((a, b) => rank(a) - rank(b) || (a.micros === b.micros ? -byId(a, b) : a.micros < b.micros ? 1 : -1));
  }
  return rows.map((p) => p.poi_id);
}

function paramsOf(q: Query): URLSearchParams {
  const params = new URLSearchParams({ dataset_id: q.datasets === 'A' ? datasetA : q.datasets === 'B' ? datasetB : `${datasetA},${datasetB}`, limit: String(q.limit) });
  if (q.keyword) params.set('keyword', q.keyword);
  if (q.point) {
    params.set('latitude', String(q.point.lat));
    params.set('longitude', String(q.point.lon));
  }
  if (q.bbox) params.set('bbox', q.bbox.join(','));
  if (q.tags) params.set('tags', q.tags.join(','));
  if (q.category !== undefined) params.set('category', q.category);
  return params;
}

interface Page {
  pois: Array<Record<string, unknown> & { poi_id: string }>;
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
}

async function page(params: URLSearchParams, headers: Record<string, string> = {}) {
  const res = await search(params.toString(), headers);
  expect(res.statusCode, res.body).toBe(200);
  return res;
}

const ordered = (a: number, b: number) => (a <= b ? [a, b] : [b, a]) as [number, number];
const bboxArb = fc
  .tuple(fc.constantFrom(...LONS, 139.45, 139.95), fc.constantFrom(...LATS, 35.45, 35.85), fc.constantFrom(...LONS, 139.45, 139.95), fc.constantFrom(...LATS, 35.45, 35.85))
  .map(([x1, y1, x2, y2]) => {
    const [minLon, maxLon] = ordered(x1, x2);
    const [minLat, maxLat] = ordered(y1, y2);
    return [minLon, minLat, maxLon, maxLat] as [number, number, number, number];
  });

const queryArb: fc.Arbitrary<Query> = fc.record(
  {
    datasets: fc.constantFrom<'A' | 'B' | 'AB'>('A', 'B', 'AB'),
    keyword: fc.constantFrom(...WORDS),
    // Off the grid: two POIs mirrored about the point would tie within rounding (no exact order).
    point: fc.oneof(
      fc.constantFrom(...SPOTS).map((s) => ({ lat: s.lat, lon: s.lon })),
      fc.record({ lat: fc.double({ min: 35.45, max: 35.85, noNaN: true }), lon: fc.double({ min: 139.45, max: 139.95, noNaN: true }) }),
    ),
    bbox: bboxArb,
    tags: fc.uniqueArray(fc.constantFrom(...TAGS, 'テラス', 'wi fi'), { minLength: 1, maxLength: 2 }),
    category: fc.constantFrom(...CATEGORIES, 'カフェ!'),
    limit: fc.integer({ min: 7, max: 40 }),
  },
  { requiredKeys: ['datasets', 'limit'] },
);

describe('bbox, tags and category equal a brute force', () => {
  it('walking every page by cursor returns the matches in order once each, with one exact total', async () => {
    let filtered = 0;
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        fc.pre(!!(q.bbox || q.tags || q.category !== undefined));
        filtered += 1;
        const expected = bruteForce(q);
        const params = paramsOf(q);
        const seen: string[] = [];
        for (let cursor: string | undefined; ; ) {
          if (cursor) params.set('cursor', cursor);
          const data = (await page(params)).json().data as Page;
          expect({ total: data.total, total_capped: data.total_capped }).toEqual({
            total: Math.min(expected.length, SEARCH_TOTAL_CAP),
            total_capped: expected.length > SEARCH_TOTAL_CAP,
          });
          seen.push(...data.pois.map((p) => p.poi_id));
          if (!data.next_cursor) break;
          cursor = data.next_cursor;
        }
        expect(seen).toEqual(expected);
      }),
      { numRuns: 45, seed: 33 },
    );
    expect(filtered).toBeGreaterThan(30);
  }, 300_000);

  it('a bbox holds POIs on its borders and corners, and a point search in it is nearest first', async () => {
    const spot = SPOTS[0]!;
    // A degenerate box: exactly the shared spot (a point on all four borders).
    const exact = [spot.lon, spot.lat, spot.lon, spot.lat] as [number, number, number, number];
    const q: Query = { datasets: 'AB', bbox: exact, limit: 100 };
    const expected = bruteForce(q);
    expect(expected.length).toBeGreaterThan(10);
    const data = (await page(paramsOf(q))).json().data as Page;
    expect(data.pois.map((p) => p.poi_id)).toEqual(expected);
    const near = { ...q, point: { lat: 35.7, lon: 139.7 }, limit: 5 };
    const first = (await page(paramsOf(near))).json().data as Page;
    expect(first.pois.map((p) => p.poi_id)).toEqual(bruteForce(near).slice(0, 5));
    expect(first.pois.every((p) => typeof p.distance_m === 'number')).toBe(true);
  });

  it('tags need every tag, whole and folded; a category matches whole', async () => {
    const wifi = bruteForce({ datasets: 'AB', tags: ['wifi'], limit: 1 });
    expect(wifi.length).toBeGreaterThan(0);
    for (const written of ['Wi-Fi', 'ＷＩＦＩ', 'wi fi', 'WIFI']) {
      const data = (await page(paramsOf({ datasets: 'AB', tags: [written], limit: 100 }))).json().data as Page;
      expect(data.total, written).toBe(Math.min(wifi.length, SEARCH_TOTAL_CAP));
    }
    // A part of a tag is no tag: 「電源」 is not 「電源あり」, nor is でんげんあり (no reading for tags).
    expect(((await page(paramsOf({ datasets: 'AB', tags: ['電源'], limit: 10 }))).json().data as Page).total).toBe(0);
    const both = bruteForce({ datasets: 'AB', tags: ['wifi', '駐車場'], limit: 1 });
    expect(both.length).toBeLessThan(wifi.length);
    expect(((await page(paramsOf({ datasets: 'AB', tags: ['駐車場', 'Wi-Fi'], limit: 100 }))).json().data as Page).pois.map((p) => p.poi_id)).toEqual(both);
    const cafes = (await page(paramsOf({ datasets: 'AB', category: 'ｶﾌｪ', limit: 100 }))).json().data as Page;
    const allCafes = bruteForce({ datasets: 'AB', category: 'カフェ', limit: 100 });
    expect(cafes.pois.map((p) => p.poi_id)).toEqual(allCafes.slice(0, 100));
    expect(cafes.total).toBe(Math.min(allCafes.length, SEARCH_TOTAL_CAP));
    expect(((await page(paramsOf({ datasets: 'AB', category: 'カ', limit: 10 }))).json().data as Page).total).toBe(0);
  });

  it('a cursor is bound to the bbox, tags and category it was issued for', async () => {
    const q: Query = { datasets: 'AB', bbox: [139.45, 35.45, 139.95, 35.85], limit: 5 };
    const first = (await page(paramsOf(q))).json().data as Page;
    expect(first.next_cursor).toBeTruthy();
    for (const other of [{ ...q, bbox: [139.45, 35.45, 139.95, 35.8] as Query['bbox'] }, { ...q, tags: ['wifi'] }, { ...q, category: 'カフェ' }, { ...q, bbox: undefined }]) {
      const params = paramsOf(other);
      params.set('cursor', first.next_cursor!);
      const res = await search(params.toString());
      expect(res.statusCode, JSON.stringify(other)).toBe(400);
      expect(res.json().errors[0].field).toBe('cursor');
    }
  });
});

describe('the stored folded tags and category follow every write', () => {
  it('an edit, an update import and the back-fill of rows written before migration 0022', async () => {
    const dataset = await ctx.newDataset(provider, { name: 'VP-writes' });
    const find = async (filter: Record<string, string>) =>
      ((await page(new URLSearchParams({ dataset_id: dataset, ...filter }))).json().data as Page).pois.map((p) => p.name).sort();
    const created = await api('POST', '/poi/register', provider, { dataset_id: dataset, name: '店1', latitude: 35.6, longitude: 139.6, tags: ['Wi-Fi'], category: 'カフェ' });
    const id = created.json().data.poi.poi_id as string;
    await importPois(dataset, [{ name: '店2', latitude: 35.61, longitude: 139.61, tags: ['テラス'], category: '書店' }]);
    expect(await find({ tags: 'wifi' })).toEqual(['店1']);
    // An edit replaces the tags and category.
    await api('POST', '/poi/register', provider, { dataset_id: dataset, poi_id: id, name: '店1', latitude: 35.6, longitude: 139.6, tags: ['テラス'], category: '書店' });
    expect(await find({ tags: 'wifi' })).toEqual([]);
    expect(await find({ tags: 'ﾃﾗｽ', category: '書店' })).toEqual(['店1', '店2']);
    // An import in update mode (bulk UPDATE).
    await importPois(dataset, [{ poi_id: id, name: '店1', latitude: 35.6, longitude: 139.6, tags: ['駐車場'] }], 'update');
    expect(await find({ tags: '駐車場' })).toEqual(['店1']);
    expect(await find({ category: '書店' })).toEqual(['店2']);
    // Rows from before the migration hold NULL until the back-fill writes them.
    await ctx.query('UPDATE pois SET search_tags = NULL, search_category = NULL WHERE dataset_id = $1', [dataset]);
    ctx.app.changes.changed('dataset', dataset);
    expect(await find({ category: '書店' })).toEqual([]);
    await ctx.app.searchBackfill.runToEnd();
    ctx.app.changes.changed('dataset', dataset);
    expect(await find({ category: '書店' })).toEqual(['店2']);
    expect(await find({ tags: '駐車場' })).toEqual(['店1']);
  });
});

describe('GeoJSON and fields', () => {
  const cases: Query[] = [
    { datasets: 'AB', limit: 20 },
    { datasets: 'A', point: { lat: 35.69, lon: 139.7 }, limit: 15 },
    { datasets: 'AB', keyword: 'カフェ', limit: 10 },
    { datasets: 'AB', point: { lat: 35.69, lon: 139.7 }, bbox: [139.6, 35.6, 139.8, 35.7], tags: ['wifi'], limit: 10 },
  ];

  it.each(cases)('the FeatureCollection holds the JSON answer’s POIs, order and paging: %j', async (q) => {
    const json = (await page(paramsOf(q))).json().data as Page;
    expect(json.pois.length).toBeGreaterThan(0);
    const viaParam = paramsOf(q);
    viaParam.set('format', 'geojson');
    for (const res of [await page(viaParam), await page(paramsOf(q), { accept: 'application/geo+json' })]) {
      expect(res.headers['content-type']).toMatch(/^application\/geo\+json(;|$)/);
      // The answer depends on Accept: shared caches are told, beside what the errors vary by.
      expect(String(res.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(['Accept', 'Accept-Language']));
      const fc = res.json();
      expect(fc).toEqual({
        type: 'FeatureCollection',
        features: json.pois.map(({ latitude, longitude, ...properties }) => ({
          type: 'Feature',
          id: properties.poi_id,
          geometry: { type: 'Point', coordinates: [longitude, latitude] },
          properties,
        })),
        total: json.total,
        total_capped: json.total_capped,
        next_cursor: json.next_cursor,
      });
    }
    // format=json wins over the Accept header.
    const asJson = paramsOf(q);
    asJson.set('format', 'json');
    const res = await page(asJson, { accept: 'application/geo+json' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().data).toEqual(json);
  });

  it.each(cases)('fields trims each POI of the JSON and GeoJSON answers: %j', async (q) => {
    const json = (await page(paramsOf(q))).json().data as Page;
    const params = paramsOf(q);
    params.set('fields', 'id,name,latitude,longitude,distance_m');
    const trimmed = (await page(params)).json().data as Page;
    const pick = (p: Record<string, unknown>, names: string[]) => Object.fromEntries(names.filter((n) => n in p).map((n) => [n, p[n]]));
    expect(trimmed).toEqual({ ...json, pois: json.pois.map((p) => pick(p, ['poi_id', 'name', 'latitude', 'longitude', 'distance_m'])) });
    params.set('fields', 'tags');
    params.set('format', 'geojson');
    const features = (await page(params)).json().features as Array<{ id: string; properties: Record<string, unknown>; geometry: { coordinates: number[] } }>;
    expect(features.map((f) => [f.id, f.properties, f.geometry.coordinates])).toEqual(
      json.pois.map((p) => [p.poi_id, { poi_id: p.poi_id, tags: p.tags }, [p.longitude, p.latitude]]),
    );
  });
});

describe('malformed values: a 400 naming the parameter, never billed', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['bbox', 'bbox=139.6,35.6,139.8', /4つの数値/],
    ['bbox', 'bbox=139.6,35.6,139.8,35.7,1', /4つの数値/],
    ['bbox', 'bbox=a,35.6,139.8,35.7', /4つの数値/],
    ['bbox', 'bbox=139.6,,139.8,35.7', /4つの数値/],
    ['bbox', 'bbox=0x10,35.6,139.8,35.7', /4つの数値/],
    ['bbox', 'bbox=1e2,35.6,139.8,35.7', /4つの数値/],
    ['bbox', 'bbox=', /4つの数値/],
    ['bbox', 'bbox=139.6,35.6,180.5,35.7', /経度は-180から180/],
    ['bbox', 'bbox=139.6,-90.1,139.8,35.7', /緯度は-90から90/],
    ['bbox', 'bbox=139.6,35.8,139.8,35.7', /最小緯度/],
    ['bbox', 'bbox=179,35.6,-179,35.7', /日付変更線/],
    ['bbox', 'bbox=139.6,35.6,139.8,35.7&latitude=35.7&longitude=139.7&radius=500', /radius/],
    ['bbox', 'bbox=139.6,35.6,139.8,35.7&bbox=139.6,35.6,139.8,35.7', /1回だけ/],
    ['tags', 'tags=', /tags/],
    ['tags', 'tags=%E3%83%BB,-', /tags/],
    ['tags', `tags=${'a,'.repeat(11)}`, /10個以内/],
    ['tags', 'tags=a&tags=b', /1回だけ/],
    ['category', 'category=%20!%20', /category/],
    ['category', `category=${'a'.repeat(101)}`, /100文字/],
    ['format', 'format=xml', /json または geojson/],
    ['format', 'format=', /json または geojson/],
    ['fields', 'fields=id,nme,lat', /nme, lat。指定できるのは id, poi_id/],
    ['fields', 'fields=,', /項目を指定/],
  ];

  it.each(bad)('%s: %s', async (field, query, message) => {
    const before = await billed();
    const res = await search(`dataset_id=${datasetA}&${query}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(JSON.stringify(body)).toMatch(message);
    expect(await billed()).toBe(before);
  });

  it('a valid search with the new parameters is billed once per 200, GeoJSON included', async () => {
    const before = await billed();
    await page(new URLSearchParams({ dataset_id: datasetA, bbox: '139.6,35.6,139.8,35.7', tags: 'wifi', category: 'カフェ' }));
    await page(new URLSearchParams({ dataset_id: datasetA, format: 'geojson', fields: 'id,name' }));
    await page(new URLSearchParams({ dataset_id: datasetA, format: 'geojson', fields: 'id,name' }));
    expect(await billed()).toBe(before + 3);
  });
});

describe('the /docs/api samples run', () => {
  it.each(SEARCH_SAMPLES.map((sample) => [sample.id, sample] as const))('%s', async (_id, sample) => {
    const dataset = await ctx.newDataset(provider, { name: `VP-sample-${sample.id}` });
    await importPois(dataset, [
      { name: 'カフェ 丸の内', latitude: 35.6812, longitude: 139.7671, category: 'カフェ', tags: ['Wi-Fi', '電源あり'] },
      { name: '書店 大手町', latitude: 35.6866, longitude: 139.7635, category: '書店', tags: ['Wi-Fi'] },
      { name: 'カフェ 新宿', latitude: 35.6909, longitude: 139.7003, category: 'カフェ', tags: ['電源あり'] },
    ]);
    const res = await search(new URLSearchParams([['dataset_id', dataset], ...sample.params]).toString(), sample.headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const names = (body.features ?? body.data.pois).map((p: { name?: string; properties?: { name?: string } }) => p.name ?? p.properties?.name);
    expect(names).toContain('カフェ 丸の内');
    // Each sample's filter leaves a POI out, or its shape trims the POIs.
    if (sample.id === 'fields') expect(body.data.pois.map((p: object) => Object.keys(p))).toEqual([0, 1].map(() => ['poi_id', 'name', 'latitude', 'longitude']));
    else expect(names).not.toContain('カフェ 新宿');
    if (sample.id === 'geojson') expect(res.headers['content-type']).toMatch(/^application\/geo\+json/);
  });
});
