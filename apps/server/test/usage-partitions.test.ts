import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { monthRange } from '@poi/shared/billing-time';
import type { Db } from '../src/db/client';
import { openDatabase } from '../src/db/client';
import { PLATFORM_RECIPIENT } from '../src/db/schema/usage';
import { monthUsageQuantities } from '../src/modules/budgets/budgets.repository';
import { monthUsage } from '../src/modules/invoices/close.repository';
import { createUsagePartitions } from '../src/modules/usage/usage-partitions';
import { addUsagePartition, listUsagePartitions } from '../src/modules/usage/usage-partitions.repository';
import { writeUsageEvents } from '../src/modules/usage/usage.repository';
import { createScratchDatabase, silentLog, withTestContext, type TestContext } from './helpers';
import { instantsOverMonth, usageEvent } from './support/usage-events';

const migrationsFolder = fileURLToPath(new URL('../src/db/migrations', import.meta.url));

/** A copy of the migrations as they were before usage_events was partitioned (up to 0022). */
function migrationsBeforePartitioning(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'poi-migrations-'));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  journal.entries = journal.entries.filter((e) => e.tag < '0023');
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * Usage events as an old database holds them: 4 users over Japan-time months 2026-03 … 2026-05,
 * with the instants either side of a month's first instant, a dataset whose price changes
 * mid-month, a free dataset, free searches, an account type that changes, and a user whose
 * searches are all free.
 */
const OLD_EVENTS_SQL = `
  INSERT INTO usage_events (request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id, dataset_ids,
    dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free)
  SELECT gen_random_uuid(), t, u, '${U(99)}'::uuid,
    CASE WHEN i % 7 = 0 THEN 'trial' ELSE 'individual' END, 1,
    ARRAY['${U(50)}'::uuid, '${U(51)}'::uuid],
    ARRAY[CASE WHEN t < '2026-04-10T00:00:00Z' THEN 130 ELSE 150 END, 0],
    ARRAY[7000, 0], ARRAY['${U(60)}'::uuid, '${PLATFORM_RECIPIENT}'::uuid],
    CASE WHEN i % 5 = 0 THEN 0 ELSE 10 END,
    130 + CASE WHEN i % 3 = 0 THEN 0 ELSE 10 END,
    u = '${U(4)}'::uuid OR i % 3 = 0
  FROM generate_series(1, $1::int) AS i,
    LATERAL (SELECT ('${U(1)}'::text)::uuid AS u UNION ALL SELECT '${U(2)}'::uuid UNION ALL SELECT '${U(3)}'::uuid WHERE i % 2 = 0
      UNION ALL SELECT '${U(4)}'::uuid WHERE i % 4 = 0) users,
    LATERAL (SELECT timestamptz '2026-02-28T15:00:00Z' + (i * interval '1 hour 7 minutes') AS t) times
  UNION ALL
  SELECT gen_random_uuid(), t, '${U(1)}'::uuid, '${U(99)}'::uuid, 'business', 1, ARRAY[]::uuid[], ARRAY[]::int[], ARRAY[]::int[], ARRAY[]::uuid[], 20, 20, false
  FROM unnest(ARRAY[timestamptz '2026-03-31T14:59:59.999Z', timestamptz '2026-03-31T15:00:00Z']) AS t`;

