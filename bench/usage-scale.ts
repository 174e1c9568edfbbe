/**
 * Usage at scale: BENCH_USAGE_EVENTS usage events (default 20,000,000) of
 * BENCH_USAGE_USERS users (default 100,000) over the last ~13 Japan-time months, then the screens
 * that read them over HTTP and the monthly close of the last complete month end to end.
 *
 * - PostgreSQL only, in its own database poi_bench_usage_<ts>, migrated by the app's own code
 *   (openDatabase), dropped at the end unless BENCH_KEEP=1; BENCH_REUSE_DB=poi_bench_usage_… runs on
 *   a copy of a kept one (CREATE DATABASE … TEMPLATE, dropped at the end), so the same kept database
 *   times the close again and again; BENCH_USAGE_SEED_ONLY=1 seeds (and with BENCH_KEEP=1 keeps)
 *   without timing anything.
 * - Users, corporate and billing accounts, datasets and API keys come from the admin seed
 *   (bench/admin-seed.ts), sized here; the events are generated in time order and loaded by COPY
 *   (pg-copy-streams) with the tables' indexes dropped and rebuilt after, skewed (a Zipf share over
 *   the users: a few heavy users, a long tail) and priced as the public API prices them (the
 *   month's free searches per user, trial users on free datasets within their quota, the platform's
 *   share on platform datasets). The rollups are built from them by the admin seed's GROUP BY,
 *   the meter's flush's; invoices are seeded for the months before the one the close then closes.
 * - Checked before timing: the rollups' totals equal the events', and a few users' /usage
 *   answers equal what their raw events say.
 * - Timed: p50, p95 and the slowest of BENCH_USAGE_SAMPLES (50) requests per call at concurrency 1,
 *   target p95 ≤ 100 ms; the close (the close job's runDue), target ≤ 10 min.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import { senToYen } from '@poi/shared/money';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/client';
import { PLATFORM_RECIPIENT } from '../apps/server/src/db/schema/usage';
import { sha256Hex } from '../apps/server/src/lib/crypto';
import { nextYearMonth, previousYearMonth } from '../apps/server/src/modules/invoices/charges';
import { SEED_ADMIN_EMAIL, seedAdminData, type AdminSeedSize } from './admin-seed';
import { prng } from './generate';
import { fmt, pct, type BenchResult } from './stats';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_USAGE_EVENTS ?? 20_000_000);
const USERS = Number(process.env.BENCH_USAGE_USERS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_USAGE_SAMPLES ?? 50);
const WARMUP = 5;
const P95_TARGET_MS = 100;
const CLOSE_TARGET_S = 600;
/** Share of the events spread evenly over the users (each user's few searches a month); the rest is Zipf. */
const EVEN_SHARE = 0.2;
const ZIPF_S = 1.1;
/** The usage tables (the events and every rollup: usage_*, partitions left out). */
const USAGE_TABLES_SQL = `SELECT relname AS name FROM pg_class WHERE relname LIKE 'usage\\_%' AND relkind IN ('r', 'p') AND NOT relispartition AND relnamespace = 'public'::regnamespace ORDER BY 1`;

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

interface Consumer {
  userId: string;
  keyId: string;
  type: string;
}

interface Price {
  id: number;
  baseSen: number;
  free: number;
  shareBp: number;
}

interface DatasetFacts {
  id: string;
  priceSen: number;
  recipient: string;
}

/** The month the close closes (the last complete Japan month) and the first month with events (12 before it). */
function months(now: Date) {
  const current = yearMonthOf(now);
  const closing = previousYearMonth(current);
  let first = closing;
  for (let i = 0; i < 11; i++) first = previousYearMonth(first);
  return { current, closing, first };
}

