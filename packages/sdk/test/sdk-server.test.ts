// The SDK against the real server: the app of this checkout listening on a real port (PGlite, or
// PostgreSQL with TEST_DATABASE_URL), called over HTTP by the SDK exactly as a customer calls it.
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as sdk from '../src/index';
import { createPoiClient, PoiAuthError, PoiNotFoundError, PoiRateLimitError, PoiValidationError, type PoiClientOptions } from '../src/index';
import { createTestContext, type Actor, type TestContext } from '../../../apps/server/test/helpers';
import { sdkExample } from '../../../apps/web/src/features/docs/sdk-example';

let ctx: TestContext;
let baseUrl: string;
let dataset: string;
/** The ids of the dataset's POIs, as registered. */
const poiIds: string[] = [];
let user: Actor;
let key: string;

const POIS = 25;
const PAGE = 10;

async function createKey(who: Actor): Promise<string> {
  const res = await ctx.api('POST', '/api-keys', who, { name: 'SDKテスト' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.key;
}

/** The SDK's answers as they came off the socket: each status, and each 200 (a search the server bills). */
function recordingClient(options: Partial<PoiClientOptions> = {}) {
  const served: string[] = [];
  const statuses: number[] = [];
  const waits: number[] = [];
  const client = createPoiClient({
    apiKey: key,
    baseUrl,
    sleep: async (ms) => void waits.push(ms),
    fetch: async (request) => {
      const response = await fetch(request);
      statuses.push(response.status);
      if (response.status === 200) served.push(request.url);
      return response;
    },
    ...options,
  });
  return { client, served, statuses, waits };
}

/**
 * The usage events of a user once the meter has everything: the server settles a search after
 * its answer is written (onResponse), so the client may hold the body a moment before: flush until
 * the expected count is there (or a deadline passes), then once more, so that an extra event shows.
 */
async function usageOf(userId: string, expected: number): Promise<string[]> {
  const read = async () => {
    await ctx.app.usageMeter.flush();
    return (await ctx.query<{ request_id: string }>('SELECT request_id FROM usage_events WHERE user_id = $1', [userId])).map((r) => r.request_id);
  };
  const deadline = Date.now() + 5_000;
  while ((await read()).length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return read();
}

beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  const provider = await ctx.newProvider('sdk-provider');
  dataset = await ctx.newDataset(provider);
  for (let i = 0; i < POIS; i++) {
    const res = await ctx.api('POST', '/poi/register', provider, {
      dataset_id: dataset,
      name: `SDKカフェ ${i}`,
      latitude: 35.68 + i * 0.001,
      longitude: 139.76 + i * 0.001,
      category: 'カフェ',
    });
    expect(res.statusCode, res.body).toBe(200);
    poiIds.push(res.json().data.poi.poi_id);
  }
  user = await ctx.newUser('individual', 'sdk-user');
  key = await createKey(user);
});

afterAll(async () => {
  await ctx?.close();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the SDK against the real server', () => {
  it('searches one page, typed, with the total and the next page\'s cursor', async () => {
    const { client } = recordingClient();
    const page = await client.search({ dataset_id: dataset, keyword: 'SDKカフェ', limit: PAGE });
    expect(page.total).toBe(POIS);
    expect(page.total_capped).toBe(false);
    expect(page.pois).toHaveLength(PAGE);
    expect(page.next_cursor).toEqual(expect.any(String));
    const first = page.pois[0]!;
    expect(poiIds).toContain(first.poi_id);
    expect(first).toMatchObject({ dataset_id: dataset, category: 'カフェ' });
    expect(typeof first.latitude).toBe('number');
  });

  it.each([
    ['newest first', {}],
    ['nearest first within a radius', { latitude: 35.68, longitude: 139.76, radius: 10_000 }],
    ['by keyword', { keyword: 'カフェ' }],
  ])('searchAll (%s) reaches every POI exactly once and each page is billed exactly once', async (_name, filters) => {
    const before = (await usageOf(user.id, 0)).length;
    const { client, served } = recordingClient();
    const seen: string[] = [];
    for await (const poi of client.searchAll({ dataset_id: dataset, limit: PAGE, ...filters })) seen.push(poi.poi_id);
    expect(seen).toHaveLength(POIS);
    expect([...seen].sort()).toEqual([...poiIds].sort());
    // 25 POIs by 10: three pages, three searches, three usage events (those very requests).
    expect(served).toHaveLength(Math.ceil(POIS / PAGE));
    expect(await usageOf(user.id, before + served.length)).toHaveLength(before + served.length);
  });

  it('searchAll with fields walks every POI trimmed to the fields asked for', async () => {
    const { client, served } = recordingClient();
    const seen: Array<{ poi_id: string; name: string }> = [];
    for await (const poi of client.searchAll({ dataset_id: dataset, limit: PAGE, fields: ['id', 'name'] })) seen.push(poi);
    expect(served).toHaveLength(3);
    expect(seen.map((p) => p.poi_id).sort()).toEqual([...poiIds].sort());
    for (const poi of seen) expect(Object.keys(poi).sort()).toEqual(['name', 'poi_id']);
  });

  it('answers the same page as GeoJSON: same POIs in the same order, a Point per POI, the same paging', async () => {
    const { client } = recordingClient();
    const params = { dataset_id: dataset, latitude: 35.69, longitude: 139.77, limit: PAGE };
    const json = await client.search(params);
    const geo = await client.searchGeoJson(params);
    expect(geo.type).toBe('FeatureCollection');
    expect(geo.features.map((f) => f.id)).toEqual(json.pois.map((p) => p.poi_id));
    expect(geo.features.map((f) => f.geometry)).toEqual(json.pois.map((p) => ({ type: 'Point', coordinates: [p.longitude, p.latitude] })));
    expect(geo.features.map((f) => f.properties)).toEqual(json.pois.map(({ latitude: _lat, longitude: _lon, ...rest }) => rest));
    expect([geo.total, geo.total_capped, typeof geo.next_cursor]).toEqual([json.total, json.total_capped, 'string']);
  });

  it('suggests from what is typed (as written, or lower-case with half-width kana), each suggest billed once', async () => {
    const before = (await usageOf(user.id, 0)).length;
    const { client, served } = recordingClient();
    const exact = await client.suggest({ dataset_id: dataset, q: 'SDKカフェ 1' });
    expect(exact.suggestions[0]).toMatchObject({ name: 'SDKカフェ 1', match: 'exact' });
    // Then the names that start with it, in name order (same length), up to the default 10.
    expect(exact.suggestions.map((s) => s.name)).toEqual(['SDKカフェ 1', ...Array.from({ length: 9 }, (_, i) => `SDKカフェ 1${i}`)]);
    expect(exact.suggestions.every((s) => poiIds.includes(s.poi_id))).toBe(true);
    const halfWidth = await client.suggest({ dataset_id: dataset, q: 'sdkｶﾌｪ 2', limit: 3 });
    expect(halfWidth.suggestions.map((s) => s.name)).toEqual(['SDKカフェ 2', 'SDKカフェ 20', 'SDKカフェ 21']);
    expect(served).toHaveLength(2);
    expect(await usageOf(user.id, before + 2)).toHaveLength(before + 2);
  });

  it('throws typed errors for 400, 401 and 404 with the server\'s code, message and request id, none billed', async () => {
    const before = (await usageOf(user.id, 0)).length;
    const { client } = recordingClient();
    const invalid = await client.search({ dataset_id: dataset, limit: 1000 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(PoiValidationError);
    expect(invalid).toMatchObject({ status: 400, kind: 'validation', code: 'VALIDATION_ERROR', requestId: expect.any(String) });
    expect((invalid as PoiValidationError).errors.map((e) => e.field)).toEqual(['limit']);

    const unknownKey = createPoiClient({ apiKey: 'poi_live_doesnotexist0000000000000000000000', baseUrl });
    const unauthorized = await unknownKey.search({ dataset_id: dataset }).catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(PoiAuthError);
    expect(unauthorized).toMatchObject({ status: 401, kind: 'auth', code: 'UNAUTHORIZED' });
    expect((unauthorized as Error).message).toMatch(/APIキー/);

    const missing = await client.search({ dataset_id: '6f1c2a4e-0000-4000-8000-00000000dead' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PoiNotFoundError);
    expect(missing).toMatchObject({ status: 404, kind: 'not_found', code: 'NOT_FOUND' });

    // language: 'en': the same error with the server's English message.
    const english = createPoiClient({ apiKey: key, baseUrl, language: 'en' });
    const invalidEn = await english.search({ dataset_id: dataset, limit: 1000 }).catch((e: unknown) => e);
    expect(invalidEn).toBeInstanceOf(PoiValidationError);
    expect(invalidEn).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect((invalidEn as PoiValidationError).errors.map((e) => e.field)).toEqual(['limit']);
    for (const text of [(invalidEn as Error).message, ...(invalidEn as PoiValidationError).errors.map((e) => e.message)]) {
      expect(text).toMatch(/[a-z]/);
      expect(text).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
    expect((invalidEn as Error).message).not.toBe((invalid as Error).message);

    expect(await usageOf(user.id, before)).toHaveLength(before);
  });

  it.each(['ja', 'en'] as const)('runs the sample of /docs/api (%s) as printed there', async (language) => {
    const code = sdkExample(baseUrl, language);
    // The import it starts with names what the package exports; the rest runs as it is.
    const [importLine, ...body] = code.split('\n');
    const imported = /^import \{ (.+) \} from '@poi\/sdk';$/.exec(importLine!)![1]!.split(', ');
    expect(Object.keys(sdk)).toEqual(expect.arrayContaining(imported));
    const printed: unknown[][] = [];
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<void>;
    const run = new AsyncFunction(...imported, 'process', 'console', body.join('\n'));
    await run(...imported.map((name) => sdk[name as keyof typeof sdk]), { env: { POI_API_KEY: key, POI_DATASET_ID: dataset } }, { log: (...args: unknown[]) => printed.push(args) });
    expect(printed).toHaveLength(4);
    const [total, names] = printed[0]!;
    expect(total).toBeGreaterThan(0);
    expect((names as string[]).every((n) => n.startsWith('SDKカフェ'))).toBe(true);
    // かふぇ is inside every name's reading: five suggestions, each saying how it matched.
    expect(printed[1]![0]).toHaveLength(5);
    for (const line of printed[1]![0] as string[]) expect(line).toMatch(/^SDKカフェ \d+ \((exact|name_prefix|reading_prefix|contains)\)$/);
    expect(printed[2]).toEqual([POIS]);
    expect(printed[3]!.slice(0, 2)).toEqual([400, 'VALIDATION_ERROR']);
    expect((printed[3]![3] as Array<{ field: string }>).map((e) => e.field)).toEqual(['limit']);
    // The English sample asks for English messages; the Japanese one gets the default.
    const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;
    expect(japanese.test(String(printed[3]![2]))).toBe(language === 'ja');
  });

  it('retries a 429 after the Retry-After the server sent, then throws PoiRateLimitError; only the 200s are billed', async () => {
    const limited = await ctx.newUser('corporate', 'sdk-limited');
    await ctx.query(
      `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
       VALUES ('corporate', $1, 0.05, 1000, 7000, 3, 5)`,
      [new Date(Date.now() - 1000).toISOString()],
    );
    ctx.app.changes.changed('pricing');
    key = await createKey(limited);
    // A still clock 15 s into the next minute (after the new limit took effect): the three allowed
    // searches and the refusals share one window, and the server's Retry-After is exactly the
    // 45 s left of it.
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    vi.useFakeTimers({ toFake: ['Date'], now: minute + 15_000 });
    try {
      const { client, served, statuses, waits } = recordingClient({ maxRetries: 2 });
      for (let i = 0; i < 3; i++) await client.search({ dataset_id: dataset });
      const error = await client.search({ dataset_id: dataset }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PoiRateLimitError);
      expect(error).toMatchObject({ status: 429, kind: 'rate_limit', code: 'RATE_LIMITED', retryAfterSeconds: 45 });
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      expect(waits).toEqual([45_000, 45_000]);
      vi.useRealTimers();
      expect(served).toHaveLength(3);
      expect(await usageOf(limited.id, 3)).toHaveLength(3);
    } finally {
      key = await createKey(user);
    }
  });
});
