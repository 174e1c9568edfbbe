import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Database } from '../../db/client';

/** The advisory lock key of the monthly close ("POI" + 1): one instance closes at a time. */
export const CLOSE_LOCK_KEY = 0x504f4901;

/**
 * Runs fn while holding the PostgreSQL session advisory lock `key`, or answers undefined at once
 * when another instance holds it. On PostgreSQL the lock lives on a connection taken from the pool
 * for the whole run (a session lock is released by the session that took it); PGlite has one
 * session and the same SQL.
 */
export async function withSessionAdvisoryLock<T>(database: Database, key: number, fn: () => Promise<T>): Promise<T | undefined> {
  if (database.engine === 'postgres') {
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
      if (!rows[0]?.locked) return undefined;
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    } finally {
      client.release();
    }
  }
  const { rows } = await database.db.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_lock(${key}) AS locked`);
  if (!rows[0]?.locked) return undefined;
  try {
    return await fn();
  } finally {
    await database.db.execute(sql`SELECT pg_advisory_unlock(${key})`);
  }
}