/** A cumulative weight table and a sampler over it (binary search). */
function sampler(weights: Float64Array, rand: () => number): () => number {
  const cum = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) cum[i] = total += weights[i]!;
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * The events as COPY text, in time order from the first month's start to now: each picks a user
 * (EVEN_SHARE uniformly, the rest by a Zipf rank in a shuffled order) and a dataset (mostly the
 * user's favourite), and is priced as the public API prices it.
 */
function* eventLines(n: number, consumers: Consumer[], prices: Map<string, Price>, datasets: DatasetFacts[], from: Date, to: Date): Generator<string> {
  const rand = prng(34);
  const u = consumers.length;
  const rank = new Float64Array(u);
  const order = Array.from({ length: u }, (_, i) => i);
  for (let i = u - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  for (let r = 0; r < u; r++) rank[order[r]!] = 1 / (r + 1) ** ZIPF_S;
  const pickZipf = sampler(rank, rand);
  const dsWeights = new Float64Array(datasets.map((_, i) => 1 / (i + 1)));
  const pickDataset = sampler(dsWeights, rand);
  const freeDatasets = datasets.map((d, i) => (d.priceSen === 0 ? i : -1)).filter((i) => i >= 0);
  const favourite = Int32Array.from(consumers, (c) => (c.type === 'trial' ? freeDatasets[Math.floor(rand() * freeDatasets.length)]! : pickDataset()));
  const consumerPrice = consumers.map((c) => prices.get(c.type)!);
  const ds = datasets.map((d) => ({ ...d, ids: `{${d.id}}`, priceText: `{${d.priceSen}}`, recipientText: `{${d.recipient}}` }));
  const used = new Int32Array(u);
  let monthEnd = monthRange(yearMonthOf(from)).end.getTime();
  const t0 = from.getTime();
  const span = to.getTime() - t0;
  let buf = '';
  let inBuf = 0;
  for (let e = 0; e < n; e++) {
    const at = t0 + Math.floor(((e + rand()) / n) * span);
    if (at >= monthEnd) {
      used.fill(0);
      monthEnd = monthRange(yearMonthOf(new Date(at))).end.getTime();
    }
    let c = 0;
    // A trial user past the month's free searches is refused (402) and records nothing: pick another.
    for (let tries = 0; ; tries++) {
      c = rand() < EVEN_SHARE ? Math.floor(rand() * u) : pickZipf();
      if (consumers[c]!.type !== 'trial' || used[c]! < consumerPrice[c]!.free || tries > 20) break;
    }
    const consumer = consumers[c]!;
    const price = consumerPrice[c]!;
    const trial = consumer.type === 'trial';
    const d = ds[trial || rand() < 0.7 ? favourite[c]! : pickDataset()]!;
    const free = used[c]! < price.free;
    used[c]!++;
    const share = d.recipient === PLATFORM_RECIPIENT ? 10_000 : price.shareBp;
    buf +=
      `${randomUUID()}\t${new Date(at).toISOString()}\t${consumer.userId}\t${consumer.keyId}\t${consumer.type}\t${price.id}\t` +
      `${d.ids}\t${d.priceText}\t{${share}}\t${d.recipientText}\t${price.baseSen}\t${d.priceSen + (free ? 0 : price.baseSen)}\t${free ? 't' : 'f'}\n`;
    if (++inBuf === 4000) {
      yield buf;
      buf = '';
      inBuf = 0;
    }
  }
  if (buf) yield buf;
}

/**
 * Drops a table's indexes and unique constraints, answering the statements that rebuild them as
 * they were (a partitioned table's index is rebuilt on its partitions too).
 */
async function dropIndexes(q: Query, table: string): Promise<string[]> {
  const constraints = (
    await q(`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY conname`, [table])
  ).rows as Array<{ conname: string; def: string }>;
  const indexes = (
    await q(
      `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) ORDER BY 1`,
      [table],
    )
  ).rows as Array<{ name: string; def: string }>;
  for (const ix of indexes) await q(`DROP INDEX "${ix.name}"`);
  for (const c of constraints) await q(`ALTER TABLE "${table}" DROP CONSTRAINT "${c.conname}"`);
  return [...constraints.map((c) => `ALTER TABLE "${table}" ADD CONSTRAINT "${c.conname}" ${c.def}`), ...indexes.map((ix) => ix.def.replace(' ON ONLY ', ' ON '))];
}

/** COPYs the events with the usage tables' indexes dropped; rebuilds the events' and answers the statements that rebuild the rollups'. */
async function loadEvents(pool: pg.Pool, at: Date): Promise<{ copyS: number; indexS: number; rollupIndexes: string[] }> {
  const q: Query = (t, v) => pool.query(t, v);
  const consumers = (
    await q(`SELECT k.user_id AS "userId", k.id AS "keyId", u.account_type AS type FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email LIKE 'user%@example%.jp' ORDER BY u.id`)
  ).rows as Consumer[];
  const prices = new Map(
    (
      await q(
        `SELECT DISTINCT ON (account_type) account_type, id, round(base_fee * 100)::int AS base_sen, free_searches_per_month AS free, provider_share_bp AS share
         FROM pricing_versions WHERE effective_from <= now() ORDER BY account_type, effective_from DESC`,
      )
    ).rows.map((r: Record<string, string | number>) => [String(r.account_type), { id: Number(r.id), baseSen: Number(r.base_sen), free: Number(r.free), shareBp: Number(r.share) }]),
  );
  const datasets = (
    await q(
      `SELECT id, round(price_per_search * 100)::int AS "priceSen",
              CASE WHEN is_platform_dataset OR provider_user_id IS NULL THEN $1::uuid ELSE provider_user_id END AS recipient
       FROM datasets WHERE name LIKE 'ベンチ用データセット%' ORDER BY created_at DESC, id`,
      [PLATFORM_RECIPIENT],
    )
  ).rows as DatasetFacts[];
  const rebuild: string[] = [];
  for (const { name } of (await q(USAGE_TABLES_SQL)).rows as Array<{ name: string }>) rebuild.push(...(await dropIndexes(q, name)));
  const from = monthRange(months(at).first).start;
  const t = performance.now();
  const client = await pool.connect();
  try {
    const columns = 'request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id, dataset_ids, dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free';
    await pipeline(Readable.from(eventLines(EVENTS, consumers, prices, datasets, from, at)), client.query(copyFrom(`COPY usage_events (${columns}) FROM STDIN`)));
  } finally {
    client.release();
  }
  const copied = performance.now();
  // The events' indexes now; the rollups' once the seed has filled them (seed).
  const ofEvents = (s: string) => s.includes('"usage_events"') || / ON public\.usage_events /.test(s);
  for (const s of rebuild.filter(ofEvents)) await q(s);
  return { copyS: (copied - t) / 1000, indexS: (performance.now() - copied) / 1000, rollupIndexes: rebuild.filter((s) => !ofEvents(s)) };
}

/**
 * The database the run uses. Fresh: poi_bench_usage_<ts>, created empty (migrated and seeded by the
 * caller). BENCH_REUSE_DB=<kept>: a copy of it (CREATE DATABASE … TEMPLATE <kept>, a file copy), so
 * the kept one stays as seeded and its close can be timed again on every copy; the copy is dropped
 * at the end like a fresh one. No other session may be connected to the kept database meanwhile.
 */
async function openBenchDatabase() {
  const reuse = process.env.BENCH_REUSE_DB?.startsWith('poi_bench_usage_') ? process.env.BENCH_REUSE_DB : undefined;
  const name = `poi_bench_usage_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    if (!reuse) await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    else {
      const t = performance.now();
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${reuse}`);
      } catch (err) {
        if ((err as { code?: string }).code === '55006') throw new Error(`${reuse} has other sessions: close them first (a template copy needs it alone)`);
        throw err;
      }
      console.log(`  copied the kept database ${reuse} to ${name} in ${((performance.now() - t) / 1000).toFixed(1)} s (the copy is timed, the kept one stays as it is)`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), reused: !!reuse };
}

