import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../src/modules/api-keys/key-format';
import { freePort } from './helpers';

/*
 * The real process (src/server.ts, as `npm start` runs it but through tsx) on PGlite in a data
 * directory of its own (docs/operations.md "Health probes and shutdown"): the probes answer
 * while a fresh directory is migrated, and SIGTERM under load drains: /readyz 503, no new
 * connection, the requests under way answered, every answered search stored, exit 0 within
 * SHUTDOWN_TIMEOUT_MS.
 */

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SHUTDOWN_TIMEOUT_MS = 10_000;

interface Server {
  port: number;
  child: ChildProcessWithoutNullStreams;
  output(): string;
  exited: Promise<number | null>;
}

async function startServer(dataDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'server.ts')], {
    cwd: serverDir,
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      APP_SECRET: '',
      WEB_DIST_DIR: '/nonexistent',
      REDIS_URL: '',
      BILLING_JOBS: 'off',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { port, child, output: () => output, exited };
}

/** One GET; a status, or the error's code (ECONNREFUSED, ECONNRESET …); 'TIMEOUT' when no answer came within timeoutMs. */
function get(port: number, url: string, options: { agent?: Agent; headers?: Record<string, string>; timeoutMs?: number } = {}) {
  return new Promise<{ status?: number; error?: string; body?: string; connection?: string }>((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: url, agent: options.agent ?? false, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body, connection: res.headers.connection }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.setTimeout(options.timeoutMs ?? 5_000, () => {
      resolve({ error: 'TIMEOUT' });
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

async function waitUntilReady(server: Server): Promise<void> {
  const at = Date.now();
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
    const res = await get(server.port, '/readyz', { timeoutMs: 15_000 });
    if (res.status === 200) return;
    if (Date.now() - at > 60_000) throw new Error(`not ready after 60 s:\n${server.output()}`);
    await sleep(50);
  }
}

describe('the server process', () => {
  it('answers /livez 200 and /readyz 503 (starting, migrating) while a fresh data directory is created and migrated, then 200', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-lifecycle-fresh-'));
    const server = await startServer(dataDir);
    try {
      const reasons: string[] = [];
      let livenessBeforeReady = 0;
      const at = Date.now();
      // From the moment the port opens, as fast as the answers come.
      for (;;) {
        if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
        if (Date.now() - at > 90_000) throw new Error(`not ready after 90 s:\n${server.output()}`);
        const res = await get(server.port, '/readyz', { timeoutMs: 20_000 });
        if (res.error === 'ECONNREFUSED') {
          await sleep(5);
          continue;
        }
        expect(res.error).toBeUndefined();
        if (res.status === 200) break;
        expect(res.status).toBe(503);
        const reason = (JSON.parse(res.body!) as { reason: string }).reason;
        if (reasons[reasons.length - 1] !== reason) reasons.push(reason);
        if ((await get(server.port, '/livez', { timeoutMs: 20_000 })).status === 200) livenessBeforeReady += 1;
      }
      expect(reasons).toContain('migrating');
      expect(reasons.filter((r) => !['starting', 'migrating', 'search_index_building'].includes(r))).toEqual([]);
      expect(livenessBeforeReady).toBeGreaterThan(0);
      console.warn(`fresh data directory: /readyz said ${reasons.join(' → ')} → ready after ${Date.now() - at} ms; /livez 200 ${livenessBeforeReady} times before`);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('drains on SIGTERM under load: /readyz 503, no hang, every answered search stored exactly once, exit 0 in time', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-lifecycle-drain-'));
    const key = generateApiKey();
    const datasetId = randomUUID();
    const seed = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
    const [user] = (await seed.db.execute(sql`INSERT INTO users (email, account_type) VALUES ('drain@example.com', 'corporate') RETURNING id`)).rows as Array<{ id: string }>;
    await seed.db.execute(sql`INSERT INTO api_keys (user_id, name, key_hash, prefix) VALUES (${user!.id}, 'k', ${hashApiKey(key)}, ${displayPrefixOf(key)})`);
    await seed.db.execute(sql`INSERT INTO datasets (id, name, price_per_search, is_platform_dataset) VALUES (${datasetId}, 'd', 0.25, true)`);
    await seed.db.execute(sql`
      INSERT INTO pois (dataset_id, name, latitude, longitude, tags, search_text, search_bigrams, search_name, search_version)
      SELECT ${datasetId}, 'P' || i, 35.6 + i * 0.0001, 139.7 + i * 0.0001, '{}', 'p' || i, '{}', 'p' || i, 1 FROM generate_series(1, 200) AS i`);
    await seed.close();

    const server = await startServer(dataDir);
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    try {
      await waitUntilReady(server);
      const url = `/api/v1/poi/search?dataset_id=${datasetId}&latitude=35.61&longitude=139.71&limit=20`;
      let signalAt = 0;
      let stop = false;
      const outcomes: Array<{ after: boolean; status?: number; error?: string }> = [];
      // 32 clients on kept-alive connections, each sending its next search as soon as the last is answered.
      const workers = Array.from({ length: 32 }, async () => {
        while (!stop) {
          const sentAfterSignal = signalAt > 0;
          const res = await get(server.port, url, { agent, headers: { 'x-api-key': key } });
          outcomes.push({ after: sentAfterSignal, status: res.status, error: res.error });
          if (res.error === 'ECONNREFUSED') await sleep(20);
        }
      });
      const at = Date.now();
      while (outcomes.filter((o) => o.status === 200).length < 300) {
        if (Date.now() - at > 30_000) throw new Error(`load did not get going: ${JSON.stringify(outcomes.slice(-5))}\n${server.output()}`);
        await sleep(20);
      }
      // A probe whose request is under way when the signal comes (its connection is not idle, so
      // it is not closed): its answer is the readiness during the drain. A first request on the
      // connection proves it accepted; the second one's first line is sent ahead of the signal
      // and its end once the server has logged the drain.
      const probeSocket = connect(server.port, '127.0.0.1');
      let probeAnswer = '';
      let probeError = '';
      probeSocket.on('data', (chunk: Buffer) => (probeAnswer += chunk.toString()));
      probeSocket.on('error', (err: NodeJS.ErrnoException) => (probeError = err.code ?? err.message));
      const probeClosed = new Promise((resolve) => probeSocket.on('close', resolve));
      probeSocket.write('GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      while (!probeAnswer.endsWith('{"status":"ok"}')) {
        if (Date.now() - at > 60_000) throw new Error(`no /livez answer: ${probeAnswer} ${probeError}`);
        await sleep(10);
      }
      probeAnswer = '';
      probeSocket.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await sleep(300);

      const answeredBefore = outcomes.filter((o) => o.status === 200).length;
      console.warn(`load: ${answeredBefore} searches answered in ${Date.now() - at} ms before the signal`);
      signalAt = Date.now();
      server.child.kill('SIGTERM');
      while (!server.output().includes('shutting down: draining')) {
        if (Date.now() - signalAt > 5_000) throw new Error(`no drain logged:\n${server.output()}`);
        await sleep(5);
      }
      probeSocket.write('\r\n');
      const code = await server.exited;
      const exitMs = Date.now() - signalAt;
      stop = true;
      await Promise.all(workers);
      await probeClosed;

      expect(code, server.output()).toBe(0);
      expect(exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
      expect(probeError).toBe('');
      expect(probeAnswer).toMatch(/^HTTP\/1\.1 503 /);
      expect(probeAnswer).toMatch(/connection: close/i);
      expect(probeAnswer).toContain('"reason":"draining"');
      // Never a hang; after the signal only answers, refusals and closed connections.
      expect(outcomes.filter((o) => o.error === 'TIMEOUT')).toEqual([]);
      const after = outcomes.filter((o) => o.after);
      expect(after.filter((o) => !(o.status === 200 || o.status === 503 || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(o.error ?? '')))).toEqual([]);
      expect(after.some((o) => o.error === 'ECONNREFUSED')).toBe(true);
      expect(outcomes.filter((o) => !o.after && o.status !== 200 && !o.error)).toEqual([]);

      const answered = outcomes.filter((o) => o.status === 200).length;
      const reopened = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
      try {
        const [row] = (await reopened.db.execute(sql`SELECT count(*)::int AS n FROM usage_events`)).rows as Array<{ n: number }>;
        expect(row!.n).toBe(answered);
      } finally {
        await reopened.close();
      }
      const shutDown = /"ms":(\d+)[^\n]*"msg":"shut down"/.exec(server.output());
      expect(shutDown, server.output()).not.toBeNull();
      console.warn(
        `drain: ${answered} searches answered (${answered - answeredBefore} after the signal was sent), all stored; ` +
          `after the signal: ${JSON.stringify(countBy(after.map((o) => String(o.status ?? o.error))))}; ` +
          `drained in ${shutDown![1]} ms (server), exited ${exitMs} ms after SIGTERM`,
      );
    } finally {
      agent.destroy();
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
