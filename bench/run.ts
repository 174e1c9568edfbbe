/**
 * npm run bench — POI search and import on generated data (bench/generate.ts).
 * PostgreSQL (BENCH_DATABASE_URL, default the local server; a fresh database is created and
 * dropped) with BENCH_POIS POIs (default 1,000,000), then PGlite with BENCH_PGLITE_POIS (200,000).
 * Every figure is printed next to its baseline — the same SQL run directly — from the same run;
 * the public search API is measured against the console search and under autocannon load.
 * Parts can be skipped: BENCH_SKIP_CONSOLE, BENCH_SKIP_CASES (the search table), BENCH_SKIP_PUBLIC,
 * BENCH_SKIP_PUBLIC_LOAD (keeps the public latency pairs, budget pair included), BENCH_SKIP_IMPORT,
 * BENCH_SKIP_LAYOUTS, BENCH_SKIP_ROUNDTRIP, BENCH_SKIP_SUGGEST, BENCH_SKIP_DATASETS, BENCH_SKIP_ADMIN, BENCH_SKIP_BACKFILL (=1 each); BENCH_ENGINE=postgres|pglite runs one engine.
 * The admin part (PostgreSQL only) seeds 100,000 users and 1,000,000 usage events into the same database.
 * Usage at scale (bench/usage-scale.ts, PostgreSQL only, its own database) loads BENCH_USAGE_EVENTS usage events
 * (20,000,000) of BENCH_USAGE_USERS users (100,000) and times /usage, the revenue screens and the monthly close;
 * BENCH_SKIP_USAGE_SCALE=1 skips it, BENCH_USAGE_SCALE_ONLY=1 runs nothing else.
 * The in-memory index at scale (bench/index-scale.ts, PostgreSQL only, its own database) loads BENCH_INDEX_POIS POIs
 * (10,000,000) and times a server's start-up to a ready index, cold and from its snapshot on disk, with its bytes per POI;
 * BENCH_SKIP_INDEX_SCALE=1 skips it, BENCH_INDEX_SCALE_ONLY=1 runs nothing else.
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../apps/server/src/app';
import { createSearchBackfill } from '../apps/server/src/modules/pois/search-backfill';
import { prepareSearchColumns, SEARCH_FOLD_VERSION } from '../apps/server/src/modules/pois/search-columns';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase, type Database } from '../apps/server/src/db/client';
import { buildSearchStatements, type PoiSearchFilter } from '../apps/server/src/modules/pois/pois.repository';
import { CITIES, generatePois, prng } from './generate';
import { copyIntoPglite, copyIntoPostgres } from './load';
import { runConsoleBench, type ConsoleCheck } from './console';
import { runImportBench, runRoundTripBench } from './import-bench';
import { runLayoutBench } from './layout-bench';
import { runPublicApiBench, seedConsumer } from './public-api-bench';
import { runSuggestBench } from './suggest-bench';
import { runDatasetListBench } from './dataset-list-bench';
import { runAdminBench } from './admin-bench';
import { runUsageScaleBench } from './usage-scale';
import { runIndexScaleBench } from './index-scale';
import { fmt, pct, type BenchResult } from './stats';

const N_PG = Number(process.env.BENCH_POIS ?? 1_000_000);
const N_PGLITE = Number(process.env.BENCH_PGLITE_POIS ?? 200_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// p99 is the 10th-slowest of 1,000 samples: with 300 it would be the 3rd, one hiccup of the VM apart.
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 1000);
const WARMUP = 30;

interface Engine {
  name: 'postgres' | 'pglite';
  database: Database;
  /** Runs SQL text with parameters directly on the driver, bypassing drizzle and HTTP. */
  raw(sqlText: string, params: unknown[]): Promise<unknown>;
  /**
   * The statements of one search as the server runs them: a point search's one statement
   * (prepared, on knnDb's connections; PGlite: in a transaction steering the planner), or a
   * list's page and then, when more rows follow, its count.
   */
  rawSearch(s: RawSearch, limit: number): Promise<void>;
  /** EXPLAIN of a point search's statement where the server runs it. */
  explainPoint(q: RawQuery): Promise<string>;
  close(): Promise<void>;
}

