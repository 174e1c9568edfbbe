import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { messages } from '@poi/shared/messages';

/**
 * The query builder type both engines share. PGlite's drizzle database has the same
 * query-building surface, so it is typed as the node-postgres one.
 */
export type Db = NodePgDatabase;
/** A database or an open transaction: repositories accept either. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * The node-postgres connection of a PostgreSQL transaction, for what drizzle does not do (COPY).
 * drizzle runs a pool transaction on one checked-out client, kept on its session.
 */
export function pgClientOf(tx: Executor): pg.PoolClient {
  const client = (tx as unknown as { session?: { client?: unknown } }).session?.client;
  if (!(client instanceof pg.Client)) throw new Error('not a PostgreSQL transaction');
  return client as pg.PoolClient;
}

export interface Database {
  db: Db;
  /**
   * PostgreSQL only: a few connections whose planner reads the GiST index in distance order
   * (bitmap scans and sorts off) and keeps generic plans, for nearest-first searches with a
   * keyword. One round trip and no planning per search instead of a transaction that changes
   * the settings around each one. Without it (PGlite) the search sets them in a transaction.
   */
  knnDb?: Db;
  engine: 'pglite' | 'postgres';
  /** PostgreSQL: the connection URL (for connections of their own, such as LISTEN). */
  url?: string;
  /** PostgreSQL: each pool's clients at this moment (/metrics). PGlite has no pool. */
  poolStats?(): PoolStats[];
  /** PostgreSQL: connections lost (idle or in use, as guardPool sees them) since the pools opened. */
  connectionErrors?(): number;
  close(): Promise<void>;
}

export interface PoolStats {
  /** `main` (db) or `knn` (knnDb). */
  pool: 'main' | 'knn';
  total: number;
  idle: number;
  /** Queries waiting for a client. */
  waiting: number;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  url?: string;
  /** PGlite data directory; undefined keeps PGlite in memory. */
  pgliteDir?: string;
  /**
   * PGlite in memory: start from this dump of a data directory (`dumpDataDir`) instead of an
   * empty one. The route tests start each server from a migrated dump: about 1 s instead of the
   * 3 s of creating and migrating a database. Migrations still run (already applied: a no-op).
   */
  pgliteDump?: Blob;
  /**
   * A PostgreSQL connection was lost, idle or in use (logged by the server; the pool opens a new
   * one on the next query). The error is a summary: pg's own carries the whole client object.
   */
  onIdleError?: (err: Error) => void;
  /** Called with true before the migrations run and false after (the readiness probe says `migrating` meanwhile). */
  onMigrating?: (running: boolean) => void;
}

// From src/db/client.ts this is src/db/migrations; from the bundled dist/server.js, dist/migrations.
const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** The settings of knnDb's connections (libpq `options`; the bench's raw KNN baseline opens its own pool with them). */
export const KNN_SESSION_OPTIONS = '-c enable_bitmapscan=off -c enable_sort=off -c plan_cache_mode=force_generic_plan -c jit=off';

export class DatabaseLocaleError extends Error {}

/**
 * Pool settings for a database that goes away (docs/resilience.md "PostgreSQL going away"). A connection attempt to a host that
 * does not answer (a failover in progress, a dropped network) fails after 5 s instead of waiting
 * for TCP's minutes, so requests are refused (503) rather than queued; keepalive finds a
 * connection whose peer vanished without a FIN.
 */
const RECONNECT_OPTIONS = { connectionTimeoutMillis: 5_000, keepAlive: true } satisfies pg.PoolConfig;

/** pg's errors name their client (a large object graph): what is worth a log line. */
export function connectionErrorSummary(err: Error & { code?: string }): Error {
  return Object.assign(new Error(err.message), { name: err.name, code: err.code });
}

/**
 * Makes a pool survive its connections being closed under it (a restart, a failover,
 * pg_terminate_backend, an idle-connection killer):
 *
 * - An idle client's 'error' goes to the pool's 'error' event, listened to here (pg-pool then
 *   drops the client).
 * - A checked-out client has no 'error' listener of pg-pool's while a caller holds it between two
 *   queries (a drizzle transaction, the close job's lock connection): its 'error' event, unheard,
 *   was an uncaught exception that ended the process ("Connection terminated unexpectedly ...
 *   Emitted 'error' event on Client instance"). Every client gets a listener of its own here.
 * - That client is released to the pool with the error at once (the pool ends it and frees its
 *   slot), and a later release by its holder does nothing. drizzle's transaction() never
 *   releases a client whose `begin` failed (its try/finally starts after it): without this,
 *   every kill that caught a `begin` in flight leaked a slot of the pool for good, and 20 of them
 *   would have left every query waiting forever.
 */