/** Fresh databases are kept with BENCH_KEEP=1 (to be reused); copies of a kept one always go. */
async function dropBenchDatabase(name: string, reused: boolean) {
  if (process.env.BENCH_KEEP === '1' && !reused) return console.log(`  kept database ${name}`);
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
}

/** Seeds the database (a separate pool with generous memory for the load's sorts and aggregates). */
async function seed(url: string, at: Date) {
  // One connection: the seed's steps share a temporary table.
  const pool = new pg.Pool({ connectionString: url, max: 1, options: '-c work_mem=256MB -c maintenance_work_mem=1GB' });
  try {
    const size: AdminSeedSize = {
      users: USERS,
      usageEvents: EVENTS,
      consumers: USERS,
      corporates: Math.max(10, Math.round(USERS / 50)),
      datasets: 200,
      auditRows: USERS * 2,
      mix: { dataProvider: 2, corporate: 8, individual: 75 },
      trialKeys: true,
    };
    let load = { copyS: 0, indexS: 0, rollupIndexes: [] as string[] };
    const t = performance.now();
    const steps = await seedAdminData(pool, size, {
      loadEvents: async () => {
        load = await loadEvents(pool, at);
      },
      invoicesBefore: months(at).closing,
    });
    const r = performance.now();
    for (const s of load.rollupIndexes) await pool.query(s);
    const tables = ((await pool.query(USAGE_TABLES_SQL)).rows as Array<{ name: string }>).map((t) => t.name);
    await pool.query(`ANALYZE ${tables.join(', ')}`);
    const rebuilt = performance.now();
    // A usage table this bench does not know (a new rollup) stays empty: what reads it would be timed on nothing.
    for (const t of tables) {
      if (!(await pool.query(`SELECT 1 FROM ${t} LIMIT 1`)).rowCount) console.log(`  WARNING: ${t} is empty after the seed (bench/admin-seed.ts does not fill it)`);
    }
    // The months before the one timed were closed by the server (its close job marks them in the audit log).
    await pool.query(
      `INSERT INTO audit_logs (action, target_type, target_id, after)
       SELECT 'billing.month_closed', 'billing_month', to_char(m, 'YYYY-MM'), '{"seeded":true}'::jsonb
       FROM generate_series($1::date, $2::date, interval '1 month') AS m`,
      [`${months(at).first}-01`, `${previousYearMonth(months(at).closing)}-01`],
    );
    console.log(
      `  seeded ${USERS.toLocaleString()} users and ${EVENTS.toLocaleString()} usage events in ${((performance.now() - t) / 1000).toFixed(1)} s: ` +
        `events COPY ${load.copyS.toFixed(1)} s (${Math.round(EVENTS / load.copyS).toLocaleString()}/s) + their indexes ${load.indexS.toFixed(1)} s; ` +
        Object.entries(steps)
          .filter(([k]) => k !== 'usage events')
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
          .join(', ') +
        `; rollup indexes ${((rebuilt - r) / 1000).toFixed(1)} s`,
    );
  } finally {
    await pool.end();
  }
}

