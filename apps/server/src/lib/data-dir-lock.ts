import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which server process holds a PGlite data directory. PGlite runs PostgreSQL inside this one
 * process: its `postmaster.pid` always says -42, stays behind after a crash, and a second PGlite
 * opens the same directory without complaint (and both then write to it). So the server writes
 * its own process id beside the data while it runs, and the backup and restore commands read it
 * (docs/operations.md "Backups").
 */
const FILE = 'server.pid';

/** Records this process as the holder of `dataDir`; answers the release (call it on shutdown). */
export function holdDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, FILE);
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    if (readPid(file) === process.pid) rmSync(file, { force: true });
  };
}

/** The process id of a running server holding `dataDir`, or undefined (none, or a stale file left by a crash). */
export function dataDirHolder(dataDir: string): number | undefined {
  const pid = readPid(path.join(dataDir, FILE));
  if (pid === undefined) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: the process exists but belongs to another user — still running.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
