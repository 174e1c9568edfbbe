import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
let admin: Actor;
let provider: Actor;
let other: Actor;
let trial: Actor;
let datasetId: string;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const register = (who: Actor, body: Record<string, unknown>) => api('POST', '/poi/register', who, { dataset_id: datasetId, latitude: 35.68, longitude: 139.76, ...body });

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.admin();
  provider = await ctx.newProvider('data_provider');
  other = await ctx.newProvider('data_provider');
  trial = await ctx.newUser();
  datasetId = await ctx.newDataset(provider, { name: 'POIテスト' });
});
afterAll(async () => {
  await ctx?.close();
});

describe('POST /console/v1/poi/register', () => {
  it('creates a POI with every field, omitting blanks, and counts it on the dataset', async () => {
    const res = await register(provider, {
      name: '  東京タワー ',
      address: '東京都港区芝公園4-2-8',
      category: '観光',
      description: '',
      phone: '03-3433-5111',
      website: 'https://www.tokyotower.co.jp/',
      image_url: null,
      tags: [' 展望台 ', '', '観光', '観光'],
    });
    expect(res.statusCode).toBe(200);
    const { poi } = res.json().data;
    expect(res.json().message).toBe('POIを登録しました');
    expect(poi).toMatchObject({
      name: '東京タワー',
      latitude: 35.68,
      longitude: 139.76,
      address: '東京都港区芝公園4-2-8',
      description: null,
      image_url: null,
      tags: ['展望台', '観光'],
      dataset_id: datasetId,
    });
    const detail = (await api('GET', `/datasets/${datasetId}`, trial)).json().data;
    expect(detail.poi_count).toBe(1);
  });

  it('accepts comma-separated tags and the coordinate edges', async () => {
    const res = await register(provider, { name: '端', latitude: -90, longitude: 180, tags: 'a, b ,,c' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.poi.tags).toEqual(['a', 'b', 'c']);
    expect((await register(provider, { name: '端2', latitude: 90, longitude: -180 })).statusCode).toBe(200);
  });

  it.each([
    [{ name: '' }, 'name', '名称を入力してください'],
    [{ name: 'あ'.repeat(256) }, 'name', '名称は255文字以内で入力してください'],
    [{ name: 'x', latitude: 90.000001 }, 'latitude', '緯度は-90から90の範囲で入力してください'],
    [{ name: 'x', latitude: -90.1 }, 'latitude', '緯度は-90から90の範囲で入力してください'],
    [{ name: 'x', longitude: 180.000001 }, 'longitude', '経度は-180から180の範囲で入力してください'],
    [{ name: 'x', latitude: 'north' }, 'latitude', '緯度は数値で入力してください'],
    [{ name: 'x', address: 'あ'.repeat(501) }, 'address', '住所は500文字以内で入力してください'],
    [{ name: 'x', category: 'あ'.repeat(101) }, 'category', 'カテゴリは100文字以内で入力してください'],
    [{ name: 'x', description: 'あ'.repeat(1001) }, 'description', '説明は1000文字以内で入力してください'],
    [{ name: 'x', phone: '0'.repeat(51) }, 'phone', '電話番号は50文字以内で入力してください'],
    [{ name: 'x', website: 'javascript:alert(1)' }, 'website', 'ウェブサイトは http:// または https:// で始まるURLを入力してください'],
    [{ name: 'x', image_url: `https://e.com/${'a'.repeat(490)}` }, 'image_url', '画像URLは500文字以内で入力してください'],
    [{ name: 'x', tags: [1, 2] }, 'tags.0', undefined],
  ])('rejects %j on %s', async (body, field, message) => {
    const res = await register(provider, body);
    expect(res.statusCode).toBe(400);
    const errors = res.json().errors as Array<{ field: string; message: string }>;
    expect(errors.map((e) => e.field)).toContain(field);
    if (message) expect(errors.find((e) => e.field === field)!.message).toBe(message);
  });

  it('accepts each bound exactly', async () => {
    const res = await register(provider, {
      name: 'あ'.repeat(255),
      address: 'あ'.repeat(500),
      category: 'あ'.repeat(100),
      description: 'あ'.repeat(1000),
      phone: '0'.repeat(50),
      website: `https://e.com/${'a'.repeat(486)}`,
    });
    expect(res.statusCode).toBe(200);
  });

  it('updates when poi_id is given, within the same dataset only', async () => {
    const created = (await register(provider, { name: '旧名' })).json().data.poi;
    const updated = await register(provider, { poi_id: created.poi_id, name: '新名', latitude: 34.7, longitude: 135.5 });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ message: 'POIを更新しました', data: { poi: { poi_id: created.poi_id, name: '新名', latitude: 34.7 } } });
    const otherDataset = (await api('POST', '/datasets/public/create', provider, { name: '別', price_per_search: 0 })).json().data.dataset_id;
    const wrong = await api('POST', '/poi/register', provider, { dataset_id: otherDataset, poi_id: created.poi_id, name: 'x', latitude: 1, longitude: 1 });
    expect(wrong.statusCode).toBe(404);
  });

  it('an edit that changes nothing leaves updated_at and the search change log alone and answers the POI as stored', async () => {
    const body = { name: '変わらない店', address: '東京都', tags: ['a,b', 'c'], phone: '03-0000-0000' };
    const created = (await register(provider, body)).json().data.poi;
    const logged = async () => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM search_changes WHERE poi_id = $1', [created.poi_id]))[0]!.n;
    const stamp = async () => (await ctx.query<{ t: string }>('SELECT updated_at::text AS t FROM pois WHERE id = $1', [created.poi_id]))[0]!.t;
    const [logBefore, stampBefore] = [await logged(), await stamp()];
    const same = await register(provider, { ...body, poi_id: created.poi_id, name: ' 変わらない店 ', description: '' });
    expect(same.statusCode).toBe(200);
    expect(same.json().data.poi).toEqual(created);
    expect(await stamp()).toBe(stampBefore);
    expect(await logged()).toBe(logBefore);
    const changed = await register(provider, { ...body, poi_id: created.poi_id, tags: ['a,b'] });
    expect(changed.json().data.poi).toMatchObject({ tags: ['a,b'], created_at: created.created_at });
    expect(await stamp()).not.toBe(stampBefore);
    expect(await logged()).toBe(logBefore + 1);
  });

  it('is refused to non-managers (403) and guests (401)', async () => {
    for (const who of [trial, other]) {
      const res = await register(who, { name: 'x' });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('このデータセットを管理する権限がありません');
    }
    expect((await api('POST', '/poi/register', undefined, { dataset_id: datasetId, name: 'x', latitude: 1, longitude: 1 })).statusCode).toBe(401);
    expect((await register(admin, { name: 'by admin' })).statusCode).toBe(200);
  });
});

