import { spawn } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from './helpers';

/**
 * A multi-MB import never holds the event loop. Before the import was sliced
 * (lib/time-slice), a 2 MB CSV ran as one macrotask and /healthz waited for the whole import.
 * /healthz is probed from a child process, so that the clock measuring it is not on the thread
 * the import would hold. PostgreSQL (TEST_DATABASE_URL): the slowest /healthz ≤ HEALTHZ_LIMIT_MS, all 200.
 * PGlite has one connection, held by the import's transaction: /healthz's database check waits
 * for it up to its 2 s timeout (health.routes), and each statement (a 1,000-row
 * INSERT, the VACUUM ANALYZE after the import) holds the thread while it runs: there, what is
 * asserted is that closing the server (SIGTERM) stops the import within seconds, writing nothing.
 */
const onPostgres = !!process.env.TEST_DATABASE_URL;
// The bench holds the 500 ms on an idle machine (bench/import-bench.ts); here, beside another
// test file and PostgreSQL on two cores, the bound leaves room for scheduling and still fails
// by far on an import that holds the loop (8.9 s before the slices).
const HEALTHZ_LIMIT_MS = 1_500;
/** 5,000 rows of about 400 bytes: 2 MB, and a few seconds of import on an idle machine. */
const ROWS = 5_000;

let ctx: TestContext;
let port: number;
let token: string;

async function setUp(): Promise<{ ctx: TestContext; port: number; token: string }> {
  const c = await createTestContext();
  const provider = await c.newProvider('loop');
  await c.app.listen({ port: 0, host: '127.0.0.1' });
  return { ctx: c, port: (c.app.server.address() as net.AddressInfo).port, token: provider.token };
}

beforeAll(async () => {
  ({ ctx, port, token } = await setUp());
});
afterAll(async () => {
  await ctx?.close();
});

const newDataset = (c: TestContext, t: string) => c.newDataset(t, { name: `loop ${Math.random()}` });

/** About 2 MB: Japanese names (readings), addresses, categories and tags, as a shop list would have. */
function bigCsv(rows = ROWS): Buffer {
  const lines = ['name,latitude,longitude,address,category,tags'];
  for (let i = 0; i < rows; i++) {
    lines.push(`東京タワー前 喫茶${i},${(35 + (i % 1000) / 1000).toFixed(5)},${(139 + (i % 997) / 1000).toFixed(5)},東京都港区芝公園${i % 50}丁目${i}番 ビル${'番'.repeat(100)},カフェ,駅近|テイクアウト|${i % 7}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** POSTs the import on a connection of its own; resolves with the status and body. */
function postImport(p: number, t: string, datasetId: string, file: Buffer, onSent?: () => void): Promise<{ status: number; body: string }> {
  const boundary = '----loop' + Math.random().toString(36).slice(2);
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="dataset_id"\r\n\r\n${datasetId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: p, path: '/console/v1/poi/bulk-import', method: 'POST', agent: false, headers: { ...bearer(t), 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (onSent) req.on('finish', onSent);
    req.end(body);
  });
}

/** Polls /healthz every 20 ms from a child process until stopped; each request's time in ms. */
const PROBE = `
import http from 'node:http';
const port = Number(process.env.PROBE_PORT);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopped = false;
process.stdin.on('data', () => (stopped = true));
process.stdin.on('end', () => (stopped = true));
const times = [];
const statuses = [];
while (!stopped) {
  const t = performance.now();
  const status = await new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', () => resolve(0));
  });
  times.push(performance.now() - t);
  statuses.push(status);
  await new Promise((r) => setTimeout(r, 20));
}
agent.destroy();
process.stdout.write(JSON.stringify({ times, statuses }));
`;

function startProbe(p: number) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE], { env: { ...process.env, PROBE_PORT: String(p) }, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop(): Promise<{ times: number[]; statuses: number[] }> {
      child.stdin!.end('stop\n');
      await exited;
      return JSON.parse(out) as { times: number[]; statuses: number[] };
    },
  };
}

describe('a multi-MB import does not hold the event loop', () => {
  // PGlite: see above; its figures are in docs/resilience.md.
  it.skipIf(!onPostgres)(`answers /healthz within ${HEALTHZ_LIMIT_MS} ms throughout a 2 MB import (PostgreSQL)`, async () => {
    const ds = await newDataset(ctx, token);
    const file = bigCsv();
    const probe = startProbe(port);
    await new Promise((r) => setTimeout(r, 300));
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const started = performance.now();
    const res = await postImport(port, token, ds, file);
    const importMs = performance.now() - started;
    lag.disable();
    const { times, statuses } = await probe.stop();
    const sorted = [...times].sort((a, b) => a - b);
    const figures =
      `${(file.length / 1e6).toFixed(1)} MB import in ${importMs.toFixed(0)} ms; /healthz ${times.length} answers, ` +
        `p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, slowest ${sorted.at(-1)!.toFixed(0)} ms, ${statuses.filter((s) => s !== 200).length} not 200; ` +
      `event loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`;
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).imported_count).toBe(ROWS);
    expect(statuses.every((s) => s === 200), statuses.join(' ')).toBe(true);
    const slowest = Math.max(...times);
    // Enough probes to have seen the whole import: one per 20 ms plus its own time.
    expect(times.length, figures).toBeGreaterThan(importMs / 200);
    expect(slowest, figures).toBeLessThanOrEqual(HEALTHZ_LIMIT_MS);
  }, 60_000);

  it('stops an import under way when the server closes (SIGTERM): close() returns within seconds, nothing is written', async () => {
    // A server of its own, since this one is closed.
    const own = await setUp();
    try {
      const ds = await newDataset(own.ctx, own.token);
      let sent!: () => void;
      const uploaded = new Promise<void>((resolve) => (sent = resolve));
      const pending = postImport(own.port, own.token, ds, bigCsv(), sent);
      // Closed while the rows are being read: the 2 MB upload is sent, and its import takes
      // seconds on either engine. (Before the slicing, this timer fired after the whole import.)
      await uploaded;
      await new Promise((r) => setTimeout(r, 400));
      const t = performance.now();
      await own.ctx.app.close();
      const closeMs = performance.now() - t;
      const res = await pending.catch(() => ({ status: 0, body: '' }));
      expect(closeMs).toBeLessThan(3_000);
      // 503 when the answer still reached the client; the connection may also have been closed.
      expect([0, 503]).toContain(res.status);
      expect((await own.ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds]))[0]!.n).toBe(0);
    } finally {
      await own.ctx.close();
    }
  }, 90_000);
});
