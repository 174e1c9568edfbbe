/**
 * `npm run backup -- <dir>` and `npm run restore -- <dir> [--force]` (docs/operations.md "Backups").
 *
 * A backup is a directory: `manifest.json` (format, engine, time, every table's row count, each
 * file's size and SHA-256), the database (`pglite.tar.gz`, the PGlite data directory after a
 * clean shutdown; or `postgres.dump`, pg_dump's custom format) and `app-secret` when DATA_DIR has one
 * (sign-in links and search cursors are signed with it).
 *
 * PGlite is PostgreSQL inside the server's process: nothing else can open its directory while the
 * server runs (lib/data-dir-lock.ts). A backup then asks the server for a copy, made in a short
 * pause it logs (lib/pglite-snapshot.ts); a restore refuses and says how to stop it.
 *
 * Reads DATA_DIR and DATABASE_URL as the server does (config.ts), but not through loadConfig:
 * that would create an app secret in the directory being restored into.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PGlite } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { dataDirHolder } from './lib/data-dir-lock';
import { SNAPSHOT_DIR, SNAPSHOT_REQUEST, snapshotDoneFile, type SnapshotDone } from './lib/pglite-snapshot';

const FORMAT = 'poi-cloud-backup';
const FORMAT_VERSION = 1;
const PGLITE_FILE = 'pglite.tar.gz';
const POSTGRES_FILE = 'postgres.dump';
const SECRET_FILE = 'app-secret';
const MANIFEST_FILE = 'manifest.json';

interface Manifest {
  format: typeof FORMAT;
  version: number;
  engine: 'pglite' | 'postgres';
  created_at: string;
  /** Exact row counts per table (schema.table), checked again after a restore. */
  tables: Record<string, number>;
  files: Record<string, { bytes: number; sha256: string }>;
}

class UsageError extends Error {}

/** Anything that answers SQL rows: a PGlite instance or a pg client. */
interface Queryable {
  query<T>(text: string): Promise<{ rows: T[] }>;
}

interface Env {
  dataDir: string;
  databaseUrl?: string;
}

function readEnv(env: NodeJS.ProcessEnv): Env {
  const dataDir = path.resolve(env.DATA_DIR?.trim() || './data');
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('DATABASE_URL must be a postgres:// URL');
  return { dataDir, databaseUrl };
}

/** Opens a PGlite directory with the extensions the migrations create (as db/client.ts does), without migrating it. */
function openPglite(dataDir: string): Promise<PGlite> {
  return PGlite.create({ dataDir, extensions: { pg_trgm, cube, earthdistance } });
}

