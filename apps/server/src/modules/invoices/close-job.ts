import { yearMonthOf } from '@poi/shared/billing-time';
import type { Database } from '../../db/client';
import { CLOSE_LOCK_KEY, withSessionAdvisoryLock } from './close-lock.repository';
import { closeTimeOf, type CloseResult, type CloseService } from './close.service';

export { CLOSE_LOCK_KEY };

/** Runs fn while holding the monthly close's advisory lock, or answers undefined when another instance holds it. */
export function withCloseLock<T>(database: Database, fn: () => Promise<T>): Promise<T | undefined> {
  return withSessionAdvisoryLock(database, CLOSE_LOCK_KEY, fn);
}

export interface CloseJob {
  /** Closes every due month not yet closed, under the lock; undefined when another instance holds it. */
  runDue(now?: Date): Promise<CloseResult[] | undefined>;
}

/** The next instant the job must look: the close time of the current month (00:05 JST on the next 1st). */
export function nextCloseTime(now: Date): Date {
  return closeTimeOf(yearMonthOf(now));
}

/** The wait of the close job (app.ts's job runner) after a run: until 00:05 JST on the next 1st, at least a second. */
export function untilNextClose(now: Date): number {
  return Math.max(nextCloseTime(now).getTime() - now.getTime(), 1000);
}

/**
 * The in-process monthly close (docs/billing.md "The monthly close"): at 00:05 JST on the 1st it closes the previous month;
 * on start it closes any past month not yet closed (a restart resumes). The schedule is app.ts's
 * job runner's; this is the body it runs.
 */
export function createCloseJob(deps: { database: Database; close: CloseService; now?: () => Date }): CloseJob {
  const now = deps.now ?? (() => new Date());
  let running: Promise<CloseResult[] | undefined> | undefined;

  return {
    runDue(at = now()) {
      // Concurrent calls in one process share a run (PGlite's one session would let both take the lock).
      running ??= withCloseLock(deps.database, () => deps.close.closeDueMonths(at)).finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
