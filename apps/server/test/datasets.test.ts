import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
const actors = {} as Record<'admin' | 'platform' | 'provider' | 'provider2' | 'trial' | 'individual', Actor>;

beforeAll(async () => {
  ctx = await createTestContext();
  actors.admin = await ctx.admin();
  actors.platform = await ctx.newUser('platform_admin');
  actors.provider = await ctx.newProvider('data_provider');
  actors.provider2 = await ctx.newProvider('data_provider');
  actors.trial = await ctx.newUser();
  actors.individual = await ctx.newUser('individual');
});
afterAll(async () => {
  await ctx?.close();
});

const api: TestContext['api'] = (...args) => ctx.api(...args);

async function createAsProvider(who: Actor = actors.provider, body: Record<string, unknown> = {}) {
  const res = await api('POST', '/datasets/public/create', who, { name: '東京のカフェ', description: '都内のカフェ一覧', price_per_search: 0.5, ...body });
  expect(res.statusCode).toBe(200);
  return res.json().data as { dataset_id: string; can_manage: boolean; price_per_search: number; is_platform_dataset: boolean };
}

describe('creating datasets', () => {
  it('lets a data provider create one: provider dataset, they manage it', async () => {
    const d = await createAsProvider();
    expect(d).toMatchObject({ price_per_search: 0.5, is_platform_dataset: false, can_manage: true });
  });

  it('refuses public create to trial, individual, platform admin and guests', async () => {
    for (const who of [actors.trial, actors.individual]) {
      const res = await api('POST', '/datasets/public/create', who, { name: 'x', price_per_search: 0 });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('データセットを作成できるのはデータプロバイダーまたはプラットフォーム管理者のみです');
    }
    expect((await api('POST', '/datasets/public/create', undefined, { name: 'x', price_per_search: 0 })).statusCode).toBe(401);
  });

  it('lets platform admins assign an editor and a recipient among data providers', async () => {
    const res = await api('POST', '/admin/datasets/assign', actors.platform, {
      name: 'プロバイダー委託',
      description: '',
      price_per_search: '1.25',
      assigned_user_id: actors.provider2.id,
      provider_user_id: actors.provider2.id,
    });
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ is_platform_dataset: false, price_per_search: 1.25, description: null });
    const detail = (await api('GET', `/datasets/${d.dataset_id}`, actors.provider2)).json().data;
    expect(detail).toMatchObject({ can_manage: true, assigned_user_id: actors.provider2.id, provider_user_id: actors.provider2.id });
    expect((await api('GET', `/datasets/${d.dataset_id}`, actors.provider)).json().data.can_manage).toBe(false);
  });

  it('makes a platform dataset when no recipient is chosen', async () => {
    const res = await api('POST', '/admin/datasets/assign', actors.admin, { name: '全国の駅', price_per_search: 0, assigned_user_id: '', provider_user_id: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ is_platform_dataset: true, price_per_search: 0 });
  });

  it('refuses editors or recipients who are not data providers', async () => {
    const a = await api('POST', '/admin/datasets/assign', actors.platform, { name: 'x', price_per_search: 0, assigned_user_id: actors.trial.id });
    expect(a.statusCode).toBe(400);
    expect(a.json().error.message).toBe('POI編集者にはデータプロバイダーのユーザーを指定してください');
    const b = await api('POST', '/admin/datasets/assign', actors.platform, { name: 'x', price_per_search: 0, provider_user_id: '00000000-0000-4000-8000-000000000000' });
    expect(b.statusCode).toBe(400);
    expect(b.json().error.message).toBe('収益受取人にはデータプロバイダーのユーザーを指定してください');
  });

  it('refuses assign to everyone else', async () => {
    for (const who of [actors.trial, actors.individual, actors.provider]) {
      expect((await api('POST', '/admin/datasets/assign', who, { name: 'x', price_per_search: 0 })).statusCode).toBe(403);
    }
  });

  it.each([
    [{ name: '', price_per_search: 1 }, 'データセット名を入力してください'],
    [{ name: 'あ'.repeat(256), price_per_search: 1 }, 'データセット名は255文字以内で入力してください'],
    [{ name: 'x' }, '価格を入力してください'],
    [{ name: 'x', price_per_search: 'abc' }, '価格を入力してください'],
    [{ name: 'x', price_per_search: -0.01 }, '価格は0から1000の範囲で入力してください'],
    [{ name: 'x', price_per_search: 1000.01 }, '価格は0から1000の範囲で入力してください'],
    [{ name: 'x', price_per_search: 0.001 }, '価格は0.01円単位で入力してください'],
  ])('validates %j', async (body, message) => {
    const res = await api('POST', '/datasets/public/create', actors.provider, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
  });

  it('accepts the price bounds exactly', async () => {
    expect((await createAsProvider(actors.provider, { price_per_search: 0 })).price_per_search).toBe(0);
    expect((await createAsProvider(actors.provider, { price_per_search: 1000 })).price_per_search).toBe(1000);
    expect((await createAsProvider(actors.provider, { name: 'あ'.repeat(255), price_per_search: 0.01 })).price_per_search).toBe(0.01);
  });
});

