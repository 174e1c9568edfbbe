/**
 * The dataset lists at BENCH_DATASETS datasets (default 10,000): the marketplace and
 * /datasets call GET /console/v1/datasets/public (filters, keyword, sort, deep pages) over HTTP,
 * next to the same two statements (page and exact count, in parallel as the server sends them)
 * straight on the driver. Target on PostgreSQL: p95 ≤ 50 ms for every case.
 * Skipped with BENCH_SKIP_DATASETS=1.
 */
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { DatasetFilter, DatasetSort } from '@poi/shared/schemas/datasets';
import type { Database } from '../apps/server/src/db/client';
import {
  buildDatasetListQueries,
  DATASET_SEARCH_VERSION,
  datasetSearchColumns,
  PREFER_INDEX_SQL,
  type DatasetListFilter,
} from '../apps/server/src/modules/datasets/datasets.repository';
import { foldKeywordWords } from '@poi/shared/search-fold';
import { CITIES, prng } from './generate';
import { fmt, pct, type BenchResult } from './stats';

const N_DATASETS = Number(process.env.BENCH_DATASETS ?? 10_000);
const P95_TARGET_MS = 50;
const WARMUP = 30;
const PAGE = 24;
/** Name prefix of the generated datasets: a kept database (BENCH_REUSE_DB) is topped up, not refilled. */
const MARK = 'ベンチ一覧';

