import { createServer, type Server, type Socket } from 'node:net';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCircuit } from '../src/lib/redis-circuit';
import { createRedisRateLimiter } from '../src/modules/public-api/rate-limiter';
import { bearer, captureLog, codeOf, createTestContext, magicTokenOf, silentLog, uniqueEmail, type TestContext } from './helpers';

// The tests that need a real Redis run when REDIS_URL is set (CI sets it: .ci/run gives them a
// database index of their own and flushes it first) and are reported as skipped otherwise; set
// and unreachable, they fail. The closed-port tests need no Redis and always run.
const url = process.env.REDIS_URL || undefined;
const target = new URL(url ?? 'redis://127.0.0.1:6379');
let redis: Redis | undefined;

beforeAll(async () => {
  if (!url) return;
  redis = new Redis(url, { connectTimeout: 2_000, maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  await redis.connect();
  await redis.ping();
});

afterAll(() => {
  redis?.disconnect();
});

const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP proxy in front of the real Redis that the test can cut (Redis "going away") and restore. */
async function startProxy() {
  let sockets: Socket[] = [];
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      sockets.push(client, upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    url: () => `redis://127.0.0.1:${port}${target.pathname}`,
    /** Refuses new connections and drops the open ones. */
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        sockets.forEach((s) => s.destroy());
        sockets = [];
      });
    },
    restore: listen,
  };
}

describe('Redis rate limiter', () => {
  it.runIf(url)('counts one window across instances sharing Redis', async () => {
    const a = createRedisCircuit({ url: url!, log: silentLog });
    const b = createRedisCircuit({ url: url!, log: silentLog });
    await until(() => a.state() === 'ok' && b.state() === 'ok');
    const limiterA = createRedisRateLimiter(a);
    const limiterB = createRedisRateLimiter(b);
    const key = `test:${Date.now()}:${Math.random()}`;
    const now = Date.now();
    expect((await limiterA.hit(key, 3, now)).remaining).toBe(2);
    expect((await limiterB.hit(key, 3, now)).remaining).toBe(1);
    expect((await limiterA.hit(key, 3, now)).allowed).toBe(true);
    const over = await limiterB.hit(key, 3, now);
    expect(over).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(await redis!.pttl(`poi:rl:${key}:${Math.floor(now / 60_000)}`)).toBeGreaterThan(0);
    a.close();
    b.close();
  });

  it('limits in memory at once when Redis does not answer', async () => {
    const circuit = createRedisCircuit({ url: `redis://127.0.0.1:${await closedPort()}`, log: silentLog });
    const limiter = createRedisRateLimiter(circuit);
    const started = performance.now();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await limiter.hit('fallback', 2));
    expect(performance.now() - started).toBeLessThan(50);
    expect(results.map((r) => r.allowed)).toEqual([true, true, false]);
    expect(circuit.state()).toBe('degraded');
    circuit.close();
  });
});