describe('listing', () => {
  it('filters by type and marks what the caller manages', async () => {
    const free = await createAsProvider(actors.provider, { name: '無料データ', price_per_search: 0 });
    const h = actors.trial;
    const all = (await api('GET', '/datasets/public?type=all&limit=100', h)).json().data;
    expect(all.total).toBeGreaterThanOrEqual(all.datasets.length);
    expect(all.datasets.every((d: { can_manage: boolean }) => d.can_manage === false)).toBe(true);
    const paid = (await api('GET', '/datasets/public?type=paid&limit=100', h)).json().data.datasets as Array<{ price_per_search: number }>;
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.every((d) => d.price_per_search > 0)).toBe(true);
    const frees = (await api('GET', '/datasets/public?type=free&limit=100', h)).json().data.datasets as Array<{ dataset_id: string; price_per_search: number }>;
    expect(frees.every((d) => d.price_per_search === 0)).toBe(true);
    expect(frees.map((d) => d.dataset_id)).toContain(free.dataset_id);
    const platform = (await api('GET', '/datasets/public?type=platform&limit=100', h)).json().data.datasets as Array<{ is_platform_dataset: boolean }>;
    expect(platform.every((d) => d.is_platform_dataset)).toBe(true);
    const provider = (await api('GET', '/datasets/public?type=provider&limit=100', h)).json().data.datasets as Array<{ is_platform_dataset: boolean }>;
    expect(provider.every((d) => !d.is_platform_dataset)).toBe(true);
  });

  it('lists only managed datasets with managed=true', async () => {
    const mine = (await api('GET', '/datasets/public?managed=true&limit=100', actors.provider2)).json().data.datasets as Array<{ can_manage: boolean }>;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((d) => d.can_manage)).toBe(true);
    expect((await api('GET', '/datasets/public?managed=true', actors.trial)).json().data.total).toBe(0);
  });

  it('rejects bad query values and guests', async () => {
    expect((await api('GET', '/datasets/public?type=cheap', actors.trial)).statusCode).toBe(400);
    expect((await api('GET', '/datasets/public?limit=0', actors.trial)).statusCode).toBe(400);
    expect((await api('GET', '/datasets/public?limit=101', actors.trial)).statusCode).toBe(400);
    expect((await api('GET', '/datasets/public')).statusCode).toBe(401);
  });
});

