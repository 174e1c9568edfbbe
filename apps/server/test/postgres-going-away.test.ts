import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../src/modules/api-keys/key-format';
import { createScratchDatabase, freePort } from './helpers';

/**
 * PostgreSQL going away (a failover, a restart, a pooler or an idle-connection
 * killer) is survived. The server runs as a child process (the built-in `tsx` loader, as in
 * production's `node dist/server.js`), so that an unhandled 'error' event of a pg client would
 * show as what it is: the process exiting.
 */

const PG_BIN = '/usr/lib/postgresql/15/bin';
/** How soon the server must answer 200 again after a kill or a restart. */
const RECOVERY_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user with a live key and a priced dataset holding a few POIs, written with SQL. */
async function seed(url: string): Promise<{ key: string; datasetId: string }> {
  const database = await openDatabase({ url });
  try {
    const key = generateApiKey();
    const datasetId = randomUUID();
    const [user] = (await database.db.execute(sql`INSERT INTO users (email, account_type) VALUES (${`pg-away-${randomUUID()}@example.com`}, 'corporate') RETURNING id`))
      .rows as Array<{ id: string }>;
    await database.db.execute(sql`INSERT INTO api_keys (user_id, name, key_hash, prefix) VALUES (${user!.id}, 'k', ${hashApiKey(key)}, ${displayPrefixOf(key)})`);
    await database.db.execute(sql`INSERT INTO datasets (id, name, price_per_search, is_platform_dataset) VALUES (${datasetId}, 'd', 0.25, true)`);
    return { key, datasetId };
  } finally {
    await database.close();
  }
}

