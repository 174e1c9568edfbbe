/**
 * GET /api/v1/poi/suggest (docs/search.md "Suggest"): the list of typed prefixes and the POI each
 * finds, the ranking, both paths (memory and PostgreSQL) against a brute force over the folded
 * names and readings on random data, writes kept in step, metering and refusals. Runs on PGlite
 * and, with TEST_DATABASE_URL, on PostgreSQL.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yearMonthOf } from '@poi/shared/billing-time';
import { cubeOf } from '../src/modules/pois/dataset-index';
import { tuneSuggest } from '../src/modules/pois/suggest-index';
import { matchOf, nameKeyOf, rankOf, suggestQuery, suggestTextOf } from '../src/modules/pois/suggest-keys';
import { bearer, createTestContext, type Actor, type TestContext } from './helpers';
import { SUGGEST_CASES, SUGGEST_NAMES } from './support/suggest-cases';

let ctx: TestContext;
let provider: Actor;
let apiKey: string;
let fixture: string;
let ranked: string;
let randomSet: string;
const api: TestContext['api'] = (...args) => ctx.api(...args);
const index = () => ctx.app.searchIndex!;

interface Suggestion {
  poi_id: string;
  dataset_id: string;
  name: string;
  latitude: number;
  longitude: number;
  distance_m?: number;
  match: string;
}

async function register(dataset: string, name: string, latitude: number, longitude: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/poi/register', provider, { dataset_id: dataset, name, latitude, longitude, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.poi.poi_id as string;
}

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = `----poi${Math.random().toString(36).slice(2)}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function importCsv(dataset: string, csv: string) {
  const body = multipart({ dataset_id: dataset, format: 'csv' }, { name: 'pois.csv', content: csv });
  const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), ...body.headers }, payload: body.payload });
  expect(res.statusCode, res.body).toBe(200);
}

const raw = (query: string, key: string | null = apiKey, method: 'GET' | 'HEAD' | 'POST' = 'GET') =>
  ctx.app.inject({ method, url: `/api/v1/poi/suggest?${query}`, headers: key ? { 'x-api-key': key } : {} });

/** One suggest, from memory (its tables built first) or from PostgreSQL (the index switched off). */
async function suggest(query: string, memory: boolean, datasets: string[]): Promise<{ body: string; suggestions: Suggestion[] }> {
  await index().catchUp();
  if (memory) {
    await index().whenIdle();
    await index().prepareSuggest(datasets);
    expect(index().suggestTables(datasets), 'every dataset ready in memory').toBeDefined();
  }
  index().setEnabled(memory);
  try {
    const res = await raw(query);
    expect(res.statusCode, res.body).toBe(200);
    return { body: res.body, suggestions: res.json().data.suggestions };
  } finally {
    index().setEnabled(true);
  }
}

const q = (datasets: string[], typed: string, extra = '') => `dataset_id=${datasets.join(',')}&q=${encodeURIComponent(typed)}${extra}`;