/** The rollups hold every event exactly once, and users' /usage answers equal their raw events. */
async function sanityCheck(q: Query, base: string, tokens: Map<string, string>, users: string[], month: string) {
  const totals = (
    await q(`SELECT (SELECT count(*) FROM usage_events)::bigint AS events, (SELECT sum(cardinality(dataset_ids)) FROM usage_events)::bigint AS dataset_events,
                    (SELECT sum(searches) FROM usage_daily)::bigint AS daily, (SELECT sum(searches) FROM usage_dataset_daily)::bigint AS dataset_daily`)
  ).rows[0] as Record<string, string>;
  if (totals.events !== totals.daily || totals.dataset_events !== totals.dataset_daily) throw new Error(`the rollups disagree with the events: ${JSON.stringify(totals)}`);
  // The platform rollups (migration 0025), where they exist: the per-user ones summed, day by day and dataset by dataset.
  if ((await q(`SELECT to_regclass('usage_platform_dataset_daily') IS NOT NULL AS t`)).rows[0]?.t) {
    const differ = (
      await q(`SELECT (SELECT count(*) FROM (SELECT day, recipient_id, dataset_id, sum(searches) AS s, sum(amount_sen) AS a, sum(revenue_units) AS u FROM usage_dataset_daily GROUP BY 1, 2, 3) d
                         FULL JOIN usage_platform_dataset_daily p USING (day, recipient_id, dataset_id)
                       WHERE p.searches IS DISTINCT FROM d.s OR p.amount_sen IS DISTINCT FROM d.a OR p.revenue_units IS DISTINCT FROM d.u)::int AS datasets,
                      (SELECT count(*) FROM (SELECT day, sum(searches) AS s, sum(free_searches) AS f, sum(amount_sen) AS a FROM usage_daily GROUP BY 1) d
                         FULL JOIN usage_platform_daily p USING (day)
                       WHERE p.searches IS DISTINCT FROM d.s OR p.free_searches IS DISTINCT FROM d.f OR p.amount_sen IS DISTINCT FROM d.a)::int AS days`)
    ).rows[0] as { datasets: number; days: number };
    if (differ.datasets || differ.days) throw new Error(`the platform rollups disagree with the per-user ones: ${JSON.stringify(differ)}`);
  }
  const { start, end } = monthRange(month);
  for (const userId of users) {
    const raw = (
      await q(`SELECT count(*)::int AS searches, coalesce(sum(amount_sen), 0)::bigint AS sen, count(*) FILTER (WHERE free)::int AS free FROM usage_events WHERE user_id = $1 AND occurred_at >= $2 AND occurred_at < $3`, [
        userId,
        start,
        end,
      ])
    ).rows[0] as { searches: number; sen: string; free: number };
    const res = await fetch(`${base}/console/v1/usage/summary?year_month=${month}`, { headers: { authorization: `Bearer ${tokens.get(userId)}` } });
    const body = (await res.json()) as { data: { searches: number; amount: number; free_searches: { used: number }; by_dataset: Array<{ searches: number }> } };
    const shown = body.data;
    const byDataset = shown.by_dataset.reduce((n, d) => n + d.searches, 0);
    if (shown.searches !== raw.searches || shown.amount !== senToYen(Number(raw.sen)) || shown.free_searches.used !== raw.free || byDataset !== raw.searches) {
      throw new Error(`/usage of ${userId} for ${month} says ${JSON.stringify({ searches: shown.searches, amount: shown.amount, free: shown.free_searches.used, byDataset })}, its events ${JSON.stringify(raw)}`);
    }
  }
  console.log(`  check: rollups hold all ${Number(totals.events).toLocaleString()} events once (the platform ones equal the per-user ones summed); /usage of ${users.length} users for ${month} equals their raw events`);
}