interface Server {
  port: number;
  child: ChildProcessWithoutNullStreams;
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

async function startServer(databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const serverDir = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'server.ts')], {
    cwd: serverDir,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'poi-pg-away-')),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      APP_SECRET: 'pg-away-test-secret-0123456789abcdef',
      WEB_DIST_DIR: '/nonexistent',
      BILLING_JOBS: 'off',
      // CI exports REDIS_URL for the Redis tests; this server's limits stay in its memory.
      REDIS_URL: '',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited at start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    await sleep(200);
  }
  return {
    port,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * A few clients searching without pause: each request has a keyword of its own (no cache answers
 * it: PostgreSQL does). Counts the 200s, every other status, and failed connections.
 */
function startLoad(port: number, key: string, datasetId: string, clients = 4) {
  let running = true;
  let n = 0;
  const answered: Array<{ status: number; sentAt: number; at: number }> = [];
  const networkErrors: string[] = [];
  const worker = async () => {
    while (running) {
      const sentAt = Date.now();
      const keyword = encodeURIComponent(`駅${++n}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/poi/search?dataset_id=${datasetId}&keyword=${keyword}`, { headers: { 'x-api-key': key } });
        await res.arrayBuffer();
        answered.push({ status: res.status, sentAt, at: Date.now() });
      } catch (err) {
        networkErrors.push(String((err as Error).cause ?? err));
        await sleep(50);
      }
      await sleep(10);
    }
  };
  const workers = Array.from({ length: clients }, worker);
  return {
    answered,
    networkErrors,
    ok: () => answered.filter((a) => a.status === 200).length,
    /** Milliseconds from `since` to the first 200 of a request sent after it (waits up to `timeoutMs`). */
    async recoveredWithin(since: number, timeoutMs = 15_000): Promise<number> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const first = answered.find((a) => a.status === 200 && a.sentAt >= since);
        if (first) return first.at - since;
        if (Date.now() > deadline) return Infinity;
        await sleep(20);
      }
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Waits until the usage events stored reach `expected` (the meter flushes every second), then reads once more. */
async function meteredCount(url: string, expected: number): Promise<number> {
  const count = async () => {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      return Number((await c.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_events')).rows[0]!.n);
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  const deadline = Date.now() + 15_000;
  while ((await count()) < expected && Date.now() < deadline) await sleep(500);
  // A second flush of the same events would show here.
  await sleep(1_500);
  return count();
}

describe('PostgreSQL going away', () => {
  it('survives 10 kills of every connection under load: answers within 5 s each time, metered = answered', { timeout: 120_000 }, async (ctx) => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) return ctx.skip();
    const scratch = await createScratchDatabase();
    const url = scratch.env.DATABASE_URL!;
    const datname = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    let server: Server | undefined;
    try {
      const { key, datasetId } = await seed(url);
      server = await startServer(url);
      const load = startLoad(server.port, key, datasetId);
      await sleep(1_000);
      const recoveries: number[] = [];
      const killed: number[] = [];
      for (let i = 0; i < 10; i++) {
        const at = Date.now();
        // Only this test's database: other tests share the PostgreSQL server.
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [datname],
        );
        killed.push(rows[0]!.n);
        recoveries.push(await load.recoveredWithin(at));
        expect(server.child.exitCode, server.output()).toBeNull();
        await sleep(700);
      }
      await load.stop();
      const answered = load.ok();
      const statuses = [...new Set(load.answered.map((a) => a.status))].sort();
      console.warn(`connection kills: ${killed.join(',')} connections; answered again after ${recoveries.join(',')} ms; ${answered} searches answered 200 of ${load.answered.length}; statuses ${statuses.join(',')}`);
      expect(server.child.exitCode, server.output()).toBeNull();
      expect(load.networkErrors).toEqual([]);
      expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
      expect(killed.every((n) => n > 0)).toBe(true);
      expect(Math.max(...recoveries)).toBeLessThan(RECOVERY_MS);
      // A search that lost its connection is refused (503, unbilled); nothing else.
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      const metered = await meteredCount(url, answered);
      console.warn(`metered ${metered}, answered 200: ${answered}`);
      expect(metered, server.output()).toBe(answered);
      expect(await server.stop()).toBe(0);
    } finally {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      await admin.end();
      await scratch.drop();
    }
  });

  it('a transaction whose connection is killed between two queries fails, frees its pool slot, and raises no unhandled error', async (ctx) => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) return ctx.skip();
    const scratch = await createScratchDatabase();
    const database = await scratch.open();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const pool = (database.db as unknown as { $client: pg.Pool }).$client;
      let pid = 0;
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      const tx = database.db.transaction(async (t) => {
        pid = ((await t.execute(sql`SELECT pg_backend_pid() AS pid`)).rows[0] as { pid: number }).pid;
        inside();
        // Checked out and idle in the transaction: pg-pool's own 'error' listener is off.
        await paused;
        await t.execute(sql`SELECT 1`);
      });
      tx.catch(() => undefined);
      await started;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await sleep(300);
      resume();
      await expect(tx).rejects.toThrow();
      expect(uncaught).toEqual([]);
      // Nothing left checked out, and the pool answers with a new connection.
      expect(pool.totalCount).toBe(pool.idleCount);
      expect((await database.db.execute(sql`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await database.close();
      await scratch.drop();
    }
  });

  it('survives a restart of its PostgreSQL cluster: /healthz and /readyz 503 while down (/livez 200), answers within 5 s after, metered = answered', { timeout: 120_000 }, async (ctx) => {
    // A cluster of its own, whatever the tests' engine: run once, in the PostgreSQL pass with the
    // tests above (the PGlite pass repeated the same 13 s).
    if (!process.env.TEST_DATABASE_URL) return ctx.skip();
    if (!existsSync(path.join(PG_BIN, 'initdb')) || !existsSync(path.join(PG_BIN, 'pg_ctl'))) return ctx.skip();
    // initdb and postgres refuse to run as root: as root they run as the postgres user.
    const asRoot = process.getuid?.() === 0;
    const pgUser = asRoot ? spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }) : undefined;
    if (asRoot && pgUser?.status !== 0) return ctx.skip();
    const dir = mkdtempSync(path.join(tmpdir(), 'poi-pg-cluster-'));
    if (asRoot) chownSync(dir, Number(pgUser!.stdout.trim()), Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()));
    const data = path.join(dir, 'data');
    const pgRun = (bin: string, args: string[]) => {
      const cmd = path.join(PG_BIN, bin);
      const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    };
    const port = await freePort();
    const start = () => pgRun('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', path.join(dir, 'log'), '-w', 'start']);
    let server: Server | undefined;
    try {
      pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
      start();
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      const { key, datasetId } = await seed(url);
      server = await startServer(url);
      const base = `http://127.0.0.1:${server.port}`;
      const load = startLoad(server.port, key, datasetId, 3);
      await sleep(1_500);
      expect(load.ok()).toBeGreaterThan(0);

      pgRun('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      const downAt = Date.now();
      await sleep(1_500);
      const health = await fetch(`${base}/healthz`);
      const healthBody = (await health.json()) as { status: string; database: string; reason?: string };
      // The orchestrator's probes: out of rotation, not restarted.
      const readiness = await fetch(`${base}/readyz`);
      const readinessBody = (await readiness.json()) as { reason?: string };
      const liveness = (await fetch(`${base}/livez`)).status;
      // Searches sent while it is down: refused with 503, none answered otherwise.
      const whileDown = load.answered.filter((a) => a.sentAt >= downAt + 500);
      await sleep(1_000);
      expect(server.child.exitCode, server.output()).toBeNull();

      start();
      const upAt = Date.now();
      const recovered = await load.recoveredWithin(upAt);
      let healthAfter = 0;
      for (const until = Date.now() + RECOVERY_MS; Date.now() < until; await sleep(100)) {
        healthAfter = (await fetch(`${base}/healthz`)).status;
        if (healthAfter === 200) break;
      }
      // /readyz keeps a verdict for at most a second.
      let readyAfter = 0;
      for (const until = Date.now() + 2_000; Date.now() < until; await sleep(100)) {
        readyAfter = (await fetch(`${base}/readyz`)).status;
        if (readyAfter === 200) break;
      }
      await sleep(500);
      await load.stop();
      const answered = load.ok();
      console.warn(
        `restart: /healthz while down ${health.status} ${JSON.stringify(healthBody)}; searches while down ${[...new Set(whileDown.map((a) => a.status))].join(',')} (${whileDown.length}); answered again ${recovered} ms after the start; ${answered} answered 200`,
      );
      expect(health.status).toBe(503);
      expect(healthBody).toMatchObject({ status: 'down', database: 'postgres' });
      expect(healthBody.reason).toMatch(/データベース/);
      expect([readiness.status, readinessBody.reason, liveness]).toEqual([503, 'database_unreachable', 200]);
      expect(readyAfter).toBe(200);
      expect(whileDown.length).toBeGreaterThan(0);
      expect(whileDown.every((a) => a.status === 503)).toBe(true);
      expect(load.networkErrors).toEqual([]);
      expect(recovered).toBeLessThan(RECOVERY_MS);
      expect(healthAfter).toBe(200);
      expect(server.child.exitCode, server.output()).toBeNull();
      const metered = await meteredCount(url, answered);
      console.warn(`metered ${metered}, answered 200: ${answered}`);
      expect(metered, server.output()).toBe(answered);
      expect(await server.stop()).toBe(0);
    } finally {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      try {
        pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Not running (initdb failed, or already stopped).
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