/** Exact row counts of every table of the product (public) and of the migrations' journal (drizzle). */
async function tableCounts(db: Queryable): Promise<Record<string, number>> {
  const tables = await db.query<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
     WHERE table_schema IN ('public', 'drizzle') AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const [row] = (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${name}`)).rows;
    counts[name] = Number(row!.n);
  }
  return counts;
}

function refuseWhileServerRuns(dataDir: string): void {
  const pid = dataDirHolder(dataDir);
  if (pid === undefined) return;
  throw new UsageError(
    `A POI Cloud server (process ${pid}) is running on ${dataDir}. Its embedded database (PGlite) lives inside that process ` +
      `and cannot be replaced under it. Stop the server (kill -TERM ${pid}, or Ctrl-C: it finishes in-flight requests and writes ` +
      `buffered usage first), run the restore, then start it again.`,
  );
}

/**
 * Asks the running server for a consistent copy of its directory (lib/pglite-snapshot.ts):
 * the request file, then SIGUSR2, then its answer. Answers the copy's path.
 */
async function requestSnapshot(dataDir: string, pid: number): Promise<string> {
  const id = randomUUID();
  const doneFile = path.join(dataDir, snapshotDoneFile(id));
  const requestFile = path.join(dataDir, SNAPSHOT_REQUEST);
  writeFileSync(requestFile, JSON.stringify({ id }));
  console.log(`asking the running server (process ${pid}) for a copy of its database; its database queries wait while it copies`);
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    const done = existsSync(doneFile) ? (JSON.parse(readFileSync(doneFile, 'utf8')) as SnapshotDone) : undefined;
    if (done?.id === id) {
      rmSync(doneFile, { force: true });
      if (existsSync(requestFile) && readFileSync(requestFile, 'utf8').includes(id)) rmSync(requestFile, { force: true });
      if (!done.ok) throw new Error(`the server could not copy its database: ${done.error ?? 'unknown error'}`);
      console.log(`the server paused for ${done.paused_ms} ms`);
      return path.join(dataDir, SNAPSHOT_DIR, 'pglite');
    }
    if (dataDirHolder(dataDir) !== pid) throw new Error(`the server (process ${pid}) stopped before it answered`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Size and SHA-256 of a file, read as a stream (a database archive may be larger than memory). */
async function fileEntry(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A new, empty backup directory (never into an existing backup or other files). */
function prepareTarget(target: string): void {
  if (existsSync(target) && readdirSync(target).length) throw new UsageError(`${target} exists and is not empty: give a new directory for the backup`);
  mkdirSync(target, { recursive: true });
}

async function finishBackup(target: string, env: Env, engine: Manifest['engine'], dbFile: string, tables: Manifest['tables']): Promise<Manifest> {
  const files: Manifest['files'] = { [dbFile]: await fileEntry(path.join(target, dbFile)) };
  const secret = path.join(env.dataDir, SECRET_FILE);
  if (existsSync(secret)) {
    writeFileSync(path.join(target, SECRET_FILE), readFileSync(secret), { mode: 0o600 });
    files[SECRET_FILE] = await fileEntry(path.join(target, SECRET_FILE));
  }
  const manifest: Manifest = { format: FORMAT, version: FORMAT_VERSION, engine, created_at: new Date().toISOString(), tables, files };
  writeFileSync(path.join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function backupPglite(env: Env, target: string): Promise<Manifest> {
  const source = path.join(env.dataDir, 'pglite');
  if (!existsSync(path.join(source, 'PG_VERSION'))) throw new UsageError(`No PGlite database in ${source} (DATA_DIR=${env.dataDir})`);
  prepareTarget(target);
  const pid = dataDirHolder(env.dataDir);
  // Running: the server's copy (a checkpoint, then the files, while it holds its one connection); stopped: the directory itself.
  const copy = pid === undefined ? source : await requestSnapshot(env.dataDir, pid);
  let tables: Manifest['tables'];
  try {
    const db = await openPglite(copy);
    try {
      tables = await tableCounts(db);
    } finally {
      // A clean shutdown (a checkpoint): the directory is then a complete, consistent PostgreSQL data directory.
      await db.close();
    }
    // Streamed by tar rather than PGlite's dumpDataDir, which builds the whole archive in memory
    // (measured: 2.7 GB of RSS for a 737 MB directory).
    run('tar', ['--create', '--gzip', `--file=${path.join(target, PGLITE_FILE)}`, `--directory=${path.dirname(copy)}`, '--exclude=pglite/postmaster.pid', 'pglite']);
    // Stopped: nothing may have started on the directory while tar read it.
    if (pid === undefined && dataDirHolder(env.dataDir) !== undefined) throw new Error('a server started on the directory during the backup: run it again');
  } finally {
    if (copy !== source) rmSync(path.dirname(copy), { recursive: true, force: true });
  }
  return finishBackup(target, env, 'pglite', PGLITE_FILE, tables);
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new UsageError(`${command} is not installed${command.startsWith('pg_') ? ' (Debian: apt-get install postgresql-client). The steps by hand are in docs/operations.md "Backups"' : ''}.`);
  }
  if (result.status !== 0) throw new Error(`${command} failed (exit ${result.status ?? result.signal})`);
}

async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function backupPostgres(env: Env & { databaseUrl: string }, target: string): Promise<Manifest> {
  prepareTarget(target);
  // pg_dump reads one snapshot (its own repeatable-read transaction): consistent while the servers run.
  // The counts are read apart from it, so under load they may differ slightly from the dump's.
  const tables = await withPg(env.databaseUrl, tableCounts);
  run('pg_dump', ['--format=custom', '--no-owner', '--no-acl', `--file=${path.join(target, POSTGRES_FILE)}`, `--dbname=${env.databaseUrl}`]);
  return finishBackup(target, env, 'postgres', POSTGRES_FILE, tables);
}

async function readManifest(source: string): Promise<Manifest> {
  const file = path.join(source, MANIFEST_FILE);
  if (!existsSync(file)) throw new UsageError(`${source} is not a POI Cloud backup (no ${MANIFEST_FILE})`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  if (manifest.format !== FORMAT || manifest.version !== FORMAT_VERSION) throw new UsageError(`${file}: unknown backup format`);
  for (const [name, expected] of Object.entries(manifest.files)) {
    const actual = existsSync(path.join(source, name)) ? await fileEntry(path.join(source, name)) : undefined;
    if (!actual || actual.sha256 !== expected.sha256) throw new UsageError(`${path.join(source, name)} is missing or damaged (its SHA-256 differs from the manifest's)`);
  }
  return manifest;
}

function assertSameCounts(expected: Manifest['tables'], actual: Manifest['tables']): void {
  const differences = [...new Set([...Object.keys(expected), ...Object.keys(actual)])]
    .filter((t) => expected[t] !== actual[t])
    .map((t) => `${t}: ${expected[t] ?? 'absent'} in the backup, ${actual[t] ?? 'absent'} restored`);
  if (differences.length) throw new Error(`The restored database differs from the backup:\n  ${differences.join('\n  ')}`);
}

/**
 * What a restore would overwrite in DATA_DIR. With --force it is moved aside into
 * DATA_DIR/replaced-<time>/ rather than deleted.
 */
function clearDataDir(env: Env, names: string[], force: boolean): void {
  const present = names.filter((n) => existsSync(path.join(env.dataDir, n)) && !(n === 'pglite' && !readdirSync(path.join(env.dataDir, n)).length));
  if (!present.length) return;
  if (!force) {
    throw new UsageError(
      `${env.dataDir} already holds ${present.join(' and ')}. Restore into a new DATA_DIR, or add --force to move the present data aside (into ${env.dataDir}/replaced-<time>/) and restore over it.`,
    );
  }
  const aside = path.join(env.dataDir, `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(aside, { recursive: true });
  for (const n of present) renameSync(path.join(env.dataDir, n), path.join(aside, n));
  console.log(`moved the present ${present.join(' and ')} to ${aside}`);
}

function restoreSecret(source: string, env: Env, manifest: Manifest): void {
  if (!manifest.files[SECRET_FILE]) {
    console.log('the backup holds no app-secret (APP_SECRET was set): start the server with the same APP_SECRET');
    return;
  }
  writeFileSync(path.join(env.dataDir, SECRET_FILE), readFileSync(path.join(source, SECRET_FILE)), { mode: 0o600 });
}

async function restorePglite(source: string, env: Env, manifest: Manifest, force: boolean): Promise<void> {
  refuseWhileServerRuns(env.dataDir);
  const names = manifest.files[SECRET_FILE] ? ['pglite', SECRET_FILE] : ['pglite'];
  clearDataDir(env, names, force);
  mkdirSync(env.dataDir, { recursive: true });
  // Loaded and checked beside the final place, then renamed: a failed restore leaves no half database as DATA_DIR/pglite.
  const staging = path.join(env.dataDir, 'pglite.restoring');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  run('tar', ['--extract', '--gzip', `--file=${path.join(source, PGLITE_FILE)}`, `--directory=${staging}`]);
  const db = await openPglite(path.join(staging, 'pglite'));
  try {
    assertSameCounts(manifest.tables, await tableCounts(db));
  } finally {
    await db.close();
  }
  renameSync(path.join(staging, 'pglite'), path.join(env.dataDir, 'pglite'));
  rmSync(staging, { recursive: true });
  restoreSecret(source, env, manifest);
}

/**
 * pg_restore's SQL, through psql in one transaction, with the search path the extensions need.
 * A plain `pg_restore --dbname` fails on `CREATE TABLE pois` (type "earth" does not exist):
 * the dump empties search_path, and earthdistance's ll_to_earth, inlined through poi_earth into
 * the generated `earth` column, names cube's and its own objects without their schema. The one
 * line that empties it (outside COPY data) gets public added back.
 */
async function pgRestore(dumpFile: string, url: string, clean: boolean): Promise<void> {
  const restore = spawn('pg_restore', ['--no-owner', '--no-acl', ...(clean ? ['--clean', '--if-exists'] : []), '--file=-', dumpFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const psql = spawn('psql', ['--no-psqlrc', '--quiet', '--set=ON_ERROR_STOP=1', '--single-transaction', `--dbname=${url}`], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exits = [restore, psql].map((child) => exitOf(child));
  for (const exit of exits) exit.catch(() => {}); // awaited below
  // psql stopping at an error closes its input: its exit status tells, not the broken pipe.
  psql.stdin!.on('error', () => {});
  let inCopy = false;
  try {
    for await (const line of createInterface({ input: restore.stdout!, crlfDelay: Infinity })) {
      let out = line;
      if (inCopy) inCopy = line !== '\\.';
      else if (/^COPY .* FROM stdin;$/.test(line)) inCopy = true;
      else if (line === "SELECT pg_catalog.set_config('search_path', '', false);") out = "SELECT pg_catalog.set_config('search_path', 'public, pg_catalog', false);";
      if (psql.exitCode !== null) break;
      if (!psql.stdin!.write(`${out}\n`)) await Promise.race([new Promise((resolve) => psql.stdin!.once('drain', resolve)), exits[1]]);
    }
  } finally {
    psql.stdin!.end();
    if (psql.exitCode !== null) restore.kill();
  }
  const [restoreExit, psqlExit] = await Promise.all(exits);
  if (psqlExit !== 0) throw new Error(`psql failed (exit ${psqlExit}); nothing was restored (one transaction)`);
  if (restoreExit !== 0) throw new Error(`pg_restore failed (exit ${restoreExit})`);
}

function exitOf(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve, reject) => {
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new UsageError(`${child.spawnfile} is not installed (Debian: apt-get install postgresql-client). The steps by hand are in docs/operations.md "Backups".`) : err),
    );
    child.on('exit', (code, signal) => resolve(code ?? signal));
  });
}

async function restorePostgres(source: string, env: Env & { databaseUrl: string }, manifest: Manifest, force: boolean): Promise<void> {
  const existing = await withPg(env.databaseUrl, async (c) => (await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema IN ('public', 'drizzle')`)).rows[0]!.n);
  if (Number(existing) > 0 && !force) {
    throw new UsageError(`The database of DATABASE_URL already has ${existing} tables. Restore into a new, empty database (createdb -T template0 -E UTF8 …), or add --force to drop and replace its tables.`);
  }
  if (manifest.files[SECRET_FILE]) clearDataDir(env, [SECRET_FILE], force);
  await pgRestore(path.join(source, POSTGRES_FILE), env.databaseUrl, force);
  assertSameCounts(manifest.tables, await withPg(env.databaseUrl, tableCounts));
  mkdirSync(env.dataDir, { recursive: true });
  restoreSecret(source, env, manifest);
}