/** The close's and the budgets' queries as they read the raw events before the rollups (the reference). */
async function fromRawEvents(db: Db, yearMonth: string) {
  const { start, end } = monthRange(yearMonth);
  const range = sql`e.occurred_at >= ${start.toISOString()}::timestamptz AND e.occurred_at < ${end.toISOString()}::timestamptz`;
  const datasets = await db.execute<{ user_id: string; dataset_id: string; price_sen: number; searches: number }>(sql`
    SELECT e.user_id, d.dataset_id, d.price_sen, count(*)::int AS searches
    FROM usage_events e CROSS JOIN LATERAL unnest(e.dataset_ids, e.dataset_prices_sen) AS d(dataset_id, price_sen)
    WHERE ${range} AND d.price_sen > 0 GROUP BY 1, 2, 3`);
  const base = await db.execute<{ user_id: string; price_sen: number; searches: number }>(sql`
    SELECT e.user_id, e.base_fee_sen AS price_sen, count(*)::int AS searches FROM usage_events e
    WHERE ${range} AND NOT e.free AND e.base_fee_sen > 0 GROUP BY 1, 2`);
  const types = await db.execute<{ user_id: string; account_type: string }>(sql`
    SELECT DISTINCT ON (e.user_id) e.user_id, e.account_type FROM usage_events e WHERE ${range} ORDER BY e.user_id, e.occurred_at DESC`);
  return {
    datasets: datasets.rows.map((r) => `${r.user_id} ${r.dataset_id} ${r.price_sen} ${r.searches}`).sort(),
    baseFees: base.rows.map((r) => `${r.user_id} ${r.price_sen} ${r.searches}`).sort(),
    accountTypes: types.rows.map((r) => `${r.user_id} ${r.account_type}`).sort(),
  };
}

async function fromRollups(db: Db, yearMonth: string) {
  const usage = await monthUsage(db, yearMonth);
  const quantities = await monthUsageQuantities(db, [U(1), U(2), U(3), U(4)], yearMonth);
  // The budget guard reads the same rollup as the close: one figure for both.
  expect(quantities.map((q) => `${q.userId} ${q.datasetId ?? 'base'} ${q.unitPriceSen} ${q.quantity}`).sort()).toEqual(
    [...usage.datasets.map((d) => `${d.userId} ${d.datasetId} ${d.unitPriceSen} ${d.searches}`), ...usage.baseFees.map((b) => `${b.userId} base ${b.unitPriceSen} ${b.searches}`)].sort(),
  );
  return {
    datasets: usage.datasets.map((d) => `${d.userId} ${d.datasetId} ${d.unitPriceSen} ${d.searches}`).sort(),
    baseFees: usage.baseFees.map((b) => `${b.userId} ${b.unitPriceSen} ${b.searches}`).sort(),
    accountTypes: [...usage.accountTypes].map(([u, t]) => `${u} ${t}`).sort(),
  };
}

const MONTHS = ['2026-03', '2026-04', '2026-05'];