/** The brute force: every POI of the datasets, its folded name and readings tested and ordered as documented. */
async function bruteForce(datasets: string[], typed: string, limit: number, point?: { latitude: number; longitude: number }) {
  const rows = await ctx.query<{ id: string; name: string; address: string | null; category: string | null; tags: string[]; search_text: string; latitude: number; longitude: number }>(
    'SELECT id, name, address, category, tags, search_text, latitude, longitude FROM pois WHERE dataset_id = ANY($1::uuid[])',
    [datasets],
  );
  const { keys } = suggestQuery(typed);
  const centre = point && cubeOf(point.latitude, point.longitude);
  const found = rows.flatMap((r) => {
    const text = suggestTextOf(r, r.search_text);
    const match = matchOf(text, keys);
    if (!match) return [];
    const [x, y, z] = cubeOf(Number(r.latitude), Number(r.longitude));
    const knn = centre ? Math.hypot(x - centre[0], y - centre[1], z - centre[2]) : 0;
    return [{ id: r.id, match, rank: rankOf(match), name: nameKeyOf(text), knn }];
  });
  found.sort(
    (a, b) =>
      a.rank - b.rank ||
      (centre ? a.knn - b.knn : a.name.length - b.name.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return found.slice(0, limit).map((f) => [f.id, f.match]);
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newUser('data_provider', 'provider');
  const user = await ctx.newUser('individual');
  apiKey = (await api('POST', '/api-keys', user, { name: 'サジェスト' })).json().data.key;
  fixture = await ctx.newDataset(provider, { name: 'サジェスト一覧' });
  ranked = await ctx.newDataset(provider, { name: 'サジェスト順位' });
  randomSet = await ctx.newDataset(provider, { name: 'サジェスト乱数' });
  const rows = SUGGEST_NAMES.map((name, i) => `"${name}",${35 + i / 1000},${139 + i / 1000},東京都,`);
  await importCsv(fixture, ['名称,緯度,経度,住所,カテゴリ', ...rows].join('\n'));
});

afterAll(async () => {
  await ctx?.close();
});

describe('suggest finds what is typed mid-conversion', () => {
  it(`finds the POI of each of the ${SUGGEST_CASES.length} typed prefixes, from memory and from PostgreSQL alike`, async () => {
    expect(SUGGEST_CASES.length).toBeGreaterThanOrEqual(60);
    const missed: string[] = [];
    for (const memory of [true, false]) {
      for (const [typed, name] of SUGGEST_CASES) {
        const { suggestions } = await suggest(q([fixture], typed, '&limit=20'), memory, [fixture]);
        if (!suggestions.some((s) => s.name === name)) missed.push(`${memory ? 'memory' : 'postgres'}: ${typed} → ${name} (${suggestions.map((s) => s.name).join(', ')})`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('ranks exact name, name prefix, reading prefix, then the rest; nearer first around a point; ties by id', async () => {
    const at = { latitude: 35.658, longitude: 139.7016 };
    const ids = {
      exact: await register(ranked, 'シブヤ', 35.7, 139.8),
      prefixFar: await register(ranked, 'シブヤ書店', 35.9, 139.9),
      prefixNear: await register(ranked, 'しぶや文庫', 35.6581, 139.7017),
      reading: await register(ranked, '渋谷', 35.8, 139.8),
      readingLong: await register(ranked, '渋谷駅前', 35.6585, 139.702),
      contains: await register(ranked, '東急渋谷', 35.6, 139.6),
      // Two with the same name and point: their order is their ids'.
      twinA: await register(ranked, '渋谷区', 35.65, 139.7),
      twinB: await register(ranked, '渋谷区', 35.65, 139.7),
      unrelated: await register(ranked, '新宿', 35.69, 139.7),
    };
    const twins = [ids.twinA, ids.twinB].sort();
    for (const memory of [true, false]) {
      const plain = (await suggest(q([ranked], 'しぶや'), memory, [ranked])).suggestions;
      expect(plain.map((s) => [s.poi_id, s.match])).toEqual([
        [ids.exact, 'exact'],
        [ids.prefixNear, 'name_prefix'],
        [ids.prefixFar, 'name_prefix'],
        [ids.reading, 'reading_prefix'],
        [twins[0], 'reading_prefix'],
        [twins[1], 'reading_prefix'],
        [ids.readingLong, 'reading_prefix'],
        [ids.contains, 'contains'],
      ]);
      expect(plain.every((s) => s.distance_m === undefined)).toBe(true);
      const near = (await suggest(q([ranked], 'shibuya', `&latitude=${at.latitude}&longitude=${at.longitude}&limit=7`), memory, [ranked])).suggestions;
      expect(near.map((s) => s.poi_id)).toEqual([ids.exact, ids.prefixNear, ids.prefixFar, ids.readingLong, twins[0], twins[1], ids.reading]);
      expect(near[0]!.distance_m).toBeGreaterThan(near[1]!.distance_m!);
      expect(near.map((s) => s.poi_id)).not.toContain(ids.unrelated);
    }
    // Several datasets merge in one order; a POI answers with the search's fields.
    const both = (await suggest(q([ranked, fixture], 'しぶや', '&limit=3'), true, [ranked, fixture])).suggestions;
    expect(both.map((s) => s.poi_id)).toEqual([ids.exact, ids.prefixNear, ids.prefixFar]);
    expect(Object.keys(both[0]!)).toEqual(['poi_id', 'dataset_id', 'name', 'latitude', 'longitude', 'address', 'category', 'description', 'phone', 'website', 'image_url', 'tags', 'created_at', 'updated_at', 'match']);
  });
});

const PIECES = ['シブヤ', 'しぶや', '渋谷', 'ヴィ', 'ビ', 'バ', 'ヴァ', 'オオ', 'オウ', 'オー', 'ト', 'ド', '東京', 'タワー', 'カフェ', 'ｶﾌｪ', '霞ヶ関', '霞が関', '髙', '高', 'ラーメン', 'ー', 'Shibuya', 'cafe', '駅', '店', 'Ｂ', 'ッ', 'ャ', 'キョウ', 'シン', 'ジ', 'ヂ', 'ン', 'ナ'];
const TYPED = ['shi', 'sibu', 'shib', 'b', 'n', 'to', 'too', 'kyo', 'ka', 'kaf', 'cafe', 'ra', 'oo', 'ou', 'ビ', 'ヴ', 'ば', 'と', 'ど', 'ー', 'しぶ', '渋', '霞', '髙', 'ｶ', 'じ', 'ぢ', 'tawa', 'shin', 'nn', 'ッ'];

describe('suggest equals a brute force over the folded names and readings', () => {
  const spots = [
    { latitude: 35.681, longitude: 139.767 },
    { latitude: 35.69, longitude: 139.7 },
  ];
  const nameArb = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
  const poiArb = fc.record({ name: nameArb, spot: fc.option(fc.constantFrom(...spots), { nil: undefined }), lat: fc.double({ min: 35.5, max: 35.8, noNaN: true }), lon: fc.double({ min: 139.5, max: 139.9, noNaN: true }) });

  beforeAll(async () => {
    const rows = fc.sample(poiArb, { numRuns: 150, seed: 33 }).map((r) => {
      const lat = r.spot ? r.spot.latitude : Math.round(r.lat * 1e6) / 1e6;
      const lon = r.spot ? r.spot.longitude : Math.round(r.lon * 1e6) / 1e6;
      return `"${r.name}",${lat},${lon},,`;
    });
    await importCsv(randomSet, ['名称,緯度,経度,住所,カテゴリ', ...rows].join('\n'));
  });

  const queryArb = fc.record({
    typed: fc.oneof(
      fc.constantFrom(...TYPED),
      fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 2 }).map((p) => p.join('')),
      nameArb.chain((n) => fc.integer({ min: 1, max: n.length }).map((k) => n.slice(0, k))),
    ),
    limit: fc.integer({ min: 1, max: 20 }),
    point: fc.option(fc.oneof(fc.constantFrom(...spots), fc.record({ latitude: fc.double({ min: 35.5, max: 35.8, noNaN: true }), longitude: fc.double({ min: 139.5, max: 139.9, noNaN: true }) })), { nil: undefined }),
  });

  it('from memory and from PostgreSQL, byte for byte the same answer', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async ({ typed, limit, point }) => {
        if (!/[^\s]/u.test(typed)) return;
        const extra = `&limit=${limit}${point ? `&latitude=${point.latitude}&longitude=${point.longitude}` : ''}`;
        const memory = await suggest(q([randomSet, fixture], typed, extra), true, [randomSet, fixture]);
        const postgres = await suggest(q([randomSet, fixture], typed, extra), false, [randomSet, fixture]);
        const expected = await bruteForce([randomSet, fixture], typed, limit, point);
        expect(memory.suggestions.map((s) => [s.poi_id, s.match]), 'memory').toEqual(expected);
        expect(postgres.suggestions.map((s) => [s.poi_id, s.match]), 'postgres').toEqual(expected);
        expect(memory.body).toBe(postgres.body);
      }),
      { numRuns: 60, seed: 4242 },
    );
  });

  it('around a point, reading a rank nearest first through the tree answers as reading every row', async () => {
    tuneSuggest({ directRowsMax: 0 });
    try {
      await fc.assert(
        fc.asyncProperty(queryArb, fc.constantFrom(...spots), async ({ typed, limit }, point) => {
          if (!/[^\s]/u.test(typed)) return;
          const extra = `&limit=${limit}&latitude=${point.latitude}&longitude=${point.longitude}`;
          const memory = await suggest(q([randomSet, fixture], typed, extra), true, [randomSet, fixture]);
          expect(memory.suggestions.map((s) => [s.poi_id, s.match])).toEqual(await bruteForce([randomSet, fixture], typed, limit, point));
        }),
        { numRuns: 30, seed: 77 },
      );
    } finally {
      tuneSuggest();
    }
  });

  it("builds a dataset's table on its first suggest, which answers as later ones do", async () => {
    const fresh = await ctx.newDataset(provider, { name: 'サジェスト初回' });
    const id = await register(fresh, '渋谷ストリーム', 35.657, 139.703);
    await index().catchUp();
    await index().whenIdle();
    expect(index().isReady(fresh)).toBe(true);
    expect(index().suggestTables([fresh])).toBeUndefined();
    const res = await raw(q([fresh], 'しぶやす'));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.suggestions.map((s: Suggestion) => [s.poi_id, s.match])).toEqual([[id, 'reading_prefix']]);
    expect(index().suggestTables([fresh])).toBeDefined();
  });

  it('keeps in step with writes: a POI added, renamed or removed after the tables were built', async () => {
    await suggest(q([randomSet], 'しぶ'), true, [randomSet]);
    const added = await register(randomSet, 'シブヤ新店', 35.7, 139.7);
    const renamed = (await ctx.query<{ id: string }>("SELECT id FROM pois WHERE dataset_id = $1 AND name LIKE '%渋谷%' ORDER BY id LIMIT 1", [randomSet]))[0]!.id;
    const res = await api('POST', '/poi/register', provider, { dataset_id: randomSet, poi_id: renamed, name: '新宿御苑', latitude: 35.68, longitude: 139.71 });
    expect(res.statusCode, res.body).toBe(200);
    const removed = (await ctx.query<{ id: string }>("SELECT id FROM pois WHERE dataset_id = $1 AND name LIKE 'シブヤ%' AND id <> $2 ORDER BY id LIMIT 1", [randomSet, added]))[0]!.id;
    expect((await api('POST', `/poi/remove/${removed}`, provider)).statusCode).toBe(200);
    for (const typed of ['しぶ', 'しんじゅくぎょ', 'shibuyashin']) {
      const memory = await suggest(q([randomSet], typed, '&limit=20'), true, [randomSet]);
      const postgres = await suggest(q([randomSet], typed, '&limit=20'), false, [randomSet]);
      expect(memory.body).toBe(postgres.body);
      expect(memory.suggestions.map((s) => [s.poi_id, s.match])).toEqual(await bruteForce([randomSet], typed, 20));
    }
    const after = (await suggest(q([randomSet], 'しぶや', '&limit=20'), true, [randomSet])).suggestions.map((s) => s.poi_id);
    expect(after).toContain(added);
    expect(after).not.toContain(removed);
    expect((await suggest(q([randomSet], 'しんじゅくぎょえん'), true, [randomSet])).suggestions.map((s) => s.poi_id)).toEqual([renamed]);
  });
});

