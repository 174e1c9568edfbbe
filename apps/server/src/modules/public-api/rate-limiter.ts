import type { RedisCircuit } from '../../lib/redis-circuit';

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
 * Shared between instances through Redis (INCR on a per-minute key) while the circuit says Redis
 * answers; otherwise, and for a command that fails, this instance counts in its own memory
 * (the circuit logs the switch), so a Redis outage never fails or slows a search.
 */
export function createRedisRateLimiter(circuit: RedisCircuit): RateLimiter {
  const fallback = createMemoryRateLimiter();
  return {
    async hit(key, limit, now = Date.now()) {
      const redis = circuit.client();
      if (!redis) return fallback.hit(key, limit, now);
      const window = Math.floor(now / WINDOW_MS);
      const redisKey = `poi:rl:${key}:${window}`;
      try {
        const replies = await redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS + 5_000).exec();
        const count = Number(replies?.[0]?.[1]);
        if (!Number.isFinite(count)) throw new Error('unexpected Redis reply');
        return result(count, limit, window, now);
      } catch (err) {
        circuit.failed(err);
        return fallback.hit(key, limit, now);
      }
    },
  };
}
