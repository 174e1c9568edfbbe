/**
 * Admin lists and the admin dashboard on 100,000 users and 1,000,000 usage events
 * (bench/admin-seed.ts), over HTTP as the console calls them: p50 and p95 per call, target
 * p95 ≤ 100 ms on PostgreSQL. Each figure varies its filters and pages across the requests, so it
 * is not one cached plan for one answer. The seed goes into the bench's database once (a kept
 * database, BENCH_REUSE_DB, is not seeded twice).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sha256Hex } from '../apps/server/src/lib/crypto';
import { ADMIN_SEED_DEFAULT, SEED_ADMIN_EMAIL, seedAdminData } from './admin-seed';
import { fmt, pct, type BenchResult } from './stats';
import type pg from 'pg';

const P95_TARGET_MS = 100;
const WARMUP = 10;

export interface AdminBenchContext {
  base: string;
  pool: pg.Pool;
  iterations: number;
}

interface Case {
  label: string;
  /** The request path and query of the i-th request. */
  path: (i: number, seed: SeedFacts) => string;
}

interface SeedFacts {
  userIds: string[];
  providerIds: string[];
  corporateIds: string[];
  months: string[];
}

const ACCOUNT_TYPES = ['trial', 'individual', 'corporate', 'data_provider'];
const SORTS = ['created_at', 'email', 'display_name', 'last_login_at'];
const NAMES = ['佐藤', '鈴木', '高橋', '田中', 'user12', 'example7', '利用者99'];

const CASES: Case[] = [
  { label: 'users: first page', path: () => '/console/v1/admin/users?limit=50' },
  {
    label: 'users: filters, sort, deep pages',
    path: (i) =>
      `/console/v1/admin/users?limit=50&account_type=${ACCOUNT_TYPES[i % 4]}&sort=${SORTS[i % 4]}&order=${i % 2 ? 'asc' : 'desc'}&offset=${(i * 137) % 5000}`,
  },
  { label: 'users: search e-mail/name', path: (i) => `/console/v1/admin/users?limit=50&q=${encodeURIComponent(NAMES[i % NAMES.length]!)}` },
  {
    label: 'users: status + created range + payment',
    path: (i) => `/console/v1/admin/users?limit=50&status=${i % 2 ? 'active' : 'suspended'}&created_from=2025-${String(1 + (i % 12)).padStart(2, '0')}-01&payment_method=${['card', 'bank_transfer', 'none'][i % 3]}`,
  },
  { label: 'user detail', path: (i, s) => `/console/v1/admin/users/${s.userIds[i % s.userIds.length]}` },
  { label: 'audit log: newest', path: (i) => `/console/v1/admin/audit-logs?limit=50&offset=${(i * 50) % 2000}` },
  { label: 'audit log: by target', path: (i, s) => `/console/v1/admin/audit-logs?target_type=user&target_id=${s.userIds[i % s.userIds.length]}` },
  { label: 'audit log: by action + range', path: (i) => `/console/v1/admin/audit-logs?action=user.suspend&from=2026-${String(1 + (i % 10)).padStart(2, '0')}-01&limit=50` },
  { label: 'corporate: by status + search', path: (i) => `/console/v1/admin/corporate?status=${['active', 'pending', 'suspended'][i % 3]}&q=${i % 2 ? 'テスト1' : ''}&limit=50` },
  { label: 'corporate detail', path: (i, s) => `/console/v1/admin/corporate/${s.corporateIds[i % s.corporateIds.length]}` },
  { label: 'transfers pending', path: (i) => `/console/v1/admin/transfers/pending?limit=50&offset=${(i * 50) % 1000}` },
  { label: 'pricing history', path: () => '/console/v1/admin/pricing/history' },
  { label: 'platform revenue (month)', path: (i, s) => `/console/v1/admin/platform/revenue?year_month=${s.months[i % s.months.length]}` },
  { label: 'providers revenue (month)', path: (i, s) => `/console/v1/admin/data-providers/revenue?year_month=${s.months[i % s.months.length]}` },
  { label: 'provider revenue detail', path: (i, s) => `/console/v1/admin/data-providers/${s.providerIds[i % s.providerIds.length]}/revenue-detail` },
  { label: 'datasets revenue (platform)', path: (i, s) => `/console/v1/admin/datasets/revenue/platform?year_month=${s.months[i % s.months.length]}` },
  { label: 'admin dashboard', path: () => '/console/v1/admin/dashboard' },
];

