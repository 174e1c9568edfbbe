import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoiClient, PoiApiError, PoiAuthError, PoiNotFoundError, PoiRateLimitError, PoiUnavailableError, PoiValidationError, type PoiClientOptions } from './index.js';
import { retryDelayMs } from './retry.js';

const DATASET = '6f1c2a4e-0000-4000-8000-000000000001';

type Answer = { status: number; headers?: Record<string, string>; body: unknown };

/** A stub API on a real port: answers the queued answers in order and records each request. */
async function stubServer(answers: Answer[]) {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    const answer = answers.shift() ?? { status: 500, body: { success: false, error: { code: 'NO_MORE', message: 'no answer queued' } } };
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const page = (names: string[], nextCursor: string | null) => ({
  status: 200,
  body: { success: true, data: { pois: names.map((name) => ({ poi_id: name, dataset_id: DATASET, name })), total: names.length, total_capped: false, next_cursor: nextCursor } },
});
const failure = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'x-request-id': `req-${status}`, ...headers },
  body: { success: false, error: { code, message: `${code} のメッセージ`, request_id: `req-${status}` } },
});

/** A client whose waits are recorded instead of slept. */
function clientOf(url: string, options: Partial<PoiClientOptions> = {}) {
  const waits: number[] = [];
  const client = createPoiClient({ apiKey: 'poi_live_test', baseUrl: url, sleep: async (ms) => void waits.push(ms), ...options });
  return { client, waits };
}