describe('search, get and remove', () => {
  let ds: string;
  const ids: string[] = [];
  beforeAll(async () => {
    ds = (await api('POST', '/datasets/public/create', provider, { name: '検索用', price_per_search: 0 })).json().data.dataset_id;
    const names = ['ｶﾌｪ ドトール', '東京駅', 'ＡＢＣマート', '京都タワー', '東京都庁'];
    for (let i = 0; i < 25; i++) {
      const res = await api('POST', '/poi/register', provider, { dataset_id: ds, name: names[i % names.length] + ` ${i}`, latitude: 35, longitude: 139, tags: i === 3 ? ['限定'] : [] });
      ids.push(res.json().data.poi.poi_id);
    }
  });

  it('pages a dataset newest first with a total', async () => {
    const page1 = (await api('GET', `/poi/search?dataset_id=${ds}&limit=20`, provider)).json().data;
    expect(page1).toMatchObject({ total: 25, preview: false });
    expect(page1.pois).toHaveLength(20);
    expect(page1.pois[0].poi_id).toBe(ids[24]);
    const page2 = (await api('GET', `/poi/search?dataset_id=${ds}&limit=20&offset=20`, provider)).json().data;
    expect(page2.pois.map((p: { poi_id: string }) => p.poi_id)).toEqual(ids.slice(0, 5).reverse());
  });

  it('matches keywords NFKC-normalised and case-folded, 1, 2 and 3+ characters, in tags too', async () => {
    const count = async (kw: string) => (await api('GET', `/poi/search?dataset_id=${ds}&keyword=${encodeURIComponent(kw)}&limit=100`, provider)).json().data.total;
    expect(await count('カフェ')).toBe(5);
    expect(await count('abc')).toBe(5);
    expect(await count('東京')).toBe(10);
    expect(await count('京')).toBe(15);
    expect(await count('東京駅')).toBe(5);
    expect(await count('限定')).toBe(1);
    expect(await count('100%')).toBe(0);
    expect(await count('存在しない')).toBe(0);
  });

  it('gives non-managers the first 10 only, without search', async () => {
    const preview = (await api('GET', `/poi/search?dataset_id=${ds}&limit=20`, trial)).json().data;
    expect(preview).toMatchObject({ total: 10, preview: true });
    expect(preview.pois.map((p: { poi_id: string }) => p.poi_id)).toEqual(ids.slice(15).reverse());
    const tail = (await api('GET', `/poi/search?dataset_id=${ds}&limit=20&offset=5`, trial)).json().data;
    expect(tail.pois).toHaveLength(5);
    for (const q of ['keyword=東京', 'offset=10']) {
      const res = await api('GET', `/poi/search?dataset_id=${ds}&${q}`, trial);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('プレビューでは先頭10件のみ表示できます。全件の検索はAPIをご利用ください');
    }
    expect((await api('GET', `/poi/${ids[24]}?dataset_id=${ds}&poi_id=${ids[24]}`, trial)).statusCode).toBe(200);
    expect((await api('GET', `/poi/${ids[0]}?dataset_id=${ds}&poi_id=${ids[0]}`, trial)).statusCode).toBe(403);
    expect((await api('GET', `/poi/${ids[0]}`, provider)).statusCode).toBe(200);
  });

  it('validates search parameters', async () => {
    expect((await api('GET', '/poi/search', provider)).statusCode).toBe(400);
    expect((await api('GET', `/poi/search?dataset_id=${ds}&limit=101`, provider)).statusCode).toBe(400);
    expect((await api('GET', `/poi/search?dataset_id=${ds}&limit=0`, provider)).statusCode).toBe(400);
    expect((await api('GET', `/poi/search?dataset_id=${ds}&offset=-1`, provider)).statusCode).toBe(400);
    expect((await api('GET', '/poi/search?dataset_id=nope', provider)).statusCode).toBe(400);
    expect((await api('GET', '/poi/search?dataset_id=00000000-0000-4000-8000-000000000000', provider)).statusCode).toBe(404);
    expect((await api('GET', `/poi/search?dataset_id=${ds}`)).statusCode).toBe(401);
    expect((await api('GET', `/poi/${ids[0]}?dataset_id=00000000-0000-4000-8000-000000000000`, provider)).statusCode).toBe(404);
  });

  it('refuses text PostgreSQL cannot store (U+0000) with a Japanese 400, writing nothing', async () => {
    const before = (await api('GET', `/datasets/${ds}`, provider)).json().data.poi_count;
    const res = await api('POST', '/poi/register', provider, { dataset_id: ds, name: 'NUL\u0000店', latitude: 35, longitude: 139 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('名称に使用できない文字(NUL)が含まれています');
    const tagged = await api('POST', '/poi/register', provider, { dataset_id: ds, name: '店', latitude: 35, longitude: 139, tags: ['a\u0000'] });
    expect(tagged.statusCode).toBe(400);
    // Where no schema looks at the text, the database's refusal still becomes a 400, not a 500.
    const search = await api('GET', `/poi/search?dataset_id=${ds}&keyword=%E5%BA%97%00`, provider);
    expect(search.statusCode).toBe(400);
    expect(search.json().error.message).toBe('使用できない文字(NUL文字など)が含まれています');
    expect((await api('GET', `/datasets/${ds}`, provider)).json().data.poi_count).toBe(before);
  });

  it('removes for managers only and keeps the count right', async () => {
    expect((await api('POST', `/poi/remove/${ids[0]}`, trial)).statusCode).toBe(403);
    expect((await api('POST', `/poi/remove/${ids[0]}`, other)).statusCode).toBe(403);
    const res = await api('POST', `/poi/remove/${ids[0]}`, provider);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('POIを削除しました');
    expect((await api('POST', `/poi/remove/${ids[0]}`, provider)).statusCode).toBe(404);
    expect((await api('GET', `/datasets/${ds}`, provider)).json().data.poi_count).toBe(24);
    expect((await api('GET', `/poi/search?dataset_id=${ds}`, provider)).json().data.total).toBe(24);
  });
});
