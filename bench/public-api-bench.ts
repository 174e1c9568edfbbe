import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { fmt, pct, type BenchResult } from './stats';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../apps/server/src/modules/api-keys/key-format';
import { newCustomerNumber } from '../apps/server/src/modules/billing-accounts/customer-number';
import { KNN_SESSION_OPTIONS } from '../apps/server/src/db/client';
import { buildSearchStatements } from '../apps/server/src/modules/pois/pois.repository';

type Query = (t: string, p?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>;

export interface PublicApiBenchOptions {
  kind: 'postgres' | 'pglite';
  app: FastifyInstance;
  base: string;
  /** The console session of the dataset's provider (the console search baseline). */
  consoleHeaders: Record<string, string>;
  datasetId: string;
  query: Query;
  points: Array<{ latitude: number; longitude: number }>;
  /** The public search cache's counters (hits, misses). */
  cacheStats(): { hits: number; misses: number };
}

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const LOAD_CONNECTIONS = 32;
/** The public search against raw SQL (the issue's "16 connections" comparison). */
const VS_SQL_CONNECTIONS = 16;
/** BENCH_PUBLIC_VS_SQL_ONLY=1: of the public part, only that comparison (see docs/performance.md). */
const VS_SQL_ONLY = process.env.BENCH_PUBLIC_VS_SQL_ONLY === '1';
/** The random points of the uncached loads: around Tokyo station, ±0.15°. */
const TOKYO = { latitude: 35.68, longitude: 139.76, spread: 0.3 };


/** A corporate-type user with an API key. */
async function seedKey(query: Query, label: string): Promise<{ key: string; userId: string }> {
  const key = generateApiKey();
  const user = (await query(`INSERT INTO users (email, account_type) VALUES ($1, 'corporate') RETURNING id`, [`bench-${label}-${Date.now()}@example.com`])).rows[0]!.id!;
  await query(`INSERT INTO api_keys (user_id, name, key_hash, prefix) VALUES ($1, 'bench', $2, $3)`, [user, hashApiKey(key), displayPrefixOf(key)]);
  return { key, userId: user };
}

/** A consumer with a key and a pricing version whose rate limit the load cannot reach. */
export async function seedConsumer(query: Query): Promise<string> {
  const { key } = await seedKey(query, 'consumer');
  await query(
    `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
     VALUES ('corporate', now() - interval '1 second', 0.05, 1000, 7000, 100000000, 50)`,
  );
  return key;
}

/** Public and console searches of the same queries, interleaved so that both see the same caches. */
async function latency(o: PublicApiBenchOptions, apiKey: string) {
  // A different point every time (a city point moved by a few metres): no answer comes from the
  // public search cache, so both sides run the same SQL (counting included).
  // The console's point is 5 m east of the public one: the same search would find the total the
  // other side just counted in the totals cache (both share one POI service), flattering whichever
  // runs second.
  const url = (i: number, path: string) => {
    const p = o.points[i % o.points.length]!;
    const jitter = Math.floor(i / o.points.length) * 0.0001;
    const east = path.startsWith('/console') ? 0.00005 : 0;
    return `${o.base}${path}?dataset_id=${o.datasetId}&latitude=${(p.latitude + jitter).toFixed(6)}&longitude=${(p.longitude + east).toFixed(6)}&radius=1000&limit=20`;
  };
  const fetchOk = async (u: string, headers: Record<string, string>) => {
    const res = await fetch(u, { headers });
    if (res.status !== 200) throw new Error(`${u} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const publicSamples: number[] = [];
  const consoleSamples: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    let t = performance.now();
    await fetchOk(url(i, '/api/v1/poi/search'), { 'x-api-key': apiKey });
    const pub = performance.now() - t;
    t = performance.now();
    await fetchOk(url(i, '/console/v1/poi/search'), o.consoleHeaders);
    const con = performance.now() - t;
    if (i >= WARMUP) {
      publicSamples.push(pub);
      consoleSamples.push(con);
    }
  }
  publicSamples.sort((a, b) => a - b);
  consoleSamples.sort((a, b) => a - b);
  return {
    public: { p50: pct(publicSamples, 50), p99: pct(publicSamples, 99) },
    console: { p50: pct(consoleSamples, 50), p99: pct(consoleSamples, 99) },
    searches: WARMUP + ITERATIONS,
  };
}

interface AutocannonSummary {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

/** Runs a bench worker script in its own process and parses the JSON it prints. */
export function runJsonWorker<T>(script: string, options: Record<string, unknown>): Promise<T> {
  const worker = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** autocannon in its own process (bench/load-worker.mjs). */
const runLoad = (options: Record<string, unknown>) => runJsonWorker<AutocannonSummary>('./load-worker.mjs', { connections: LOAD_CONNECTIONS, duration: LOAD_SECONDS, ...options });

/**
 * The budget check's cost: the same searches by a caller whose billing account has a budget with
 * a hard stop (limit far away, so every search runs the check and reserves its price) and by one
 * without, interleaved and alternating who goes first, so both see the same caches and load.
 */
async function budgetLatency(o: PublicApiBenchOptions) {
  const plain = await seedKey(o.query, 'no-budget');
  const budgeted = await seedKey(o.query, 'budget');
  const account = (
    await o.query(`INSERT INTO billing_accounts (kind, user_id, customer_number, addressee, honorific) VALUES ('individual', $1, $2, 'bench', '様') RETURNING id`, [
      budgeted.userId,
      newCustomerNumber(),
    ])
  ).rows[0]!.id!;
  await o.query(`INSERT INTO budgets (billing_account_id, monthly_limit_yen, hard_stop) VALUES ($1, 100000000, true)`, [account]);
  await o.app.budgetGuard.reloadAccount(account);
  // Points of their own (north of the other passes' and 5 m apart from each other): no answer comes
  // from the public search cache, so both run the same SQL.
  const url = (i: number, east: number) => {
    const p = o.points[i % o.points.length]!;
    const jitter = Math.floor(i / o.points.length) * 0.0001 + 0.00003;
    return `${o.base}/api/v1/poi/search?dataset_id=${o.datasetId}&latitude=${(p.latitude + jitter).toFixed(6)}&longitude=${(p.longitude + east).toFixed(6)}&radius=1000&limit=20`;
  };
  const timed = async (u: string, key: string) => {
    const t = performance.now();
    const res = await fetch(u, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`${u} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    return performance.now() - t;
  };
  const withBudget: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const b = () => timed(url(i, 0.00005), budgeted.key);
    const n = () => timed(url(i, 0), plain.key);
    let tb: number;
    let tn: number;
    if (i % 2) {
      tb = await b();
      tn = await n();
    } else {
      tn = await n();
      tb = await b();
    }
    if (i >= WARMUP) {
      withBudget.push(tb);
      without.push(tn);
    }
  }
  withBudget.sort((a, b) => a - b);
  without.sort((a, b) => a - b);
  return { budget: { p50: pct(withBudget, 50), p99: pct(withBudget, 99) }, plain: { p50: pct(without, 50), p99: pct(without, 99) } };
}

/**
 * The same public searches from the in-memory index and from PostgreSQL (the index
 * turned off for the request), interleaved and alternating who goes first, each at a point of
 * its own (north of the other passes'), so nothing comes from the answer cache.
 */
async function indexLatency(o: PublicApiBenchOptions, apiKey: string) {
  const index = o.app.searchIndex!;
  const url = (i: number, east: number) => {
    const p = o.points[i % o.points.length]!;
    const jitter = Math.floor(i / o.points.length) * 0.0001 + 0.00007;
    return `${o.base}/api/v1/poi/search?dataset_id=${o.datasetId}&latitude=${(p.latitude + jitter).toFixed(6)}&longitude=${(p.longitude + east).toFixed(6)}&radius=1000&limit=20`;
  };
  const timed = async (u: string, memory: boolean) => {
    index.setEnabled(memory);
    try {
      const t = performance.now();
      const res = await fetch(u, { headers: { 'x-api-key': apiKey } });
      if (res.status !== 200) throw new Error(`${u} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return performance.now() - t;
    } finally {
      index.setEnabled(true);
    }
  };
  const memory: number[] = [];
  const sqlPath: number[] = [];
  const servedBefore = index.state().served;
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const m = () => timed(url(i, 0.00005), true);
    const s = () => timed(url(i, 0), false);
    const [tm, ts] = i % 2 ? [await m(), await s()] : (([b, a]) => [a, b])([await s(), await m()]);
    if (i >= WARMUP) {
      memory.push(tm);
      sqlPath.push(ts);
    }
  }
  const served = index.state().served - servedBefore;
  memory.sort((a, b) => a - b);
  sqlPath.sort((a, b) => a - b);
  return { memory: { p50: pct(memory, 50), p99: pct(memory, 99) }, sql: { p50: pct(sqlPath, 50), p99: pct(sqlPath, 99) }, served, searches: WARMUP + ITERATIONS };
}

/**
 * CPU seconds used so far by this process (the server) and by the PostgreSQL processes on this
 * machine (/proc; undefined where it cannot be read): searches per CPU-second, the load
 * generator's own CPU left out, is the "per core" view of a run.
 */
function cpuSeconds(): { server: number; postgres: number | undefined } {
  const usage = process.cpuUsage();
  const server = (usage.user + usage.system) / 1e6;
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th,
        // then cutime and cstime, the CPU of children that ended: a backend that closes during a
        // run (the pool's idle timeout) leaves its time in the postmaster's cutime/cstime, not
        // out of the sum (without them a run once measured -5.2 s).
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      } catch {
        // The process ended meanwhile.
      }
    }
    return { server, postgres: ticks / 100 };
  } catch {
    return { server, postgres: undefined };
  }
}

/** Times of GET requests sent one at a time by a client in its own process. */
const runLatencyWorker = (options: { base: string; paths: string[]; headers: Record<string, string> }) => runJsonWorker<number[]>('./latency-worker.mjs', options);

/**
 * The index against the SQL path at concurrency 1 as a client in another process sees it (the
 * in-process figure above also counts the bench's own fetch on the server's thread): a different
 * point per search, index first then SQL path, each after its warm-up.
 */
async function externalIndexLatency(o: PublicApiBenchOptions, apiKey: string) {
  const index = o.app.searchIndex!;
  const paths = (offset: number) =>
    Array.from({ length: WARMUP + ITERATIONS }, (_, i) => {
      const p = o.points[i % o.points.length]!;
      const jitter = Math.floor(i / o.points.length) * 0.0001 + offset;
      return `/api/v1/poi/search?dataset_id=${o.datasetId}&latitude=${(p.latitude + jitter).toFixed(6)}&longitude=${(p.longitude - 0.00004).toFixed(6)}&radius=1000&limit=20`;
    });
  const measure = async (memory: boolean, offset: number) => {
    index.setEnabled(memory);
    const servedBefore = index.state().served;
    try {
      const times = (await runLatencyWorker({ base: o.base, paths: paths(offset), headers: { 'x-api-key': apiKey } })).slice(WARMUP).sort((a, b) => a - b);
      return { p50: pct(times, 50), p99: pct(times, 99), served: index.state().served - servedBefore };
    } finally {
      index.setEnabled(true);
    }
  };
  const memory = await measure(true, 0.00003);
  const sqlPath = await measure(false, 0.00006);
  return { memory, sql: sqlPath };
}

const meteredCount = async (query: Query) => Number((await query(`SELECT count(*)::int AS n FROM usage_events`)).rows[0]!.n);

/**
 * Raw SQL at VS_SQL_CONNECTIONS: as many clients of a pg Pool of their own (the knnDb connections'
 * settings), each sending the prepared KNN statement the public search's PostgreSQL path runs for
 * a point it has not counted yet (radius 1 km, 20 POIs, the total's window), back to back, every
 * point a different random Tokyo point. No HTTP, no key, no metering: what the database alone
 * serves. `run(seconds)` answers the statements done and failed in that time.
 */
async function rawKnnClients(o: PublicApiBenchOptions) {
  const { database } = o.app;
  const filter = (latitude: number, longitude: number) => ({ datasetIds: [o.datasetId], point: { latitude, longitude, radius: 1000 }, limit: 20, offset: 0 });
  const statementOf = (latitude: number, longitude: number) => {
    const s = buildSearchStatements(database.db, filter(latitude, longitude), { count: true });
    if (!('point' in s) || !s.point) throw new Error('a radius search built no point statement');
    return s.point.toSQL();
  };
  // The statement's values for a point without drizzle on the clients' thread: the slots that
  // change between two points must be exactly the latitude's and the longitude's.
  const a = statementOf(35.111111, 139.222222);
  const b = statementOf(35.333333, 139.444444);
  const latSlots: number[] = [];
  const lonSlots: number[] = [];
  a.params.forEach((v, i) => {
    if (v === b.params[i]) return;
    if (v === 35.111111 && b.params[i] === 35.333333) latSlots.push(i);
    else if (v === 139.222222 && b.params[i] === 139.444444) lonSlots.push(i);
    else throw new Error(`the point statement's value ${i} depends on the point in another way (${String(v)})`);
  });
  if (!latSlots.length || !lonSlots.length || a.sql !== b.sql) throw new Error('the point statement does not take the point as values');
  const name = `bench_raw_knn_${createHash('sha1').update(a.sql).digest('hex').slice(0, 16)}`;
  const pool = new pg.Pool({ connectionString: database.url, max: VS_SQL_CONNECTIONS, options: KNN_SESSION_OPTIONS });
  const one = async (client: pg.PoolClient) => {
    const values = [...a.params];
    const latitude = TOKYO.latitude + (Math.random() - 0.5) * TOKYO.spread;
    const longitude = TOKYO.longitude + (Math.random() - 0.5) * TOKYO.spread;
    for (const i of latSlots) values[i] = Number(latitude.toFixed(6));
    for (const i of lonSlots) values[i] = Number(longitude.toFixed(6));
    await client.query({ name, text: a.sql, values });
  };
  // Every connection opened and its statement prepared before any clock starts.
  const clients = await Promise.all(Array.from({ length: VS_SQL_CONNECTIONS }, () => pool.connect()));
  await Promise.all(clients.map(one));
  return {
    async run(seconds: number): Promise<{ done: number; errors: number }> {
      let done = 0;
      let errors = 0;
      const end = performance.now() + seconds * 1000;
      await Promise.all(
        clients.map(async (client) => {
          while (performance.now() < end) {
            try {
              await one(client);
              done += 1;
            } catch {
              errors += 1;
            }
          }
        }),
      );
      return { done, errors };
    },
    async close() {
      for (const client of clients) client.release();
      await pool.end();
    },
  };
}

/**
 * BENCH_CPU_PROFILE=<file>: CPU profiles of this process (the server) while the public API is
 * under the comparison's load, one per round (<file>.1, <file>.2 …), for Chrome DevTools or
 * speedscope (docs/performance.md).
 */
async function profiled<T>(round: number, work: () => Promise<T>): Promise<T> {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${file}.${round}`, JSON.stringify(profile));
    session.disconnect();
  }
}

/** Rounds of the comparison: raw SQL and the API take turns, so a change in the shared machine's load falls on both. */
const VS_SQL_ROUNDS = 4;

/**
 * The issue's comparison: the public API (key, limits, budget, metering, HTTP; every point a
 * different one, so no answer comes from the cache; the in-memory index on) under autocannon with
 * VS_SQL_CONNECTIONS connections, against the same point searches as raw SQL on the same number
 * of connections: VS_SQL_ROUNDS rounds of LOAD_SECONDS / VS_SQL_ROUNDS each, taking turns (which
 * goes first alternates). Target: the API serves ≥ 3× raw SQL's searches per second, with 0
 * errors and metered = 200s answered.
 */
async function publicVsRawSql(o: PublicApiBenchOptions, apiKey: string, pois: number): Promise<BenchResult[]> {
  const strict = o.kind === 'postgres';
  const label = `public search vs raw SQL, ${VS_SQL_CONNECTIONS} connections`;
  if (o.kind !== 'postgres' || !o.app.database.url) {
    console.log(`  ${label}: not applicable on PGlite (one in-process connection, no concurrent SQL to compare with)`);
    return [];
  }
  const index = o.app.searchIndex;
  if (!index?.isReady(o.datasetId)) {
    console.log(`  ${label}: the in-memory index is not ready, not measured  FAIL`);
    return [{ engine: o.kind, pois, label, http: { p50: 0, p99: 0 }, raw: { p50: 0, p99: 0 }, ok: false }];
  }
  const rounds = LOAD_SECONDS >= VS_SQL_ROUNDS * 2 ? VS_SQL_ROUNDS : 1;
  const seconds = LOAD_SECONDS / rounds;
  const rawClients = await rawKnnClients(o);

  let served200 = 0;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/api/v1/')) res.on('finish', () => res.statusCode === 200 && (served200 += 1));
  };
  o.app.server.on('request', onRequest);
  try {
    await o.app.usageMeter.flush();
    const before = await meteredCount(o.query);
    const cacheBefore = o.cacheStats();
    const servedBefore = index.state().served;
    const raw = { done: 0, errors: 0 };
    const api = { ok: 0, non2xx: 0, errors: 0, timeouts: 0, p50: [] as number[], p99: [] as number[] };
    let serverCpu = 0;
    let postgresCpu: number | undefined = 0;
    const rawRound = async () => {
      const r = await rawClients.run(seconds);
      raw.done += r.done;
      raw.errors += r.errors;
    };
    const apiRound = async (round: number) => {
      const cpuBefore = cpuSeconds();
      const load = await profiled(round, () =>
        runLoad({
          url: o.base,
          headers: { 'x-api-key': apiKey },
          connections: VS_SQL_CONNECTIONS,
          duration: seconds,
          randomPoint: { base: `/api/v1/poi/search?dataset_id=${o.datasetId}&radius=1000&limit=20`, ...TOKYO },
        }),
      );
      const cpuAfter = cpuSeconds();
      serverCpu += cpuAfter.server - cpuBefore.server;
      postgresCpu = postgresCpu === undefined || cpuAfter.postgres === undefined || cpuBefore.postgres === undefined ? undefined : postgresCpu + cpuAfter.postgres - cpuBefore.postgres;
      api.ok += load['2xx'];
      api.non2xx += load.non2xx;
      api.errors += load.errors;
      api.timeouts += load.timeouts;
      api.p50.push(load.latency.p50);
      api.p99.push(load.latency.p99);
    };
    for (let round = 1; round <= rounds; round++) {
      if (round % 2) {
        await rawRound();
        await apiRound(round);
      } else {
        await apiRound(round);
        await rawRound();
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    await o.app.usageMeter.flush();
    const metered = (await meteredCount(o.query)) - before;
    const hits = o.cacheStats().hits - cacheBefore.hits;
    const fromIndex = index.state().served - servedBefore;
    const rawRate = raw.done / LOAD_SECONDS;
    const rate = api.ok / LOAD_SECONDS;
    const gain = rate / rawRate;
    const clean = api.errors === 0 && api.timeouts === 0 && api.non2xx === 0 && raw.errors === 0 && metered === served200;
    const ok = !strict || (gain >= 3 && clean);
    console.log(
      `  ${label}: radius 1 km, 20 POIs, a different random Tokyo point per search; ${rounds} rounds of ${seconds} s each, taking turns\n` +
        `    raw SQL: ${VS_SQL_CONNECTIONS} clients of a pg Pool, the public search's prepared KNN statement (the total's window), no HTTP: ${rawRate.toFixed(0)} statements/s, errors ${raw.errors}\n` +
        `    public API: autocannon ${VS_SQL_CONNECTIONS} connections, in-memory index: ${rate.toFixed(0)} searches/s (per round p50 ${api.p50.join('/')} ms, p99 ${api.p99.join('/')} ms), ` +
        `${fromIndex} answered from memory, cache hits ${hits}; server CPU ${((serverCpu / Math.max(api.ok, 1)) * 1e6).toFixed(0)} µs per search` +
        // Every postgres process on the machine: the usage writes, and whatever else runs there.
        `${postgresCpu === undefined ? '' : `, PostgreSQL CPU meanwhile ${postgresCpu.toFixed(1)} s`}\n` +
        `    200s sent ${served200}, non-2xx ${api.non2xx}, errors ${api.errors}, timeouts ${api.timeouts}; metered ${metered} ${metered === served200 ? '= 200s sent' : '≠ 200s sent'}\n` +
        `    public / raw SQL = ${gain.toFixed(2)}×  ${strict ? `target ≥3×, 0 errors, metered = 200s ${ok ? 'PASS' : 'FAIL'}` : '(reported)'}` +
        (process.env.BENCH_CPU_PROFILE ? `\n    CPU profiles of the server under the API's load: ${process.env.BENCH_CPU_PROFILE}.1 … .${rounds}` : ''),
    );
    return [{ engine: o.kind, pois, label, http: { p50: rate, p99: rate }, raw: { p50: rawRate, p99: rawRate }, ok }];
  } finally {
    o.app.server.off('request', onRequest);
    await rawClients.close();
  }
}

