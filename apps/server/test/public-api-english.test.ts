import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE } from '@poi/shared/limits';
import { englishOf } from '../src/lib/english-messages';
import { createTestContext, type Actor, type TestContext } from './helpers';

/*
 * `Accept-Language: en` on the public API (/api/v1): every error answer keeps its status, code
 * and errors[] fields and has English messages; Japanese stays the default; the console API
 * stays Japanese. The bad-input sweep reads the public operations and their parameters from
 * /openapi.json, so a parameter or operation added later is swept too.
 */

let ctx: TestContext;
let provider: Actor;
let freeDataset: string;
let paidDataset: string;
let key: string;

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
const EN = 'en-US,en;q=0.9,ja;q=0.5';

type Answer = { statusCode: number; headers: Record<string, unknown>; json: () => { error?: { code: string; message: string }; errors?: Array<{ field: string; message: string }> } };

const get = (url: string, language: string | undefined, headers: Record<string, string> = {}, remoteAddress?: string) =>
  ctx.app.inject({ method: 'GET', url, headers: { ...(language ? { 'accept-language': language } : {}), ...headers }, ...(remoteAddress ? { remoteAddress } : {}) });

async function createKey(who: Actor, body: Record<string, unknown> = {}) {
  const res = await ctx.api('POST', '/api-keys', who, { name: '英語', ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { key: string; api_key: { id: string } };
}

async function setPricing(accountType: string, rate: number, free = 1000) {
  await ctx.query(
    `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
     VALUES ($1, $2, 0.1, $3, 7000, $4, 10)`,
    [accountType, new Date(Date.now() - 1000).toISOString(), free, rate],
  );
  ctx.app.changes.changed('pricing');
}

const messagesOf = (res: Answer) => [res.json().error?.message ?? '', ...(res.json().errors ?? []).map((e) => e.message)];

/** The same request in Japanese (no header) and in English: the same answer but for its messages, which are English. */
async function bothLanguages(send: (language: string | undefined) => Promise<Answer>, label: string, missing?: Set<string>) {
  const ja = await send(undefined);
  const en = await send(EN);
  expect(en.statusCode, label).toBe(ja.statusCode);
  if (ja.statusCode < 400) return { ja, en };
  expect(en.json().error?.code, label).toBe(ja.json().error?.code);
  expect(en.json().errors?.map((e) => e.field), label).toEqual(ja.json().errors?.map((e) => e.field));
  for (const message of messagesOf(ja)) {
    expect(JAPANESE.test(message), `${label}: Japanese by default (${message})`).toBe(true);
    if (englishOf(message) === undefined) {
      if (missing) missing.add(message);
      else expect.fail(`${label}: no English for 「${message}」 (add it to apps/server/src/lib/english-messages.ts)`);
    }
  }
  for (const message of messagesOf(en)) if (!missing?.has(message)) expect(message, `${label}: English`).not.toMatch(JAPANESE);
  expect(en.headers['content-language'], label).toBe('en');
  expect(ja.headers['content-language'], label).toBe('ja');
  expect(String(en.headers.vary), label).toMatch(/accept-language/i);
  return { ja, en };
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('english');
  freeDataset = await ctx.newDataset(provider);
  paidDataset = await ctx.newDataset(provider, { price: 2 });
  await ctx.api('POST', '/poi/register', provider, { dataset_id: freeDataset, name: '東京駅カフェ', latitude: 35.68, longitude: 139.76 });
  // The sweep sends a few hundred requests with one key within a minute.
  await setPricing('individual', 100_000);
  key = (await createKey(await ctx.newUser('individual', 'english'))).key;
});

afterAll(async () => {
  await ctx?.close();
});

describe('Accept-Language negotiation', () => {
  it.each([
    [undefined, 'ja'],
    ['ja,en;q=0.8', 'ja'],
    ['en-US,en;q=0.9,ja;q=0.5', 'en'],
    ['en', 'en'],
    ['fr-FR', 'ja'],
    ['ja;q=0.3,en;q=0.7', 'en'],
    ['en;q=0', 'ja'],
  ])('Accept-Language %s answers in %s', async (header, language) => {
    const res = await get(`/api/v1/poi/search?dataset_id=${freeDataset}`, header);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toBe(
      language === 'en'
        ? 'An API key is required. Send it as Authorization: Bearer <API key> or in the X-API-Key header'
        : 'APIキーが必要です。Authorization: Bearer <APIキー> または X-API-Key ヘッダーで指定してください',
    );
    expect(res.headers['content-language']).toBe(language);
  });

  it('marks every public answer, a successful search included, as varying by Accept-Language', async () => {
    const ok = await get(`/api/v1/poi/search?dataset_id=${freeDataset}`, EN, { 'x-api-key': key });
    expect(ok.statusCode).toBe(200);
    expect(String(ok.headers.vary)).toMatch(/accept-language/i);
    // The answer itself is data: the same bytes in either language.
    expect(ok.json().data.pois[0].name).toBe('東京駅カフェ');
  });

  it('keeps the console API Japanese whatever the header', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/console/v1/user', headers: { 'accept-language': 'en' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toMatch(JAPANESE);
    expect(res.headers['content-language']).toBeUndefined();
  });
});

