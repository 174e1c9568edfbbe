import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../src/modules/public-api/rate-limiter';
import { silentLog } from './helpers';

// The shared limiter of several instances needs a real Redis: TEST_REDIS_URL, or the local one.
// Without a reachable Redis (the embedded default needs none) the test is reported as skipped.
const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis | undefined;
let reachable = false;

beforeAll(async () => {
  redis = new Redis(url, { connectTimeout: 500, maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  reachable = await redis
    .connect()
    .then(() => redis!.ping())
    .then(() => true)
    .catch(() => false);
});

afterAll(() => {
  redis?.disconnect();
});


describe('Redis rate limiter', () => {
  it('counts one window across instances sharing Redis', async (ctx) => {
    if (!reachable) ctx.skip();
    const a = createRedisRateLimiter(redis!, silentLog);
    const b = createRedisRateLimiter(redis!, silentLog);
    const key = `test:${Date.now()}:${Math.random()}`;
    const now = Date.now();
    expect((await a.hit(key, 3, now)).remaining).toBe(2);
    expect((await b.hit(key, 3, now)).remaining).toBe(1);
    expect((await a.hit(key, 3, now)).allowed).toBe(true);
    const over = await b.hit(key, 3, now);
    expect(over).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(await redis!.pttl(`poi:rl:${key}:${Math.floor(now / 60_000)}`)).toBeGreaterThan(0);
  });

  it('limits on its own when Redis does not answer', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { connectTimeout: 200, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const limiter = createRedisRateLimiter(dead, silentLog);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await limiter.hit('fallback', 2));
    expect(results.map((r) => r.allowed)).toEqual([true, true, false]);
    dead.disconnect();
  });
});