describe('createPoiClient', () => {
  it('sends the key, the language and every dataset id, and answers the page', async () => {
    const stub = await stubServer([page(['a', 'b'], null)]);
    const { client } = clientOf(stub.url, { language: 'en' });
    const other = '6f1c2a4e-0000-4000-8000-000000000002';
    const result = await client.search({ dataset_id: [DATASET, other], keyword: '渋谷 駅', limit: 2 });
    expect(result.pois.map((p) => p.name)).toEqual(['a', 'b']);
    const request = stub.requests[0]!;
    expect(request.headers['x-api-key']).toBe('poi_live_test');
    expect(request.headers['accept-language']).toBe('en');
    const url = new URL(request.url!, stub.url);
    expect(url.pathname).toBe('/api/v1/poi/search');
    expect(url.searchParams.getAll('dataset_id')).toEqual([DATASET, other]);
    expect(url.searchParams.get('keyword')).toBe('渋谷 駅');
    expect(url.searchParams.get('limit')).toBe('2');
  });

  it('suggests: q, the point and the datasets to /api/v1/poi/suggest, with the same retries and errors', async () => {
    const suggestion = { poi_id: 'p1', dataset_id: DATASET, name: '渋谷駅', match: 'reading_prefix' };
    const stub = await stubServer([failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '2' }), { status: 200, body: { success: true, data: { suggestions: [suggestion] } } }, failure(400, 'VALIDATION_ERROR')]);
    const { client, waits } = clientOf(stub.url);
    const result = await client.suggest({ dataset_id: DATASET, q: 'しぶ', latitude: 35.658, longitude: 139.7016, limit: 5 });
    expect(result.suggestions).toEqual([suggestion]);
    expect(waits).toEqual([2_000]);
    const url = new URL(stub.requests[1]!.url!, stub.url);
    expect(url.pathname).toBe('/api/v1/poi/suggest');
    expect(Object.fromEntries(url.searchParams)).toEqual({ dataset_id: DATASET, q: 'しぶ', latitude: '35.658', longitude: '139.7016', limit: '5' });
    await expect(client.suggest({ dataset_id: DATASET, q: '' })).rejects.toBeInstanceOf(PoiValidationError);
    expect(stub.requests).toHaveLength(3);
  });

  it('sends fields comma-separated and types the trimmed POIs', async () => {
    const stub = await stubServer([{ status: 200, body: { success: true, data: { pois: [{ poi_id: 'p1', name: 'a', latitude: 35 }], total: 1, total_capped: false, next_cursor: null } } }]);
    const { client } = clientOf(stub.url);
    const page = await client.search({ dataset_id: DATASET, fields: ['id', 'name', 'latitude'] });
    const poi = page.pois[0]!;
    expect([poi.poi_id, poi.name, poi.latitude]).toEqual(['p1', 'a', 35]);
    // @ts-expect-error address was not asked for: not in the type either.
    expect(poi.address).toBeUndefined();
    expect(new URL(stub.requests[0]!.url!, stub.url).searchParams.get('fields')).toBe('id,name,latitude');
  });

  it('walks every page along next_cursor, sending the same filters with each cursor', async () => {
    const stub = await stubServer([page(['a', 'b'], 'c1.x'), page(['c', 'd'], 'c2.x'), page(['e'], null)]);
    const { client } = clientOf(stub.url);
    const names: string[] = [];
    for await (const poi of client.searchAll({ dataset_id: DATASET, keyword: 'カフェ', limit: 2 })) names.push(poi.name);
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    const queries = stub.requests.map((r) => new URL(r.url!, stub.url).searchParams);
    expect(queries.map((q) => q.get('cursor'))).toEqual([null, 'c1.x', 'c2.x']);
    for (const q of queries) expect([q.get('keyword'), q.get('limit'), q.get('dataset_id')]).toEqual(['カフェ', '2', DATASET]);
  });

  it('retries a 429 and a 503 as long as Retry-After says (seconds or an HTTP date), then answers', async () => {
    const in3s = new Date(Date.now() + 3_000).toUTCString();
    const stub = await stubServer([failure(429, 'RATE_LIMITED', { 'retry-after': '7' }), failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': in3s }), page(['a'], null)]);
    const { client, waits } = clientOf(stub.url);
    expect((await client.search({ dataset_id: DATASET })).pois).toHaveLength(1);
    expect(stub.requests).toHaveLength(3);
    expect(waits[0]).toBe(7_000);
    // An HTTP date has whole seconds: up to a second less than 3 s, never more.
    expect(waits[1]).toBeGreaterThan(1_000);
    expect(waits[1]).toBeLessThanOrEqual(3_000);
  });

  it('gives up after maxRetries with a typed error carrying the last answer', async () => {
    const stub = await stubServer([failure(503, 'SERVICE_UNAVAILABLE'), failure(503, 'SERVICE_UNAVAILABLE'), failure(429, 'RATE_LIMITED', { 'retry-after': '30' })]);
    const { client, waits } = clientOf(stub.url, { maxRetries: 2 });
    const error = await client.search({ dataset_id: DATASET }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PoiRateLimitError);
    expect(error).toMatchObject({ status: 429, kind: 'rate_limit', code: 'RATE_LIMITED', requestId: 'req-429', retryAfterSeconds: 30 });
    expect(stub.requests).toHaveLength(3);
    // No Retry-After: 0.5 s, then 1 s (no jitter).
    expect(waits).toEqual([500, 1_000]);
  });

  it('does not retry when Retry-After asks for longer than maxRetryDelayMs, nor when maxRetries is 0', async () => {
    const stub = await stubServer([failure(429, 'RATE_LIMITED', { 'retry-after': '61' }), failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' })]);
    const { client, waits } = clientOf(stub.url, { maxRetryDelayMs: 60_000 });
    await expect(client.search({ dataset_id: DATASET })).rejects.toBeInstanceOf(PoiRateLimitError);
    const { client: once } = clientOf(stub.url, { maxRetries: 0 });
    await expect(once.search({ dataset_id: DATASET })).rejects.toBeInstanceOf(PoiUnavailableError);
    expect(stub.requests).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it.each([
    [400, 'VALIDATION_ERROR', PoiValidationError, 'validation'],
    [401, 'UNAUTHORIZED', PoiAuthError, 'auth'],
    [402, 'PAYMENT_REQUIRED', PoiApiError, 'payment'],
    [403, 'FORBIDDEN', PoiApiError, 'forbidden'],
    [404, 'NOT_FOUND', PoiNotFoundError, 'not_found'],
  ] as const)('never retries a %i: one request, a %s error', async (status, code, Class, kind) => {
    const stub = await stubServer([failure(status, code, { 'retry-after': '1' }), page(['a'], null)]);
    const { client, waits } = clientOf(stub.url);
    const error = await client.search({ dataset_id: DATASET }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toMatchObject({ status, code, kind, message: `${code} のメッセージ`, requestId: `req-${status}` });
    expect(stub.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('keeps the errors[] of a 400, and turns an answer that is not the API\'s into an error too', async () => {
    const errors = [{ field: 'limit', message: '1〜100 の整数で指定してください' }];
    const stub = await stubServer([
      { status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'パラメーターが不正です', request_id: 'r1' }, errors } },
      { status: 502, headers: { 'content-type': 'text/html', 'x-request-id': 'proxy-1' }, body: '<html>Bad Gateway</html>' },
    ]);
    const { client } = clientOf(stub.url);
    await expect(client.search({ dataset_id: DATASET, limit: 1000 })).rejects.toMatchObject({ status: 400, errors });
    const proxy = await client.search({ dataset_id: DATASET }).catch((e: unknown) => e);
    expect(proxy).toBeInstanceOf(PoiApiError);
    expect(proxy).toMatchObject({ status: 502, kind: 'server', code: 'HTTP_502', requestId: 'proxy-1', errors: [] });
  });

  it('aborts a wait between retries', async () => {
    const stub = await stubServer([failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '30' }), page(['a'], null)]);
    const client = createPoiClient({ apiKey: 'poi_live_test', baseUrl: stub.url });
    const controller = new AbortController();
    const pending = client.search({ dataset_id: DATASET }, { signal: controller.signal });
    // The first answer arrives, then the client waits 30 s: abort that wait.
    while (stub.requests.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    expect(stub.requests).toHaveLength(1);
  });
});

describe('retryDelayMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads seconds and HTTP dates, backs off without one, and refuses waits over the cap', () => {
    expect(retryDelayMs('0', 0, 60_000, now)).toBe(0);
    expect(retryDelayMs(' 12 ', 3, 60_000, now)).toBe(12_000);
    expect(retryDelayMs('Thu, 01 Jan 2026 00:00:05 GMT', 0, 60_000, now)).toBe(5_000);
    expect(retryDelayMs('Wed, 31 Dec 2025 23:59:00 GMT', 0, 60_000, now)).toBe(0);
    expect(retryDelayMs(null, 0, 60_000, now)).toBe(500);
    expect(retryDelayMs('soon', 2, 60_000, now)).toBe(2_000);
    expect(retryDelayMs('-5', 0, 60_000, now)).toBe(500);
    expect(retryDelayMs('61', 0, 60_000, now)).toBeUndefined();
    expect(retryDelayMs(null, 10, 60_000, now)).toBeUndefined();
  });
});
