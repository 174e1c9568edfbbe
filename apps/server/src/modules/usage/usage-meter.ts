import type { FastifyBaseLogger } from 'fastify';
import { USAGE_FLUSH_INTERVAL_MS } from '@poi/shared/limits';
import type { Db } from '../../db/client';
import { writeUsageEvents, type UsageEvent } from './usage.repository';

/** Events waiting beyond this many mean the database is not keeping up: new searches are refused. */
const DEFAULT_MAX_PENDING = 200_000;
/** The longest wait between two flushes that failed (a database away is written to within this of its return). */
const MAX_RETRY_MS = 4_000;
/** Events written per statement; a longer backlog is written in several. */
const FLUSH_BATCH = 5_000;

export interface UsageMeter {
  /** Queues a billable search; it reaches the database with the next flush (at most a second later). */
  record(event: UsageEvent): void;
  /** False while the backlog is over its limit (the database is down or far behind). */
  accepting(): boolean;
  /** Writes every queued event; resolves, with how many were new, when they are stored. Calls during a run share one run after it. */
  flush(): Promise<number>;
  /** Events not yet stored. */
  pending(): number;
  /** When the oldest event not yet stored was recorded (undefined when none waits): /metrics' flush lag. */
  oldestPendingAt(): Date | undefined;
  /** How often app.ts's job runner flushes. */
  readonly intervalMs: number;
  /**
   * The wait after the n-th failed flush in a row: a failed flush keeps its events (in front, same
   * request ids) and is tried again after a wait that doubles from the interval up to
   * MAX_RETRY_MS (the database may be restarting or failing over).
   */
  retryAfter(failures: number): number;
  /** Writes what is left, after the job runner stopped (SIGTERM, app close). */
  stop(): Promise<void>;
}

export function createUsageMeter(deps: {
  db: Db;
  log: FastifyBaseLogger;
  /** Called after a flush with the keys it saw, to stamp their last use. */
  onFlushed?: (apiKeyIds: string[], at: Date) => Promise<void>;
  /** Called with each batch as soon as it is stored (the budget guard moves it to its stored part). */
  onWritten?: (events: readonly UsageEvent[]) => void;
  /**
   * Run at the end of every flush run, inside it: nothing is being written meanwhile, so what it
   * reads of the usage tables is exactly the events written so far (the budget guard's loads and
   * alerts). Must not throw.
   */
  afterFlush?: () => Promise<void>;
  intervalMs?: number;
  maxPending?: number;
  /** Replaceable in tests to simulate failures. */
  write?: (events: readonly UsageEvent[]) => Promise<number>;
}): UsageMeter {
  const { log } = deps;
  const intervalMs = deps.intervalMs ?? USAGE_FLUSH_INTERVAL_MS;
  const maxPending = deps.maxPending ?? DEFAULT_MAX_PENDING;
  const write = deps.write ?? ((events: readonly UsageEvent[]) => writeUsageEvents(deps.db, events));
  let buffer: UsageEvent[] = [];

  /**
   * Writes the events queued when the run starts. Those recorded while it writes wait for the next
   * run: draining until empty kept a loaded server in one endless run of a statement per round trip
   * (about 50 a second of ~80 events each at 5,000 searches/s, each with its key stamp and three
   * upserts), where one run a second writes the same events in one statement.
   */
  async function drain(): Promise<number> {
    let stored = 0;
    let queued = buffer.length;
    while (queued > 0) {
      const batch = buffer.slice(0, Math.min(FLUSH_BATCH, queued));
      buffer = buffer.slice(batch.length);
      queued -= batch.length;
      try {
        stored += await write(batch);
      } catch (err) {
        // Kept, in front, with the same request ids: the retry stores each event exactly once.
        buffer = batch.concat(buffer);
        throw err;
      }
      deps.onWritten?.(batch);
      if (deps.onFlushed) {
        const keys = [...new Set(batch.map((e) => e.apiKeyId))];
        deps.onFlushed(keys, batch[batch.length - 1]!.occurredAt).catch((err) => log.warn({ err }, 'api key last-used update failed'));
      }
    }
    if (deps.afterFlush) await deps.afterFlush();
    return stored;
  }
  let running: Promise<number> | undefined;
  /** A run asked for while one was under way: it writes what that one's snapshot missed. */
  let next: Promise<number> | undefined;

  const meter: UsageMeter = {
    record(event) {
      buffer.push(event);
    },
    accepting: () => buffer.length < maxPending,
    pending: () => buffer.length,
    oldestPendingAt: () => buffer[0]?.occurredAt,
    flush() {
      if (!running) {
        running = drain().finally(() => {
          running = undefined;
        });
        return running;
      }
      // The run under way may have taken its events before this caller's: one more run after it
      // (shared by every caller meanwhile) writes everything queued by then.
      next ??= running
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return meter.flush();
        });
      return next;
    },
    intervalMs,
    retryAfter: (failures) => Math.min(intervalMs * 2 ** (failures - 1), MAX_RETRY_MS),
    async stop() {
      // A flush already under way finishes first; then whatever arrived meanwhile is written.
      let stored = 0;
      for (let attempt = 1; ; attempt++) {
        try {
          stored += (await running?.catch(() => 0)) ?? 0;
          stored += await meter.flush();
          log.info({ stored }, 'usage stored at shutdown');
          return;
        } catch (err) {
          if (attempt >= 3) {
            log.error({ err, lost: buffer.length }, 'usage could not be stored at shutdown');
            throw err;
          }
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    },
  };
  return meter;
}
