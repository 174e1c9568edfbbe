import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRomaji } from 'wanakana';
import { VARIANT_PAIRS } from '@poi/shared/search-fold.cases';
import { loadReadings, type Readings } from '../src/lib/readings';
import { createTestContext, type ApiMethod, type TestContext } from './helpers';

/**
 * Keywords typed the way people type them find the POI, through the console search and
 * the public API, on the engine the suite runs on (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 */
let ctx: TestContext;
let provider: { token: string; id: string };
let consumerKey: string;
let dataset: string;
let readings: Readings;

/** ctx.api as the provider. */
const api = (method: ApiMethod, url: string, body?: unknown) => ctx.api(method, url, provider, body);

interface Found {
  poi_id: string;
  name: string;
}
const byName = new Map<string, string>();

async function register(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/poi/register', { dataset_id: dataset, name, latitude: 35.68, longitude: 139.76, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().data.poi.poi_id as string;
  byName.set(name, id);
  return id;
}

async function search(keyword: string, at = '&limit=100'): Promise<{ pois: Found[]; total: number; next_cursor?: string | null }> {
  const res = await api('GET', `/poi/search?dataset_id=${dataset}&keyword=${encodeURIComponent(keyword)}${at}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function publicSearch(keyword: string): Promise<Found[]> {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${dataset}&limit=100&keyword=${encodeURIComponent(keyword)}`, headers: { 'x-api-key': consumerKey } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.pois;
}

const RANKED = ['東京駅前郵便局', '東京駅', 'グランスタ東京駅', '東京駅八重洲口', '新東京駅ビル'];

beforeAll(async () => {
  ctx = await createTestContext();
  readings = await loadReadings();
  provider = await ctx.newProvider('provider');
  dataset = await ctx.newDataset(provider, { name: '表記ゆれ' });
  for (const [, stored] of VARIANT_PAIRS) if (!byName.has(stored)) await register(stored);
  await register('東京タワー');
  await register('新宿御苑');
  await register('浅草寺');
  await register('霞ケ関ビル');
  await register('渋谷駅前店', { address: '東京都渋谷区道玄坂1-2-3', category: 'カフェ' });
  await register('梅田店', { address: '大阪府大阪市北区', category: 'カフェ' });
  for (const name of RANKED) await register(name);
  const consumer = await ctx.newUser('trial', 'consumer');
  const created = await ctx.api('POST', '/api-keys', consumer, { name: '表記ゆれ' });
  expect(created.statusCode, created.body).toBe(200);
  consumerKey = created.json().data.key;
}, 120_000);
afterAll(async () => {
  await ctx?.close();
});

describe('variant queries find their POI (table of search-fold.test.ts)', () => {
  const cases = VARIANT_PAIRS.filter(([, , rule]) => !rule.startsWith('none'));
  it('holds at least 60 pairs', () => expect(cases.length).toBeGreaterThanOrEqual(60));
  it.each(cases)('%s finds %s (%s)', async (query, stored) => {
    const { pois } = await search(query);
    expect(pois.map((p) => p.name), query).toContain(stored);
  });
  it('the public API answers the same', async () => {
    for (const [query, stored] of cases.slice(0, 20)) {
      expect((await publicSearch(query)).map((p) => p.name), query).toContain(stored);
    }
  });
  it('shows what the provider typed, never the folded text', async () => {
    const { pois } = await search('高崎屋');
    expect(pois.map((p) => p.name)).toContain('髙﨑屋');
  });
});

describe('readings: kana and romaji find kanji names', () => {
  it.each([
    ['とうきょうたわー', '東京タワー'],
    ['トウキョウタワー', '東京タワー'],
    ['tokyo tower', '東京タワー'],
    ['Tokyo Tower', '東京タワー'],
    ['toukyou tawaa', '東京タワー'],
    ['しんじゅくぎょえん', '新宿御苑'],
    ['shinjuku gyoen', '新宿御苑'],
    ['せんそうじ', '浅草寺'],
    ['sensoji', '浅草寺'],
    ['かすみがせき', '霞ケ関ビル'],
    ['kasumigaseki', '霞ケ関ビル'],
    ['しぶや えきまえ', '渋谷駅前店'],
  ])('%s finds %s', async (query, name) => {
    const { pois } = await search(query);
    expect(pois.map((p) => p.name)).toContain(name);
  });

  it('every stored name is found by itself and by its reading in hiragana, katakana and romaji', async () => {
    const parts = ['東京', 'タワー', '新宿', '御苑', 'ラーメン', 'カフェ', '駅前', '本店', '髙﨑', '屋', 'さくら', '札幌', '時計台', '横浜', '中華街', '寿司', '大阪', '城', 'Café', '公園', '2号店'];
    const names = fc.sample(fc.array(fc.constantFrom(...parts), { minLength: 1, maxLength: 4 }).map((a) => a.join('')), { numRuns: 40, seed: 21 });
    for (const name of new Set(names)) {
      const id = byName.get(name) ?? (await register(name));
      const reading = readings.readingOf(name);
      // Hiragana as typed on a kana keyboard (ー stays ー).
      const hiragana = reading.replace(/[\u30a1-\u30f6]/gu, (c) => String.fromCodePoint(c.codePointAt(0)! - 0x60));
      for (const query of [name, hiragana, reading, toRomaji(reading)]) {
        const { pois } = await search(query);
        expect(pois.map((p) => p.poi_id), `${name} by ${query}`).toContain(id);
      }
    }
  }, 120_000);
});

describe('several words', () => {
  it('all words must match, in any order and in any field', async () => {
    for (const q of ['カフェ 渋谷', '渋谷　カフェ', '道玄坂 カフェ 渋谷駅前']) {
      const names = (await search(q)).pois.map((p) => p.name);
      expect(names, q).toContain('渋谷駅前店');
      expect(names, q).not.toContain('梅田店');
    }
    const osaka = (await search('カフェ 大阪')).pois.map((p) => p.name);
    expect(osaka).toContain('梅田店');
    expect(osaka).not.toContain('渋谷駅前店');
    expect((await search('渋谷 大阪')).pois).toEqual([]);
  });
});

describe('ranking without a point', () => {
  it('puts the exact name first, then names that start with the keyword, then the rest, newest first within each', async () => {
    const { pois, total } = await search('東京駅');
    const names = pois.map((p) => p.name).filter((n) => RANKED.includes(n));
    // 東京駅 exact; 東京駅八重洲口 and 東京駅前郵便局 start with it (newest first); the others contain it.
    expect(names).toEqual(['東京駅', '東京駅八重洲口', '東京駅前郵便局', '新東京駅ビル', 'グランスタ東京駅']);
    expect(total).toBe(pois.length);
  });

  it('pages by offset and by cursor give the same order, each POI once', async () => {
    const all = (await search('東京')).pois.map((p) => p.poi_id);
    expect(all.length).toBeGreaterThan(5);
    const byOffset: string[] = [];
    for (let offset = 0; offset < all.length; offset++) {
      byOffset.push(...(await search('東京', `&limit=1&offset=${offset}`)).pois.map((p) => p.poi_id));
    }
    expect(byOffset).toEqual(all);
    const byCursor: string[] = [];
    let cursor: string | null | undefined;
    do {
      const res = await api('GET', `/poi/search?dataset_id=${dataset}&limit=2&keyword=${encodeURIComponent('東京')}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json().data;
      byCursor.push(...page.pois.map((p: Found) => p.poi_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(byCursor).toEqual(all);
  });
});