describe('every public error kind in English', () => {
  const search = (query: string, headers: Record<string, string> = {}, remoteAddress?: string) => (language: string | undefined) =>
    get(`/api/v1/poi/search?${query}`, language, headers, remoteAddress);

  it('401: missing, malformed, unknown and revoked keys', async () => {
    const user = await ctx.newUser('individual');
    const revoked = await createKey(user);
    expect((await ctx.api('POST', `/api-keys/${revoked.api_key.id}/revoke`, user)).statusCode).toBe(200);
    const cases: Array<[string, Record<string, string>, string]> = [
      ['missing', {}, 'An API key is required. Send it as Authorization: Bearer <API key> or in the X-API-Key header'],
      ['malformed', { 'x-api-key': 'poi_live_typo' }, 'The API key is malformed. Check the key you copied'],
      ['revoked', { authorization: `Bearer ${revoked.key}` }, 'This API key has been revoked'],
    ];
    for (const [label, headers, english] of cases) {
      const { en } = await bothLanguages(search(`dataset_id=${freeDataset}`, headers), `401 ${label}`);
      expect(en.statusCode).toBe(401);
      expect(en.json().error).toMatchObject({ code: 'UNAUTHORIZED', message: english });
    }
  });

  it('403: referrer, IP address and a suspended account', async () => {
    const user = await ctx.newUser('individual');
    const web = await createKey(user, { allowed_referrers: ['*.example.com'] });
    const { en: referrer } = await bothLanguages(search(`dataset_id=${freeDataset}`, { 'x-api-key': web.key, referer: 'https://evil.test/' }), '403 referrer');
    expect(referrer.statusCode).toBe(403);
    expect(referrer.json().error).toMatchObject({ code: 'FORBIDDEN', message: 'This API key cannot be used from this referrer' });

    const office = await createKey(user, { allowed_ips: ['203.0.113.0/24'] });
    const { en: ip } = await bothLanguages(search(`dataset_id=${freeDataset}`, { 'x-api-key': office.key }, '198.51.100.7'), '403 IP');
    expect(ip.json().error).toMatchObject({ code: 'FORBIDDEN', message: 'This API key cannot be used from this IP address' });

    const suspended = await ctx.newUser('individual');
    const { key: suspendedKey } = await createKey(suspended);
    expect((await ctx.api('POST', `/admin/users/${suspended.id}/suspend`, await ctx.admin(), { reason: 'テスト' })).statusCode).toBe(200);
    const { en: account } = await bothLanguages(search(`dataset_id=${freeDataset}`, { 'x-api-key': suspendedKey }), '403 suspended');
    expect(account.json().error).toMatchObject({ code: 'ACCOUNT_SUSPENDED', message: 'This account is suspended. Please contact support' });
  });

  it('404: an unknown dataset and an unknown path; 405: another method', async () => {
    const { en: dataset } = await bothLanguages(search('dataset_id=00000000-0000-4000-8000-000000000000', { 'x-api-key': key }), '404 dataset');
    expect(dataset.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'Dataset not found' });
    const { en: path } = await bothLanguages((language) => get('/api/v1/poi/serch', language), '404 path');
    expect(path.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'The requested resource was not found' });
    const { en: post } = await bothLanguages(
      (language) => ctx.app.inject({ method: 'POST', url: '/api/v1/poi/search', headers: { 'x-api-key': key, ...(language ? { 'accept-language': language } : {}) } }),
      '405',
    );
    expect(post.statusCode).toBe(405);
    expect(post.json().error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', message: 'Call this URL with the GET method' });
    const { en: badUrl } = await bothLanguages((language) => get('/api/v1/poi/search%FF', language), '400 undecodable path');
    expect(badUrl.statusCode).toBe(400);
  });

  it('402: a trial account on a paid dataset, past its free searches, and a hard budget', async () => {
    await setPricing('trial', 1000, 1);
    const trial = await ctx.newUser('trial', 'englishtrial');
    const { key: trialKey } = await createKey(trial);
    const { en: paid } = await bothLanguages(search(`dataset_id=${paidDataset}`, { 'x-api-key': trialKey }), '402 paid');
    expect(paid.json().error).toMatchObject({ code: 'PAYMENT_REQUIRED', message: 'A trial account cannot search paid datasets. Upgrade your plan at /upgrade' });
    expect((await search(`dataset_id=${freeDataset}`, { 'x-api-key': trialKey })(undefined)).statusCode).toBe(200);
    const { en: quota } = await bothLanguages(search(`dataset_id=${freeDataset}`, { 'x-api-key': trialKey }), '402 quota');
    expect(quota.json().error).toMatchObject({ code: 'PAYMENT_REQUIRED', message: "This month's free searches (1) are used up. Upgrade your plan at /upgrade" });

    const spender = await ctx.newUser('individual');
    expect((await ctx.api('POST', '/billing/budget', spender, { monthly_limit: 1, hard_stop: true })).statusCode).toBe(200);
    const { key: spenderKey } = await createKey(spender);
    const { en: budget } = await bothLanguages(search(`dataset_id=${paidDataset}`, { 'x-api-key': spenderKey }), '402 budget');
    expect(budget.json().error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      message: "Searches are stopped: this month's budget limit (¥1) has been reached. Change the budget at /billing",
    });
  });

  it('429: past the per-minute limit, with the same Retry-After', async () => {
    const address = '192.0.2.99';
    for (let i = 0; i < UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE; i++) await search('', {}, address)(undefined);
    const { ja, en } = await bothLanguages(search('', {}, address), '429');
    expect(en.statusCode).toBe(429);
    expect(en.json().error).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many requests. Please wait a moment and try again' });
    expect(en.headers['retry-after']).toBeDefined();
    expect(Math.abs(Number(en.headers['retry-after']) - Number(ja.headers['retry-after']))).toBeLessThanOrEqual(1);
  });

  it('503: the usage meter not accepting searches', async () => {
    const spy = vi.spyOn(ctx.app.usageMeter, 'accepting').mockReturnValue(false);
    try {
      const { en } = await bothLanguages(search(`dataset_id=${freeDataset}`, { 'x-api-key': key }), '503');
      expect(en.statusCode).toBe(503);
      expect(en.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'Searches cannot be accepted right now. Please try again shortly' });
      expect(en.headers['retry-after']).toBe('5');
    } finally {
      spy.mockRestore();
    }
  });
});