const FORCE_KNN = "SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)";

interface RawQuery {
  sql: string;
  params: unknown[];
}

type RawSearch = { point: RawQuery } | { page: RawQuery; count?: RawQuery };

/** The baseline statements of a filter, with or without the total. */
function rawStatements(db: Database['db'], f: PoiSearchFilter, count: boolean, ranked = true): RawSearch {
  const s = buildSearchStatements(db, f, { count, ranked });
  if ('point' in s) return { point: s.point.toSQL() };
  return { page: s.page.toSQL(), count: s.count?.toSQL() };
}

interface Case {
  label: string;
  filter: (i: number) => Omit<PoiSearchFilter, 'datasetIds' | 'limit' | 'offset'>;
  target?: { p50?: number; p99?: number; ratio?: number };
}

const pointRand = prng(7);
const BIG = CITIES.filter((c) => c.weight >= 3);
const POINTS = Array.from({ length: 64 }, (_, i) => {
  const c = BIG[i % BIG.length]!;
  return { latitude: c.lat + (pointRand() - 0.5) * c.spread, longitude: c.lon + (pointRand() - 0.5) * c.spread };
});

const CASES: Case[] = [
  { label: 'radius 1 km', filter: (i) => ({ point: { ...POINTS[i % POINTS.length]!, radius: 1_000 } }), target: { p50: 5, p99: 15, ratio: 2 } },
  { label: 'radius 10 km', filter: (i) => ({ point: { ...POINTS[i % POINTS.length]!, radius: 10_000 } }), target: { p50: 5, p99: 15, ratio: 2 } },
  { label: 'keyword rare 2-char (稚内)', filter: () => ({ keyword: '稚内' }), target: { p99: 15 } },
  { label: 'keyword common 2-char (東京)', filter: () => ({ keyword: '東京' }), target: { p99: 15 } },
  { label: 'keyword 4-char (ラーメン)', filter: () => ({ keyword: 'ラーメン' }), target: { p99: 15 } },
  { label: 'keyword hiragana (らーめん)', filter: () => ({ keyword: 'らーめん' }), target: { p99: 15 } },
  { label: 'keyword 2 words (東京 カフェ)', filter: () => ({ keyword: '東京 カフェ' }), target: { p99: 15 } },
  { label: 'radius 5 km + keyword (カフェ)', filter: (i) => ({ keyword: 'カフェ', point: { ...POINTS[i % POINTS.length]!, radius: 5_000 } }), target: { p99: 15 } },
];


async function timeIt(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: pct(samples, 50), p99: pct(samples, 99) };
}

async function seedAccount(db: Database) {
  const token = randomBytes(32).toString('base64url');
  const client = (db.db as unknown as { $client: { query: (t: string, p?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }> } }).$client;
  const existing = (await client.query(`SELECT d.id AS dataset, u.id AS user FROM datasets d JOIN users u ON u.email = 'bench@example.com' WHERE d.name = 'ベンチマーク' LIMIT 1`)).rows[0];
  if (existing) {
    await client.query(`INSERT INTO sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 day')`, [existing.user, createHash('sha256').update(token).digest('hex')]);
    return { token, userId: existing.user!, datasetId: existing.dataset!, query: client.query.bind(client), reused: true };
  }
  const user = (await client.query(`INSERT INTO users (email, account_type) VALUES ('bench@example.com', 'data_provider') RETURNING id`)).rows[0]!.id!;
  await client.query(`INSERT INTO sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 day')`, [user, createHash('sha256').update(token).digest('hex')]);
  const dataset = (
    await client.query(
      `INSERT INTO datasets (name, price_per_search, is_platform_dataset, created_by, assigned_user_id, provider_user_id) VALUES ('ベンチマーク', 0, false, $1, $1, $1) RETURNING id`,
      [user],
    )
  ).rows[0]!.id!;
  return { token, userId: user, datasetId: dataset, query: client.query.bind(client), reused: false };
}

