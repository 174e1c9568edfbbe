import { sql } from 'drizzle-orm';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from './helpers';

let ctx: TestContext;
let base: URL;
let provider: { token: string; id: string };
let datasetId: string;

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

beforeAll(async () => {
  ctx = await createTestContext();
  base = new URL(await ctx.app.listen({ port: 0, host: '127.0.0.1' }));
  provider = await ctx.newProvider('provider');
  datasetId = await ctx.newDataset(provider, { name: '文字検証' });
});

afterAll(async () => {
  await ctx?.close();
});

/** A request sent byte for byte as given (fetch and inject normalise some URLs). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Bytes on a raw socket, for what Node's HTTP parser itself refuses. */
function rawSocket(bytes: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function expectEnvelope(res: { status: number; body: string }, status: number, code?: string) {
  expect(res.status, res.body).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ success: false, error: { code: expect.any(String), message: expect.stringMatching(JAPANESE) } });
  if (code) expect(body.error.code).toBe(code);
  return body as { error: { code: string; message: string }; errors?: Array<{ field: string; message: string }> };
}

describe('every error uses the envelope with a Japanese message (real socket)', () => {
  it('a URL the router cannot decode (%FF)', async () => {
    const res = await raw('GET', '/console/v1/datasets/%FF', bearer(provider.token));
    expect(expectEnvelope(res, 400, 'BAD_REQUEST').error.message).toBe('URLに使用できない文字が含まれています');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('a path parameter over 100 characters reaches its route: 401 without a session, the schema\'s 400 with one', async () => {
    const long = `/console/v1/datasets/${'a'.repeat(150)}`;
    expectEnvelope(await raw('GET', long), 401, 'UNAUTHORIZED');
    const res = await raw('GET', long, bearer(provider.token));
    expect(expectEnvelope(res, 400, 'VALIDATION_ERROR').error.message).toBe('データセットIDが正しくありません');
    const magic = await raw('GET', `/console/v1/auth/magic/${'a'.repeat(300)}`);
    expectEnvelope(magic, 400);
  });

  it('malformed JSON, an empty JSON body, a wrong content type and a body too large', async () => {
    const post = (body: string, type = 'application/json') => raw('POST', '/console/v1/auth/request-otp', { 'content-type': type }, body);
    expect(expectEnvelope(await post('{"email":'), 400, 'BAD_REQUEST').error.message).toBe('リクエストのJSONの形式が正しくありません');
    expect(expectEnvelope(await post(''), 400, 'BAD_REQUEST').error.message).toBe('リクエストの本文が空です');
    expectEnvelope(await post('email=a@example.com', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectEnvelope(await post('hello', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectEnvelope(await post(JSON.stringify({ email: 'a'.repeat(2 * 1024 * 1024) })), 413, 'PAYLOAD_TOO_LARGE');
    const log = await raw('POST', '/console/v1/logs/frontend', { 'content-type': 'application/json' }, JSON.stringify({ type: 'x', message: 'あ'.repeat(20_000) }));
    expectEnvelope(log, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('an unknown route and an unknown method', async () => {
    expectEnvelope(await raw('GET', '/console/v1/nothing/here'), 404, 'NOT_FOUND');
    expectEnvelope(await raw('PUT', '/console/v1/user', { 'content-type': 'application/json' }, '{}'), 404, 'NOT_FOUND');
    const propfind = await raw('PROPFIND', '/console/v1/user');
    expect(propfind.status).toBeGreaterThanOrEqual(400);
    expectEnvelope(propfind, propfind.status);
  });

  it('requests Node refuses before Fastify sees them: headers too large, a broken request line', async () => {
    const big = await rawSocket(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: { code: 'HEADERS_TOO_LARGE', message: 'リクエストヘッダーが大きすぎます' } });
    const broken = await rawSocket('NOT A REQUEST\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    // The server is still there for the next request.
    expect((await raw('GET', '/healthz')).status).toBe(200);
  });
});

describe('text the database cannot store (U+0000, unpaired surrogates)', () => {
  const frontendLogCount = async () => Number((await ctx.query<{ n: string }>('SELECT count(*) AS n FROM frontend_logs'))[0]!.n);

  it('POST /console/v1/logs/frontend with {"type":"\\ud800"} and no session: Japanese 400, nothing stored', async () => {
    const before = await frontendLogCount();
    for (const body of ['{"type":"\\ud800"}', '{"type":"ok","message":"a\\udc00b"}', '{"type":"ok","requestBody":{"k\\ud800":1}}', '{"type":"ok","message":"NUL\\u0000"}']) {
      const res = await raw('POST', '/console/v1/logs/frontend', { 'content-type': 'application/json' }, body);
      const err = expectEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(err.error.message).toBe('使用できない文字(NUL文字など)が含まれています');
    }
    expect(await frontendLogCount()).toBe(before);
    // Emoji (paired surrogates) are ordinary text.
    const ok = await raw('POST', '/console/v1/logs/frontend', { 'content-type': 'application/json' }, '{"type":"ok","message":"\\ud83d\\uddfc 東京"}');
    expect(ok.status, ok.body).toBe(200);
  });

  it('on signed-in routes too, naming the field, before anything is written', async () => {
    const poiCount = async () => (await ctx.app.inject({ method: 'GET', url: `/console/v1/datasets/${datasetId}`, headers: bearer(provider.token) })).json().data.poi_count;
    const before = await poiCount();
    const headers = { ...bearer(provider.token), 'content-type': 'application/json' };
    const register = await raw('POST', '/console/v1/poi/register', headers, `{"dataset_id":"${datasetId}","name":"店\\ud800","latitude":35,"longitude":139}`);
    expect(expectEnvelope(register, 400, 'VALIDATION_ERROR').errors).toEqual([{ field: 'name', message: '使用できない文字(NUL文字など)が含まれています' }]);
    const tags = await raw('POST', '/console/v1/poi/register', headers, `{"dataset_id":"${datasetId}","name":"店","latitude":35,"longitude":139,"tags":["ok","\\udfff"]}`);
    expect(expectEnvelope(tags, 400, 'VALIDATION_ERROR').errors?.[0]?.field).toBe('tags.1');
    const profile = await raw('PATCH', '/console/v1/user', headers, '{"display_name":"名前\\ud800"}');
    expectEnvelope(profile, 400, 'VALIDATION_ERROR');
    const search = await raw('GET', `/console/v1/poi/search?dataset_id=${datasetId}&keyword=%E5%BA%97%00`, bearer(provider.token));
    expect(expectEnvelope(search, 400, 'VALIDATION_ERROR').errors?.[0]?.field).toBe('keyword');
    expect(await poiCount()).toBe(before);
  });
});

describe('authentication runs before validation', () => {
  it('every signed-in console route answers 401 to a caller without a valid session, whatever is wrong with the request', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => path.startsWith('/console/v1/') && op.security?.some((s) => 'bearerAuth' in s))
        .map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(25);
    let checked = 0;
    for (const { path, method } of operations) {
      for (const params of ['not-a-uuid', 'x'.repeat(150), '%E3%81%82']) {
        const url = `${path.replace(/\{[^}]+\}/g, params)}?limit=-5&year_month=bad&dataset_id=nope&format=xml`;
        for (const headers of [{}, { authorization: 'Bearer not-a-real-session-token-0123456789' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
          const hasBody = method !== 'GET' && method !== 'DELETE';
          const res = await raw(method, url, hasBody ? { ...headers, 'content-type': 'application/json' } : headers, hasBody ? '{"broken": ' : undefined);
          expect(res.status, `${method} ${url} ${JSON.stringify(headers)} → ${res.body}`).toBe(401);
          expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', message: expect.stringMatching(JAPANESE) } });
          checked++;
        }
      }
    }
    // The upload too: no session, a body that is not multipart at all.
    const upload = await raw('POST', '/console/v1/poi/bulk-import', { 'content-type': 'text/plain' }, 'x');
    expect(upload.status).toBe(401);
    expect(checked).toBe(operations.length * 9);
  });

  it('admin routes answer 403 to a signed-in non-admin before validating', async () => {
    const res = await raw('GET', '/console/v1/admin/users/not-a-uuid', bearer(provider.token));
    expectEnvelope(res, 403, 'FORBIDDEN');
  });
});

describe('Cache-Control', () => {
  it('console API answers carry no-store, errors included', async () => {
    for (const [path, headers] of [
      ['/console/v1/user', bearer(provider.token)],
      ['/console/v1/user', {}],
      [`/console/v1/datasets/${datasetId}`, bearer(provider.token)],
      ['/console/v1/nothing', {}],
      ['/console/v1/datasets/%FF', {}],
    ] as const) {
      const res = await raw('GET', path, headers);
      expect(res.headers['cache-control'], `${path} ${res.status}`).toBe('no-store');
    }
  });
});

describe('/healthz on the embedded database', () => {
  it.skipIf(!!process.env.TEST_DATABASE_URL)('says ok, not down, while a long transaction (an import) holds PGlite past the check timeout', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // PGlite's one connection, held as an import's transaction holds it.
    const transaction = ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await held;
    });
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'ok', database: 'pglite' });
    } finally {
      release();
      await transaction;
    }
  });
});
