import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { RedisCircuit } from '../lib/redis-circuit';

type StoreOptions = { continueExceeding?: boolean; exponentialBackoff?: boolean; routeInfo?: { method?: string; url?: string } };
type Incr = FastifyRateLimitStore['incr'];

const PREFIX = 'fastify-rate-limit-';

/**
 * The @fastify/rate-limit store of the sign-in and frontend-log limits: the library's Redis store
 * while the circuit says Redis answers, its memory store otherwise, and the memory store again
 * for a command that fails (the request is counted once either way, never refused for Redis).
 */
export function circuitRateLimitStore(circuit: RedisCircuit): FastifyRateLimitStoreCtor {
  class CircuitStore implements FastifyRateLimitStore {
    private readonly local: FastifyRateLimitStore;
    private redisStore: FastifyRateLimitStore | undefined;
    constructor(
      private readonly options: StoreOptions,
      private readonly key = PREFIX,
    ) {
      this.local = new LocalStore(options.continueExceeding ?? false, options.exponentialBackoff ?? false);
    }

    incr(...[key, callback, timeWindow, max]: Parameters<Incr>): void {
      const redis = circuit.client();
      if (!redis) return this.local.incr(key, callback, timeWindow, max);
      // The Lua commands are defined on the client once; a reconnection keeps them.
      this.redisStore ??= new RedisStore(this.options.continueExceeding ?? false, this.options.exponentialBackoff ?? false, redis, this.key);
      this.redisStore.incr(
        key,
        (err, result) => {
          if (!err) return callback(null, result);
          circuit.failed(err);
          this.local.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const options = routeOptions as unknown as StoreOptions;
      return new CircuitStore(options, `${this.key}${options.routeInfo?.method ?? ''}${options.routeInfo?.url ?? ''}-`);
    }
  }
  return CircuitStore as unknown as FastifyRateLimitStoreCtor;
}
