import type { Db, Executor } from './client';

/** What a transaction hands its work: an executor the repositories take as their first argument. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * The unit of work of a service: runs `work` in one transaction, committed when it resolves and
 * rolled back when it throws. Services open transactions through this and pass `tx` on to
 * repository functions (and to `writeAudit`, so the audit row commits with the change); they never
 * call the database handle's query methods themselves, which keeps every SQL statement in a
 * `*.repository.ts`.
 */
export function inTransaction<T>(db: Db | Executor, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(work);
}
