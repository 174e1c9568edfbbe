import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@poi/shared/messages';
import { bearer, createTestContext, type Actor, type TestContext } from './helpers';

/*
 * Input that must get a 4xx, never a 5xx: broken multipart bodies (no boundary, a
 * wrong one, cut short, also over a real socket), text with a lone surrogate in a JSON import and
 * the JSON bodies, public search numbers with spaces, and CORS preflights to unknown API paths.
 * docs/resilience.md "Odd input gets a 4xx" holds the decisions.
 */

let ctx: TestContext;
let port: number;
let admin: Actor;
let provider: Actor;
let consumer: Actor;
let key: string;
let dataset: string;

// A string body goes out as it is, as JSON (consoleApi): the malformed-JSON cases rely on it.
const api: TestContext['api'] = (...args) => ctx.api(...args);

const poiCount = async (ds = dataset) => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds]))[0]!.n;

function form(fields: Record<string, string>, file: { name: string; content: string | Buffer }, boundary = `----odd${Math.random().toString(36).slice(2)}`) {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { boundary, body: Buffer.concat(parts) };
}

const CSV = 'name,latitude,longitude\n店A,35.1,139.1\n店B,35.2,139.2\n';
const STATEMENT = '日付,金額,振込依頼人名\r\n2026/12/01,1000,ヤマダ タロウ\r\n';

/** The three broken forms of one good body: no boundary parameter, another boundary, cut before its end. */
function brokenForms(good: { boundary: string; body: Buffer }) {
  return [
    ['no boundary', 'multipart/form-data', good.body],
    ['an empty boundary', 'multipart/form-data; boundary=', good.body],
    ['a wrong boundary', 'multipart/form-data; boundary=----not-the-one', good.body],
    ['a body cut mid-part', `multipart/form-data; boundary=${good.boundary}`, good.body.subarray(0, good.body.length - 30)],
    ['a body cut inside the part headers', `multipart/form-data; boundary=${good.boundary}`, good.body.subarray(0, good.body.indexOf('filename') + 4)],
  ] as const;
}

function expectBrokenMultipart(res: { statusCode: number; body: string }) {
  expect(res.statusCode, res.body).toBe(400);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', message: messages.multipartBroken } });
}

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.admin();
  provider = await ctx.newProvider('odd-provider');
  consumer = await ctx.newUser('corporate', 'odd-consumer');
  key = (await api('POST', '/api-keys', consumer, { name: 'odd' })).json().data.key;
  dataset = await ctx.newDataset(provider, { name: '奇妙な入力' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await ctx?.close();
});

describe('broken multipart bodies: 400 with a Japanese message, nothing written', () => {
  const CASES = ['no boundary', 'an empty boundary', 'a wrong boundary', 'a body cut mid-part', 'a body cut inside the part headers'];

  it.each(CASES)('bulk import: %s', async (name) => {
    const [, type, body] = brokenForms(form({ dataset_id: dataset, format: 'csv' }, { name: 'p.csv', content: CSV })).find((c) => c[0] === name)!;
    const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), 'content-type': type }, payload: body });
    expectBrokenMultipart(res);
    expect(await poiCount()).toBe(0);
  });

  it.each(brokenForms(form({}, { name: 's.csv', content: STATEMENT })).map((c) => [c[0], c[1], c[2]]))('transfer statement: %s', async (_name, type, body) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/console/v1/admin/transfers/statement', headers: { ...bearer(admin.token), 'content-type': type }, payload: body });
    expectBrokenMultipart(res);
  });
});