type Query = (text: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>;

export interface DatasetListBenchContext {
  kind: 'postgres' | 'pglite';
  base: string;
  headers: Record<string, string>;
  /** The session's user: a tenth of the datasets are theirs (the /datasets "managed" case). */
  userId: string;
  database: Database;
  query: Query;
  /** The same statement text and parameters sent straight to the driver. */
  raw: (sqlText: string, params: unknown[]) => Promise<unknown>;
  iterations: number;
}

const TOPICS = ['ラーメン店', 'カフェ', '駅と空港', '公園', '病院', 'ホテル', 'コンビニ', '美術館', '温泉', '書店', 'EV充電スタンド', 'Wi-Fiスポット'];
const ADJECTIVES = ['最新の', '詳細な', '観光向けの', '全域の', '厳選した', '毎月更新の'];
const PRICES = ['0', '0', '0.10', '0.50', '1.00', '1.50', '2.00', '5.00', '10.00', '100.00'];

/** Inserts the generated datasets (deterministic), with the search columns the server computes. */
async function seed(ctx: DatasetListBenchContext): Promise<number> {
  const have = Number((await ctx.query(`SELECT count(*)::int AS n FROM datasets WHERE name LIKE $1`, [`${MARK}%`])).rows[0]!.n);
  const rand = prng(1717);
  const t = performance.now();
  const BATCH = 1000;
  for (let start = have; start < N_DATASETS; start += BATCH) {
    const cols: Record<string, unknown[]> = { name: [], description: [], price: [], platform: [], createdBy: [], createdAt: [], searchText: [], grams: [] };
    for (let i = start; i < Math.min(N_DATASETS, start + BATCH); i++) {
      const city = CITIES[i % CITIES.length]!;
      const topic = TOPICS[Math.floor(rand() * TOPICS.length)]!;
      const name = `${MARK} ${city.name}の${topic} ${String(i).padStart(5, '0')}`;
      const description = i % 4 === 0 ? null : `${city.pref}${city.name}周辺の${ADJECTIVES[i % ADJECTIVES.length]}${topic}の位置情報です。営業時間・電話番号・カテゴリを含みます。`;
      const search = datasetSearchColumns(name, description);
      cols.name!.push(name);
      cols.description!.push(description);
      cols.price!.push(PRICES[Math.floor(rand() * PRICES.length)]!);
      cols.platform!.push(i % 5 === 0);
      cols.createdBy!.push(i % 10 === 0 ? ctx.userId : null);
      // Spread over three years; many share a second, so the id tie-breaker matters.
      cols.createdAt!.push(new Date(Date.UTC(2024, 0, 1) + Math.floor(rand() * 3 * 365 * 86_400) * 1000).toISOString());
      cols.searchText!.push(search.searchText);
      cols.grams!.push(`{${search.searchGrams.map((b) => `"${b.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`);
    }
    await ctx.query(
      `INSERT INTO datasets (name, description, price_per_search, is_platform_dataset, created_by, assigned_user_id, created_at, search_text, search_grams, search_version)
       SELECT u.name, u.description, u.price, u.platform, u.created_by, u.created_by, u.created_at, u.search_text, u.grams::text[], ${DATASET_SEARCH_VERSION}
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::boolean[], $5::uuid[], $6::timestamptz[], $7::text[], $8::text[])
         AS u(name, description, price, platform, created_by, created_at, search_text, grams)`,
      [cols.name, cols.description, cols.price, cols.platform, cols.createdBy, cols.createdAt, cols.searchText, cols.grams],
    );
  }
  // As autovacuum leaves a table that is rarely written: the visibility map lets deep pages be
  // found by index-only scans.
  await ctx.query('VACUUM ANALYZE datasets');
  const total = Number((await ctx.query('SELECT count(*)::int AS n FROM datasets')).rows[0]!.n);
  if (have < N_DATASETS) console.log(`  inserted ${(N_DATASETS - have).toLocaleString()} datasets in ${((performance.now() - t) / 1000).toFixed(1)} s (${total.toLocaleString()} in the table)`);
  return total;
}

interface ListCase {
  label: string;
  /** The list call's parameters for the i-th request (deep pages and keywords vary with i). */
  params: (i: number, total: number) => { type: DatasetFilter; sort: DatasetSort; keyword?: string; managed?: boolean; offset: number };
  keyword?: boolean;
}

const KEYWORDS_3 = ['ラーメン', 'カフェ', '温泉', '美術館', 'ｗｉ－ｆｉ', 'ホテル'];
const KEYWORDS_2 = ['東京', '大阪', '札幌', '公園', '書店', '病院'];
/** Somewhere in the last tenth of `n` rows, on a page boundary. */
const deep = (i: number, n: number) => Math.max(0, Math.floor((n * (0.9 + ((i * 37) % 100) / 1000)) / PAGE) * PAGE);

const CASES: ListCase[] = [
  { label: 'all, newest, page 1', params: () => ({ type: 'all', sort: 'newest', offset: 0 }) },
  { label: 'all, price high→low, deep page', params: (i, total) => ({ type: 'all', sort: 'price_desc', offset: deep(i, total) }) },
  { label: 'paid, price low→high, deep page', params: (i, total) => ({ type: 'paid', sort: 'price_asc', offset: deep(i, total * 0.8) }) },
  { label: 'provider, name, deep page', params: (i, total) => ({ type: 'provider', sort: 'name', offset: deep(i, total * 0.8) }) },
  { label: 'free, newest, deep page', params: (i, total) => ({ type: 'free', sort: 'newest', offset: deep(i, total * 0.2) }) },
  { label: 'managed (/datasets), name, deep page', params: (i, total) => ({ type: 'all', sort: 'name', managed: true, offset: deep(i, total * 0.1) }) },
  { label: 'keyword 3+ chars, newest', keyword: true, params: (i) => ({ type: 'all', sort: 'newest', keyword: KEYWORDS_3[i % KEYWORDS_3.length], offset: 0 }) },
  { label: 'keyword 2 chars, name, page 3', keyword: true, params: (i) => ({ type: 'all', sort: 'name', keyword: KEYWORDS_2[i % KEYWORDS_2.length], offset: 2 * PAGE }) },
  { label: 'keyword 2 words + paid, price', keyword: true, params: (i) => ({ type: 'paid', sort: 'price_asc', keyword: `${KEYWORDS_2[i % KEYWORDS_2.length]} ${KEYWORDS_3[i % KEYWORDS_3.length]}`, offset: 0 }) },
  { label: 'keyword 1 char (駅), newest', keyword: true, params: () => ({ type: 'all', sort: 'newest', keyword: '駅', offset: 0 }) },
];

type Statement = { sql: string; params: unknown[] };

/** BEGIN, the statements in order, COMMIT on one connection: how the server runs a keyword list. */
async function rawTransaction(ctx: DatasetListBenchContext, statements: Statement[]): Promise<void> {
  if (ctx.kind === 'pglite') {
    const client = (ctx.database.db as unknown as { $client: PGlite }).$client;
    await client.transaction(async (tx) => {
      for (const s of statements) await tx.query(s.sql, s.params);
    });
    return;
  }
  const client = await (ctx.database.db as unknown as { $client: pg.Pool }).$client.connect();
  try {
    await client.query('BEGIN');
    for (const s of statements) await client.query(s.sql, s.params);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

async function measure(iterations: number, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: pct(samples, 50), p95: pct(samples, 95), p99: pct(samples, 99) };
}

export async function runDatasetListBench(ctx: DatasetListBenchContext): Promise<BenchResult[]> {
  console.log(`\n  -- dataset lists, ${N_DATASETS.toLocaleString()} generated datasets`);
  const total = await seed(ctx);
  const results: BenchResult[] = [];
  console.log(`  ${ctx.iterations} requests per figure at concurrency 1 (after ${WARMUP} warm-up), ${PAGE} per page`);
  console.log(`  ${'query'.padEnd(38)} ${'HTTP p50'.padStart(9)} ${'HTTP p95'.padStart(9)} ${'SQL p50'.padStart(8)} ${'SQL p95'.padStart(8)} ${'p95 ratio'.padStart(9)}  target`);
  for (const c of CASES) {
    let totalSeen = -1;
    const http = await measure(ctx.iterations, async (i) => {
      const p = c.params(i, total);
      const q = new URLSearchParams({ type: p.type, sort: p.sort, limit: String(PAGE), offset: String(p.offset) });
      if (p.keyword) q.set('keyword', p.keyword);
      if (p.managed) q.set('managed', 'true');
      const res = await fetch(`${ctx.base}/console/v1/datasets/public?${q.toString()}`, { headers: ctx.headers });
      if (res.status !== 200) throw new Error(`dataset list answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: { total: number } };
      if (i === 0) totalSeen = body.data.total;
    });
    const raw = await measure(ctx.iterations, async (i) => {
      const p = c.params(i, total);
      const filter: DatasetListFilter = { type: p.type, sort: p.sort, keyword: p.keyword, managedBy: p.managed ? ctx.userId : undefined, limit: PAGE, offset: p.offset };
      const q = buildDatasetListQueries(ctx.database.db, filter);
      const page = q.page.toSQL();
      const count = q.count.toSQL();
      if (p.keyword && foldKeywordWords(p.keyword).length) {
        await rawTransaction(ctx, [{ sql: PREFER_INDEX_SQL, params: [] }, page, count]);
      } else {
        await Promise.all([ctx.raw(page.sql, page.params), ctx.raw(count.sql, count.params)]);
      }
    });
    const ratio = http.p95 / raw.p95;
    const ok = ctx.kind !== 'postgres' || http.p95 <= P95_TARGET_MS;
    const target = ctx.kind === 'postgres' ? `p95≤${P95_TARGET_MS} ${ok ? 'PASS' : 'FAIL'}` : '(reported)';
    console.log(
      `  ${`${c.label} [${totalSeen.toLocaleString()}]`.padEnd(38)} ${fmt(http.p50)}ms ${fmt(http.p95)}ms ${fmt(raw.p50)}ms ${fmt(raw.p95)}ms ${ratio.toFixed(2).padStart(8)}×  ${target}`,
    );
    results.push({ engine: ctx.kind, pois: total, label: `dataset list: ${c.label}`, http: { p50: http.p50, p99: http.p99 }, raw: { p50: raw.p50, p99: raw.p99 }, ok });
  }
  return results;
}
