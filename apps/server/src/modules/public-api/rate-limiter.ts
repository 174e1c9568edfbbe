import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

const WINDOW_MS = 60_000;
const MEMORY_MAX_KEYS = 100_000;

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Fixed one-minute windows per key: cheap enough to sit in front of every public search. */
export interface RateLimiter {
  hit(key: string, limit: number, now?: number): Promise<RateLimitResult>;
}

function result(count: number, limit: number, window: number, now: number): RateLimitResult {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)),
  };
}

export function createMemoryRateLimiter(): RateLimiter {
  const counters = new Map<string, { window: number; count: number }>();
  return {
    async hit(key, limit, now = Date.now()) {
      const window = Math.floor(now / WINDOW_MS);
      let entry = counters.get(key);
      if (!entry || entry.window !== window) {
        if (counters.size >= MEMORY_MAX_KEYS) {
          for (const [k, e] of counters) if (e.window !== window) counters.delete(k);
        }
        entry = { window, count: 0 };
        counters.set(key, entry);
      }
      entry.count += 1;
      return result(entry.count, limit, window, now);
    },
  };
}

/**
 * Shared between instances through Redis (INCR on a per-minute key). When Redis does not answer,
 * this instance limits on its own rather than failing searches.
 */
export function createRedisRateLimiter(redis: Redis, log: FastifyBaseLogger): RateLimiter {
  const fallback = createMemoryRateLimiter();
  let warnedAt = 0;
  return {
    async hit(key, limit, now = Date.now()) {
      const window = Math.floor(now / WINDOW_MS);
      const redisKey = `poi:rl:${key}:${window}`;
      try {
        const replies = await redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS + 5_000).exec();
        const count = Number(replies?.[0]?.[1]);
        if (!Number.isFinite(count)) throw new Error('unexpected Redis reply');
        return result(count, limit, window, now);
      } catch (err) {
        if (now - warnedAt > WINDOW_MS) {
          warnedAt = now;
          log.warn({ err }, 'Redis rate limiting unavailable; limiting per instance');
        }
        return fallback.hit(key, limit, now);
      }
    },
  };
}