async function openEngine(kind: 'postgres' | 'pglite'): Promise<Engine & { dropDb?: () => Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openDatabase({});
    const client = (database.db as unknown as { $client: PGlite }).$client;
    return {
      name: 'pglite',
      database,
      raw: (t, p) => client.query(t, p),
      rawSearch: async (search, limit) => {
        if ('point' in search) {
          await client.transaction(async (tx) => {
            await tx.query(FORCE_KNN);
            await tx.query(search.point.sql, search.point.params);
          });
          return;
        }
        const rows = await client.query(search.page.sql, search.page.params);
        if (search.count && rows.rows.length > limit) await client.query(search.count.sql, search.count.params);
      },
      explainPoint: async (q) =>
        client.transaction(async (tx) => {
          await tx.query(FORCE_KNN);
          const plan = await tx.query<Record<string, string>>(`EXPLAIN ${q.sql}`, q.params);
          return plan.rows.map((r) => Object.values(r)[0]).join('\n');
        }),
      close: () => database.close(),
    };
  }
  // BENCH_REUSE_DB: a database kept by an earlier run (BENCH_KEEP=1), already loaded.
  const reuse = process.env.BENCH_REUSE_DB;
  const name = reuse ?? `poi_bench_${Date.now().toString(36)}`;
  if (!reuse) {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  const knnPool = (database.knnDb as unknown as { $client: pg.Pool }).$client;
  return {
    name: 'postgres',
    database,
    raw: (t, p) => pool.query(t, p as unknown[]),
    rawSearch: async (search, limit) => {
      // Point searches run as named prepared statements on the connections of knnDb (GiST in
      // distance order, generic plans), as the server runs them.
      if ('point' in search) {
        const q = search.point;
        await knnPool.query({ name: `bench_${createHash('sha1').update(q.sql).digest('hex').slice(0, 16)}`, text: q.sql, values: q.params });
        return;
      }
      const rows = await pool.query(search.page.sql, search.page.params);
      if (search.count && rows.rows.length > limit) await pool.query(search.count.sql, search.count.params);
    },
    explainPoint: async (q) => {
      const plan = await knnPool.query(`EXPLAIN ${q.sql}`, q.params as unknown[]);
      return plan.rows.map((r: Record<string, string>) => Object.values(r)[0]).join('\n');
    },
    close: () => database.close(),
    dropDb: async () => {
      if (process.env.BENCH_KEEP === '1' || reuse) return console.log(`  kept database ${name}`);
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Loads with the search indexes dropped, then rebuilds them exactly as the migrations defined them. */
async function load(engine: Engine, datasetId: string, n: number, query: (t: string, p?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>) {
  const indexes = (await query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'pois' AND indexname <> 'pois_pkey'`)).rows;
  for (const ix of indexes) await query(`DROP INDEX ${ix.indexname}`);
  const t = performance.now();
  if (engine.name === 'postgres') {
    const pool = (engine.database.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    try {
      await copyIntoPostgres(client, datasetId, generatePois(n));
    } finally {
      client.release();
    }
  } else {
    await copyIntoPglite((engine.database.db as unknown as { $client: PGlite }).$client, datasetId, generatePois(n));
  }
  const loaded = performance.now();
  if (engine.name === 'postgres') await query(`SET maintenance_work_mem = '512MB'`);
  for (const ix of indexes) await query(ix.indexdef!);
  await query(`UPDATE datasets SET poi_count = $2 WHERE id = $1`, [datasetId, n]);
  // As the server does after an import (refreshPoiStatistics).
  await query('VACUUM ANALYZE pois');
  console.log(`  loaded ${n.toLocaleString()} POIs: copy ${((loaded - t) / 1000).toFixed(1)} s, indexes ${((performance.now() - loaded) / 1000).toFixed(1)} s`);
}

/**
 * The back-fill of readings and folding (migration 0014): a database loaded before it has
 * every row stale and is back-filled whole; a fresh load has none, so a sample is marked stale and
 * rewritten. Prints POIs per second.
 */
async function measureBackfill(engine: Engine, n: number) {
  const result = (await engine.raw(`SELECT count(*)::int AS n FROM pois WHERE search_version < ${SEARCH_FOLD_VERSION}`, [])) as { rows: Array<{ n: number }> };
  let rows = Number(result.rows[0]!.n);
  if (!rows) {
    const sample = Math.min(100_000, Math.ceil(n / 10));
    await engine.raw(`UPDATE pois SET search_version = 0 WHERE id IN (SELECT id FROM pois ORDER BY id LIMIT ${sample})`, []);
    await engine.raw('VACUUM ANALYZE pois', []);
    rows = sample;
  }
  const log = { info: () => undefined, warn: (o: unknown, m: string) => console.log(m, o) } as unknown as FastifyBaseLogger;
  const t = performance.now();
  const done = await createSearchBackfill({ db: engine.database.db, log }).runToEnd();
  const seconds = (performance.now() - t) / 1000;
  await engine.raw('VACUUM ANALYZE pois', []);
  console.log(`  search back-fill (readings and folding): ${done.toLocaleString()} of ${rows.toLocaleString()} stale POIs in ${seconds.toFixed(1)} s, ${Math.round(done / seconds).toLocaleString()} POIs/s`);
}

/**
 * From the server's start to a ready in-memory index of the dataset, with the server
 * answering meanwhile (/healthz and a public-API-free console call are timed while it builds);
 * RSS before the app started and once the index is ready.
 */
async function measureIndexStartUp(app: FastifyInstance, base: string, datasetId: string, n: number, rssBefore: number, kind: 'postgres' | 'pglite', results: BenchResult[]) {
  const t = performance.now();
  const probes: number[] = [];
  while (!app.searchIndex!.isReady(datasetId)) {
    const p = performance.now();
    const res = await fetch(`${base}/healthz`);
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status} while the index was built`);
    await res.arrayBuffer();
    probes.push(performance.now() - p);
    if (performance.now() - t > 300_000) throw new Error('the search index was not ready within 300 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t) / 1000;
  const rssAfter = process.memoryUsage().rss;
  const state = app.searchIndex!.state();
  probes.sort((a, b) => a - b);
  const ok = kind !== 'postgres' || seconds <= 20;
  console.log(
    `  search index start-up: ${n.toLocaleString()} POIs ready in ${seconds.toFixed(1)} s ${kind === 'postgres' ? `(target ≤20 s ${ok ? 'PASS' : 'FAIL'})` : '(reported)'}; ` +
      // A small dataset is ready before the first probe.
      `/healthz answered ${probes.length} times meanwhile${probes.length ? `, p50 ${fmt(pct(probes, 50))} ms, max ${fmt(probes.at(-1)!)} ms` : ''}; ` +
      `RSS ${(rssBefore / 1048576).toFixed(0)} MB before the server, ${(rssAfter / 1048576).toFixed(0)} MB with the index (+${((rssAfter - rssBefore) / 1048576).toFixed(0)} MB, ` +
      `${Math.round((rssAfter - rssBefore) / n)} bytes per POI); the index's own estimate ${state.memoryMb} MB`,
  );
  results.push({ engine: kind, pois: n, label: 'search index start-up', http: { p50: seconds * 1000, p99: seconds * 1000 }, raw: { p50: rssBefore, p99: rssAfter }, ok });
}

async function startApp(database: Database): Promise<{ app: FastifyInstance; base: string }> {
  const config = loadConfig({
    NODE_ENV: 'production',
    APP_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'poi-bench-')),
    WEB_DIST_DIR: path.join(tmpdir(), 'poi-bench-no-console'),
    PORT: '0',
  });
  const app = await buildApp(config, { database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  return { app, base: `http://127.0.0.1:${address.port}` };
}

async function benchEngine(kind: 'postgres' | 'pglite', n: number, results: BenchResult[]) {
  console.log(`\n== ${kind}, ${n.toLocaleString()} POIs`);
  // Readings are computed as the server computes them, for the load as for its imports.
  await prepareSearchColumns();
  const engine = await openEngine(kind);
  try {
    const account = await seedAccount(engine.database);
    if (!account.reused) await load(engine, account.datasetId, n, account.query);
    if (process.env.BENCH_SKIP_BACKFILL !== '1') await measureBackfill(engine, n);
  // The load's and the back-fill's dirty pages written out now, not during the measurements (the
  // first run after a load had p99s 2–3× those of a later run on the same database).
  if (kind === 'postgres') await engine.raw('CHECKPOINT', []);
    const rssBefore = process.memoryUsage().rss;
    const { app, base } = await startApp(engine.database);
    try {
      if (app.searchIndex) await measureIndexStartUp(app, base, account.datasetId, n, rssBefore, kind, results);
      const headers = { authorization: `Bearer ${account.token}` };
      const probe = rawStatements(engine.database.db, { datasetIds: [account.datasetId], point: { ...POINTS[0]!, radius: 10_000 }, limit: 20, offset: 0 }, true);
      const planText = 'point' in probe ? await engine.explainPoint(probe.point) : '';
      console.log(`  radius plan uses the GiST KNN ordering: ${/Order By/.test(planText) && /pois_earth_idx/.test(planText) ? 'yes' : 'NO'}`);
      console.log(`  ${ITERATIONS} searches per figure at concurrency 1 (after ${WARMUP} warm-up)`);
      console.log(
        `  ${'query'.padEnd(34)} ${'HTTP p50'.padStart(9)} ${'HTTP p99'.padStart(9)} ${'SQL p50'.padStart(8)} ${'SQL p99'.padStart(8)} ${'ratio'.padStart(6)}  target  | SQL without the total: p50, p99 (cost of counting at p50)`,
      );
      for (const c of process.env.BENCH_SKIP_CASES === '1' ? [] : CASES) {
        const filterAt = (i: number): PoiSearchFilter => ({ datasetIds: [account.datasetId], limit: 20, offset: 0, ...c.filter(i) });
        const http = await timeIt(async (i) => {
          const f = filterAt(i);
          const q = new URLSearchParams({ dataset_id: account.datasetId, limit: '20' });
          if (f.keyword) q.set('keyword', f.keyword);
          if (f.point) {
            q.set('latitude', String(f.point.latitude));
            q.set('longitude', String(f.point.longitude));
            if (f.point.radius) q.set('radius', String(f.point.radius));
          }
          const res = await fetch(`${base}/console/v1/poi/search?${q.toString()}`, { headers });
          if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        });
        // The same statements the server runs, sent straight to the driver; then without the total.
        const raw = await timeIt(async (i) => engine.rawSearch(rawStatements(engine.database.db, filterAt(i), true), 20));
        const uncounted = await timeIt(async (i) => engine.rawSearch(rawStatements(engine.database.db, filterAt(i), false), 20));
        const ratio = http.p50 / raw.p50;
        const t = c.target ?? {};
        const checks = kind === 'postgres' ? [t.p50 === undefined || http.p50 <= t.p50, t.p99 === undefined || http.p99 <= t.p99, t.ratio === undefined || ratio <= t.ratio] : [true];
        const ok = checks.every(Boolean);
        const targetText = kind === 'postgres' ? [t.p50 && `p50≤${t.p50}`, t.p99 && `p99≤${t.p99}`, t.ratio && `≤${t.ratio}×`].filter(Boolean).join(' ') : '(reported)';
        const countCost = raw.p50 - uncounted.p50;
        // A keyword without a point: the same page newest first without the name ranks (what ranking costs).
        const f0 = filterAt(0);
        const unranked = f0.keyword && !f0.point ? await timeIt(async (i) => engine.rawSearch(rawStatements(engine.database.db, filterAt(i), true, false), 20)) : undefined;
        console.log(
          `  ${c.label.padEnd(34)} ${fmt(http.p50)}ms ${fmt(http.p99)}ms ${fmt(raw.p50)}ms ${fmt(raw.p99)}ms ${ratio.toFixed(2).padStart(5)}×  ${targetText} ${kind === 'postgres' ? (ok ? 'PASS' : 'FAIL') : ''}` +
            `  | ${fmt(uncounted.p50)}ms ${fmt(uncounted.p99)}ms (${countCost >= 0 ? '+' : ''}${countCost.toFixed(2)} ms)` +
            (unranked ? ` | unranked SQL ${fmt(unranked.p50)}ms ${fmt(unranked.p99)}ms (ranked/unranked p50 ${(raw.p50 / unranked.p50).toFixed(2)}×)` : ''),
        );
        results.push({ engine: kind, pois: n, label: c.label, http, raw, ok });
      }
      if (process.env.BENCH_SKIP_PUBLIC !== '1') {
        results.push(
          ...(await runPublicApiBench(
            { kind, app, base, consoleHeaders: headers, datasetId: account.datasetId, query: account.query, points: POINTS, cacheStats: () => app.searchCache.stats() },
            n,
          )),
        );
      }
      if (process.env.BENCH_SKIP_SUGGEST !== '1') {
        const apiKey = await seedConsumer(account.query);
        app.changes.changed('pricing');
        results.push(...(await runSuggestBench({ kind, app, base, datasetId: account.datasetId, apiKey, points: POINTS }, n)));
      }
      // The imports below rebuild the dataset's index after each one: stopped, so that what they
      // measure is the import (the index is measured above).
      await app.searchIndex?.stop();
      if (process.env.BENCH_SKIP_IMPORT !== '1') {
        // A consumer whose rate limit the probes of the public search during the import cannot reach.
        const apiKey = await seedConsumer(account.query);
        app.changes.changed('pricing');
        results.push(...(await runImportBench({ kind, base, headers, datasetId: account.datasetId, raw: engine.raw, database: engine.database, apiKey })));
      }
      if (process.env.BENCH_SKIP_LAYOUTS !== '1') {
        results.push(...(await runLayoutBench({ kind, base, headers, datasetId: account.datasetId, raw: engine.raw })));
      }
      if (process.env.BENCH_SKIP_ROUNDTRIP !== '1') {
        results.push(...(await runRoundTripBench({ kind, base, headers, datasetId: account.datasetId, raw: engine.raw, database: engine.database })));
      }
      if (process.env.BENCH_SKIP_DATASETS !== '1') {
        results.push(
          ...(await runDatasetListBench({ kind, base, headers, userId: account.userId, database: engine.database, query: account.query, raw: engine.raw, iterations: ITERATIONS })),
        );
      }
      if (kind === 'postgres' && process.env.BENCH_SKIP_ADMIN !== '1') {
        const pool = (engine.database.db as unknown as { $client: pg.Pool }).$client;
        results.push(...(await runAdminBench({ base, pool, iterations: ITERATIONS })));
      }
    } finally {
      await app.close();
    }
  } finally {
    await engine.close();
    await engine.dropDb?.();
  }
}

async function main() {
  const results: BenchResult[] = [];
  const usageOnly = process.env.BENCH_USAGE_SCALE_ONLY === '1';
  const indexOnly = process.env.BENCH_INDEX_SCALE_ONLY === '1';
  // The console's weight and Lighthouse scores first, before the database load heats the machine.
  const consoleChecks: ConsoleCheck[] = process.env.BENCH_SKIP_CONSOLE === '1' || usageOnly || indexOnly ? [] : await runConsoleBench();
  const only = process.env.BENCH_ENGINE;
  if ((!only || only === 'postgres') && !usageOnly && !indexOnly) await benchEngine('postgres', N_PG, results);
  if ((!only || only === 'pglite') && !usageOnly && !indexOnly) await benchEngine('pglite', N_PGLITE, results);
  if ((!only || only === 'postgres') && process.env.BENCH_SKIP_USAGE_SCALE !== '1' && !indexOnly) results.push(...(await runUsageScaleBench()));
  if ((!only || only === 'postgres') && process.env.BENCH_SKIP_INDEX_SCALE !== '1' && !usageOnly) results.push(...(await runIndexScaleBench()));
  const failed = [...results.filter((r) => !r.ok), ...consoleChecks.filter((c) => !c.ok).map((c) => ({ engine: 'console', label: c.label }))];
  console.log(`\npeak memory (max RSS of this process): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  console.log(failed.length ? `\n${failed.length} target(s) missed: ${failed.map((f) => `${f.engine} ${f.label}`).join('; ')}` : '\nall targets met');
  process.exitCode = failed.length ? 1 : 0;
}

await main();
