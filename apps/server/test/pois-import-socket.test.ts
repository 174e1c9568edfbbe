import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from './helpers';

/**
 * Uploads through a real socket: what curl does (Expect: 100-continue, then the whole body),
 * which app.inject cannot show (it hands the body over in one piece and never waits on TCP).
 */
let ctx: TestContext;
let port: number;
let token: string;

beforeAll(async () => {
  ctx = await createTestContext();
  token = (await ctx.newProvider('socket')).token;
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await ctx?.close();
});

const newDataset = () => ctx.newDataset(token, { name: `socket ${Math.random()}` });
const countOf = async (ds: string) => (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds]))[0]!.n;

function multipartBody(datasetId: string, file: Buffer) {
  const boundary = '----socket' + Math.random().toString(36).slice(2);
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="dataset_id"\r\n\r\n${datasetId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  return { boundary, body: Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
}

/** One HTTP/1.1 exchange after another on a raw socket; resolves with each complete response. */
function rawClient() {
  const socket = net.connect(port, '127.0.0.1');
  let buffered = Buffer.alloc(0);
  let waiter: (() => void) | undefined;
  let closed = false;
  socket.on('data', (d) => {
    buffered = Buffer.concat([buffered, d]);
    waiter?.();
  });
  socket.on('close', () => {
    closed = true;
    waiter?.();
  });
  socket.on('error', () => undefined);
  const nextResponse = async (timeoutMs: number): Promise<{ status: number; headers: string; body: string }> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = buffered.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end >= 0) {
        const headers = text.slice(0, end);
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]);
        if (status === 100) {
          buffered = buffered.subarray(end + 4);
          continue;
        }
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
        if (buffered.length >= end + 4 + length) {
          const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
          buffered = buffered.subarray(end + 4 + length);
          return { status, headers, body };
        }
      }
      if (closed) throw new Error('connection closed before a response');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        waiter = resolve;
        setTimeout(resolve, Math.min(left, 50));
      });
    }
  };
  return { socket, nextResponse, isClosed: () => closed };
}

/**
 * 11 MB of short valid rows: before the fix every row up to the limit was parsed and written
 * first (about a million rows, well over the deadline below) and only then answered 413.
 */
const bigCsv = () => Buffer.from(`name,latitude,longitude\n${'店,35,139\n'.repeat(Math.ceil((11 * 1024 * 1024) / 11))}`);
const DEADLINE_MS = 3000;

describe('bulk import over a real socket', () => {
  it('answers an 11 MB upload sent with Expect: 100-continue with a prompt 413, writes nothing, and the connection serves the next request', async () => {
    const ds = await newDataset();
    const { boundary, body } = multipartBody(ds, bigCsv());
    const client = rawClient();
    const started = Date.now();
    client.socket.write(
      `POST /console/v1/poi/bulk-import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    // Like curl: the body follows the 100 Continue (or after a second without one).
    await new Promise((r) => setTimeout(r, 50));
    client.socket.write(body);
    const res = await client.nextResponse(DEADLINE_MS);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.message).toBe('ファイルサイズが10MBを超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時10MB・展開後100MBまで取り込めます');
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
    expect(await countOf(ds)).toBe(0);
    // The same connection, if the server kept it open, answers the next request.
    if (!client.isClosed() && !/connection: close/i.test(res.headers)) {
      client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect((await client.nextResponse(3000)).status).toBe(200);
    }
    client.socket.destroy();
    // Another connection is served at once.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
    expect(health.status).toBe(200);
  }, 20_000);

  it('answers a plain 11 MB upload (no Expect) with 413 promptly, and keeps serving', async () => {
    const ds = await newDataset();
    const { boundary, body } = multipartBody(ds, bigCsv());
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/console/v1/poi/bulk-import`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('ファイルサイズが10MBを超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時10MB・展開後100MBまで取り込めます');
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS);
    expect(await countOf(ds)).toBe(0);
    const small = multipartBody(ds, Buffer.from('name,latitude,longitude\n店,35,139\n'));
    const ok = await fetch(`http://127.0.0.1:${port}/console/v1/poi/bulk-import`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': `multipart/form-data; boundary=${small.boundary}` },
      body: small.body,
      signal: AbortSignal.timeout(5000),
    });
    expect(ok.status).toBe(200);
    expect(await countOf(ds)).toBe(1);
  }, 20_000);
});
