import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EARTH_MEAN_RADIUS_M, greatCircleMeters } from '@poi/shared/geo';
import { createTestContext, type Actor, type TestContext } from './helpers';

// What a third-party developer relies on — totals, paging, strict input, billing only
// valid searches, methods and paths, the distance model and AND keywords.

let ctx: TestContext;
let provider: Actor;
let consumer: Actor;
let key: string;
let sameSpot: string;
let spread: string;
let words: string;
let base: string;

const P0 = { lat: 35.7, lon: 139.7 };
const P1 = { lat: 35.65, lon: 139.75 };

const api: TestContext['api'] = (...args) => ctx.api(...args);

const search = (query: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': key, ...headers } });

/** A GET through a real socket with the path sent byte for byte as written (no client normalising it). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: 'GET', headers: { 'x-api-key': key, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function register(dataset: string, name: string, lat: number, lon: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/poi/register', provider, { dataset_id: dataset, name, latitude: lat, longitude: lon, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.poi.poi_id;
}

/** A point `meters` north of another on the mean-radius sphere, rounded as coordinates are stored. */
const north = (p: { lat: number; lon: number }, meters: number) => ({ lat: p.lat + (meters / EARTH_MEAN_RADIUS_M) * (180 / Math.PI), lon: p.lon });

async function billed(user: Actor): Promise<number> {
  await ctx.app.usageMeter.flush();
  return (await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).length;
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('provider');
  consumer = await ctx.newUser('corporate', 'consumer');
  key = (await api('POST', '/api-keys', consumer, { name: '契約テスト' })).json().data.key;
  const create = (name: string) => ctx.newDataset(provider, { name });
  sameSpot = await create('同一地点');
  spread = await create('分散');
  words = await create('キーワード');
  for (let i = 0; i < 12; i++) await register(sameSpot, `同じ場所の店 ${i}`, P0.lat, P0.lon);
  // 150 POIs north of P1 every 40 m: 75 within 3 km (0–2,960 m), the rest beyond.
  for (let i = 0; i < 150; i++) {
    const at = north(P1, i * 40);
    await register(spread, `店 ${i}`, Number(at.lat.toFixed(6)), at.lon);
  }
  await register(words, '寿司処まる', 35.69, 139.75, { address: '東京都千代田区丸の内1丁目' });
  await register(words, '千代田ラーメン', 35.69, 139.75, { address: '東京都千代田区神田' });
  await register(words, '回転寿司', 35.69, 139.75, { address: '東京都港区' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

const within3km = 75;

describe('totals', () => {
  it('gives a point search the same, exact total on every page', async () => {
    const q = `dataset_id=${spread}&latitude=${P1.lat}&longitude=${P1.lon}&radius=3000`;
    const seen: string[] = [];
    for (let offset = 0; offset < within3km + 20; offset += 20) {
      const page = (await search(`${q}&offset=${offset}`)).json().data;
      expect({ total: page.total, total_capped: page.total_capped }).toEqual({ total: within3km, total_capped: false });
      seen.push(...page.pois.map((x: { poi_id: string }) => x.poi_id));
    }
    expect(new Set(seen).size).toBe(within3km);
  });

  it('caps at 100 with total_capped on every page when there are more', async () => {
    for (const offset of [0, 100]) {
      const page = (await search(`dataset_id=${spread}&latitude=${P1.lat}&longitude=${P1.lon}&limit=100&offset=${offset}`)).json().data;
      expect({ total: page.total, total_capped: page.total_capped }).toEqual({ total: 100, total_capped: true });
      expect(page.pois).toHaveLength(offset === 0 ? 100 : 50);
    }
    // A plain list (no keyword, no point) is exact at any size.
    const list = (await search(`dataset_id=${spread}&limit=5&offset=40`)).json().data;
    expect({ total: list.total, total_capped: list.total_capped }).toEqual({ total: 150, total_capped: false });
  });
});

describe('order and paging', () => {
  it('returns twelve POIs at one point exactly once over offsets 0–11, in poi_id order', async () => {
    const ids: string[] = [];
    for (let offset = 0; offset < 12; offset++) {
      const page = (await search(`dataset_id=${sameSpot}&latitude=${P0.lat}&longitude=${P0.lon}&radius=5&limit=1&offset=${offset}`)).json().data;
      expect(page.total).toBe(12);
      ids.push(page.pois[0].poi_id);
    }
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(12);
  });

  it('walks by cursor without repeating or skipping while POIs are added and deleted', async () => {
    const q = `dataset_id=${spread}&latitude=${P1.lat}&longitude=${P1.lon}&limit=20`;
    const first = (await search(q)).json().data;
    const all: string[] = [];
    for (let offset = 0; offset < 150; offset += 100) all.push(...(await search(`dataset_id=${spread}&latitude=${P1.lat}&longitude=${P1.lon}&limit=100&offset=${offset}`)).json().data.pois.map((x: { poi_id: string }) => x.poi_id));
    const returned: string[] = first.pois.map((x: { poi_id: string }) => x.poi_id);
    const deleted = new Set<string>();
    let cursor: string | null = first.next_cursor;
    let n = 0;
    while (cursor) {
      // Three changes per page: two new POIs (one nearer than anything), one deletion ahead.
      await register(spread, `追加 ${n}a`, P1.lat, P1.lon);
      await register(spread, `追加 ${n}b`, north(P1, 500 + n * 37).lat, P1.lon);
      const victim = all[all.length - 1 - n]!;
      expect((await api('POST', `/poi/remove/${victim}`, provider)).statusCode).toBe(200);
      deleted.add(victim);
      n += 1;
      const page = (await search(`${q}&cursor=${encodeURIComponent(cursor)}`)).json().data;
      returned.push(...page.pois.map((x: { poi_id: string }) => x.poi_id));
      cursor = page.next_cursor;
    }
    expect(new Set(returned).size).toBe(returned.length);
    for (const id of all) if (!deleted.has(id)) expect(returned).toContain(id);
  });

  it('refuses a malformed, altered or foreign cursor, and a cursor with an offset, with 400 and no charge', async () => {
    const before = await billed(consumer);
    const q = `dataset_id=${spread}&latitude=${P1.lat}&longitude=${P1.lon}&radius=3000&limit=5`;
    const cursor = (await search(q)).json().data.next_cursor as string;
    const cases = [
      `${q}&cursor=abc`,
      // The last two characters changed (to 'AA', or 'BB' when they were 'AA': never the cursor itself).
      `${q}&cursor=${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`,
      `${q.replace('radius=3000', 'radius=2000')}&cursor=${cursor}`,
      `dataset_id=${spread}&limit=5&cursor=${cursor}`,
      `${q}&cursor=${cursor}&offset=5`,
    ];
    for (const c of cases) {
      const res = await search(c);
      expect(res.statusCode, c).toBe(400);
      expect(res.json().errors[0].field).toBe('cursor');
      expect(res.json().error.message).toMatch(/cursor/);
    }
    expect(await billed(consumer)).toBe(before + 1);
  });
});

describe('strict input', () => {
  it.each([
    ['keyword=%E3%81', 'keyword', /keyword の値のURLエンコード/],
    ['keyword=%ZZ', 'keyword', /URLエンコード/],
    ['latitude=0x23&longitude=139.7', 'latitude', /^緯度は数値で指定してください$/],
    ['latitude=3.5e1&longitude=139.7', 'latitude', /^緯度は数値で指定してください$/],
    ['lat=35.6&lng=139.7', 'lat', /lat.*latitude の誤りではありませんか|lat, lng/],
    ['q=カフェ', 'q', /keyword の誤りではありませんか/],
    ['keyword=%20%20', 'keyword', /空白や記号だけのキーワード/],
    ['keyword=%E3%80%80', 'keyword', /空白や記号だけのキーワード/],
    ['limit=', 'limit', /^件数\(limit\)は1から100の整数で指定してください$/],
    ['limit=abc', 'limit', /^件数\(limit\)は1から100の整数で指定してください$/],
    ['limit=0', 'limit', /^件数\(limit\)は1から100の整数で指定してください$/],
    ['limit=1.5', 'limit', /^件数\(limit\)は1から100の整数で指定してください$/],
    ['limit=101', 'limit', /^件数\(limit\)は1から100の整数で指定してください$/],
    ['offset=-1', 'offset', /^開始位置\(offset\)は0から100000の整数で指定してください$/],
    ['offset=', 'offset', /^開始位置\(offset\)は0から100000の整数で指定してください$/],
    ['latitude=&longitude=139.7', 'latitude', /^緯度は数値で指定してください$/],
    ['limit=5&limit=6', 'limit', /limit は1回だけ指定してください/],
  ])('%s → 400 naming %s, not billed (real socket)', async (query, field, message) => {
    const before = await billed(consumer);
    const res = await rawGet(`/api/v1/poi/search?dataset_id=${spread}&${query}`);
    expect(res.status, res.body).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toMatch(message);
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(body.error.message).not.toMatch(/期待|number|NaN/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(await billed(consumer)).toBe(before);
  });

  it('lists every unknown parameter with its hint', async () => {
    const res = await rawGet(`/api/v1/poi/search?dataset_id=${spread}&lat=35&lng=139&q=x`);
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.error.message).toMatch(/不明なパラメーターがあります: lat, lng, q/);
    expect(body.errors).toEqual([
      { field: 'lat', message: '不明なパラメーター lat です。latitude の誤りではありませんか' },
      { field: 'lng', message: '不明なパラメーター lng です。longitude の誤りではありませんか' },
      { field: 'q', message: '不明なパラメーター q です。keyword の誤りではありませんか' },
    ]);
  });

  it('still accepts what is well formed: repeated dataset_id (counted once), encoded Japanese, +, signs', async () => {
    const before = await billed(consumer);
    const res = await rawGet(`/api/v1/poi/search?dataset_id=${words}&dataset_id=${words}&keyword=%E5%AF%BF%E5%8F%B8+%E5%8D%83%E4%BB%A3%E7%94%B0&latitude=%2B35.69&longitude=139.75`);
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).data.pois.map((x: { name: string }) => x.name)).toEqual(['寿司処まる']);
    await ctx.app.usageMeter.flush();
    const events = await ctx.query<{ dataset_ids: string[] }>('SELECT dataset_ids FROM usage_events WHERE user_id = $1 ORDER BY occurred_at DESC LIMIT 1', [consumer.id]);
    expect(events[0]!.dataset_ids).toEqual([words]);
    expect(await billed(consumer)).toBe(before + 1);
  });
});

describe('methods, paths and headers', () => {
  it('answers HEAD and other methods 405 with Allow, never billed', async () => {
    const before = await billed(consumer);
    for (const method of ['HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await ctx.app.inject({ method, url: `/api/v1/poi/search?dataset_id=${spread}`, headers: { 'x-api-key': key } });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('GET, OPTIONS');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      if (method !== 'HEAD') expect(res.json().error.code).toBe('METHOD_NOT_ALLOWED');
    }
    expect(await billed(consumer)).toBe(before);
  });

  it('answers unknown paths under /api/v1 with a Japanese 404 and CORS headers, key or not', async () => {
    for (const headers of [{}, { 'x-api-key': key }]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/poi/serch', headers });
      expect(res.statusCode).toBe(404);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: 'お探しのリソースが見つかりません' } });
    }
  });

  it('marks every answer no-store and echoes a well-formed client X-Request-Id', async () => {
    const ok = await search(`dataset_id=${spread}`, { 'x-request-id': 'client-trace-0001' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.headers['x-request-id']).toBe('client-trace-0001');
    const bad = await search(`dataset_id=${spread}&limit=0`);
    expect(bad.headers['cache-control']).toBe('no-store');
    const malformedId = await search(`dataset_id=${spread}`, { 'x-request-id': 'bad id!' });
    expect(malformedId.headers['x-request-id']).not.toBe('bad id!');
  });
});

describe('referrer-restricted keys', () => {
  it('checks Origin when the browser sends no Referer', async () => {
    const web = (await api('POST', '/api-keys', consumer, { name: 'ウェブ', allowed_referrers: ['maps.example.com'] })).json().data.key as string;
    const as = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${spread}`, headers: { 'x-api-key': web, ...headers } });
    expect((await as({ origin: 'https://maps.example.com' })).statusCode).toBe(200);
    expect((await as({ origin: 'https://evil.example.net' })).statusCode).toBe(403);
    expect((await as({})).statusCode).toBe(403);
    // A Referer, when sent, is what counts.
    expect((await as({ referer: 'https://evil.example.net/', origin: 'https://maps.example.com' })).statusCode).toBe(403);
  });
});

describe('distance model', () => {
  it('filters and reports great-circle metres on the mean-radius sphere (6,371,008.8 m)', async () => {
    const center = { lat: 35.2, lon: 139.2 };
    const points = [1002, 13_281, 49_990].map((m) => north(center, m));
    const ids: string[] = [];
    for (const [i, at] of points.entries()) ids.push(await register(words, `距離 ${i}`, Number(at.lat.toFixed(7)), at.lon));
    const res = (await search(`dataset_id=${words}&latitude=${center.lat}&longitude=${center.lon}&radius=50000&keyword=距離`)).json().data;
    expect(res.pois.map((x: { poi_id: string }) => x.poi_id)).toEqual(ids);
    for (const [i, poi] of (res.pois as Array<{ latitude: number; longitude: number; distance_m: number }>).entries()) {
      expect(Math.abs(poi.distance_m - greatCircleMeters(center.lat, center.lon, poi.latitude, poi.longitude)), `POI ${i}`).toBeLessThan(0.001);
    }
    // 1,002 m away on the mean sphere is 1,003.13 m on earthdistance's own 6,378,168 m sphere.
    const r1003 = (await search(`dataset_id=${words}&latitude=${center.lat}&longitude=${center.lon}&radius=1003&keyword=距離`)).json().data;
    expect(r1003.pois.map((x: { poi_id: string }) => x.poi_id)).toEqual([ids[0]]);
    const r1001 = (await search(`dataset_id=${words}&latitude=${center.lat}&longitude=${center.lon}&radius=1001&keyword=距離`)).json().data;
    expect(r1001.pois).toHaveLength(0);
  });
});

describe('keywords', () => {
  it.each([
    ['千代田 寿司', ['寿司処まる']],
    ['寿司　千代田', ['寿司処まる']],
    ['寿司', ['回転寿司', '寿司処まる']],
    ['千代田 ラーメン 神田', ['千代田ラーメン']],
    ['千代田 寿司 港区', []],
  ])('%s requires every word, in any field and order', async (keyword, names) => {
    const res = (await search(`dataset_id=${words}&keyword=${encodeURIComponent(keyword)}`)).json().data;
    expect(res.pois.map((x: { name: string }) => x.name).sort()).toEqual([...names].sort());
    expect(res.total).toBe(names.length);
  });
});
