/**
 * A dataset's in-memory search index on disk (search-index.ts writes one after a build and keeps
 * it fresh; a start-up loads it and catches up from the change log instead of reading every POI
 * from PostgreSQL again).
 *
 * One file per dataset, `<dataset id>.snap` in the snapshot directory, written to a temporary
 * file, flushed and renamed over the old one (a crash leaves the old file or the new one, never
 * half of one):
 *
 *   0   8 bytes  magic "POISNAP\0"
 *   8   u32 LE   length of the header region (a multiple of 4096, from offset 0)
 *   12  u32 LE   length of the header's JSON
 *   16  u32 LE   CRC-32 of the header's JSON
 *   20  …        the header's JSON (UTF-8), then spaces up to the region's end
 *   …            the index's buffers (DatasetIndex.toSnapshot), each starting at a multiple of 8
 *
 * The header names the format, the dataset, the change-log position the index reflects (the
 * pg_snapshot of the last read of the log applied to it) and when that position was taken (the
 * database's clock), the POI count, the buffers' lengths and their CRC-32, and the index's own
 * header. A dataset whose index has not changed since its file was written gets a new position by
 * a rewrite of the header alone (refreshSnapshotPosition): the CRC of the header rejects a torn
 * write, and either header is true of the same buffers.
 *
 * Reads and writes go in chunks through the thread pool, and the checksums are computed a chunk
 * at a time between them: the event loop is never held for more than a few milliseconds.
 */
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** Bumped whenever the file layout changes; the index's own layout is versioned in its header. */
export const SNAPSHOT_FORMAT = 1;
const MAGIC = Buffer.from('POISNAP\0', 'latin1');
const PREFIX = 20;
const REGION = 4096;
/** Room left in the header region for longer positions (a refresh of the header alone). */
const SLACK = 1024;
/** Bytes per read or write, and per slice of a checksum: a few milliseconds of work each. */
const CHUNK = 8 * 1024 * 1024;
const FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.snap$/;

/** What DatasetIndex.toSnapshot gives and DatasetIndex.fromSnapshot takes. */
export interface IndexSnapshot {
  header: object;
  buffers: Uint8Array[];
}

/** Where in the change log the index of a snapshot stands. */
export interface SnapshotPosition {
  /** pg_snapshot text of the last read of the log applied to the index. */
  position: string;
  /** When that read's transaction started, by the database's clock (ms since the epoch). */
  takenAt: number;
}

export interface SnapshotMeta extends SnapshotPosition {
  format: number;
  datasetId: string;
  poiCount: number;
  /** DatasetIndex.bytes of the saved index (the memory budget is checked before loading). */
  indexBytes: number;
  endianness: 'BE' | 'LE';
  bufferLengths: number[];
  /** CRC-32 of the buffers' bytes, in order. */
  checksum: number;
  index: object;
}

export type SnapshotRead =
  | { status: 'missing' }
  | { status: 'invalid'; reason: string }
  | { status: 'ok'; meta: SnapshotMeta; snapshot: IndexSnapshot; bytes: number };

const fileOf = (dir: string, datasetId: string) => path.join(dir, `${datasetId}.snap`);
const align = (n: number, to: number) => Math.ceil(n / to) * to;
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CRC-32 of the buffers, a chunk at a time with a turn of the event loop between chunks. */
async function checksumOf(buffers: Uint8Array[]): Promise<number> {
  let crc = 0;
  for (const b of buffers) {
    for (let at = 0; at < b.length; at += CHUNK) {
      crc = crc32(b.subarray(at, Math.min(b.length, at + CHUNK)), crc);
      if (b.length > CHUNK) await yieldNow();
    }
  }
  return crc;
}

function headerBytes(meta: SnapshotMeta): Buffer {
  return Buffer.from(JSON.stringify(meta));
}

async function writeAll(fh: FileHandle, b: Uint8Array, at: number): Promise<void> {
  for (let done = 0; done < b.length; ) {
    const { bytesWritten } = await fh.write(b, done, Math.min(CHUNK, b.length - done), at + done);
    done += bytesWritten;
  }
}

async function readAll(fh: FileHandle, into: Uint8Array, at: number): Promise<void> {
  for (let done = 0; done < into.length; ) {
    const { bytesRead } = await fh.read(into, done, Math.min(CHUNK, into.length - done), at + done);
    if (!bytesRead) throw new Error('the file ends early');
    done += bytesRead;
  }
}