describe('migrating usage_events to monthly partitions', () => {
  it('keeps every row of an old database, each in its Japan-time month, and back-fills the rollups the close and budgets read', async () => {
    const before = migrationsBeforePartitioning();
    const scratch = process.env.TEST_DATABASE_URL ? await createScratchDatabase() : undefined;
    const pglite = scratch ? undefined : await PGlite.create({ extensions: { pg_trgm, cube, earthdistance } });
    const pool = scratch ? new pg.Pool({ connectionString: scratch.env.DATABASE_URL }) : undefined;
    try {
      const oldDb = (pool ? drizzlePg(pool) : drizzlePglite(pglite!)) as unknown as Db;
      if (pool) await migratePg(drizzlePg(pool), { migrationsFolder: before });
      else await migratePglite(drizzlePglite(pglite!), { migrationsFolder: before });
      if (pool) await pool.query(OLD_EVENTS_SQL, [1500]);
      else await pglite!.query(OLD_EVENTS_SQL, [1500]);
      const fingerprint = async (db: Db) =>
        (await db.execute<{ n: number; digest: string }>(sql`SELECT count(*)::int AS n, md5(string_agg(e::text, ',' ORDER BY request_id)) AS digest FROM usage_events e`)).rows[0]!;
      const old = await fingerprint(oldDb);
      expect(old.n).toBeGreaterThan(3000);
      const reference = Object.fromEntries(await Promise.all(MONTHS.map(async (m) => [m, await fromRawEvents(oldDb, m)] as const)));
      // The month boundary: 14:59:59.999 UTC on the 31st is March in Japan, 15:00 is April.
      expect(reference['2026-03']!.baseFees.some((line) => line.startsWith(`${U(1)} 20 `))).toBe(true);
      expect(reference['2026-04']!.baseFees.some((line) => line.startsWith(`${U(1)} 20 `))).toBe(true);

      let upgraded: Db;
      let closeUpgraded: () => Promise<void>;
      if (pool) {
        await pool.end();
        const opened = await openDatabase({ url: scratch!.env.DATABASE_URL! });
        upgraded = opened.db;
        closeUpgraded = opened.close;
      } else {
        await migratePglite(drizzlePglite(pglite!), { migrationsFolder });
        upgraded = oldDb;
        closeUpgraded = () => pglite!.close();
      }
      try {
        expect(await fingerprint(upgraded)).toEqual(old);
        const placed = await upgraded.execute<{ partition: string; month: string; n: number }>(sql`
          SELECT tableoid::regclass::text AS partition, to_char((occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM') AS month, count(*)::int AS n
          FROM usage_events GROUP BY 1, 2 ORDER BY 2`);
        expect(placed.rows.map((r) => [r.partition, r.month])).toEqual(MONTHS.map((m) => [`usage_events_${m.replace('-', '_')}`, m]));
        const partitions = (await listUsagePartitions(upgraded)).map((p) => p.yearMonth);
        expect(partitions).toEqual(expect.arrayContaining(MONTHS));
        // This month and the next are made by the migration too.
        expect(partitions.length).toBeGreaterThanOrEqual(MONTHS.length + 1);
        for (const m of MONTHS) expect(await fromRollups(upgraded, m), m).toEqual(reference[m]);
        // The primary key holds the partition key; a retried row is still refused.
        const [row] = (await upgraded.execute<{ request_id: string; occurred_at: string }>(sql`SELECT request_id, occurred_at::text FROM usage_events LIMIT 1`)).rows;
        await expect(
          upgraded.execute(sql`INSERT INTO usage_events SELECT * FROM usage_events WHERE request_id = ${row!.request_id} AND occurred_at = ${row!.occurred_at}::timestamptz`),
        ).rejects.toThrow();
      } finally {
        await closeUpgraded();
      }
    } finally {
      await scratch?.drop();
      rmSync(before, { recursive: true });
    }
  }, 120_000);
});

let ctx: TestContext;
withTestContext({ BILLING_JOBS: 'off' }, (opened) => {
  ctx = opened;
});

/** Instants in Japan time: the 15th of a month at noon. */
const midMonth = (yearMonth: string) => new Date(`${yearMonth}-15T03:00:00Z`);