/** Sends raw bytes on a new connection, then ends the write side; answers the first response, or null if the server only closed. */
function rawExchange(bytes: Buffer[], timeoutMs = 5000): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: ${buffered.toString('latin1')}`));
    }, timeoutMs);
    const done = (value: { status: number; body: string } | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    socket.on('data', (d) => {
      buffered = Buffer.concat([buffered, d]);
      const text = buffered.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (buffered.length >= end + 4 + length) {
        done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: buffered.subarray(end + 4, end + 4 + length).toString('utf8') });
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(null));
    socket.on('connect', () => {
      for (const b of bytes) socket.write(b);
      socket.end();
    });
  });
}

describe('a multipart body cut short over a real socket', () => {
  const routes = [
    ['bulk import', '/console/v1/poi/bulk-import', () => provider.token, () => form({ dataset_id: dataset, format: 'csv' }, { name: 'p.csv', content: CSV })],
    ['transfer statement', '/console/v1/admin/transfers/statement', () => admin.token, () => form({}, { name: 's.csv', content: STATEMENT })],
  ] as const;

  it.each(routes)('%s: a chunked body that stops mid-part gets 400, nothing written', async (_name, path, token, make) => {
    const { boundary, body } = make();
    const cut = body.subarray(0, body.length - 30);
    const res = await rawExchange([
      Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token()}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`),
      Buffer.from(`${cut.length.toString(16)}\r\n`),
      cut,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    expect(res, 'an answer').not.toBeNull();
    expect(res!.status, res!.body).toBe(400);
    expect(JSON.parse(res!.body).error).toMatchObject({ code: 'BAD_REQUEST', message: messages.multipartBroken });
    expect(await poiCount()).toBe(0);
  });

  it.each(routes)('%s: a Content-Length larger than what is sent, then the write side ends: 400, nothing written', async (_name, path, token, make) => {
    const { boundary, body } = make();
    const cut = body.subarray(0, body.length - 30);
    const res = await rawExchange([
      Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token()}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`),
      cut,
    ]);
    // Node's HTTP parser sees the end before the promised length: the clientError envelope (400).
    expect(res, 'an answer').not.toBeNull();
    expect(res!.status, res!.body).toBe(400);
    expect(JSON.parse(res!.body).error).toMatchObject({ code: 'BAD_REQUEST', message: messages.badRequest });
    expect(await poiCount()).toBe(0);
    // The server goes on serving.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) })).status).toBe(200);
  });
});

describe('a lone surrogate in text: 400 naming where, nothing written', () => {
  const importJson = (content: string) => {
    const { boundary, body } = form({ dataset_id: dataset, format: 'json' }, { name: 'p.json', content });
    return ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: body });
  };

  it.each([
    ['a name', '[{"name":"ok","latitude":35,"longitude":139},{"name":"\\ud800","latitude":35,"longitude":139}]', 2, 'name'],
    ['an address', '[{"name":"a","address":"x\\udc00y","latitude":35,"longitude":139}]', 1, 'address'],
    ['a tag', '{"pois":[{"name":"a","latitude":35,"longitude":139,"tags":["ok","\\ud83d"]}]}', 1, 'tags'],
    ['a GeoJSON property', '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[139,35]},"properties":{"name":"\\ud800"}}]}', 1, 'name'],
  ])('JSON import with %s', async (_name, content, row, field) => {
    const res = await importJson(content);
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toContain(`${row}行目の ${field} に対になっていないサロゲート`);
    expect(await poiCount()).toBe(0);
  });

  it.each([
    ['POST /poi/register name', 'POST', '/poi/register', (): string => `{"dataset_id":"${dataset}","name":"\\ud800","latitude":35,"longitude":139}`, 'name'],
    ['POST /poi/register tags', 'POST', '/poi/register', (): string => `{"dataset_id":"${dataset}","name":"a","latitude":35,"longitude":139,"tags":["\\udfff"]}`, 'tags.0'],
    ['POST /datasets/public/create name', 'POST', '/datasets/public/create', (): string => '{"name":"\\ud800","price_per_search":0}', 'name'],
    ['POST /api-keys name', 'POST', '/api-keys', (): string => '{"name":"k\\ud800"}', 'name'],
  ] as const)('%s', async (_name, method, url, payload, field) => {
    const res = await api(method, url, method === 'POST' && url === '/api-keys' ? consumer : provider, payload());
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors?.[0]?.field).toBe(field);
    expect(await poiCount()).toBe(0);
  });
});

describe('JSON bodies nested 5,000 deep', () => {
  it.each([
    ['arrays', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['objects', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`],
  ])('%s: never the 500 of a stack overflow (routes without a body schema walk it whole)', async (_name, payload) => {
    for (const url of ['/poi/bulk-import', '/api-keys/00000000-0000-4000-8000-000000000000/revoke', '/payment-method/remove', '/poi/register']) {
      const res = await api('POST', url, provider, payload);
      expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(500);
    }
  });
});

describe('public search numbers with spaces or other digits: 400 naming the parameter, never billed', () => {
  async function billed(): Promise<number> {
    await ctx.app.usageMeter.flush();
    return (await ctx.query('SELECT 1 FROM usage_events WHERE user_id = $1', [consumer.id])).length;
  }
  const rawGet = (query: string) =>
    fetch(`http://127.0.0.1:${port}/api/v1/poi/search?dataset_id=${dataset}&${query}`, { headers: { 'x-api-key': key } }).then(async (r) => ({ status: r.status, body: await r.text(), headers: r.headers }));

  it.each([
    ['latitude=%2035.68&longitude=139.7', 'latitude'],
    ['latitude=35.68%20&longitude=139.7', 'latitude'],
    ['latitude=+35.68&longitude=139.7', 'latitude'],
    ['latitude=35.68+&longitude=139.7', 'latitude'],
    ['latitude=%0935.68&longitude=139.7', 'latitude'],
    ['latitude=35.68%0A&longitude=139.7', 'latitude'],
    ['latitude=35.68&longitude=%E3%80%80139.7', 'longitude'],
    ['latitude=%EF%BC%93%EF%BC%95&longitude=139.7', 'latitude'],
    ['latitude=35.68&longitude=139.7&radius=%20500', 'radius'],
    ['latitude=35.68&longitude=139.7&radius=%EF%BC%95%EF%BC%90%EF%BC%90', 'radius'],
    ['limit=%205', 'limit'],
    ['limit=5+', 'limit'],
    ['limit=%EF%BC%95', 'limit'],
    ['offset=%091', 'offset'],
    ['offset=1%C2%A0', 'offset'],
  ])('%s → 400 naming %s', async (query, field) => {
    const before = await billed();
    const res = await rawGet(query);
    expect(res.status, res.body).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await billed()).toBe(before);
  });

  it('still answers the same numbers written plainly (billed once)', async () => {
    const before = await billed();
    const res = await rawGet('latitude=35.68&longitude=%2B139.7&radius=500&limit=5&offset=0');
    expect(res.status, res.body).toBe(200);
    expect(await billed()).toBe(before + 1);
  });
});

describe('CORS preflight to any /api/v1 path', () => {
  const preflight = (path: string) =>
    ctx.app.inject({ method: 'OPTIONS', url: path, headers: { origin: 'https://app.example.jp', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' } });

  it.each(['/api/v1/poi/serch', '/api/v1/nothing/here', '/api/v1/', '/api/v1/poi/search/extra'])('%s: the preflight passes (204 with CORS headers) and the request then reads the Japanese 404', async (path) => {
    const pre = await preflight(path);
    expect(pre.statusCode, pre.body).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('GET');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');
    const res = await ctx.app.inject({ method: 'GET', url: path, headers: { origin: 'https://app.example.jp', 'x-api-key': key } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: messages.notFound } });
  });

  it('the search path itself still answers its preflight', async () => {
    const pre = await preflight('/api/v1/poi/search');
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
  });
});