describe('price changes', () => {
  it('keeps an exact history across three changes, one row in force', async () => {
    const d = await createAsProvider(actors.provider, { price_per_search: 0.1 });
    for (const [price, reason] of [[0.2, '値上げ'], ['0.30', ''], [0, '無料化']] as const) {
      const res = await api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: price, reason });
      expect(res.statusCode).toBe(200);
    }
    const detail = (await api('GET', `/datasets/${d.dataset_id}`, actors.trial)).json().data;
    expect(detail.price_per_search).toBe(0);
    const history = detail.pricing_history as Array<{ price: number; effective_from: string; effective_until: string | null; reason: string | null }>;
    expect(history.map((h) => [h.price, h.reason])).toEqual([
      [0, '無料化'],
      [0.3, null],
      [0.2, '値上げ'],
      [0.1, '初期価格'],
    ]);
    expect(history[0]!.effective_until).toBeNull();
    for (let i = 1; i < history.length; i++) expect(history[i]!.effective_until).toBe(history[i - 1]!.effective_from);
  });

  it('serialises concurrent changes: still exactly one price in force', async () => {
    const d = await createAsProvider();
    const results = await Promise.all([1, 2, 3, 4, 5].map((p) => api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: p })));
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    const rows = await ctx.query<{ open: number; total: number }>(
      'SELECT count(*) FILTER (WHERE effective_until IS NULL)::int AS open, count(*)::int AS total FROM dataset_price_history WHERE dataset_id = $1',
      [d.dataset_id],
    );
    expect(rows[0]).toEqual({ open: 1, total: 6 });
  });

  it('is for managers only, with bounds checked', async () => {
    const d = await createAsProvider();
    for (const who of [actors.trial, actors.individual, actors.provider2]) {
      const res = await api('POST', `/datasets/${d.dataset_id}/price`, who, { new_price: 1 });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('このデータセットを管理する権限がありません');
    }
    for (const who of [actors.platform, actors.admin]) {
      expect((await api('POST', `/datasets/${d.dataset_id}/price`, who, { new_price: 2 })).statusCode).toBe(200);
    }
    expect((await api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: 1000.01 })).statusCode).toBe(400);
    expect((await api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: 1000 })).statusCode).toBe(200);
    expect((await api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: 1, reason: 'あ'.repeat(501) })).statusCode).toBe(400);
    expect((await api('POST', '/datasets/00000000-0000-4000-8000-000000000000/price', actors.admin, { new_price: 1 })).statusCode).toBe(404);
  });
});

describe('detail and delete', () => {
  it('answers 404 in Japanese for a missing dataset and 400 for a bad id', async () => {
    const missing = await api('GET', '/datasets/00000000-0000-4000-8000-000000000000', actors.trial);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('データセットが見つかりません');
    expect((await api('GET', '/datasets/abc', actors.trial)).statusCode).toBe(400);
  });

  it('deletes with its POIs and history, managers only', async () => {
    const d = await createAsProvider();
    for (let i = 0; i < 3; i++) {
      expect((await api('POST', '/poi/register', actors.provider, { dataset_id: d.dataset_id, name: `店${i}`, latitude: 35, longitude: 139 })).statusCode).toBe(200);
    }
    await api('POST', `/datasets/${d.dataset_id}/price`, actors.provider, { new_price: 3 });
    expect((await api('DELETE', `/datasets/${d.dataset_id}`, actors.trial)).statusCode).toBe(403);
    expect((await api('DELETE', `/datasets/${d.dataset_id}`, actors.provider2)).statusCode).toBe(403);
    const res = await api('DELETE', `/datasets/${d.dataset_id}`, actors.provider);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('データセットを削除しました');
    const left = await ctx.query<{ pois: number; history: number; datasets: number }>(
      `SELECT (SELECT count(*)::int FROM pois WHERE dataset_id = $1) AS pois,
              (SELECT count(*)::int FROM dataset_price_history WHERE dataset_id = $1) AS history,
              (SELECT count(*)::int FROM datasets WHERE id = $1) AS datasets`,
      [d.dataset_id],
    );
    expect(left[0]).toEqual({ pois: 0, history: 0, datasets: 0 });
    expect((await api('DELETE', `/datasets/${d.dataset_id}`, actors.provider)).statusCode).toBe(404);
  });
});