function guardPool(pool: pg.Pool, onError: ((err: Error) => void) | undefined, lost: { count: number }): pg.Pool {
  const report = (err: Error) => {
    lost.count += 1;
    onError?.(connectionErrorSummary(err));
  };
  pool.on('error', report);
  const checkedOut = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_err, client) => checkedOut.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      // Idle: pg-pool's own listener has removed it and reported it through the pool's 'error'.
      if (!checkedOut.has(client)) return;
      report(err);
      const release = client.release.bind(client);
      let released = false;
      client.release = (e?: Error | boolean) => {
        if (released) return;
        released = true;
        release(e);
      };
      client.release(err);
    });
  });
  return pool;
}

/** The advisory lock key the migrations run under (any constant of this product's own). */
const MIGRATION_LOCK = 7_312_024_601;

/**
 * Runs the migrations under a session-level advisory lock, on one connection: instances started
 * together on an empty database wait for the first one's migrations instead of running the same
 * `CREATE EXTENSION` / `CREATE TABLE` at once (the second failed and exited, seen behind nginx in
 * scripts/deploy-check.mjs). The next one then finds every migration applied.
 */
async function migrateLocked(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migratePg(drizzlePg(client), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // A connection that failed may still hold the lock: it is closed, not pooled (closing frees it).
    client.release(failure);
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const lost = { count: 0 };
    const pool = guardPool(new pg.Pool({ connectionString: options.url, max: 20, ...RECONNECT_OPTIONS }), options.onIdleError, lost);
    const db = drizzlePg(pool);
    try {
      await assertUtf8Ctype(db);
      options.onMigrating?.(true);
      await migrateLocked(pool);
      options.onMigrating?.(false);
    } catch (err) {
      await pool.end();
      throw err;
    }
    const knnPool = guardPool(new pg.Pool({ connectionString: options.url, max: 5, options: KNN_SESSION_OPTIONS, ...RECONNECT_OPTIONS }), options.onIdleError, lost);
    const statsOf = (name: PoolStats['pool'], p: pg.Pool): PoolStats => ({ pool: name, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount });
    return {
      db,
      knnDb: drizzlePg(knnPool),
      engine: 'postgres',
      url: options.url,
      poolStats: () => [statsOf('main', pool), statsOf('knn', knnPool)],
      connectionErrors: () => lost.count,
      close: async () => {
        await Promise.all([pool.end(), knnPool.end()]);
      },
    };
  }

  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const client = await PGlite.create({
    dataDir: options.pgliteDir,
    loadDataDir: options.pgliteDir ? undefined : options.pgliteDump,
    extensions: { pg_trgm, cube, earthdistance },
  });
  const db = drizzlePglite(client) as unknown as Db;
  try {
    await assertUtf8Ctype(db);
    options.onMigrating?.(true);
    await migratePglite(drizzlePglite(yieldingEachStatement(client)), { migrationsFolder });
    options.onMigrating?.(false);
  } catch (err) {
    await client.close();
    throw err;
  }
  return { db, engine: 'pglite', close: () => client.close() };
}

/**
 * PGlite runs its statements on this thread, each holding the event loop: a turn of the loop
 * before each migration statement lets the early listener answer the probes while a fresh data
 * directory is migrated (a second or more of statements in one transaction).
 */
function yieldingEachStatement<T extends object>(target: T): T {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop === 'query' || prop === 'exec') {
        return async (...args: unknown[]) => {
          await turn();
          return fn.apply(t, args);
        };
      }
      if (prop === 'transaction') {
        return (callback: (tx: object) => unknown) => fn.call(t, (tx: object) => callback(yieldingEachStatement(tx)));
      }
      return fn.bind(t);
    },
  });
}

/** Under LC_CTYPE=C pg_trgm sees no Japanese characters, so keyword search would silently fail. */
async function assertUtf8Ctype(db: Db): Promise<void> {
  const result = await db.execute<{ ctype: string; encoding: string }>(
    sql`SELECT datctype AS ctype, pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`,
  );
  const row = result.rows[0];
  const utf8 = (s: string | undefined) => !!s && /utf-?8/i.test(s);
  if (!row || !utf8(row.encoding) || !utf8(row.ctype)) {
    throw new DatabaseLocaleError(
      `${messages.databaseLocale} (encoding=${row?.encoding ?? '?'}, ctype=${row?.ctype ?? '?'})`,
    );
  }
}
