/**
 * The console part of `npm run bench`: the bundle budget per route (bench/bundle-budget.ts), then
 * Lighthouse (mobile form factor, its default simulated throttling) on Debian's Chromium against
 * the built server, on /auth/login as a guest, /marketplace and /admin/dashboard signed in as the
 * admin, and /billing signed in as an individual user with this month's usage. Targets on every
 * page: performance ≥ 95, accessibility 100, best practices 100, SEO 100 (all four printed).
 *
 * Run alone: `npm run bench:console`. Knobs: BENCH_CONSOLE_PORT (default: a free port), CHROME_PATH
 * (/usr/bin/chromium), BENCH_LIGHTHOUSE_RUNS (1; with more, the median performance score counts),
 * BENCH_SKIP_LIGHTHOUSE=1, BUNDLE_SKIP_BUILD=1 (measure the existing build), BENCH_LIGHTHOUSE_REPORT_DIR
 * (write each run's full Lighthouse result there as JSON), BENCH_LIGHTHOUSE_ONLY=/marketplace (one page),
 * WEB_DIST_DIR (serve and measure a console built elsewhere than apps/web/dist).
 * Lighthouse is CPU-bound: on a loaded machine its performance scores come out lower; the load
 * average is printed next to them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '../packages/shared/src/limits';
import { runBundleBudget } from './bundle-budget';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let PORT = Number(process.env.BENCH_CONSOLE_PORT ?? 0);
let BASE = '';
const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];
const RUNS = Math.max(1, Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 1));
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
type Category = (typeof CATEGORIES)[number];
const TARGET: Record<Category, number> = { performance: 95, accessibility: 100, 'best-practices': 100, seo: 100 };
const LABEL: Record<Category, string> = { performance: 'performance', accessibility: 'accessibility', 'best-practices': 'best practices', seo: 'SEO' };
const ADMIN = 'lighthouse-admin@example.com';
const INDIVIDUAL = 'lighthouse-individual@example.com';

export interface ConsoleCheck {
  label: string;
  ok: boolean;
}

/** A port nothing listens on now (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Session {
  token: string;
  user: unknown;
}

/** The built server on a fresh PGlite directory; sign-in mails go to its log, where the codes are read. */
async function startServer(): Promise<{ stop: () => Promise<void>; nextCode: (email: string) => Promise<string> }> {
  if (!PORT) PORT = await freePort();
  BASE = `http://127.0.0.1:${PORT}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'poi-bench-console-'));
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'apps/server/dist/server.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(PORT),
      HOST: '127.0.0.1',
      PUBLIC_URL: BASE,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SMTP_URL: '',
      REDIS_URL: '',
      APP_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAILS: ADMIN,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiting = new Map<string, (code: string) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = /sign-in mail to (\S+) — code (\d{6})/.exec(line);
    if (m) waiting.get(m[1]!)?.(m[2]!);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${BASE}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not start within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    nextCode: (email) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no sign-in mail for ${email}`)), 15_000);
        waiting.set(email, (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function post(pathname: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${BASE}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Signs in through the real code flow (the code read from the server log). */
async function signIn(nextCode: (email: string) => Promise<string>, email: string): Promise<Session & { id: string }> {
  const code = nextCode(email);
  // Awaited below; if the request fails first, its timer must not crash the bench before the server is stopped.
  code.catch(() => undefined);
  await post('/console/v1/auth/request-otp', { email });
  const login = await post('/console/v1/auth/verify-otp', { email, code: await code });
  return { token: String(login.token), user: login.user, id: String((login.user as { id: string }).id) };
}

/**
 * Signs in as the platform admin and publishes a few datasets; then an individual user (made so
 * by the admin) searches a paid dataset with an API key, so /billing has this month's usage.
 */
async function signInAndSeed(nextCode: (email: string) => Promise<string>): Promise<{ admin: Session; individual: Session }> {
  const admin = await signIn(nextCode, ADMIN);
  const names = ['東京都 飲食店', '大阪府 観光スポット', '北海道 温泉', '福岡県 商業施設', '全国 駅一覧', '京都府 寺社'];
  const datasetIds: string[] = [];
  for (const [i, name] of names.entries()) {
    const created = await post('/console/v1/admin/datasets/assign', { name, description: `${name}のPOIデータセット`, price_per_search: i % 3 === 0 ? 0 : i * 0.25 }, admin.token);
    datasetIds.push(String((created.data as { dataset_id: string }).dataset_id));
  }
  const individual = await signIn(nextCode, INDIVIDUAL);
  await post(`/console/v1/admin/users/${individual.id}/change-type`, { account_type: 'individual', reason: 'Lighthouse計測' }, admin.token);
  const key = String(((await post('/console/v1/api-keys', { name: '計測' }, individual.token)).data as { key: string }).key);
  for (let i = 0; i < 12; i++) {
    const res = await fetch(`${BASE}/api/v1/poi/search?dataset_id=${datasetIds[i % 2 === 0 ? 1 : 2]}`, { headers: { 'x-api-key': key } });
    if (!res.ok) throw new Error(`search: ${res.status} ${await res.text()}`);
  }
  // Usage is written in batches (at most a second behind): wait until /billing would show it.
  for (let i = 0; i < 40; i++) {
    const current = (await (await fetch(`${BASE}/console/v1/billing/current`, { headers: { authorization: `Bearer ${individual.token}` } })).json()) as { data?: { subtotal?: number } };
    if ((current.data?.subtotal ?? 0) > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const me = (await (await fetch(`${BASE}/console/v1/user`, { headers: { authorization: `Bearer ${individual.token}` } })).json()) as { user: unknown };
  return { admin: { token: admin.token, user: admin.user }, individual: { token: individual.token, user: me.user } };
}

type Scores = Record<Category, number> & {
  metrics: string;
  /** The audits that cost points outside performance, by category. */
  failed: string[];
};

/** One Lighthouse run in a fresh Chromium profile; a session, when given, is put in localStorage first. */
async function audit(url: string, session?: Session): Promise<Scores> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROME_PATH, chromeFlags: CHROME_FLAGS });
  try {
    if (session) {
      // The console keeps its session in localStorage (apps/web/src/lib/auth-store.ts). It is set
      // on a page of the same origin that loads no script, so the audited load starts cold.
      const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
      const page = await browser.newPage();
      await page.goto(`${BASE}/healthz`);
      await page.evaluate(
        (keys, s) => {
          window.localStorage.setItem(keys.token, s.token);
          window.localStorage.setItem(keys.user, JSON.stringify(s.user));
        },
        { token: STORAGE_TOKEN_KEY, user: STORAGE_USER_KEY },
        session,
      );
      await page.close();
      await browser.disconnect();
    }
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      // Keeps the session set above; the profile is new, so the cache is empty all the same.
      disableStorageReset: !!session,
    });
    if (!result) throw new Error(`lighthouse gave no result for ${url}`);
    const { lhr } = result;
    if (process.env.BENCH_LIGHTHOUSE_REPORT_DIR) {
      const name = new URL(url).pathname.replace(/\W+/g, '_');
      writeFileSync(path.join(process.env.BENCH_LIGHTHOUSE_REPORT_DIR, `lighthouse${name}-${Date.now()}.json`), JSON.stringify(lhr));
    }
    if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
    const ms = (id: string) => lhr.audits[id]?.displayValue ?? '-';
    const failed = CATEGORIES.filter((c) => c !== 'performance').flatMap((c) =>
      (lhr.categories[c]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score !== null && (lhr.audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => `${LABEL[c]}: ${ref.id}: ${lhr.audits[ref.id]?.title}`),
    );
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      'best-practices': score('best-practices'),
      seo: score('seo'),
      metrics: `FCP ${ms('first-contentful-paint')}, LCP ${ms('largest-contentful-paint')}, TBT ${ms('total-blocking-time')}, CLS ${ms('cumulative-layout-shift')}, SI ${ms('speed-index')}`,
      failed,
    };
  } finally {
    chrome.kill();
  }
}

