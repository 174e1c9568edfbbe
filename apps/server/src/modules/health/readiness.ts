import { messages } from '@poi/shared/messages';
import type { Database } from '../../db/client';
import type { SearchIndex } from '../pois/search-index';
import { checkDatabase } from './health.repository';
import type { Lifecycle } from './lifecycle';

/** Why /readyz answers 503 (machine-readable; the message says it in Japanese). */
export type NotReadyReason = 'starting' | 'migrating' | 'search_index_building' | 'database_unreachable' | 'draining';

export type NotReady = { ready: false; reason: NotReadyReason; message: string };
export type Readiness = { ready: true } | NotReady;

export const NOT_READY_REASONS = ['starting', 'migrating', 'search_index_building', 'database_unreachable', 'draining'] as const satisfies readonly NotReadyReason[];

const MESSAGES: Record<NotReadyReason, string> = {
  starting: messages.serverStarting,
  migrating: messages.databaseMigrating,
  search_index_building: messages.searchIndexBuilding,
  database_unreachable: messages.databaseUnavailable,
  draining: messages.serverDraining,
};

export function notReady(reason: NotReadyReason): NotReady {
  return { ready: false, reason, message: MESSAGES[reason] };
}

/** The database check's bound: a probe answers quickly even when the host does not (a blackhole). */
const DATABASE_CHECK_TIMEOUT_MS = 1_000;
/** One database check answers the probes of this long: a probe every few hundred ms costs one query a second. */
const DATABASE_CHECK_TTL_MS = 1_000;

class CheckTimeoutError extends Error {}

/**
 * The readiness probe's verdict: the process' phase first (starting, migrating, draining), then
 * the database (one `SELECT 1`, bounded and shared by the probes of a second), then the search
 * index's start-up build. The index counts only until its first build is over: a dataset built
 * again later (a bulk import) is searched on the database meanwhile, and taking the instance
 * out of rotation for it would refuse searches it can answer.
 */
export function createReadinessCheck(deps: {
  database: Database;
  lifecycle: Lifecycle;
  searchIndex: SearchIndex | undefined;
  now?: () => number;
}): () => Promise<Readiness> {
  const now = deps.now ?? Date.now;
  let databaseCheck: { at: number; result: Promise<boolean> } | undefined;
  let indexWarm = !deps.searchIndex;

  function databaseReachable(): Promise<boolean> {
    const at = now();
    if (databaseCheck && at - databaseCheck.at < DATABASE_CHECK_TTL_MS) return databaseCheck.result;
    const result = withTimeout(checkDatabase(deps.database.db), DATABASE_CHECK_TIMEOUT_MS).then(
      () => true,
      // PGlite runs in this process on one connection: a check waiting behind a long transaction
      // (an import) means busy, not unreachable (as /healthz).
      (err: unknown) => err instanceof CheckTimeoutError && deps.database.engine === 'pglite',
    );
    databaseCheck = { at, result };
    return result;
  }

  function indexBuilding(): boolean {
    if (indexWarm) return false;
    const s = deps.searchIndex!.state();
    if (!s.enabled || (s.startedUp && s.building === 0)) indexWarm = true;
    return !indexWarm;
  }

  return async () => {
    const phase = deps.lifecycle.phase();
    if (phase !== 'serving') return notReady(phase === 'draining' ? 'draining' : phase);
    if (!(await databaseReachable())) return notReady('database_unreachable');
    // The phase again: a SIGTERM during the check.
    if (deps.lifecycle.phase() === 'draining') return notReady('draining');
    if (indexBuilding()) return notReady('search_index_building');
    return { ready: true };
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
