import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { yearMonthOf } from '@poi/shared/billing-time';
import type { Database } from '../../db/client';
import { closeTimeOf, type CloseResult, type CloseService } from './close.service';

/** The advisory lock key of the monthly close ("POI" + 1): one instance closes at a time. */
export const CLOSE_LOCK_KEY = 0x504f4901;
/** The job wakes at least this often (a timer over days drifts, and setTimeout caps at ~24.8 days). */
const MAX_SLEEP_MS = 60 * 60 * 1000;

/**
 * Runs fn while holding the PostgreSQL session advisory lock, or answers undefined at once when
 * another instance holds it. On PostgreSQL the lock lives on a connection taken from the pool for
 * the whole run (a session lock is released by the session that took it); PGlite has one session
 * and the same SQL.
 */
export async function withCloseLock<T>(database: Database, fn: () => Promise<T>): Promise<T | undefined> {
  if (database.engine === 'postgres') {
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [CLOSE_LOCK_KEY]);
      if (!rows[0]?.locked) return undefined;
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [CLOSE_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }
  const { rows } = await database.db.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_lock(${CLOSE_LOCK_KEY}) AS locked`);
  if (!rows[0]?.locked) return undefined;
  try {
    return await fn();
  } finally {
    await database.db.execute(sql`SELECT pg_advisory_unlock(${CLOSE_LOCK_KEY})`);
  }
}

export interface CloseJob {
  /** Closes every due month not yet closed, under the lock; undefined when another instance holds it. */
  runDue(now?: Date): Promise<CloseResult[] | undefined>;
  start(): void;
  stop(): Promise<void>;
}

/** The next instant the job must look: the close time of the current month (00:05 JST on the next 1st). */
export function nextCloseTime(now: Date): Date {
  return closeTimeOf(yearMonthOf(now));
}

/**
 * The in-process monthly close (BILLING.md): at 00:05 JST on the 1st it closes the previous month;
 * on start it closes any past month not yet closed (a restart resumes). Timers are unref'd.
 */
export function createCloseJob(deps: { database: Database; close: CloseService; log: FastifyBaseLogger; now?: () => Date }): CloseJob {
  const now = deps.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<CloseResult[] | undefined> | undefined;
  let stopped = true;

  const job: CloseJob = {
    runDue(at = now()) {
      // Concurrent calls in one process share a run (PGlite's one session would let both take the lock).
      running ??= withCloseLock(deps.database, () => deps.close.closeDueMonths(at)).finally(() => {
        running = undefined;
      });
      return running;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      const tick = () => {
        if (stopped) return;
        job
          .runDue()
          .catch((err) => deps.log.error({ err }, 'monthly close failed; retried on the next wake-up'))
          .finally(schedule);
      };
      const schedule = () => {
        if (stopped) return;
        const wait = Math.min(Math.max(nextCloseTime(now()).getTime() - now().getTime(), 1000), MAX_SLEEP_MS);
        timer = setTimeout(tick, wait);
        timer.unref();
      };
      tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
  return job;
}
