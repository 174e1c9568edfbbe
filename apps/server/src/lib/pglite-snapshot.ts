import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';

/**
 * A consistent copy of the running server's PGlite directory, for `npm run backup`
 * (docs/operations.md "Backups"). PGlite lives inside the server's process, so only the server
 * can copy it consistently: on SIGUSR2 (only the server's own user or root can send it) it takes
 * the database's one connection, checkpoints, copies the directory beside it and lets queries go
 * on. Queries wait for the length of the copy, announced in the log before and after.
 */

/** The copy (`<dataDir>/backup-snapshot/pglite`) and the files the backup command and the server exchange. */
export const SNAPSHOT_DIR = 'backup-snapshot';
export const SNAPSHOT_REQUEST = 'backup-request.json';
/** The server's answer to one request: a file per request, so two backups at once never read each other's. */
export const snapshotDoneFile = (id: string) => `backup-done-${id.replace(/[^0-9a-f-]/gi, '')}.json`;

export interface SnapshotDone {
  id: string;
  ok: boolean;
  paused_ms?: number;
  error?: string;
}

/** The part of PGlite a snapshot uses: a transaction holds its only connection. */
interface PgliteClient {
  transaction<T>(work: (tx: { exec(query: string): Promise<unknown> }) => Promise<T>): Promise<T>;
}

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The open database and the log; undefined while the server starts (migrations may be running). */
export interface SnapshotSource {
  client: PgliteClient;
  log: Log;
}

let busy = false;

/** Answers the request in `dataDir` (written by the backup command before it signalled). */
export async function answerSnapshotRequest(source: SnapshotSource | undefined, dataDir: string): Promise<void> {
  let id = '';
  try {
    id = String((JSON.parse(readFileSync(path.join(dataDir, SNAPSHOT_REQUEST), 'utf8')) as { id?: unknown }).id ?? '');
  } catch {
    return; // no request (a stray signal): nothing to answer
  }
  if (busy) {
    writeDone(dataDir, { id, ok: false, error: 'another backup is being copied; try again when it is done' });
    return;
  }
  busy = true;
  try {
    if (!source) {
      writeDone(dataDir, { id, ok: false, error: 'the server is still starting (migrations, search index); try again once it runs' });
      return;
    }
    const { client, log } = source;
    const target = path.join(dataDir, SNAPSHOT_DIR);
    rmSync(target, { recursive: true, force: true });
    log.info({ backup: id }, 'backup: pausing the database for a consistent copy (queries wait until it is done)');
    const started = Date.now();
    // Inside a transaction no other query runs: after the checkpoint the files are complete and stay
    // unchanged while copied. The copy is asynchronous, so what needs no database (the in-memory
    // search index, with its usage buffered) goes on answering.
    await client.transaction(async (tx) => {
      await tx.exec('CHECKPOINT');
      await cp(path.join(dataDir, 'pglite'), path.join(target, 'pglite'), { recursive: true });
    });
    const pausedMs = Date.now() - started;
    log.info({ backup: id, paused_ms: pausedMs }, `backup: copy done, queries resumed after ${pausedMs} ms`);
    writeDone(dataDir, { id, ok: true, paused_ms: pausedMs });
  } catch (err) {
    source?.log.error({ err, backup: id }, 'backup: the copy failed');
    writeDone(dataDir, { id, ok: false, error: (err as Error).message });
  } finally {
    busy = false;
  }
}

function writeDone(dataDir: string, done: SnapshotDone): void {
  const file = path.join(dataDir, snapshotDoneFile(done.id));
  // Renamed into place, so the command never reads half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(done));
  renameSync(`${file}.tmp`, file);
}
