import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client';
import { ADMIN_EMAIL, buildAppOn, consoleApi, contextCalls, createScratchDatabase, startMailbox, type Actor, type Caller, type Mailbox } from './helpers';

/*
 * `npm run backup` / `npm run restore` (src/backup.ts, docs/operations.md "Backups"): data made
 * through the real app (datasets, POIs, an API key's metered searches, a closed month's invoice,
 * a search cursor signed with the generated app secret) is backed up by the real command, restored
 * by it into a fresh place, and the restored database and server answer exactly as the original.
 * On PGlite the commands dump and load the data directory; with TEST_DATABASE_URL they run
 * pg_dump and pg_restore.
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
    }
  });

  it.skipIf(onPostgres)('refuses while a server holds the PGlite directory, and says how to stop it', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-backup-held-'));
    const database = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite') });
    await database.close();
    // This test's own process stands for the running server.
    writeFileSync(path.join(dataDir, 'server.pid'), `${process.pid}\n`);
    const backupDir = path.join(dataDir, 'backup');
    const held = await runCommand(['backup', backupDir], { DATA_DIR: dataDir });
    expect(held.code, held.output).toBe(2);
    expect(held.output).toContain(`process ${process.pid}`);
    expect(held.output).toContain(`kill -TERM ${process.pid}`);
    expect(existsSync(backupDir)).toBe(false);
  });
});