describe('suggest refuses bad requests in Japanese and bills each 200 at a fifth of a search', () => {
  it('answers 400/404/405 with Japanese messages, never billed', async () => {
    const user = await ctx.newUser('individual');
    const { key } = (await api('POST', '/api-keys', user, { name: 'エラー' })).json().data as { key: string };
    const cases: Array<[string, number, RegExp]> = [
      [`dataset_id=${fixture}`, 400, /入力中の文字\(q\)を指定してください/],
      [`dataset_id=${fixture}&q=`, 400, /入力中の文字\(q\)を指定してください/],
      [`dataset_id=${fixture}&q=${'あ'.repeat(51)}`, 400, /50文字以内/],
      [`dataset_id=${fixture}&q=${encodeURIComponent('・・')}`, 400, /記号だけ/],
      [`q=abc`, 400, /データセット/],
      [`dataset_id=${fixture}&q=a&limit=21`, 400, /1から20/],
      [`dataset_id=${fixture}&q=a&latitude=35`, 400, /緯度と経度は両方/],
      [`dataset_id=${fixture}&q=a&keyword=b`, 400, /不明なパラメーター keyword/],
      [`dataset_id=${fixture}&q=a&q=b`, 400, /q は1回だけ/],
      [`dataset_id=00000000-0000-4000-8000-000000000000&q=a`, 404, /データセット/],
    ];
    for (const [query, status, message] of cases) {
      const res = await raw(query, key);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(status);
      expect(res.json().error.message).toMatch(message);
    }
    for (const method of ['HEAD', 'POST'] as const) {
      const res = await raw(`dataset_id=${fixture}&q=a`, key, method);
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, OPTIONS');
    }
    expect((await raw(`dataset_id=${fixture}&q=a`, null)).statusCode).toBe(401);
    await ctx.app.usageMeter.flush();
    expect(await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).toHaveLength(0);
  });

  it('refuses a trial account a paid dataset as the search does (402 naming /upgrade), unbilled', async () => {
    const trial = await ctx.newUser('trial', 'suggesttrial');
    const { key } = (await api('POST', '/api-keys', trial, { name: 'トライアル' })).json().data as { key: string };
    const paid = await ctx.newDataset(provider, { name: '有料サジェスト(トライアル)', price: 1 });
    const res = await raw(`dataset_id=${paid}&q=shibu`, key);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect(res.json().error.message).toContain('/upgrade');
    expect((await raw(`dataset_id=${fixture}&q=shibu`, key)).statusCode).toBe(200);
    await ctx.app.usageMeter.flush();
    const events = await ctx.query<{ amount_sen: number; free: boolean }>('SELECT amount_sen, free FROM usage_events WHERE user_id = $1', [trial.id]);
    expect(events).toEqual([{ amount_sen: 0, free: true }]);
  });

  it('meters N suggests exactly: a fifth of the prices floored to the sen, the free searches counted alike, the invoice lines apart', async () => {
    const user = await ctx.newUser('corporate');
    await ctx.query(
      `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
       VALUES ('corporate', $1, 0.07, 2, 7000, 1000, 5)`,
      [new Date(Date.now() - 1000).toISOString()],
    );
    ctx.app.changes.changed('pricing');
    const paid = await ctx.newDataset(provider, { name: '有料サジェスト', price: 12.34 });
    await register(paid, '渋谷ヒカリエ', 35.659, 139.703);
    const { key } = (await api('POST', '/api-keys', user, { name: '課金' })).json().data as { key: string };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await raw(`dataset_id=${paid}&q=shibu`, key)).statusCode);
    for (let i = 0; i < 2; i++) {
      statuses.push((await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${paid}`, headers: { 'x-api-key': key } })).statusCode);
    }
    // A refused suggest is not billed.
    statuses.push((await raw(`dataset_id=${paid}&q=`, key)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 400]);
    await ctx.app.usageMeter.flush();
    const events = await ctx.query<{ amount_sen: number; free: boolean; base_fee_sen: number; dataset_prices_sen: number[] }>(
      'SELECT amount_sen, free, base_fee_sen, dataset_prices_sen FROM usage_events WHERE user_id = $1 ORDER BY occurred_at',
      [user.id],
    );
    // 1234 sen / 5 = 246 sen (floored); base fee 7 sen / 5 = 1 sen; the first two requests of the month are free.
    expect(events.map((e) => [e.dataset_prices_sen, e.base_fee_sen, e.free, e.amount_sen])).toEqual([
      [[246], 1, true, 246],
      [[246], 1, true, 246],
      [[246], 1, false, 247],
      [[246], 1, false, 247],
      [[246], 1, false, 247],
      [[1234], 7, false, 1241],
      [[1234], 7, false, 1241],
    ]);
    const current = (await api('GET', '/billing/current', user)).json().data;
    // Lines per (dataset, unit price): 5 × 246 sen = ¥12 (floor of 12.30), 2 × 1234 sen = ¥24 (24.68).
    expect(current.year_month).toBe(yearMonthOf());
    expect(current.datasets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dataset_id: paid, searches: 5, amount: 12 }),
        expect.objectContaining({ dataset_id: paid, searches: 2, amount: 24 }),
      ]),
    );
    expect(current.datasets).toHaveLength(2);
  });
});
