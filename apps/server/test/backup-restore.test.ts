import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../src/modules/api-keys/key-format';
import { ADMIN_EMAIL, buildAppOn, consoleApi, contextCalls, createScratchDatabase, freePort, startMailbox, type Actor, type Caller, type Mailbox } from './helpers';

/*
 * `npm run backup` / `npm run restore` (src/backup.ts, docs/operations.md "Backups"): data made
 * through the real app (datasets, POIs, an API key's metered searches, a closed month's invoice,
 * a search cursor signed with the generated app secret) is backed up by the real command, restored
 * by it into a fresh place, and the restored database and server answer exactly as the original.
 * On PGlite the commands archive and unpack the data directory; with TEST_DATABASE_URL they run
 * pg_dump and pg_restore. On PGlite a running server (a real process) is backed up too: it
 * copies its directory in a pause it logs, while metered searches keep being answered.
 */

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const onPostgres = !!process.env.TEST_DATABASE_URL;

/** Runs the backup command as an operator would (`npm run backup|restore -- …` runs this file with tsx). */
function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'backup.ts'), ...args], {
    cwd: serverDir,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/** Every table's row count and a digest of all its rows (in a fixed order): equal digests, equal contents. */
async function fingerprint(database: Database): Promise<Record<string, string>> {
  const client = (database.db as unknown as { $client: { query: <T>(t: string) => Promise<{ rows: T[] }> } }).$client;
  const tables = await client.query<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema IN ('public', 'drizzle') AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const result: Record<string, string> = {};
  for (const { name } of tables.rows) {
    const [row] = (await client.query<{ n: string; digest: string }>(`SELECT count(*)::text AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest FROM ${name} t`)).rows;
    result[name] = `${row!.n} rows, ${row!.digest}`;
  }
  return result;
}

const ISSUER_ENV = { ISSUER_NAME: 'POI Cloud株式会社', ISSUER_ADDRESS: '東京都千代田区1-1-1', ISSUER_REGISTRATION_NUMBER: 'T1234567890123' };

/** A server on `database` whose app secret is generated into (or read from) dataDir/app-secret, as outside production. */
function appOn(database: Database, dataDir: string, mailbox: Mailbox): Promise<FastifyInstance> {
  return buildAppOn(database, { DATA_DIR: dataDir, APP_SECRET: '', SMTP_URL: mailbox.url, ADMIN_EMAILS: ADMIN_EMAIL, AUTH_IP_LIMIT: '1000', ...ISSUER_ENV });
}

/** What the console answers about the data, read the same way from both servers. */
async function readBack(app: FastifyInstance, who: { provider: Caller; consumer: Caller; datasetId: string }) {
  const get = async (url: string, caller: Caller) => {
    const res = await consoleApi(app, 'GET', url, caller);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json().data;
  };
  return {
    dataset: await get(`/datasets/${who.datasetId}`, who.provider),
    pois: await get(`/poi/search?dataset_id=${who.datasetId}`, who.provider),
    invoices: (await get('/billing/invoices', who.consumer)) as { invoices: unknown[]; total: number },
    // as_of is the moment of reading.
    usage: { ...(await get('/usage/summary', who.consumer)), as_of: 'now' },
  };
}

/** Waits for /readyz's 200 (the search index built or loaded at start-up). */
async function untilReady(app: FastifyInstance): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await app.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200) {
    if (Date.now() > deadline) throw new Error('the restored server did not become ready within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The public API's second page of a nearest-first search, through a cursor signed with the app secret. */
async function secondPage(app: FastifyInstance, key: string, datasetId: string, cursor: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/poi/search?dataset_id=${datasetId}&latitude=35.68&longitude=139.76&limit=1&cursor=${cursor}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('backup and restore', () => {
  it('restores datasets, POIs, invoices, usage and the app secret into a fresh place, and the restored server answers the same', { timeout: 180_000 }, async () => {
    const mailbox = await startMailbox();
    const source = await createScratchDatabase({ onDisk: true });
    const sourceDir = source.env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'poi-backup-src-'));
    const target = await createScratchDatabase({ onDisk: true });
    const targetDir = target.env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'poi-backup-dst-'));
    const backupDir = path.join(mkdtempSync(path.join(tmpdir(), 'poi-backup-')), 'backup');
    try {
      // The data, made through the real app.
      const database = await source.open();
      const app = await appOn(database, sourceDir, mailbox);
      const calls = contextCalls({ app, mailbox });
      const provider: Actor = await calls.newProvider();
      const consumer: Actor = await calls.newUser('individual', 'consumer');
      const datasetId = await calls.newDataset(provider, { price: 12.34 });
      for (const [name, latitude] of [['東京駅カフェ', 35.681], ['銀座カフェ', 35.672], ['神田カフェ', 35.692]] as const) {
        const res = await calls.api('POST', '/poi/register', provider, { dataset_id: datasetId, name, latitude, longitude: 139.767, category: 'カフェ' });
        expect(res.statusCode, res.body).toBe(200);
      }
      const key: string = (await calls.api('POST', '/api-keys', consumer, { name: 'バックアップ' })).json().data.key;
      let cursor = '';
      for (let i = 0; i < 5; i++) {
        const res = await app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${datasetId}&latitude=35.68&longitude=139.76&limit=1`, headers: { 'x-api-key': key } });
        expect(res.statusCode, res.body).toBe(200);
        cursor = res.json().data.next_cursor;
      }
      expect(cursor).toBeTruthy();
      const page2 = await secondPage(app, key, datasetId, cursor);
      expect(page2.pois).toHaveLength(1);
      await app.usageMeter.flush();
      const yearMonth: string = (await calls.api('GET', '/billing/current', consumer)).json().data.year_month;
      expect((await app.billingClose.service.closeMonth(yearMonth)).issued).toBeGreaterThanOrEqual(1);
      const who = { provider, consumer, datasetId };
      const before = await readBack(app, who);
      expect(before.invoices.total).toBe(1);
      expect(before.usage.searches).toBe(6);
      await app.close();
      const original = await fingerprint(database);
      await database.close();
      expect(original['public.usage_events']).toMatch(/^[1-9]\d* rows/);
      expect(original['public.invoices']).toMatch(/^[1-9]\d* rows/);
      expect(original['public.pois']).toMatch(/^3 rows/);

      const sourceEnv = { DATA_DIR: sourceDir, DATABASE_URL: source.env.DATABASE_URL ?? '' };
      const backup = await runCommand(['backup', backupDir], sourceEnv);
      expect(backup.code, backup.output).toBe(0);
      expect(existsSync(path.join(backupDir, onPostgres ? 'postgres.dump' : 'pglite.tar.gz'))).toBe(true);

      // Data already there is never overwritten without --force.
      const overwrite = await runCommand(['restore', backupDir], sourceEnv);
      expect(overwrite.code, overwrite.output).toBe(2);
      expect(overwrite.output).toContain('--force');

      const restore = await runCommand(['restore', backupDir], { DATA_DIR: targetDir, DATABASE_URL: target.env.DATABASE_URL ?? '' });
      expect(restore.code, restore.output).toBe(0);
      expect(readFileSync(path.join(targetDir, 'app-secret'), 'utf8')).toBe(readFileSync(path.join(sourceDir, 'app-secret'), 'utf8'));

      const restored = await target.open();
      try {
        expect(await fingerprint(restored)).toEqual(original);
        const restoredApp = await appOn(restored, targetDir, mailbox);
        try {
          // As a load balancer would: searches once the instance is ready (its index loaded or built),
          // so page 2 comes from memory as it did on the source and its cursor matches.
          await untilReady(restoredApp);
          // The same sessions, data and answers (read before searching: a search adds a usage event).
          expect(await readBack(restoredApp, who)).toEqual(before);
          // The key still works, and the cursor signed before the backup still opens the same page 2.
          expect(await secondPage(restoredApp, key, datasetId, cursor)).toEqual(page2);
        } finally {
          await restoredApp.close();
        }
      } finally {
        await restored.close();
      }
    } finally {
      await mailbox.close();
      await source.drop();
      await target.drop();
      for (const dir of [sourceDir, targetDir, path.dirname(backupDir)]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(onPostgres)('backs up a running server on PGlite through a pause it logs, while it keeps answering; a restore refuses until it stops', { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-backup-live-'));
    const key = generateApiKey();
    const datasetId = randomUUID();
    const seed = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
    const [user] = (await seed.db.execute(sql`INSERT INTO users (email, account_type) VALUES ('live-backup@example.com', 'corporate') RETURNING id`)).rows as Array<{ id: string }>;
    await seed.db.execute(sql`INSERT INTO api_keys (user_id, name, key_hash, prefix) VALUES (${user!.id}, 'k', ${hashApiKey(key)}, ${displayPrefixOf(key)})`);
    await seed.db.execute(sql`INSERT INTO datasets (id, name, price_per_search, is_platform_dataset) VALUES (${datasetId}, 'd', 0.25, true)`);
    await seed.close();

    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'server.ts')], {
      cwd: serverDir,
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development', APP_SECRET: '', WEB_DIST_DIR: '/nonexistent', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const backupDir = path.join(dataDir, '..', `${path.basename(dataDir)}-backup`);
    try {
      while (!output.includes('POI Cloud is running')) {
        if (child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Metered searches all along the backup.
      const statuses: number[] = [];
      let stop = false;
      const load = (async () => {
        while (!stop) {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } });
          await res.arrayBuffer();
          statuses.push(res.status);
          // At most 50 a second: the key's account allows 6,000 a minute.
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      while (statuses.length < 5) await new Promise((r) => setTimeout(r, 20));
      const backup = await runCommand(['backup', backupDir], { DATA_DIR: dataDir });
      const answeredDuringBackup = statuses.length;
      while (statuses.length < answeredDuringBackup + 5) await new Promise((r) => setTimeout(r, 20));
      stop = true;
      await load;
      expect(backup.code, backup.output).toBe(0);
      expect(backup.output).toMatch(/the server paused for \d+ ms/);
      expect(output).toContain('backup: pausing the database for a consistent copy');
      expect(output).toMatch(/backup: copy done, queries resumed after \d+ ms/);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // The exchange leaves nothing behind in DATA_DIR.
      expect(readdirSync(dataDir).filter((f) => f.startsWith('backup'))).toEqual([]);

      const refused = await runCommand(['restore', backupDir, '--force'], { DATA_DIR: dataDir });
      expect(refused.code, refused.output).toBe(2);
      expect(refused.output).toContain(`kill -TERM ${child.pid}`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }

    const restoredDir = mkdtempSync(path.join(tmpdir(), 'poi-backup-live-restored-'));
    const restore = await runCommand(['restore', backupDir], { DATA_DIR: restoredDir });
    expect(restore.code, restore.output).toBe(0);
    expect(readFileSync(path.join(restoredDir, 'app-secret'), 'utf8')).toBe(readFileSync(path.join(dataDir, 'app-secret'), 'utf8'));
    const original = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
    const restored = await openDatabase({ pgliteDir: path.join(restoredDir, 'pglite') });
    try {
      const ids = async (database: Database) => ((await database.db.execute(sql`SELECT request_id FROM usage_events ORDER BY request_id`)).rows as Array<{ request_id: string }>).map((r) => r.request_id);
      const [before, after] = [await ids(restored), await ids(original)];
      // The copy holds the events written before the pause (those still buffered in the server came in later), each as stored.
      expect(before.filter((id) => !after.includes(id))).toEqual([]);
      expect(after.length).toBeGreaterThan(before.length);
      expect((await restored.db.execute(sql`SELECT name FROM datasets WHERE id = ${datasetId}`)).rows).toEqual([{ name: 'd' }]);
    } finally {
      await original.close();
      await restored.close();
      for (const dir of [dataDir, backupDir, restoredDir]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