/** Odd values every parameter is sent: raw query text (already percent-encoded where it matters). */
const ODD_VALUES = [
  '', '%20', 'abc', '-1', '0', '1.5', '35.5', '-200', '200', '999999999', '1e3', '0x10', 'NaN', 'null', '%E3%81', '%ZZ', '%2035', '%EF%BC%91%EF%BC%92',
  'a'.repeat(600), '%2C%2C', '00000000-0000-4000-8000-000000000000', 'abc.def', '%E3%80%80', '%21%21%21', Array.from({ length: 12 }, (_, i) => `w${i}`).join('+'),
  '1,2,3,4', '139.7,35.6,139.8,35.7', 'name,latitude', 'id,unknown_field', 'geojson', 'xml',
];

/** Whole queries for the rules between parameters and of the query itself. */
const ODD_QUERIES = [
  'latitude=35', 'longitude=139', 'radius=100', 'latitude=35&longitude=139&radius=0', 'cursor=abc.def&offset=5', 'limit=1&limit=2', 'keyword=a&keyword=b',
  'lat=35&lng=139', 'q=cafe', 'foo=1', '%ZZ=1', 'latitude', 'bbox=139.7,35.6,139.8,35.7&radius=100', 'bbox=139.7,35.6,139.8,35.7&latitude=35.6&longitude=139.7',
  'bbox=200,0,201,1', 'bbox=0,-95,1,1', 'bbox=10,0,5,1', 'bbox=0,10,1,5', 'tags=a&tags=b', 'category=a&category=b', 'fields=id&fields=name', 'format=json&format=geojson',
  `tags=${Array.from({ length: 11 }, (_, i) => `t${i}`).join(',')}`, `tags=${'t'.repeat(51)}`, `category=${'c'.repeat(101)}`, 'dataset_id=not-a-uuid', `dataset_id=${Array.from({ length: 11 }, (_, i) => `00000000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`).join(',')}`,
];

type Parameter = { name: string; in: string; required?: boolean };

describe('bad input to every public operation', () => {
  it('answers every parameter error with the same status, code and fields in English, and has English for each Japanese message', async () => {
    const doc = (await get('/openapi.json', undefined)).json() as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) => Object.entries(methods).filter(([method]) => method === 'get').map(([, op]) => ({ path, parameters: (op.parameters ?? []).filter((p) => p.in === 'query') })));
    expect(operations.length).toBeGreaterThan(0);
    let refused = 0;
    const missing = new Set<string>();
    for (const { path, parameters } of operations) {
      const base = new Map(parameters.filter((p) => p.required).map((p) => [p.name, p.name === 'dataset_id' ? freeDataset : 'cafe']));
      const queries = [
        ...parameters.flatMap((p) => ODD_VALUES.map((value) => [...new Map([...base, [p.name, value]])].map(([k, v]) => `${k}=${v}`).join('&'))),
        ...ODD_QUERIES.map((q) => [...[...base].map(([k, v]) => `${k}=${v}`), q].join('&')),
        '',
      ];
      for (const query of queries) {
        const { en } = await bothLanguages((language) => get(`${path}?${query}`, language, { 'x-api-key': key }), `${path}?${query.slice(0, 200)}`, missing);
        expect(en.statusCode, query).toBeLessThan(500);
        if (en.statusCode >= 400) refused++;
      }
    }
    // Each listed message needs its English in apps/server/src/lib/english-messages.ts.
    expect([...missing]).toEqual([]);
    // The sweep reaches the validation at all (a wrong key would answer 401 to everything instead).
    expect(refused).toBeGreaterThan(20);
  });
});