interface Case {
  label: string;
  who: 'consumer' | 'heavy' | 'light' | 'provider' | 'admin';
  path: (i: number) => string;
}

export async function runUsageScaleBench(): Promise<BenchResult[]> {
  const at = new Date();
  const { current, closing, first } = months(at);
  console.log(`\n== usage at scale (PostgreSQL): ${USERS.toLocaleString()} users, ${EVENTS.toLocaleString()} usage events from ${first} to now; the close of ${closing}`);
  const db = await openBenchDatabase();
  const results: BenchResult[] = [];
  try {
    // Migrated by the app's own code on open; the seed then goes in through its own pool.
    const database = await openDatabase({ url: db.url });
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const q: Query = (t, v) => pool.query(t, v);
    if (!db.reused) await seed(db.url, at);
    if (process.env.BENCH_USAGE_SEED_ONLY === '1') {
      // Seeded for later runs on copies of it (BENCH_KEEP=1 BENCH_REUSE_DB=…): nothing timed, nothing closed.
      await database.close();
      return results;
    }
    const partitioned = (await q(`SELECT relkind FROM pg_class WHERE relname = 'usage_events' AND relkind = 'p'`)).rowCount;
    const size = (
      // A table that is not partitioned has no partition tree: its own size.
      await q(`SELECT pg_size_pretty(coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('usage_events')), pg_total_relation_size('usage_events'))) AS events,
                      pg_size_pretty(pg_database_size(current_database())) AS db,
                      (SELECT count(*) FROM pg_partition_tree('usage_events') WHERE isleaf)::int AS leaves`)
    ).rows[0] as Record<string, string>;
    const inDefault = partitioned && (await q(`SELECT to_regclass('usage_events_default') IS NOT NULL AS d`)).rows[0]?.d ? Number((await q('SELECT count(*) FROM usage_events_default')).rows[0]!.count) : 0;
    console.log(
      `  usage_events ${partitioned ? `partitioned (${size.leaves} partitions, ${inDefault.toLocaleString()} rows in the default one)` : 'one table'}, ${size.events} with its indexes; database ${size.db}`,
    );
    await q('CHECKPOINT');

    const config = loadConfig({
      NODE_ENV: 'production',
      APP_SECRET: randomBytes(32).toString('hex'),
      // Card charges after issue log a warning each without Stripe: not the close's own work.
      LOG_LEVEL: 'error',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'poi-bench-usage-')),
      WEB_DIST_DIR: path.join(tmpdir(), 'poi-bench-no-console'),
      PORT: '0',
      // The close is timed below, not run by the job at start.
      BILLING_JOBS: 'off',
    });
    const app = await buildApp(config, { database });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const tokens = new Map<string, string>();
      const signIn = async (userIds: string[]) => {
        for (const id of userIds) {
          const token = randomBytes(32).toString('base64url');
          await q(`INSERT INTO sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 day')`, [id, sha256Hex(token)]);
          tokens.set(id, token);
        }
        return userIds;
      };
      const heavy = await signIn(
        (await q(`SELECT user_id FROM usage_daily WHERE day >= $1 GROUP BY 1 ORDER BY sum(searches) DESC, 1 LIMIT 10`, [`${current}-01`])).rows.map((r: { user_id: string }) => r.user_id),
      );
      const light = await signIn(
        (await q(`SELECT user_id FROM usage_daily WHERE day >= $1 GROUP BY 1 HAVING sum(searches) < 20 ORDER BY md5(user_id::text) LIMIT 40`, [`${current}-01`])).rows.map(
          (r: { user_id: string }) => r.user_id,
        ),
      );
      const mixed = [...heavy, ...light];
      const providers = await signIn(
        // Active ones: the seed suspends some users, and a suspended user's session answers 401.
        (await q(`SELECT DISTINCT d.provider_user_id AS id FROM datasets d JOIN users u ON u.id = d.provider_user_id AND u.status = 'active' WHERE d.name LIKE 'ベンチ用データセット%' ORDER BY 1 LIMIT 10`)).rows.map((r: { id: string }) => r.id),
      );
      const providerDatasets = (await q(`SELECT id, provider_user_id FROM datasets WHERE provider_user_id = ANY($1::uuid[]) ORDER BY id`, [providers])).rows as Array<{ id: string; provider_user_id: string }>;
      const admin = await signIn([(await q('SELECT id FROM users WHERE email = $1', [SEED_ADMIN_EMAIL])).rows[0]!.id as string]);
      const monthList: string[] = [];
      for (let m = first; m <= current; m = nextYearMonth(m)) monthList.push(m);
      const pastMonths = monthList.slice(0, -1);

      await sanityCheck(q, base, tokens, [heavy[0]!, heavy[1]!, light[0]!, light[1]!], closing);

      // The closed months, the newest first.
      const m = (i: number) => pastMonths[pastMonths.length - 1 - (i % pastMonths.length)]!;
      const cases: Case[] = [
        { label: '/usage, /dashboard: this month, heavy users', who: 'heavy', path: () => `/console/v1/usage/summary?year_month=${current}` },
        { label: '/usage, /dashboard: this month, light users', who: 'light', path: () => `/console/v1/usage/summary?year_month=${current}` },
        { label: '/usage: earlier months', who: 'consumer', path: (i) => `/console/v1/usage/summary?year_month=${m(i)}` },
        { label: '/billing: this month so far', who: 'consumer', path: () => '/console/v1/billing/current' },
        { label: '/billing: budget', who: 'consumer', path: () => '/console/v1/billing/budget' },
        { label: 'provider /revenue: month', who: 'provider', path: (i) => `/console/v1/datasets/revenue/monthly?year_month=${m(i)}` },
        { label: 'provider /revenue: dataset by day', who: 'provider', path: (i) => `/console/v1/datasets/revenue/dataset/${providerDatasets[i % providerDatasets.length]!.id}?year_month=${m(i)}` },
        { label: 'admin: platform revenue', who: 'admin', path: (i) => `/console/v1/admin/platform/revenue?year_month=${m(i)}` },
        { label: 'admin: platform revenue CSV', who: 'admin', path: (i) => `/console/v1/admin/platform/revenue.csv?year_month=${m(i)}` },
        { label: 'admin: revenue by provider', who: 'admin', path: (i) => `/console/v1/admin/data-providers/revenue?year_month=${m(i)}` },
        { label: 'admin: revenue by provider CSV', who: 'admin', path: (i) => `/console/v1/admin/data-providers/revenue.csv?year_month=${m(i)}` },
        { label: 'admin: one provider, 12 months', who: 'admin', path: (i) => `/console/v1/admin/data-providers/${providers[i % providers.length]}/revenue-detail` },
        { label: 'admin: platform datasets revenue', who: 'admin', path: (i) => `/console/v1/admin/datasets/revenue/platform?year_month=${m(i)}` },
        { label: 'admin: dashboard', who: 'admin', path: () => '/console/v1/admin/dashboard' },
      ];
      const actor = (c: Case, i: number): string => {
        if (c.who === 'heavy') return heavy[i % heavy.length]!;
        if (c.who === 'light') return light[i % light.length]!;
        if (c.who === 'consumer') return mixed[(i * 7) % mixed.length]!;
        if (c.who === 'provider') {
          // The dataset's own provider.
          return c.label.includes('dataset') ? providerDatasets[i % providerDatasets.length]!.provider_user_id : providers[i % providers.length]!;
        }
        return admin[0]!;
      };
      console.log(`  ${SAMPLES} requests per call at concurrency 1 (after ${WARMUP} warm-up), each varying user, month or provider`);
      console.log(`  ${'call'.padEnd(46)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'max'.padStart(9)}  target`);
      for (const c of cases) {
        const samples: number[] = [];
        let failure = '';
        for (let i = -WARMUP; i < SAMPLES && !failure; i++) {
          const k = i + WARMUP;
          const t = performance.now();
          const res = await fetch(`${base}${c.path(k)}`, { headers: { authorization: `Bearer ${tokens.get(actor(c, k))}` } });
          const text = await res.text();
          if (res.status !== 200) failure = `${res.status} ${text.slice(0, 160)}`;
          if (i >= 0) samples.push(performance.now() - t);
        }
        samples.sort((a, b) => a - b);
        const p50 = samples.length ? pct(samples, 50) : NaN;
        const p95 = samples.length ? pct(samples, 95) : NaN;
        const ok = !failure && p95 <= P95_TARGET_MS;
        console.log(`  ${c.label.padEnd(46)} ${fmt(p50)}ms ${fmt(p95)}ms ${fmt(samples.at(-1) ?? NaN)}ms  p95≤${P95_TARGET_MS} ${ok ? 'PASS' : `FAIL${failure ? ` (${failure})` : ''}`}`);
        results.push({ engine: 'postgres', pois: 0, label: `usage at scale: ${c.label}`, http: { p50, p99: samples.length ? pct(samples, 99) : NaN }, raw: { p50: 0, p99: 0 }, ok });
      }

      // The monthly close of the last complete month, as the close job runs it (every due month not yet closed).
      const open = !(await q(`SELECT 1 FROM audit_logs WHERE action = 'billing.month_closed' AND target_id = $1`, [closing])).rowCount;
      if (!open) {
        console.log(`  monthly close of ${closing}: already run in this kept database, not timed`);
      } else {
        const t = performance.now();
        const closed = (await app.billingClose.job.runDue()) ?? [];
        const seconds = (performance.now() - t) / 1000;
        const r = closed.find((x) => x.year_month === closing);
        const ok = !!r && r.failed === 0 && closed.length === 1 && seconds <= CLOSE_TARGET_S;
        const invoices = (await q(`SELECT count(*) FILTER (WHERE number IS NOT NULL)::int AS issued, count(*) FILTER (WHERE status = 'draft')::int AS carried, count(DISTINCT billing_account_id)::int AS accounts FROM invoices WHERE year_month = $1 AND kind = 'monthly'`, [closing])).rows[0] as { issued: number; carried: number };
        console.log(
          `  monthly close of ${closing}: ${seconds.toFixed(1)} s (${r ? `${r.issued.toLocaleString()} issued, ${r.skipped.toLocaleString()} skipped, ${r.failed} failed` : 'nothing closed'}; ` +
            `${invoices.issued.toLocaleString()} numbered and ${invoices.carried.toLocaleString()} carried invoices)  ≤${CLOSE_TARGET_S} s ${ok ? 'PASS' : 'FAIL'}`,
        );
        await checkInvoices(q, heavy, closing);
        results.push({ engine: 'postgres', pois: 0, label: `usage at scale: monthly close of ${closing}`, http: { p50: seconds * 1000, p99: seconds * 1000 }, raw: { p50: 0, p99: 0 }, ok });
      }
    } finally {
      await app.close();
      await database.close();
    }
  } finally {
    await dropBenchDatabase(db.name, db.reused);
  }
  return results;
}