function prefixOf(regionLength: number, json: Buffer): Buffer {
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(regionLength, 8);
  prefix.writeUInt32LE(json.length, 12);
  prefix.writeUInt32LE(crc32(json), 16);
  return prefix;
}

/**
 * Writes a dataset's snapshot (temporary file, flush, rename, directory flushed). `snapshot`'s
 * buffers must not change while this runs (DatasetIndex.toSnapshot copies what later writes
 * change). Answers the bytes written and the buffers' checksum.
 */
export async function writeSnapshot(dir: string, datasetId: string, at: SnapshotPosition, poiCount: number, indexBytes: number, snapshot: IndexSnapshot): Promise<{ bytes: number; checksum: number }> {
  const meta: SnapshotMeta = {
    format: SNAPSHOT_FORMAT,
    datasetId,
    position: at.position,
    takenAt: at.takenAt,
    poiCount,
    indexBytes,
    endianness: endianness(),
    bufferLengths: snapshot.buffers.map((b) => b.length),
    checksum: await checksumOf(snapshot.buffers),
    index: snapshot.header,
  };
  const json = headerBytes(meta);
  const region = align(PREFIX + json.length + SLACK, REGION);
  await mkdir(dir, { recursive: true });
  const file = fileOf(dir, datasetId);
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const fh = await open(temp, 'w');
  let offset = region;
  try {
    const head = Buffer.alloc(region, 0x20);
    prefixOf(region, json).copy(head, 0);
    json.copy(head, PREFIX);
    await writeAll(fh, head, 0);
    for (const b of snapshot.buffers) {
      offset = align(offset, 8);
      await writeAll(fh, b, offset);
      offset += b.length;
    }
    await fh.truncate(offset);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(temp, file);
  await syncDir(dir);
  return { bytes: offset, checksum: meta.checksum };
}

async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } catch {
    // Some file systems refuse to flush a directory; the rename is then as durable as they make it.
  } finally {
    await d.close();
  }
}

async function readHeader(fh: FileHandle, size: number): Promise<{ meta: SnapshotMeta; region: number } | string> {
  if (size < PREFIX) return 'shorter than its header';
  const prefix = Buffer.alloc(PREFIX);
  await readAll(fh, prefix, 0);
  if (!prefix.subarray(0, 8).equals(MAGIC)) return 'not a search index snapshot';
  const region = prefix.readUInt32LE(8);
  const length = prefix.readUInt32LE(12);
  if (region % REGION || PREFIX + length > region || region > size) return 'its header is damaged';
  const json = Buffer.alloc(length);
  await readAll(fh, json, PREFIX);
  if (crc32(json) !== prefix.readUInt32LE(16)) return 'its header fails its checksum';
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(json.toString('utf8')) as SnapshotMeta;
  } catch {
    return 'its header is not JSON';
  }
  return { meta, region };
}

/** Why a header cannot be used for this dataset, or undefined when it can. */
function refusal(meta: SnapshotMeta, datasetId: string): string | undefined {
  if (meta.format !== SNAPSHOT_FORMAT) return `format ${String(meta.format)}, not ${SNAPSHOT_FORMAT}`;
  if (meta.datasetId !== datasetId) return `it holds dataset ${String(meta.datasetId)}`;
  if (meta.endianness !== endianness()) return `written on a ${String(meta.endianness)} machine`;
  if (typeof meta.position !== 'string' || typeof meta.takenAt !== 'number' || !Number.isFinite(meta.takenAt)) return 'its header has no change-log position';
  if (!Array.isArray(meta.bufferLengths) || !meta.bufferLengths.every((n) => Number.isSafeInteger(n) && n >= 0)) return 'its header has no buffer lengths';
  if (typeof meta.index !== 'object' || meta.index === null) return "its header has no index header";
  return undefined;
}