export async function runConsoleBench(): Promise<ConsoleCheck[]> {
  const checks: ConsoleCheck[] = [];
  if (process.env.BUNDLE_SKIP_BUILD !== '1') {
    // The server build too: Lighthouse audits what `npm start` serves.
    execFileSync('npm', ['run', 'build', '-w', 'apps/server'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  for (const w of runBundleBudget()) checks.push({ label: `bundle ${w.route}`, ok: w.ok });
  if (process.env.BENCH_SKIP_LIGHTHOUSE === '1') return checks;

  const server = await startServer();
  try {
    const { admin, individual } = await signInAndSeed(server.nextCode);
    const pages: { label: string; url: string; session?: Session }[] = [
      { label: '/auth/login (guest)', url: `${BASE}/auth/login` },
      { label: '/marketplace (signed in)', url: `${BASE}/marketplace`, session: admin },
      { label: '/billing (individual)', url: `${BASE}/billing`, session: individual },
      { label: '/admin/dashboard (admin)', url: `${BASE}/admin/dashboard`, session: admin },
    ].filter((p) => !process.env.BENCH_LIGHTHOUSE_ONLY || p.url.endsWith(process.env.BENCH_LIGHTHOUSE_ONLY));
    console.log(
      `\nLighthouse ${RUNS > 1 ? `(${RUNS} runs each, median) ` : ''}— mobile, simulated throttling, ${CHROME_PATH}; targets: ${CATEGORIES.map((c) => `${LABEL[c]} ${c === 'performance' ? '≥ ' : ''}${TARGET[c]}`).join(', ')}`,
    );
    for (const p of pages) {
      const runs: Scores[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await audit(p.url, p.session));
      runs.sort((a, b) => a.performance - b.performance);
      const median = runs[Math.floor(runs.length / 2)]!;
      const ok = CATEGORIES.every((c) => median[c] >= TARGET[c]);
      const load = loadavg().map((l) => l.toFixed(2)).join(' ');
      const scores = CATEGORIES.map((c) => `${LABEL[c]} ${String(median[c]).padStart(3)}${c === 'performance' && RUNS > 1 ? ` (runs: ${runs.map((r) => r.performance).join(', ')})` : ''}`).join('  ');
      console.log(`  ${p.label.padEnd(26)} ${scores}  ${ok ? 'PASS' : 'FAIL'}  [${median.metrics}; load average ${load}]`);
      for (const a of median.failed) console.log(`      ${a}`);
      checks.push({ label: `lighthouse ${p.label}`, ok });
    }
  } finally {
    await server.stop();
  }
  return checks;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const failed = (await runConsoleBench()).filter((c) => !c.ok);
  console.log(failed.length ? `\n${failed.length} console target(s) missed: ${failed.map((f) => f.label).join('; ')}` : '\nall console targets met');
  process.exitCode = failed.length ? 1 : 0;
}
