import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dayOf, yearMonthOf } from '@poi/shared/billing-time';
import { createTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
let admin: Actor;
let provider: Actor;
let freeDataset: string;
let paidDataset: string;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const search = (key: string | undefined, query: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
  ctx.app.inject({
    method: 'GET',
    url: `/api/v1/poi/search?${query}`,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    ...(remoteAddress ? { remoteAddress } : {}),
  });

async function createKey(who: Actor, body: Record<string, unknown> = {}) {
  const res = await api('POST', '/api-keys', who, { name: 'テストキー', ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { key: string; api_key: { id: string; prefix: string; status: string } };
}

/** A pricing version for an account type, in force from a moment ago (the table's at-date rule). */
async function setPricing(accountType: string, values: Partial<Record<'base_fee' | 'free' | 'rate' | 'keys' | 'share', number>>, from = new Date(Date.now() - 1000)) {
  await ctx.query(
    `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [accountType, from.toISOString(), values.base_fee ?? 0.1, values.free ?? 1000, values.share ?? 7000, values.rate ?? 600, values.keys ?? 10],
  );
  ctx.app.changes.changed('pricing');
}

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.admin();
  provider = await ctx.newUser('data_provider', 'provider');
  freeDataset = (await api('POST', '/datasets/public/create', provider, { name: '無料カフェ', price_per_search: 0 })).json().data.dataset_id;
  paidDataset = (await api('POST', '/datasets/public/create', provider, { name: '有料カフェ', price_per_search: 1.23 })).json().data.dataset_id;
  for (const [dataset, name] of [
    [freeDataset, '東京駅カフェ'],
    [paidDataset, '銀座カフェ'],
  ] as const) {
    const res = await api('POST', '/poi/register', provider, { dataset_id: dataset, name, latitude: 35.68, longitude: 139.76, category: 'カフェ' });
    expect(res.statusCode).toBe(200);
  }
});

afterAll(async () => {
  await ctx?.close();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('API keys', () => {
  it('creates a key shown once, uses it with either header, rotates with a 24-hour overlap, and revokes it', async () => {
    const user = await ctx.newUser('individual');
    const created = await createKey(user);
    expect(created.key).toMatch(/^poi_live_[0-9A-Za-z]{38,}$/);
    expect(created.api_key.prefix).toBe(created.key.slice(0, created.api_key.prefix.length));
    expect(created.api_key.status).toBe('active');

    const list = await api('GET', '/api-keys', user);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.key);
    expect(list.json().data).toMatchObject({ active_count: 1, max_keys: 10 });
    const stored = await ctx.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [created.api_key.id]);
    expect(stored[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(created.key);

    const viaHeader = await search(created.key, `dataset_id=${freeDataset}`);
    expect(viaHeader.statusCode, viaHeader.body).toBe(200);
    expect(viaHeader.json().data.pois[0].name).toBe('東京駅カフェ');
    expect(viaHeader.headers['x-request-id']).toBeTruthy();
    expect(viaHeader.headers['x-ratelimit-limit']).toBe('600');
    const viaBearer = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${freeDataset}`, headers: { authorization: `Bearer ${created.key}` } });
    expect(viaBearer.statusCode).toBe(200);

    // Same results as the console search of the dataset's manager.
    const consoleSearch = await api('GET', `/poi/search?dataset_id=${freeDataset}&keyword=カフェ`, provider);
    const publicSearch = await search(created.key, `dataset_id=${freeDataset}&keyword=カフェ`);
    expect(publicSearch.json().data.pois).toEqual(consoleSearch.json().data.pois);

    const rotated = await api('POST', `/api-keys/${created.api_key.id}/rotate`, user);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().data as { key: string; api_key: { id: string } };
    expect(fresh.key).not.toBe(created.key);
    expect((await search(fresh.key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    expect((await search(created.key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    const afterRotation = (await api('GET', '/api-keys', user)).json().data;
    const old = afterRotation.api_keys.find((k: { id: string }) => k.id === created.api_key.id);
    expect(old.status).toBe('rotating');
    expect(old.replaced_by).toBe(fresh.api_key.id);
    expect(new Date(old.expires_at).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(afterRotation.active_count).toBe(1);
    // A rotating key cannot be rotated again.
    expect((await api('POST', `/api-keys/${created.api_key.id}/rotate`, user)).statusCode).toBe(409);

    // 25 hours later the old key has stopped; the new one still works.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 25 * 3600_000 });
    const oldLater = await search(created.key, `dataset_id=${freeDataset}`);
    expect(oldLater.statusCode).toBe(401);
    expect(oldLater.json().error.message).toBe('このAPIキーは有効期限が切れています');
    expect(oldLater.headers['x-ratelimit-limit']).toBe('60');
    expect((await search(fresh.key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    vi.useRealTimers();

    const revoked = await api('POST', `/api-keys/${fresh.api_key.id}/revoke`, user);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.api_key.status).toBe('revoked');
    const afterRevoke = await search(fresh.key, `dataset_id=${freeDataset}`);
    expect(afterRevoke.statusCode).toBe(401);
    expect(afterRevoke.json().error.message).toBe('このAPIキーは無効化されています');
    expect((await api('POST', `/api-keys/${fresh.api_key.id}/revoke`, user)).statusCode).toBe(409);
  });

  it('rejects a mistyped key by its checksum, and unknown, missing or foreign keys', async () => {
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user);
    const last = key.at(-1)!;
    const typo = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const bad = await search(typo, `dataset_id=${freeDataset}`);
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.message).toBe('APIキーの形式が正しくありません。コピーしたキーを確認してください');

    const missing = await search(undefined, `dataset_id=${freeDataset}`);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect(missing.headers['x-ratelimit-remaining']).toBeDefined();

    const other = await ctx.newUser('individual');
    const foreign = await api('POST', `/api-keys/${(await createKey(other)).api_key.id}/revoke`, user);
    expect(foreign.statusCode).toBe(404);
    expect((await api('POST', '/api-keys/not-a-uuid/revoke', user)).statusCode).toBe(400);
  });

  it('validates the create form in Japanese and enforces the maximum keys of the account type', async () => {
    const user = await ctx.newUser('trial', 'maxkeys');
    const empty = await api('POST', '/api-keys', user, { name: ' ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toBe('キー名を入力してください');
    const badIp = await api('POST', '/api-keys', user, { name: 'x', allowed_ips: '203.0.113.999' });
    expect(badIp.statusCode).toBe(400);
    expect(badIp.json().errors[0].field).toMatch(/^allowed_ips/);
    expect(badIp.json().error.message).toBe('許可するIPアドレスは 203.0.113.5 や 203.0.113.0/24 の形式で入力してください');
    const past = await api('POST', '/api-keys', user, { name: 'x', expires_at: '2020-01-01' });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.message).toBe('有効期限には今日以降の日付を指定してください');

    await createKey(user);
    await createKey(user);
    const third = await api('POST', '/api-keys', user, { name: '3本目' });
    expect(third.statusCode).toBe(409);
    expect(third.json().error.message).toBe('APIキーは最大2個まで作成できます。不要なキーを無効化してから作成してください');
    expect(await ctx.query('SELECT 1 FROM api_keys WHERE user_id = $1', [user.id])).toHaveLength(2);
  });

  it('stops a key after the last day of its expiry (Japan time)', async () => {
    const user = await ctx.newUser('individual');
    const today = dayOf();
    const { key, api_key } = await createKey(user, { expires_at: today });
    const stored = await ctx.query<{ expires_at: Date }>('SELECT expires_at FROM api_keys WHERE id = $1', [api_key.id]);
    // Through the end of the day in Japan: midnight JST of the next day.
    expect(dayOf(new Date(new Date(stored[0]!.expires_at).getTime() - 1))).toBe(today);
    expect((await search(key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(stored[0]!.expires_at).getTime() + 1000 });
    const expired = await search(key, `dataset_id=${freeDataset}`);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.message).toBe('このAPIキーは有効期限が切れています');
  });

  it('enforces IP/CIDR and referrer restrictions', async () => {
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user, { allowed_ips: '203.0.113.0/24, 2001:db8::1' });
    expect((await search(key, `dataset_id=${freeDataset}`, {}, '203.0.113.77')).statusCode).toBe(200);
    expect((await search(key, `dataset_id=${freeDataset}`, {}, '2001:db8::1')).statusCode).toBe(200);
    const outside = await search(key, `dataset_id=${freeDataset}`, {}, '198.51.100.7');
    expect(outside.statusCode).toBe(403);
    expect(outside.json().error.message).toBe('このIPアドレスからはこのAPIキーを使用できません');

    const { key: webKey } = await createKey(user, { allowed_referrers: ['*.example.com', 'localhost:3000'] });
    expect((await search(webKey, `dataset_id=${freeDataset}`, { referer: 'https://maps.example.com/page' })).statusCode).toBe(200);
    expect((await search(webKey, `dataset_id=${freeDataset}`, { referer: 'http://localhost:3000/' })).statusCode).toBe(200);
    const evil = await search(webKey, `dataset_id=${freeDataset}`, { referer: 'https://example.com.evil.test/' });
    expect(evil.statusCode).toBe(403);
    expect(evil.json().error.message).toBe('このリファラーからはこのAPIキーを使用できません');
    expect((await search(webKey, `dataset_id=${freeDataset}`)).statusCode).toBe(403);
  });

  it('refuses the keys of a suspended account at once', async () => {
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user);
    expect((await search(key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    expect((await api('POST', `/admin/users/${user.id}/suspend`, admin, { reason: 'テスト' })).statusCode).toBe(200);
    const res = await search(key, `dataset_id=${freeDataset}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('ACCOUNT_SUSPENDED');
  });
});

describe('public search', () => {
  it('answers bad parameters and unknown datasets in Japanese without billing them', async () => {
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user);
    const none = await search(key, '');
    expect(none.statusCode).toBe(400);
    expect(none.json().error.message).toMatch(/データセット/);
    const far = await search(key, `dataset_id=${freeDataset}&latitude=95&longitude=139`);
    expect(far.statusCode).toBe(400);
    expect(far.json().error.message).toBe('緯度は-90から90の範囲で指定してください');
    const unknown = await search(key, 'dataset_id=00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    await ctx.app.usageMeter.flush();
    expect(await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).toHaveLength(0);
  });

  it('prices each 200 with the dataset prices and base fee in force, waiving the base fee for the free searches', async () => {
    const user = await ctx.newUser('corporate');
    await setPricing('corporate', { base_fee: 0.05, free: 2, rate: 1000, keys: 5 });
    const { key, api_key } = await createKey(user);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await search(key, `dataset_id=${paidDataset},${freeDataset}`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200]);
    await ctx.app.usageMeter.flush();
    const events = await ctx.query<{ amount_sen: number; free: boolean; base_fee_sen: number; dataset_prices_sen: number[] }>(
      'SELECT amount_sen, free, base_fee_sen, dataset_prices_sen FROM usage_events WHERE user_id = $1 ORDER BY occurred_at',
      [user.id],
    );
    expect(events.map((e) => [e.amount_sen, e.free])).toEqual([
      [123, true],
      [123, true],
      [128, false],
      [128, false],
    ]);

    const summary = (await api('GET', `/usage/summary?year_month=${yearMonthOf()}`, user)).json().data;
    expect(summary).toMatchObject({ searches: 4, amount: 5.02, free_searches: { limit: 2, used: 2, remaining: 0 }, base_fee: 0.05, active_keys: 1 });
    expect(summary.by_key).toEqual([{ api_key_id: api_key.id, name: 'テストキー', prefix: api_key.prefix, searches: 4, amount: 5.02 }]);
    expect(summary.by_dataset).toEqual(
      expect.arrayContaining([
        { dataset_id: paidDataset, dataset_name: '有料カフェ', searches: 4, amount: 4.92 },
        { dataset_id: freeDataset, dataset_name: '無料カフェ', searches: 4, amount: 0 },
      ]),
    );
    expect(summary.daily.find((d: { date: string }) => d.date === dayOf())).toEqual({ date: dayOf(), searches: 4, amount: 5.02 });
    expect(summary.daily).toHaveLength(new Date(Number(yearMonthOf().slice(0, 4)), Number(yearMonthOf().slice(5)), 0).getDate());
  });

  it('limits trial accounts to free datasets within their monthly free searches (402 naming /upgrade)', async () => {
    const user = await ctx.newUser('trial', 'trialquota');
    await setPricing('trial', { base_fee: 0, free: 3, rate: 60, keys: 2 });
    const { key } = await createKey(user);
    const paid = await search(key, `dataset_id=${paidDataset}`);
    expect(paid.statusCode).toBe(402);
    expect(paid.json().error).toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect(paid.json().error.message).toContain('/upgrade');
    const statuses = await Promise.all(Array.from({ length: 5 }, () => search(key, `dataset_id=${freeDataset}`).then((r) => r.statusCode)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    const over = await search(key, `dataset_id=${freeDataset}`);
    expect(over.statusCode).toBe(402);
    expect(over.json().error.message).toBe('今月の無料検索回数(3回)の上限に達しました。/upgrade からプランをアップグレードしてください');
    await ctx.app.usageMeter.flush();
    expect(await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).toHaveLength(3);
    const summary = (await api('GET', '/usage/summary', user)).json().data;
    expect(summary.free_searches).toEqual({ limit: 3, used: 3, remaining: 0 });
    await setPricing('trial', { base_fee: 0, free: 1000, rate: 60, keys: 2 });
  });

  it('stamps a key\'s last use at every usage flush, not once per five minutes', async () => {
    const user = await ctx.newUser('individual', 'lastused');
    const { key, api_key } = await createKey(user);
    const lastUsed = async (after: string | null) => {
      // The stamp is written right after the flush, without holding it up: poll briefly.
      for (let i = 0; i < 50; i++) {
        const k = (await api('GET', '/api-keys', user)).json().data.api_keys.find((x: { id: string }) => x.id === api_key.id);
        if (k.last_used_at && k.last_used_at !== after) return k.last_used_at as string;
        await new Promise((r) => setTimeout(r, 50));
      }
      return after;
    };
    expect((await search(key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    await ctx.app.usageMeter.flush();
    const first = await lastUsed(null);
    expect(first).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1100));
    expect((await search(key, `dataset_id=${freeDataset}`)).statusCode).toBe(200);
    await ctx.app.usageMeter.flush();
    const second = await lastUsed(first);
    expect(second).not.toBe(first);
    expect(Date.parse(second!) - Date.parse(first!)).toBeGreaterThanOrEqual(1000);
  });

  it('limits requests per minute with 429, Retry-After and X-RateLimit headers', async () => {
    const user = await ctx.newUser('individual', 'ratelimit');
    const { key } = await createKey(user);
    await setPricing('individual', { base_fee: 0.1, free: 1000, rate: 3, keys: 10 });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await search(key, `dataset_id=${freeDataset}`));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429]);
      expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
      const limited = answers[3]!;
      expect(limited.headers['x-ratelimit-limit']).toBe('3');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(Number(limited.headers['x-ratelimit-reset'])).toBe(Number(limited.headers['retry-after']));
      expect(limited.json().error).toMatchObject({ code: 'RATE_LIMITED', message: 'リクエストが多すぎます。しばらくしてから再度お試しください' });
      await ctx.app.usageMeter.flush();
      expect(await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).toHaveLength(3);
    } finally {
      await setPricing('individual', { base_fee: 0.1, free: 1000, rate: 600, keys: 10 });
    }
  });
});

describe('pricing', () => {
  it('answers the version in force at a date', async () => {
    const future = new Date(Date.now() + 365 * 24 * 3600_000);
    await setPricing('data_provider', { base_fee: 0.2, free: 500, rate: 700, keys: 7, share: 8000 }, future);
    const at = (type: string, date: string) => api('GET', `/admin/pricing/at-date?account_type=${type}&date=${encodeURIComponent(date)}`, admin);
    const now = await at('data_provider', new Date().toISOString());
    expect(now.json().data.version).toMatchObject({ base_fee: 0.1, free_searches_per_month: 1000, provider_share_percent: 70 });
    const later = await at('data_provider', new Date(future.getTime() + 1000).toISOString());
    expect(later.json().data.version).toMatchObject({ base_fee: 0.2, free_searches_per_month: 500, provider_share_percent: 80, max_api_keys: 7 });
    const exact = await at('data_provider', future.toISOString());
    expect(exact.json().data.version.base_fee).toBe(0.2);
    const before = await at('data_provider', '2019-12-31T23:59:59+09:00');
    expect(before.statusCode).toBe(404);
    expect(before.json().error.message).toBe('その日時に有効な料金設定がありません');
    expect((await at('nobody', '2021-01-01')).statusCode).toBe(400);
    expect((await api('GET', '/admin/pricing/current', provider)).statusCode).toBe(403);
  });
});

describe('browser access', () => {
  it('answers the CORS preflight without a key and exposes the rate-limit headers', async () => {
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: `/api/v1/poi/search?dataset_id=${freeDataset}`,
      headers: { origin: 'https://maps.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('X-API-Key');
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user);
    const res = await search(key, `dataset_id=${freeDataset}`, { origin: 'https://maps.example.com' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
  });
});

describe('search cache', () => {
  it('shows a POI written a moment ago: writes empty the cache of repeated searches', async () => {
    const user = await ctx.newUser('individual');
    const { key } = await createKey(user);
    const query = `dataset_id=${freeDataset}&latitude=35.68&longitude=139.76&radius=2000`;
    const first = (await search(key, query)).json().data.pois.map((p: { name: string }) => p.name);
    expect((await search(key, query)).json().data.pois.map((p: { name: string }) => p.name)).toEqual(first);
    const created = await api('POST', '/poi/register', provider, { dataset_id: freeDataset, name: '新しいカフェ', latitude: 35.6801, longitude: 139.7601 });
    expect(created.statusCode).toBe(200);
    const after = (await search(key, query)).json().data.pois.map((p: { name: string }) => p.name);
    expect(after).toContain('新しいカフェ');
    // Every answer is billed, cached or not.
    await ctx.app.usageMeter.flush();
    expect(await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [user.id])).toHaveLength(3);
    const removed = await api('POST', `/poi/remove/${created.json().data.poi.poi_id}`, provider);
    expect(removed.statusCode).toBe(200);
    expect((await search(key, query)).json().data.pois.map((p: { name: string }) => p.name)).not.toContain('新しいカフェ');
  });
});