/** A dataset's snapshot file opened for reading, or why not (no file: missing; any other error: invalid). */
async function openSnapshot(dir: string, datasetId: string): Promise<FileHandle | { status: 'missing' } | { status: 'invalid'; reason: string }> {
  try {
    return await open(fileOf(dir, datasetId), 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return { status: 'invalid', reason: (err as Error).message };
  }
}

/** The header of a dataset's snapshot without its buffers (the memory budget, the position), or why not. */
export async function readSnapshotMeta(dir: string, datasetId: string): Promise<SnapshotMeta | { status: 'missing' } | { status: 'invalid'; reason: string }> {
  const fh = await openSnapshot(dir, datasetId);
  if (!('fd' in fh)) return fh;
  try {
    const header = await readHeader(fh, (await fh.stat()).size);
    if (typeof header === 'string') return { status: 'invalid', reason: header };
    const why = refusal(header.meta, datasetId);
    return why ? { status: 'invalid', reason: why } : header.meta;
  } catch (err) {
    return { status: 'invalid', reason: (err as Error).message };
  } finally {
    await fh.close();
  }
}

/**
 * Reads a dataset's snapshot and checks it (format, dataset, length, checksum). Each buffer comes
 * back in memory of its own (offset 0: typed arrays over it are aligned).
 */
export async function readSnapshot(dir: string, datasetId: string): Promise<SnapshotRead> {
  const fh = await openSnapshot(dir, datasetId);
  if (!('fd' in fh)) return fh;
  try {
    const size = (await fh.stat()).size;
    const header = await readHeader(fh, size);
    if (typeof header === 'string') return { status: 'invalid', reason: header };
    const { meta, region } = header;
    const why = refusal(meta, datasetId);
    if (why) return { status: 'invalid', reason: why };
    let end = region;
    for (const n of meta.bufferLengths) end = align(end, 8) + n;
    if (end !== size) return { status: 'invalid', reason: `${size} bytes where its header says ${end}` };
    const buffers: Uint8Array[] = [];
    let offset = region;
    let crc = 0;
    for (const n of meta.bufferLengths) {
      offset = align(offset, 8);
      const b = new Uint8Array(n);
      for (let at = 0; at < n; at += CHUNK) {
        const part = b.subarray(at, Math.min(n, at + CHUNK));
        await readAll(fh, part, offset + at);
        crc = crc32(part, crc);
      }
      buffers.push(b);
      offset += n;
    }
    if (crc !== meta.checksum) return { status: 'invalid', reason: 'its buffers fail their checksum' };
    return { status: 'ok', meta, snapshot: { header: meta.index, buffers }, bytes: size };
  } catch (err) {
    return { status: 'invalid', reason: (err as Error).message };
  } finally {
    await fh.close();
  }
}

/**
 * Gives a dataset's snapshot a later position, its buffers unchanged (an index that no write
 * touched since it was saved): the header alone is rewritten in place. False when the file is
 * not the one expected (another checksum) or the header no longer fits; then a full write is due.
 */
export async function refreshSnapshotPosition(dir: string, datasetId: string, checksum: number, at: SnapshotPosition): Promise<boolean> {
  let fh: FileHandle;
  try {
    fh = await open(fileOf(dir, datasetId), 'r+');
  } catch {
    return false;
  }
  try {
    const header = await readHeader(fh, (await fh.stat()).size);
    if (typeof header === 'string' || refusal(header.meta, datasetId) || header.meta.checksum !== checksum) return false;
    const json = headerBytes({ ...header.meta, position: at.position, takenAt: at.takenAt });
    if (PREFIX + json.length > header.region) return false;
    const head = Buffer.alloc(header.region, 0x20);
    prefixOf(header.region, json).copy(head, 0);
    json.copy(head, PREFIX);
    await writeAll(fh, head, 0);
    await fh.sync();
    return true;
  } finally {
    await fh.close();
  }
}

/** Removes a dataset's snapshot (a dataset deleted, a file found unusable). */
export async function removeSnapshot(dir: string, datasetId: string): Promise<void> {
  await rm(fileOf(dir, datasetId), { force: true });
}

/**
 * The datasets that have a snapshot in the directory; temporary files left by a write that did
 * not finish (a crash) are removed.
 */
export async function listSnapshots(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const name of names) {
    const m = FILE.exec(name);
    if (m) ids.push(m[1]!);
    else if (name.endsWith('.tmp') && FILE.test(name.split('.').slice(0, 2).join('.'))) {
      const pid = Number(name.split('.')[2]);
      if (pid !== process.pid) await rm(path.join(dir, name), { force: true });
    }
  }
  return ids;
}
