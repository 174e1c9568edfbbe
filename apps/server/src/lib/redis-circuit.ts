import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/** What /healthz reports: `ok` while Redis answers, `degraded` while limits fall back to this instance's memory. */
export type RedisState = 'ok' | 'degraded';

/**
 * A circuit breaker in front of the Redis that holds the shared rate-limit counters.
 *
 * Closed (Redis usable) only while the connection is ready and no command has failed since it
 * became ready; otherwise callers get `undefined` from `client()` and count in this instance's
 * memory at once, so a dead Redis never costs a request more than a map lookup. The client
 * never queues a command while disconnected (`enableOfflineQueue: false`) and gives up on an
 * unanswered one after `commandTimeoutMs`; it reconnects in the background on its own
 * (`retryStrategy`), and the circuit closes again when the connection is ready. The switch to
 * memory and the recovery are each logged once.
 */
export interface RedisCircuit {
  /** The client when Redis may be used for this request; `undefined` while the circuit is open. */
  client(): Redis | undefined;
  /** A command failed: open the circuit and reconnect (a hung connection is replaced, not waited on). */
  failed(err: unknown): void;
  state(): RedisState;
  close(): void;
}

export interface RedisCircuitOptions {
  url: string;
  log: FastifyBaseLogger;
  /** How long a command may wait for its answer before the request counts in memory instead. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts. */
  maxRetryDelayMs?: number;
}

export function createRedisCircuit(options: RedisCircuitOptions): RedisCircuit {
  const { log } = options;
  const maxRetryDelay = options.maxRetryDelayMs ?? 2_000;
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 200,
    connectTimeout: options.connectTimeoutMs ?? 1_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, maxRetryDelay),
  });
  let usable = false;
  // Degraded until the first connection is ready; the first failure is what gets logged.
  let degradedLogged = false;
  let closed = false;

  const open = (err: unknown) => {
    usable = false;
    if (closed || degradedLogged) return;
    degradedLogged = true;
    log.warn({ err }, 'Redis unreachable: rate limits are counted in this instance\'s memory until it answers again');
  };

  redis.on('ready', () => {
    usable = true;
    if (degradedLogged) log.info('Redis reachable again: rate limits are shared through Redis');
    degradedLogged = false;
  });
  redis.on('error', (err: Error) => open(err));
  redis.on('close', () => open(new Error('Redis connection closed')));

  return {
    client: () => (usable ? redis : undefined),
    failed(err) {
      if (!usable) return;
      open(err);
      // A command that timed out on a connection that still looks alive: drop it and reconnect,
      // so the circuit only closes once a fresh connection is ready.
      redis.disconnect(true);
    },
    state: () => (usable ? 'ok' : 'degraded'),
    close() {
      closed = true;
      usable = false;
      redis.disconnect();
    },
  };
}