/** Heavy individual users' invoices bill exactly their priced events of the month, per dataset. */
async function checkInvoices(q: Query, users: string[], month: string) {
  const { start, end } = monthRange(month);
  let checked = 0;
  for (const userId of users) {
    const rows = (
      await q(
        `WITH raw AS (
           SELECT d.dataset_id, d.price_sen, count(*)::int AS n FROM usage_events e
           CROSS JOIN LATERAL unnest(e.dataset_ids, e.dataset_prices_sen) AS d(dataset_id, price_sen)
           WHERE e.user_id = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3 AND d.price_sen > 0 GROUP BY 1, 2),
         billed AS (
           SELECT l.dataset_id, l.unit_price_sen AS price_sen, l.quantity::int AS n FROM invoices i
           JOIN billing_accounts ba ON ba.id = i.billing_account_id AND ba.user_id = $1
           JOIN invoice_lines l ON l.invoice_id = i.id AND l.kind = 'dataset'
           WHERE i.year_month = $4 AND i.kind = 'monthly')
         SELECT (SELECT count(*) FROM billed)::int AS lines, (SELECT count(*) FROM (SELECT * FROM raw EXCEPT SELECT * FROM billed) x)::int AS missing,
                (SELECT count(*) FROM (SELECT * FROM billed EXCEPT SELECT * FROM raw) y)::int AS extra`,
        [userId, start, end, month],
      )
    ).rows[0] as { lines: number; missing: number; extra: number };
    // Corporate members are billed on their account's invoice: only users with their own account are compared.
    if (!rows.lines) continue;
    if (rows.missing || rows.extra) throw new Error(`the invoice of ${userId} for ${month} differs from the user's events: ${JSON.stringify(rows)}`);
    checked++;
  }
  console.log(`  check: ${checked} users' invoice lines for ${month} equal their priced events, per dataset and price`);
}