export async function runPublicApiBench(o: PublicApiBenchOptions, pois: number): Promise<BenchResult[]> {
  const apiKey = await seedConsumer(o.query);
  o.app.changes.changed('pricing');
  const strict = o.kind === 'postgres';
  const results: BenchResult[] = [];
  if (VS_SQL_ONLY) return publicVsRawSql(o, apiKey, pois);

  const lat = await latency(o, apiKey);
  const ratio = lat.public.p50 / lat.console.p50;
  const latencyOk = !strict || (lat.public.p50 <= 5 && ratio <= 1.3);
  console.log(`\n  public search API (key auth, rate limit, metering) against the console search, radius 1 km, interleaved, no repeats`);
  console.log(`  ${'query'.padEnd(34)} ${'API p50'.padStart(9)} ${'API p99'.padStart(9)} ${'con p50'.padStart(8)} ${'con p99'.padStart(8)} ${'ratio'.padStart(6)}  target`);
  console.log(
    `  ${'public radius 1 km'.padEnd(34)} ${fmt(lat.public.p50)}ms ${fmt(lat.public.p99)}ms ${fmt(lat.console.p50)}ms ${fmt(lat.console.p99)}ms ${ratio.toFixed(2).padStart(5)}×  ${strict ? `p50≤5 ≤1.3× ${latencyOk ? 'PASS' : 'FAIL'}` : '(reported)'}`,
  );
  results.push({ engine: o.kind, pois, label: 'public search p50 vs console', http: lat.public, raw: lat.console, ok: latencyOk });

  const budget = await budgetLatency(o);
  const budgetRatio = budget.budget.p50 / budget.plain.p50;
  const budgetOk = !strict || budgetRatio <= 1.1;
  console.log(
    `  ${'public, caller with a budget'.padEnd(34)} ${fmt(budget.budget.p50)}ms ${fmt(budget.budget.p99)}ms ${fmt(budget.plain.p50)}ms ${fmt(budget.plain.p99)}ms ${budgetRatio.toFixed(2).padStart(5)}×  ` +
      `${strict ? `≤1.1× of the same search without a budget ${budgetOk ? 'PASS' : 'FAIL'}` : '(reported)'}  (columns: with budget p50/p99, without p50/p99)`,
  );
  results.push({ engine: o.kind, pois, label: 'public search p50 with a budget vs without', http: budget.budget, raw: budget.plain, ok: budgetOk });
  if (o.app.searchIndex) {
    const ix = await indexLatency(o, apiKey);
    const ixRatio = ix.memory.p50 / ix.sql.p50;
    const ixOk = !strict || (ix.memory.p50 <= 1 && ixRatio <= 0.5 && ix.served === ix.searches);
    console.log(
      `  ${'public, in-memory index vs SQL'.padEnd(34)} ${fmt(ix.memory.p50)}ms ${fmt(ix.memory.p99)}ms ${fmt(ix.sql.p50)}ms ${fmt(ix.sql.p99)}ms ${ixRatio.toFixed(2).padStart(5)}×  ` +
        `${strict ? `p50≤1 ≤0.5× of the SQL path ${ixOk ? 'PASS' : 'FAIL'}` : '(reported)'}  (columns: index p50/p99, SQL path p50/p99; ${ix.served} of ${ix.searches} answered from memory)`,
    );
    results.push({ engine: o.kind, pois, label: 'public search p50, in-memory index vs SQL path', http: ix.memory, raw: ix.sql, ok: ixOk });
    const ext = await externalIndexLatency(o, apiKey);
    const extRatio = ext.memory.p50 / ext.sql.p50;
    const extOk = !strict || (ext.memory.p50 <= 1 && extRatio <= 0.5 && ext.memory.served === WARMUP + ITERATIONS);
    console.log(
      `  ${'same, client in its own process'.padEnd(34)} ${fmt(ext.memory.p50)}ms ${fmt(ext.memory.p99)}ms ${fmt(ext.sql.p50)}ms ${fmt(ext.sql.p99)}ms ${extRatio.toFixed(2).padStart(5)}×  ` +
        `${strict ? `p50≤1 ≤0.5× of the SQL path ${extOk ? 'PASS' : 'FAIL'}` : '(reported)'}  (${ext.memory.served} of ${WARMUP + ITERATIONS} answered from memory, ${ext.sql.served} with the index off)`,
    );
    results.push({ engine: o.kind, pois, label: 'public search p50, in-memory index vs SQL path, external client', http: ext.memory, raw: ext.sql, ok: extOk });
  }
  if (process.env.BENCH_SKIP_PUBLIC_LOAD === '1') return results;

  // The 200s the server actually sent, counted on its socket: autocannon does not count the
  // answers still in flight when its time is up, but they are billed.
  let served200 = 0;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/api/v1/')) res.on('finish', () => res.statusCode === 200 && (served200 += 1));
  };
  o.app.server.on('request', onRequest);
  const search = `/api/v1/poi/search?dataset_id=${o.datasetId}&radius=1000&limit=20`;
  const runs = [
    {
      label: 'public search sustained load (64 city points)',
      note: 'radius 1 km around 64 points in turn, the search cache serving repeats',
      options: { paths: o.points.map((p) => `${search}&latitude=${p.latitude}&longitude=${p.longitude}`) },
      target: true,
    },
    {
      label: 'public search load, every point different',
      note: 'radius 1 km around a random Tokyo point per request, nothing cached, in-memory index',
      options: { randomPoint: { base: search, ...TOKYO } },
      target: false,
    },
    ...(o.app.searchIndex
      ? [
          {
            label: 'public search load, every point different, SQL path',
            note: 'the same with the in-memory index off (every search a PostgreSQL KNN query)',
            options: { randomPoint: { base: search, ...TOKYO } },
            target: false,
            sqlPath: true,
          },
        ]
      : []),
  ];
  const throughputs = new Map<string, number>();
  const perCpu = new Map<string, number>();
  for (const run of runs) {
    await o.app.usageMeter.flush();
    const before = await meteredCount(o.query);
    const cacheBefore = o.cacheStats();
    served200 = 0;
    const sqlPath = 'sqlPath' in run && run.sqlPath;
    if (sqlPath) o.app.searchIndex?.setEnabled(false);
    const cpuBefore = cpuSeconds();
    const load = await runLoad({ url: o.base, headers: { 'x-api-key': apiKey }, ...run.options }).finally(() => o.app.searchIndex?.setEnabled(true));
    const cpuAfter = cpuSeconds();
    await new Promise((r) => setTimeout(r, 200));
    await o.app.usageMeter.flush();
    const metered = (await meteredCount(o.query)) - before;
    const cache = o.cacheStats();
    const hits = cache.hits - cacheBefore.hits;
    const lookups = hits + cache.misses - cacheBefore.misses;
    const throughput = load['2xx'] / LOAD_SECONDS;
    const serverCpu = cpuAfter.server - cpuBefore.server;
    // PGlite runs inside the server process: its CPU is the server's.
    const postgresCpu =
      o.kind === 'pglite' ? 0 : cpuAfter.postgres !== undefined && cpuBefore.postgres !== undefined ? cpuAfter.postgres - cpuBefore.postgres : undefined;
    const perCpuSecond = postgresCpu === undefined ? undefined : load['2xx'] / (serverCpu + postgresCpu);
    const clean = load.errors === 0 && load.timeouts === 0 && load.non2xx === 0 && metered === served200;
    const ok = !strict || !run.target || (throughput >= 1000 && clean);
    console.log(
      `  ${run.label}: ${LOAD_CONNECTIONS} connections × ${LOAD_SECONDS} s, ${run.note}\n` +
        `    ${throughput.toFixed(0)} searches/s (p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms), cache hits ${lookups ? ((hits / lookups) * 100).toFixed(1) : '0.0'}%; ` +
        `200s sent ${served200}, non-2xx ${load.non2xx}, errors ${load.errors}, timeouts ${load.timeouts}; metered ${metered} ${metered === served200 ? '= 200s sent' : '≠ 200s sent'}` +
        `  ${strict && run.target ? `target ≥1000/s, 0 errors, metered = 200s ${ok ? 'PASS' : 'FAIL'}` : '(reported)'}\n` +
        `    CPU: server ${serverCpu.toFixed(1)} s, ${o.kind === 'pglite' ? 'PGlite inside it' : `PostgreSQL ${postgresCpu === undefined ? 'unknown' : `${postgresCpu.toFixed(1)} s`}`}` +
        `${perCpuSecond === undefined ? '' : ` → ${perCpuSecond.toFixed(0)} searches per CPU-second (the load generator's CPU not counted)`}`,
    );
    if (perCpuSecond !== undefined) perCpu.set(run.label, perCpuSecond);
    results.push({ engine: o.kind, pois, label: run.label, http: { p50: load.latency.p50, p99: load.latency.p99 }, raw: { p50: throughput, p99: metered }, ok: ok && (!strict || clean) });
    throughputs.set(run.label, throughput);
  }
  const memoryRate = throughputs.get('public search load, every point different');
  const sqlRate = throughputs.get('public search load, every point different, SQL path');
  if (memoryRate !== undefined && sqlRate !== undefined) {
    const gain = memoryRate / sqlRate;
    const ok = !strict || gain >= 5;
    console.log(
      `  in-memory index against the SQL path under load (every point different): ${memoryRate.toFixed(0)} / ${sqlRate.toFixed(0)} searches/s = ${gain.toFixed(2)}×  ${strict ? `target ≥5× ${ok ? 'PASS' : 'FAIL'}` : '(reported)'}`,
    );
    results.push({ engine: o.kind, pois, label: 'public search load, index vs SQL path', http: { p50: memoryRate, p99: memoryRate }, raw: { p50: sqlRate, p99: sqlRate }, ok });
    const memoryPerCpu = perCpu.get('public search load, every point different');
    const sqlPerCpu = perCpu.get('public search load, every point different, SQL path');
    if (memoryPerCpu !== undefined && sqlPerCpu !== undefined) {
      console.log(`  the same per CPU-second (server and PostgreSQL): ${memoryPerCpu.toFixed(0)} / ${sqlPerCpu.toFixed(0)} = ${(memoryPerCpu / sqlPerCpu).toFixed(2)}×  (reported)`);
    }
  }
  o.app.server.off('request', onRequest);
  results.push(...(await publicVsRawSql(o, apiKey, pois)));
  return results;
}