const USAGE = 'usage: npm run backup -- <new directory>\n       npm run restore -- <backup directory> [--force]';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const force = rest.includes('--force');
  const paths = rest.filter((a) => a !== '--force');
  if ((command !== 'backup' && command !== 'restore') || paths.length !== 1 || (command === 'backup' && force)) throw new UsageError(USAGE);
  const target = path.resolve(paths[0]!);
  const env = readEnv(process.env);
  const started = Date.now();
  if (command === 'backup') {
    const manifest = env.databaseUrl ? await backupPostgres({ ...env, databaseUrl: env.databaseUrl }, target) : await backupPglite(env, target);
    const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
    console.log(`backup of ${manifest.engine} (${Object.keys(manifest.tables).length} tables, ${rows} rows) written to ${target} in ${Date.now() - started} ms`);
    return;
  }
  const manifest = await readManifest(target);
  if (manifest.engine === 'postgres' && !env.databaseUrl) throw new UsageError('This is a PostgreSQL backup: set DATABASE_URL to the (new, empty) database to restore it into');
  if (manifest.engine === 'pglite' && env.databaseUrl) throw new UsageError('This is a backup of the embedded database (PGlite): unset DATABASE_URL to restore it into DATA_DIR');
  if (manifest.engine === 'postgres') await restorePostgres(target, { ...env, databaseUrl: env.databaseUrl! }, manifest, force);
  else await restorePglite(target, env, manifest, force);
  console.log(`restored the ${manifest.engine} backup of ${manifest.created_at} into ${env.databaseUrl ? 'DATABASE_URL' : env.dataDir} in ${Date.now() - started} ms; row counts match the backup's`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(err instanceof UsageError ? 2 : 1);
});