async function seedOnce(pool: pg.Pool): Promise<void> {
  const seeded = (await pool.query('SELECT 1 FROM users WHERE email = $1', [SEED_ADMIN_EMAIL])).rowCount;
  // The audit rows are the seed's last step: their presence says an earlier seed finished.
  const finished = (await pool.query("SELECT 1 FROM audit_logs WHERE request_id = 'req-1'")).rowCount;
  if (seeded && finished) return console.log('  admin seed already in this database');
  if (seeded) throw new Error('an earlier admin seed stopped half way in this database: drop it (or run without BENCH_REUSE_DB)');
  const t = performance.now();
  const steps = await seedAdminData(pool);
  console.log(
    `  seeded ${ADMIN_SEED_DEFAULT.users.toLocaleString()} users, ${ADMIN_SEED_DEFAULT.usageEvents.toLocaleString()} usage events, invoices and ${ADMIN_SEED_DEFAULT.auditRows.toLocaleString()} audit rows in ${((performance.now() - t) / 1000).toFixed(1)} s (${Object.entries(steps)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
      .join(', ')})`,
  );
}

export async function runAdminBench(ctx: AdminBenchContext): Promise<BenchResult[]> {
  console.log('\n  -- admin lists and dashboard');
  await seedOnce(ctx.pool);
  const admin = (await ctx.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [SEED_ADMIN_EMAIL])).rows[0]!;
  const token = randomBytes(32).toString('base64url');
  await ctx.pool.query(`INSERT INTO sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 day')`, [admin.id, sha256Hex(token)]);
  const headers = { authorization: `Bearer ${token}` };
  const ids = async (sql: string) => (await ctx.pool.query<{ id: string }>(sql)).rows.map((r) => r.id);
  const facts: SeedFacts = {
    userIds: await ids(`SELECT id FROM users ORDER BY md5(id::text) LIMIT 200`),
    providerIds: await ids(`SELECT id FROM users WHERE account_type = 'data_provider' ORDER BY id LIMIT 50`),
    corporateIds: await ids(`SELECT id FROM corporate_accounts ORDER BY id LIMIT 200`),
    months: (await ctx.pool.query<{ ym: string }>(`SELECT DISTINCT year_month AS ym FROM invoices ORDER BY 1 DESC LIMIT 12`)).rows.map((r) => r.ym),
  };
  const n = Math.min(ctx.iterations, 300);
  console.log(`  ${n} requests per figure at concurrency 1 (after ${WARMUP} warm-up)`);
  console.log(`  ${'call'.padEnd(42)} ${'p50'.padStart(9)} ${'p95'.padStart(9)}  target`);
  const results: BenchResult[] = [];
  for (const c of CASES) {
    const samples: number[] = [];
    let failure = '';
    for (let i = -WARMUP; i < n && !failure; i++) {
      const t = performance.now();
      const res = await fetch(`${ctx.base}${c.path(Math.abs(i), facts)}`, { headers });
      const text = await res.text();
      if (res.status !== 200) failure = `${res.status} ${text.slice(0, 120)}`;
      if (i >= 0) samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    const p50 = samples.length ? pct(samples, 50) : NaN;
    const p95 = samples.length ? pct(samples, 95) : NaN;
    const ok = !failure && p95 <= P95_TARGET_MS;
    console.log(`  ${c.label.padEnd(42)} ${fmt(p50)}ms ${fmt(p95)}ms  p95≤${P95_TARGET_MS} ${ok ? 'PASS' : `FAIL${failure ? ` (${failure})` : ''}`}`);
    results.push({ engine: 'postgres', pois: 0, label: `admin: ${c.label}`, http: { p50, p99: samples.length ? pct(samples, 99) : NaN }, raw: { p50: 0, p99: 0 }, ok });
  }
  return results;
}