/** Sign-in, the frontend log and the public search over a real socket, each timed. */
async function exercise(ctx: TestContext, base: string, apiKey: string, datasetId: string) {
  const timed = async (path: string, init: RequestInit = {}) => {
    const started = performance.now();
    const res = await fetch(`${base}${path}`, init);
    const body = await res.text();
    return { status: res.status, body, ms: performance.now() - started };
  };
  const json = (payload: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const email = uniqueEmail('redis');
  const results: Record<string, { status: number; body: string; ms: number }> = {};
  results.requestOtp = await timed('/console/v1/auth/request-otp', json({ email }));
  const mail = await ctx.mailbox.latest(email);
  results.verifyOtp = await timed('/console/v1/auth/verify-otp', json({ email, code: codeOf(mail) }));
  const email2 = uniqueEmail('redis-magic');
  await timed('/console/v1/auth/request-otp', json({ email: email2 }));
  results.magic = await timed(`/console/v1/auth/magic/${magicTokenOf(await ctx.mailbox.latest(email2))}`, { method: 'POST' });
  results.frontendLog = await timed('/console/v1/logs/frontend', json({ type: 'api_error', message: 'Redis test' }));
  results.search = await timed(`/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': apiKey } });
  results.anonymousSearch = await timed(`/api/v1/poi/search?dataset_id=${datasetId}`);
  return results;
}

const LATENCY_BOUND_MS = 1000;

function expectNormal(results: Awaited<ReturnType<typeof exercise>>) {
  const expected: Record<string, number> = { requestOtp: 200, verifyOtp: 200, magic: 200, frontendLog: 200, search: 200, anonymousSearch: 401 };
  for (const [name, r] of Object.entries(results)) {
    expect(r.status, `${name}: ${r.body}`).toBe(expected[name]);
    // Loose on purpose: the test shares two cores with the rest of the suite, and the defect
    // cost 3.5 s per search (or a 500); a limit waiting on Redis would cost its 200 ms timeout.
    expect(r.ms, name).toBeLessThan(LATENCY_BOUND_MS);
  }
}

async function setUp(env: Record<string, string>) {
  const log = captureLog();
  const ctx = await createTestContext({ LOG_LEVEL: 'info', ...env }, { logStream: log.stream });
  const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  // A platform administrator publishes a free dataset and holds a key (the search needs both).
  const post = (path: string, token: string, payload: unknown) =>
    ctx.app.inject({ method: 'POST', url: `/console/v1${path}`, headers: bearer(token), payload: payload as Record<string, unknown> });
  const adminEmail = 'admin@example.com';
  await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/request-otp', payload: { email: adminEmail } });
  const verify = await ctx.app.inject({ method: 'POST', url: '/console/v1/auth/verify-otp', payload: { email: adminEmail, code: codeOf(await ctx.mailbox.latest(adminEmail)) } });
  const token = verify.json().token as string;
  const dataset = await post('/admin/datasets/assign', token, { name: 'Redis検証', price_per_search: 0 });
  expect(dataset.statusCode, dataset.body).toBe(200);
  const datasetId = dataset.json().data.dataset_id as string;
  const key = await post('/api-keys', token, { name: 'Redis検証キー' });
  expect(key.statusCode, key.body).toBe(200);
  return { ctx, log, base, datasetId, apiKey: key.json().data.key as string };
}

/** The median time of 15 identical public searches: under the 200 ms command timeout means no search waited on Redis. */
async function medianSearchMs(base: string, apiKey: string, datasetId: string) {
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': apiKey } });
    await res.text();
    expect(res.status).toBe(200);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[7]!;
}

const health = async (base: string) => (await (await fetch(`${base}/healthz`)).json()) as { status: string; redis: string };
const degradedLines = (log: ReturnType<typeof captureLog>) => log.find(/^Redis unreachable/);
const recoveredLines = (log: ReturnType<typeof captureLog>) => log.find(/^Redis reachable again/);

describe('Redis unreachable (REDIS_URL at a closed port)', () => {
  it('signs in, stores the frontend log and searches normally and fast; /healthz says degraded; logged once', async () => {
    const { ctx, log, base, datasetId, apiKey } = await setUp({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    try {
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      expect(await medianSearchMs(base, apiKey, datasetId)).toBeLessThan(100);
      expect(await health(base)).toMatchObject({ status: 'degraded', redis: 'degraded' });
      expect(degradedLines(log)).toHaveLength(1);
      expect(degradedLines(log)[0]!.level).toBe(40);
    } finally {
      await ctx.close();
    }
  });

  it('still limits per instance: the sign-in IP limit answers 429 in memory', async () => {
    const { ctx, base } = await setUp({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, AUTH_IP_LIMIT: '2' });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${base}/console/v1/auth/verify-otp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: uniqueEmail(), code: '000000' }),
        });
        statuses.push(res.status);
      }
      // The admin's sign-in in setUp was counted too (another route, its own counter: verify-otp).
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await ctx.close();
    }
  });
});

describe('Redis going away mid-run', () => {
  it.runIf(url)('keeps answering fast in memory, reports degraded, and returns to Redis when it is back (each switch logged once)', async () => {
    const proxy = await startProxy();
    const { ctx, log, base, datasetId, apiKey } = await setUp({ REDIS_URL: proxy.url() });
    try {
      await until(async () => (await health(base)).redis === 'ok');
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      // Counted in Redis while it answers.
      expect((await redis!.keys('fastify-rate-limit-POST/console/v1/auth/request-otp-*')).length).toBeGreaterThan(0);
      expect(degradedLines(log)).toHaveLength(0);

      await proxy.cut();
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      expect(await medianSearchMs(base, apiKey, datasetId)).toBeLessThan(100);
      expect(await health(base)).toMatchObject({ status: 'degraded', redis: 'degraded' });
      expect(degradedLines(log)).toHaveLength(1);

      await proxy.restore();
      await until(async () => (await health(base)).redis === 'ok');
      expect(await health(base)).toMatchObject({ status: 'ok', redis: 'ok' });
      expectNormal(await exercise(ctx, base, apiKey, datasetId));
      expect(recoveredLines(log)).toHaveLength(1);
      expect(degradedLines(log)).toHaveLength(1);
    } finally {
      await ctx.close();
      await proxy.cut();
    }
  });
});

describe('Redis going away under load', () => {
  /**
   * The circuit (src/lib/redis-circuit.ts) fails open to this instance's memory: while Redis is
   * gone every request is still answered by its route (never a 500, never an unhandled error),
   * /healthz says degraded, and once Redis is back the limits are counted in Redis again.
   */
  it.runIf(url)('drops Redis while requests are in flight: no 500, no unhandled error, back to Redis-backed limits', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    const proxy = await startProxy();
    const { ctx, log, base, datasetId, apiKey } = await setUp({ REDIS_URL: proxy.url() });
    try {
      await until(async () => (await health(base)).redis === 'ok');
      const statuses = new Map<string, number[]>();
      const record = (name: string, status: number) => statuses.set(name, [...(statuses.get(name) ?? []), status]);
      let running = true;
      const json = (payload: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      const worker = async (name: string, path: string, init: () => RequestInit) => {
        while (running) {
          const res = await fetch(`${base}${path}`, init());
          await res.text();
          record(name, res.status);
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      const load = Promise.all([
        worker('search', `/api/v1/poi/search?dataset_id=${datasetId}`, () => ({ headers: { 'x-api-key': apiKey } })),
        worker('search', `/api/v1/poi/search?dataset_id=${datasetId}`, () => ({ headers: { 'x-api-key': apiKey } })),
        worker('verifyOtp', '/console/v1/auth/verify-otp', () => json({ email: uniqueEmail('load'), code: '000000' })),
        worker('frontendLog', '/console/v1/logs/frontend', () => json({ type: 'api_error', message: 'Redis load test' })),
      ]);
      const phase = async (ms: number) => new Promise((r) => setTimeout(r, ms));
      await phase(500);
      const beforeCut = [...statuses.values()].flat().length;
      await proxy.cut(); // every open connection to Redis destroyed while requests use it
      await phase(1_500);
      expect((await health(base)).redis).toBe('degraded');
      await proxy.restore();
      await until(async () => (await health(base)).redis === 'ok', 10_000);
      await phase(500);
      running = false;
      await load;

      const all = [...statuses.values()].flat();
      expect(all.length).toBeGreaterThan(beforeCut);
      expect(all.filter((s) => s >= 500)).toEqual([]);
      // Each route's own answer, limits included (a 429 is the limit doing its job, in Redis or in memory).
      const only = (name: string, allowed: number[]) => expect(statuses.get(name)!.filter((s) => !allowed.includes(s)), name).toEqual([]);
      only('search', [200, 429]);
      only('verifyOtp', [400, 429]);
      only('frontendLog', [200, 429]);
      expect(statuses.get('search')).toContain(200);
      expect(unhandled).toEqual([]);
      expect(log.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
      expect(degradedLines(log)).toHaveLength(1);
      expect(recoveredLines(log)).toHaveLength(1);

      // Back on Redis: a search is counted in Redis's per-minute counter again.
      // Only this account's counters: other test files' servers may share the Redis database.
      const [admin] = await ctx.query<{ id: string }>(`SELECT id FROM users WHERE email = 'admin@example.com'`);
      const counted = async () => {
        const keys = await redis!.keys(`poi:rl:user:${admin!.id}:*`);
        const values = keys.length ? await redis!.mget(keys) : [];
        return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
      };
      const before = await counted();
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${base}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': apiKey } });
        await res.text();
        expect([200, 429]).toContain(res.status);
      }
      expect((await counted()) - before).toBe(3);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
      await ctx.close();
      await proxy.cut();
    }
  });
});