describe('the usage-partitions job', () => {
  it('makes the coming months ahead, moves stray rows out of DEFAULT, and drops only closed months past retention, leaving rollups and invoices alone', async () => {
    const db = ctx.database.db;
    const user = await ctx.newUser('individual');
    const dataset = randomUUID();
    const write = (yearMonth: string, n: number) =>
      writeUsageEvents(
        db,
        instantsOverMonth(yearMonth, n).map((at) =>
          usageEvent(user.id, at, { datasetIds: [dataset], datasetPricesSen: [5000], datasetSharesBp: [7000], datasetRecipientIds: [PLATFORM_RECIPIENT], baseFeeSen: 10, amountSen: 5010 }),
        ),
      );
    // Months with no partition: their rows go to DEFAULT.
    for (const [m, n] of [['2009-12', 3], ['2011-03', 4], ['2011-04', 5], ['2011-05', 6]] as const) expect(await write(m, n)).toBe(n);
    const where = async () =>
      (
        await ctx.query<{ partition: string; month: string; n: number }>(
          `SELECT tableoid::regclass::text AS partition, to_char((occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM') AS month, count(*)::int AS n
           FROM usage_events WHERE user_id = $1 GROUP BY 1, 2 ORDER BY 2`,
          [user.id],
        )
      ).map((r) => `${r.month} ${r.partition} ${r.n}`);
    expect(await where()).toEqual(['2009-12 usage_events_default 3', '2011-03 usage_events_default 4', '2011-04 usage_events_default 5', '2011-05 usage_events_default 6']);

    // As at 2011-03-15 with 13 months kept (2010-02 on): March to May made, their rows moved; 2009-12 is
    // past retention but not closed, so kept.
    const job = createUsagePartitions({ db, retentionMonths: 13, log: silentLog });
    const first = await job.run(midMonth('2011-03'));
    expect(first).toEqual({ created: ['2011-03', '2011-04', '2011-05'], dropped: [], held: ['2009-12'] });
    expect(await where()).toEqual(['2009-12 usage_events_default 3', '2011-03 usage_events_2011_03 4', '2011-04 usage_events_2011_04 5', '2011-05 usage_events_2011_05 6']);
    expect(await job.run(midMonth('2011-03'))).toEqual({ created: [], dropped: [], held: ['2009-12'] });

    // A search in a month with a partition goes to it.
    expect(await write('2011-04', 1)).toBe(1);
    expect(await where()).toContain('2011-04 usage_events_2011_04 6');

    const close = (m: string) => ctx.app.billingClose.service.closeMonth(m);
    for (const m of ['2009-12', '2011-03']) expect((await close(m)).issued).toBe(1);
    const invoices = () =>
      ctx.query(
        `SELECT i.year_month, i.number, i.total_yen, json_agg(json_build_object('kind', l.kind, 'q', l.quantity, 'unit', l.unit_price_sen, 'yen', l.amount_yen) ORDER BY l.position) AS lines
         FROM invoices i JOIN billing_accounts b ON b.id = i.billing_account_id JOIN invoice_lines l ON l.invoice_id = i.id
         WHERE b.user_id = $1 GROUP BY 1, 2, 3 ORDER BY 1`,
        [user.id],
      );
    const rollups = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of ['usage_daily', 'usage_dataset_daily', 'usage_charge_monthly', 'usage_user_monthly']) {
        out[table] = await ctx.query(`SELECT * FROM ${table} WHERE user_id = $1 ORDER BY 1, 2, 3, 4`, [user.id]);
      }
      return out;
    };
    const invoicesBefore = await invoices();
    expect(invoicesBefore.map((i) => (i as { year_month: string }).year_month)).toEqual(['2009-12', '2011-03']);
    const rollupsBefore = await rollups();
    const usageBefore = { march: await monthUsage(db, '2011-03', [user.id]), april: await monthUsage(db, '2011-04', [user.id]) };
    expect(usageBefore.march.datasets.map((d) => d.searches)).toEqual([4]);

    // A month made ahead that never had a search, and never closed (none before the first search is).
    expect(await addUsagePartition(db, '2010-01')).toBe(true);

    // As at 2012-06-15 (2011-05 on kept): March (closed) is detached and dropped, 2009-12 (closed) deleted
    // from DEFAULT, April (not closed) kept whatever its age, May on kept.
    const second = await job.run(midMonth('2012-06'));
    expect(second).toEqual({ created: ['2012-06', '2012-07', '2012-08'], dropped: ['2009-12', '2010-01', '2011-03'], held: ['2011-04'] });
    expect(await where()).toEqual(['2011-04 usage_events_2011_04 6', '2011-05 usage_events_2011_05 6']);
    expect((await ctx.query(`SELECT to_regclass('usage_events_2011_03') AS t`))[0]).toEqual({ t: null });
    const months = (await listUsagePartitions(db)).map((p) => p.yearMonth);
    expect(months).toEqual(expect.arrayContaining(['2011-04', '2011-05', '2012-06', '2012-07', '2012-08']));
    expect(months).not.toContain('2011-03');
    expect(months).not.toContain('2010-01');

    // Rollups, invoices and what the billing screens read are unchanged; a second close of the month issues nothing.
    expect(await rollups()).toEqual(rollupsBefore);
    expect(await invoices()).toEqual(invoicesBefore);
    expect(await monthUsage(db, '2011-03', [user.id])).toEqual(usageBefore.march);
    expect(await monthUsage(db, '2011-04', [user.id])).toEqual(usageBefore.april);
    expect((await close('2011-03')).issued).toBe(0);

    // Once April is closed it goes too.
    expect((await close('2011-04')).issued).toBe(1);
    expect(await job.run(midMonth('2012-06'))).toEqual({ created: [], dropped: ['2011-04'], held: [] });
    expect(await where()).toEqual(['2011-05 usage_events_2011_05 6']);
  });
});
