/**
 * The public API's point searches, with or without keyword, from memory, PostgreSQL
 * staying the system of record.
 *
 * Built at start-up by keyset pages of each dataset (the server answers meanwhile; a dataset's
 * searches go to PostgreSQL until it is ready) and kept in step by the change log
 * (search_changes, written by triggers in the writing transaction, migration 0016):
 *
 * - Each read takes the rows of transactions that committed after the previous read's snapshot
 *   and before its own (txid not visible in the old snapshot, visible in the new one): every
 *   change once, whatever order transactions commit in, on every instance alike.
 * - A change names a POI (or a dataset whose POIs changed in bulk); the reader reads that POI
 *   again in the same snapshot and applies what it finds (insert, change, delete, move), so
 *   applying a change twice or late is harmless. A bulk change sends the dataset back to
 *   PostgreSQL until it is built again.
 * - Reads happen at once after a write on this instance (before the write answers), on a NOTIFY
 *   from another (PostgreSQL), and every SEARCH_INDEX_POLL_MS whatever happens (a lost notification).
 * - If the log cannot be read for STALE_MS, every search goes to PostgreSQL until it can.
 *
 * Datasets are indexed while the estimate of their size fits SEARCH_INDEX_MAX_MB; the others stay
 * on PostgreSQL.
 *
 * With a snapshot directory, each dataset's index is saved to disk after its build (and kept fresh
 * by the prune job and at shutdown; index-snapshot.ts), and a start-up loads it, reads the log's
 * changes of that dataset since the position it was saved at, and serves: no read of every POI.
 * A file that is damaged, of another format or dataset, older than the log keeps (half its
 * retention, as for a running instance), or followed by a bulk change is removed and the dataset
 * built from PostgreSQL.
 */
import type { FastifyBaseLogger } from 'fastify';
import { SEARCH_TOTAL_CAP } from '@poi/shared/schemas/pois';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import { listenWithRetry, type PgListener } from '../../lib/pg-listen';
import { foldKeywordTerms } from '@poi/shared/search-fold';
import { knnBand, requiredWords, type PoiSearchFilter, type SearchKey } from './pois.repository';
import { staleSearchRowsMayExist } from './search-columns';
import { listSnapshots, readSnapshot, readSnapshotMeta, refreshSnapshotPosition, removeSnapshot, writeSnapshot, type SnapshotPosition } from './index-snapshot';
import { SuggestTable } from './suggest-index';
import {
  changesSince,
  datasetIdsBySize,
  datasetPoiCount,
  existingDatasetIds,
  inLogSnapshot,
  poisTableSize,
  positionNotAhead,
  pruneSearchChanges,
  readBlockPage,
  readKeysetPage,
  readPois,
  type PageResult,
  type PoiRow,
} from './search-changes.repository';
import { byKey, DatasetIndex, DatasetIndexBuilder, prepareQuery, type AnswerParts, type IndexRow, type Match, type Nearest, type PreparedQuery } from './dataset-index';

/** Fallback read of the log when no notification comes (app.ts's job runner polls this often). */
export const SEARCH_INDEX_POLL_MS = 250;
/** How often app.ts's job runner prunes the change log. */
export const SEARCH_CHANGES_PRUNE_MS = 10 * 60 * 1000;
/**
 * Without a successful read for this long, the index is not trusted (PostgreSQL: other instances
 * write too). PGlite is this process's own database: every write goes through this instance
 * (which reads the log before the write answers), and its queries run on this thread, so a slow
 * one delays the next read without anything having been missed.
 */
const STALE_MS = 1_000;
/** Rows per page of a build: each page's work holds the event loop for a few milliseconds. */
const PAGE = 2_000;
let pageSize = PAGE;
/** Tests: smaller build pages, so that small datasets are read by table blocks too; undefined restores the default. */
export function setBuildPageSize(n: number | undefined): void {
  pageSize = n ?? PAGE;
}
/** A dataset is built again once this many of its POIs changed since its build (and a tenth of them). */
const REBUILD_CHURN = 5_000;
/** The log is kept this long; an instance that could not read it for half as long starts over. */
const LOG_RETENTION_MS = 60 * 60 * 1000;
export const SEARCH_CHANNEL = 'search_changes';

function indexRowOf(r: PoiRow): IndexRow {
  return { id: r.id, latitude: r.latitude, longitude: r.longitude, head: r.head, tail: r.tail, text: r.search_text };
}


export interface IndexedSearch {
  /** The page's POIs, each with distance_m, to be written as a JSON array (answersJson). */
  answers: AnswerParts[];
  total: number;
  capped: boolean;
  next?: SearchKey;
}

export interface SearchIndexState {
  enabled: boolean;
  /** Datasets answered from memory, being built, too large for the budget, and all known. */
  ready: number;
  building: number;
  overBudget: number;
  pois: number;
  memoryMb: number;
  /** The same in bytes (what the budget is compared with). */
  memoryBytes: number;
  budgetMb: number;
  /** Milliseconds since the log was last read (null before the first read). */
  lagMs: number | null;
  /** Searches answered from memory since start. */
  served: number;
  /** Builds started, by how they read their dataset; snapshot: datasets loaded from their snapshot file instead. */
  builtBy: { blocks: number; keyset: number; snapshot: number };
  /** The datasets were listed (and queued) since the last start-up: with building at 0, the start-up build is over (/readyz). */
  startedUp: boolean;
}

export interface SearchIndex {
  /** Lists the datasets and builds them, and listens for other instances' writes. */
  start(): void;
  stop(): Promise<void>;
  /** The job runner's fallback read of the log (every SEARCH_INDEX_POLL_MS): a lost notification, a start-up that failed. */
  poll(): Promise<void>;
  /** The job runner's pruning of the change log (every SEARCH_CHANGES_PRUNE_MS). */
  prune(): Promise<void>;
  /** The search from memory, or undefined when one of its datasets is not ready (PostgreSQL then answers). */
  search(filter: PoiSearchFilter): IndexedSearch | undefined;
  /** Reads the log now (after a write on this instance, before it answers). */
  catchUp(): Promise<void>;
  /** Resolves once every dataset known at the call is built or refused (tests, bench). */
  whenIdle(): Promise<void>;
  /**
   * The type-ahead's tables of these datasets when every one is ready in memory with its table
   * built; otherwise undefined (PostgreSQL answers), and the missing tables are built meanwhile.
   */
  suggestTables(datasetIds: string[]): SuggestTable[] | undefined;
  /**
   * The same, waiting for tables being built when every dataset is ready in memory: a large
   * dataset's first suggests wait for its table (seconds at a million POIs) rather than each
   * reading every matching row from PostgreSQL meanwhile. Undefined when PostgreSQL must answer.
   */
  suggestTablesBuilt(datasetIds: string[]): Promise<SuggestTable[] | undefined>;
  /** Resolves once the suggest tables of these datasets, those ready in memory, are built (tests, bench). */
  prepareSuggest(datasetIds: string[]): Promise<void>;
  state(): SearchIndexState;
  /** Whether searches of this dataset are answered from memory. */
  isReady(datasetId: string): boolean;
  /** Off: every search goes to PostgreSQL (the bench's baseline); the index is kept in step all the same. */
  setEnabled(on: boolean): void;
  /** Tests: another memory budget in bytes (undefined: SEARCH_INDEX_MAX_MB); datasets refused for their size are tried again. */
  setBudget(bytes: number | undefined): void;
}

type DatasetState =
  | { status: 'ready'; index: DatasetIndex }
  | { status: 'building'; pending: Set<string>; restart: boolean }
  | { status: 'queued' }
  | { status: 'over_budget' };
type Building = DatasetState & { status: 'building' };

/** An index read from its snapshot file and caught up from the log, and what its file holds. */
interface Loaded {
  index: DatasetIndex;
  /** The file's buffers' checksum, and when its position was taken (database clock, ms). */
  checksum: number;
  takenAt: number;
  /** Log changes applied after loading (0: the index is still exactly the file's). */
  changes: number;
}

export function createSearchIndex(deps: {
  db: Db;
  /** PostgreSQL: a connection of its own LISTENs for other instances' writes. */
  url?: string;
  maxMb: number;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  /** A dataset changed on this instance (a deletion, a price): the log is read at once. */
  changes?: ChangeFeed;
  /** Where each dataset's index is saved and loaded from (SEARCH_INDEX_SNAPSHOT_DIR); none: every start-up reads PostgreSQL. */
  snapshotDir?: string;
}): SearchIndex {
  const { db, log } = deps;
  let budget = deps.maxMb * 1024 * 1024;
  const staleMs = deps.url ? STALE_MS : Infinity;
  const states = new Map<string, DatasetState>();
  let enabled = true;
  let stopped = false;
  /** The snapshot of the last read of the log (pg_snapshot text), and its transaction's start (database clock, ms). */
  let position: string | undefined;
  let positionAt = 0;
  let lastReadAt = 0;
  /** Bytes per POI seen so far, for estimates before a build (the compact layout: ~330 at 1 M POIs). */
  let bytesPerPoi = 350;
  const queue: string[] = [];
  /** Datasets whose build failed, built again from retryAt on (1 s, doubling up to a minute). */
  const buildFailures = new Map<string, { attempts: number; retryAt: number }>();
  let building: Promise<void> | undefined;
  let idle: Array<() => void> = [];
  let listener: PgListener | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  /** Whether the read under way has asked for its snapshot (a commit after that is not in it). */
  let snapshotAsked = false;
  let served = 0;
  /** Datasets whose snapshot file was tried since start (a later build of one reads PostgreSQL). */
  const snapshotTried = new Set<string>();
  /** Calls of applyRows per index: an index none touched since its file was saved is still the file's. */
  const writes = new WeakMap<DatasetIndex, number>();
  /** Per dataset, the index its snapshot file holds, as it was then (its writes count), and the file's checksum. */
  const saved = new Map<string, { index: DatasetIndex; writes: number; checksum: number }>();
  /** File work (writes, position refreshes, removals) one at a time, in order. */
  let fileWork: Promise<void> = Promise.resolve();
  const builtBy = { blocks: 0, keyset: 0, snapshot: 0 };
  /** Set while this index tells the caches of changes it read (its own listener then does nothing). */
  let selfNotice = false;

  /** Suggest tables by index (a rebuilt index starts a new one), built on a dataset's first suggest. */
  const suggestBuilt = new WeakMap<DatasetIndex, SuggestTable>();
  const suggestBuilding = new WeakMap<DatasetIndex, Promise<void>>();
  const buildSuggest = (index: DatasetIndex): Promise<void> => {
    let p = suggestBuilding.get(index);
    if (!p) {
      p = SuggestTable.build(index).then(
        (table) => void suggestBuilt.set(index, table),
        (err: unknown) => {
          suggestBuilding.delete(index);
          log.warn({ err, datasetId: index.datasetId }, 'suggest table build failed');
        },
      );
      suggestBuilding.set(index, p);
    }
    return p;
  };

  const usedBytes = () => {
    let n = 0;
    for (const s of states.values()) if (s.status === 'ready') n += s.index.bytes + (suggestBuilt.get(s.index)?.bytes ?? 0);
    return n;
  };

  function enqueue(id: string): void {
    const s = states.get(id);
    if (s?.status === 'building') {
      s.restart = true;
      return;
    }
    if (s?.status === 'queued') return;
    states.set(id, { status: 'queued' });
    queue.push(id);
    if (!building) building = runBuilds();
  }

  async function runBuilds(): Promise<void> {
    try {
      while (queue.length && !stopped) {
        const id = queue.shift()!;
        if (states.get(id)?.status !== 'queued') continue;
        try {
          await build(id);
          buildFailures.delete(id);
        } catch (err) {
          // The dataset stays on PostgreSQL; it is built again after a wait (the database may have
          // gone away: a restart, a killed connection), or at its next change.
          if (!stopped) log.warn({ err: { message: (err as Error).message }, datasetId: id }, 'search index: building a dataset failed; it is tried again');
          if (states.get(id)?.status === 'building') states.delete(id);
          const attempts = (buildFailures.get(id)?.attempts ?? 0) + 1;
          buildFailures.set(id, { attempts, retryAt: Date.now() + Math.min(1_000 * 2 ** (attempts - 1), 60_000) });
        }
      }
    } finally {
      building = undefined;
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  /**
   * Reads a dataset into a new index, two pages in flight (PostgreSQL writes one page's answers
   * while this thread takes the other). A dataset holding a tenth of the table or more is read in
   * its physical order, by ranges of table blocks (a bulk import gives its rows one created_at and
   * random ids, so its rows in created_at order are scattered over the table: reading 2,000 of
   * them by the index took 30 ms, by blocks under 10); a smaller one by keyset pages of
   * pois_dataset_created_idx. The order of rows in the index does not matter; a POI read twice
   * (moved to a later block by an update during the build) is kept once (the builder drops the
   * earlier copy) and read again from the log's pending changes. Undefined when the build ended
   * otherwise (stopped, started over, over the budget: the dataset's state says which).
   */
  async function readDataset(id: string, poiCount: number, state: Building): Promise<DatasetIndex | undefined> {
    const builder = new DatasetIndexBuilder(id);
    let outcome = 'done' as 'done' | 'stopped' | 'restart' | 'over_budget';
    /** Takes a page into the index; false once the build is to end. */
    const take = (page: PageResult): boolean => {
      if (outcome === 'done') {
        if (stopped) outcome = 'stopped';
        // A bulk change while building: start over (the pages read so far may be stale).
        else if (state.restart) outcome = 'restart';
        else {
          if (page.count) builder.add(page);
          if (usedBytes() + builder.bytes > budget) outcome = 'over_budget';
        }
      }
      return outcome === 'done';
    };
    // The table's size now (relpages may be older than a bulk import; a last range far larger
    // than a page would make one huge page), and its row count as last estimated.
    const table = await poisTableSize(db);
    if (table && table.blocks > 0 && table.tuples > 0 && poiCount > 4 * pageSize && poiCount * 10 >= table.tuples) {
      // Ranges of blocks holding about a page of the dataset's rows each; the last one open-ended.
      builtBy.blocks += 1;
      const step = Math.max(8, Math.round((pageSize * table.blocks) / poiCount));
      const ranges = Math.ceil(table.blocks / step);
      let next = 0;
      const worker = async () => {
        try {
          while (next < ranges && outcome === 'done') {
            const k = next++;
            const page = await readBlockPage(db, id, k * step, k === ranges - 1 ? undefined : (k + 1) * step);
            if (!take(page)) return;
          }
        } catch (err) {
          // The other worker stops too; the build fails as a whole.
          if (outcome === 'done') outcome = 'stopped';
          throw err;
        }
      };
      await Promise.all([worker(), worker()]);
    } else {
      // Keyset pages; the next page is asked for as soon as a page arrives.
      builtBy.keyset += 1;
      let next: Promise<PageResult> | undefined = readKeysetPage(db, id, pageSize);
      while (next) {
        const page: PageResult = await next;
        if (page.count && page.ids.slice(-36) !== page.lastId) throw new Error('search index: a page was not aggregated in its order');
        next = page.count === pageSize && page.lastTs ? readKeysetPage(db, id, pageSize, { ts: page.lastTs, id: page.lastId! }) : undefined;
        if (!take(page)) {
          void next?.catch(() => undefined);
          break;
        }
      }
    }
    if (outcome === 'stopped') return undefined;
    if (outcome === 'restart') {
      states.set(id, { status: 'queued' });
      queue.push(id);
      return undefined;
    }
    if (outcome === 'over_budget') {
      states.set(id, { status: 'over_budget' });
      return undefined;
    }
    const index = builder.finish();
    if (builder.count) bytesPerPoi = Math.round(index.bytes / builder.count);
    return index;
  }

  /**
   * Builds a dataset's index: from its snapshot file when there is a usable one (the first build
   * of the dataset since start), else from PostgreSQL (readDataset); then the changes read
   * meanwhile are applied and the index serves.
   */
  async function build(id: string): Promise<void> {
    const poiCount = await datasetPoiCount(db, id);
    if (poiCount === undefined) {
      states.delete(id);
      const dir = deps.snapshotDir;
      if (dir) {
        saved.delete(id);
        await queueFileWork('removing a snapshot', () => removeSnapshot(dir, id));
      }
      return;
    }
    if (usedBytes() + poiCount * bytesPerPoi > budget) {
      states.set(id, { status: 'over_budget' });
      return;
    }
    const state: Building = { status: 'building', pending: new Set(), restart: false };
    states.set(id, state);
    let loaded: Loaded | undefined;
    if (deps.snapshotDir && !snapshotTried.has(id)) {
      snapshotTried.add(id);
      loaded = await loadSnapshot(id, deps.snapshotDir);
      if (stopped) return;
    }
    const index = loaded?.index ?? (await readDataset(id, poiCount, state));
    if (!index) return;
    // Changes read while the pages were read: those POIs are read again before the index serves.
    while (state.pending.size && !state.restart && !stopped) {
      const ids = [...state.pending];
      state.pending.clear();
      applyRows(index, id, ids, await readPois(db, ids));
    }
    if (state.restart) {
      states.set(id, { status: 'queued' });
      queue.push(id);
      return;
    }
    if (stopped || states.get(id) !== state) return;
    // The changes read meanwhile grew it past the budget: left to PostgreSQL like any dataset that does not fit.
    if (usedBytes() + index.bytes > budget) {
      states.set(id, { status: 'over_budget' });
      return;
    }
    states.set(id, { status: 'ready', index });
    if (deps.snapshotDir) afterReady(id, index, loaded);
  }

  /**
   * Datasets refused for their size are tried again once memory is freed (a dataset deleted or
   * dropped, a larger budget): each build first compares its estimate with what is free, so one
   * that still does not fit is refused again without reading it.
   */
  function retryOverBudget(): void {
    for (const [id, s] of states) if (s.status === 'over_budget') enqueue(id);
  }

  /** Queues work on the snapshot files after what is queued; a failure is logged, never thrown. */
  function queueFileWork(what: string, work: () => Promise<void>): Promise<void> {
    fileWork = fileWork.then(work).catch((err: unknown) => log.warn({ err: { message: (err as Error).message } }, `search index: ${what} failed`));
    return fileWork;
  }

  /**
   * A dataset's index from its snapshot file, caught up with the log's changes of that dataset
   * since the file's position (read in one snapshot with the POIs they name); undefined when the
   * dataset must be read from PostgreSQL, the reason logged and an unusable file removed.
   */
  async function loadSnapshot(id: string, dir: string): Promise<Loaded | undefined> {
    const started = Date.now();
    const refuse = async (reason: string): Promise<undefined> => {
      log.warn({ datasetId: id, reason }, 'search index: snapshot not used; the dataset is built from PostgreSQL');
      await queueFileWork('removing a snapshot', () => removeSnapshot(dir, id));
      return undefined;
    };
    // The header first: a file too old or too large for the budget is not read.
    const meta = await readSnapshotMeta(dir, id);
    if ('status' in meta) return meta.status === 'missing' ? undefined : refuse(meta.reason);
    if (positionAt - meta.takenAt > LOG_RETENTION_MS / 2) return refuse('older than the change log keeps');
    if (usedBytes() + meta.indexBytes > budget) return undefined;
    const file = await readSnapshot(dir, id);
    if (file.status !== 'ok') return file.status === 'missing' ? undefined : refuse(file.reason);
    const readMs = Date.now() - started;
    let index: DatasetIndex;
    try {
      index = DatasetIndex.fromSnapshot(file.snapshot as Parameters<typeof DatasetIndex.fromSnapshot>[0]);
      if (index.datasetId !== id) throw new Error(`it holds dataset ${index.datasetId}`);
    } catch (err) {
      return refuse((err as Error).message);
    }
    writes.set(index, 0);
    const madeMs = Date.now() - started - readMs;
    const caughtUp = await inLogSnapshot(db, () => undefined, async (tx, _snapshot, at) => {
      if (at - file.meta.takenAt > LOG_RETENTION_MS / 2) return 'older than the change log keeps';
      if (!(await positionNotAhead(tx, file.meta.position))) return 'its position is ahead of the database (another database, or one restored)';
      const ids = new Set<string>();
      for (const e of await changesSince(tx, file.meta.position, id)) {
        if (e.kind === 'pois') return 'a bulk change since it was saved';
        if (e.kind === 'poi' && e.poiId) ids.add(e.poiId);
      }
      if (!(await existingDatasetIds(tx, [id])).has(id)) return 'the dataset is gone';
      const all = [...ids];
      for (let k = 0; k < all.length; k += 5_000) {
        const part = all.slice(k, k + 5_000);
        applyRows(index, id, part, await readPois(tx, part));
      }
      return all.length;
    });
    if (typeof caughtUp === 'string') return refuse(caughtUp);
    builtBy.snapshot += 1;
    log.info(
      { datasetId: id, pois: index.size, bytes: file.bytes, changes: caughtUp, readMs, madeMs, catchUpMs: Date.now() - started - readMs - madeMs, totalMs: Date.now() - started, savedAgoMs: positionAt - file.meta.takenAt },
      'search index: dataset loaded from its snapshot and caught up from the change log',
    );
    return { index, checksum: file.meta.checksum, takenAt: file.meta.takenAt, changes: caughtUp };
  }

  /**
   * A dataset's index has just become ready: built from PostgreSQL, its file is written; loaded
   * from its file and untouched since, the file's position is moved on (its header alone);
   * loaded and changed since, the file still serves from its position until that grows old.
   */
  function afterReady(id: string, index: DatasetIndex, loaded: Loaded | undefined): void {
    if (!loaded) {
      void saveIndex(id, index);
      return;
    }
    saved.set(id, { index, writes: 0, checksum: loaded.checksum });
    if (writes.get(index) === 0 || positionAt - loaded.takenAt > LOG_RETENTION_MS / 4) void saveIndex(id, index);
  }

  /**
   * Saves a ready dataset's index: the position and (for a full write) the index's bytes are taken
   * at one instant, when the index holds every change up to the last read of the log (readLog
   * applies a read's changes and moves the position with no wait between). An index unchanged
   * since its file gets the new position in the file's header alone.
   */
  function saveIndex(id: string, index: DatasetIndex): Promise<void> {
    const dir = deps.snapshotDir!;
    return queueFileWork('saving a snapshot', async () => {
      const current = states.get(id);
      if (current?.status !== 'ready' || current.index !== index || position === undefined) return;
      const at: SnapshotPosition = { position, takenAt: positionAt };
      const count = writes.get(index) ?? 0;
      const before = saved.get(id);
      if (before?.index === index && before.writes === count && (await refreshSnapshotPosition(dir, id, before.checksum, at))) return;
      const started = Date.now();
      const snapshot = index.toSnapshot();
      const { bytes, checksum } = await writeSnapshot(dir, id, at, index.size, index.bytes, snapshot);
      // Removed or dropped meanwhile: the file goes too (a later build writes it again).
      const now = states.get(id);
      if (now?.status !== 'ready' || now.index !== index) {
        await removeSnapshot(dir, id);
        saved.delete(id);
        return;
      }
      saved.set(id, { index, writes: count, checksum });
      log.info({ datasetId: id, pois: index.size, bytes, ms: Date.now() - started }, 'search index: snapshot saved');
    });
  }

  /** Every ready dataset's file brought to the present position (the prune job, shutdown). */
  function saveAll(): Promise<void> {
    for (const [id, s] of states) if (s.status === 'ready') void saveIndex(id, s.index);
    return fileWork;
  }

  /** Files of datasets that no longer exist are removed (deleted while this instance was down). */
  function removeStrayFiles(dir: string, datasetIds: string[]): Promise<void> {
    const known = new Set(datasetIds);
    return queueFileWork('removing stray snapshots', async () => {
      for (const id of await listSnapshots(dir)) if (!known.has(id)) await removeSnapshot(dir, id);
    });
  }

  /** The POIs `ids` of dataset `id` as read now (`rows`): present here, moved away or deleted. */
  function applyRows(index: DatasetIndex, id: string, ids: string[], rows: PoiRow[]): void {
    writes.set(index, (writes.get(index) ?? 0) + 1);
    const found = new Map(rows.map((r) => [r.id, r]));
    for (const poiId of ids) {
      const row = found.get(poiId);
      if (row && row.dataset_id === id) index.upsert(indexRowOf(row));
      else index.remove(poiId);
    }
  }

  /** One read of the log, in one snapshot with the POIs it names. */
  async function readLog(): Promise<void> {
    // The index holds every commit before this moment once the read is done.
    const startedAt = Date.now();
    const askingSnapshot = () => {
      snapshotAsked = true;
    };
    await inLogSnapshot(db, askingSnapshot, async (tx, snapshot, at) => {
      const from = position;
      if (from === undefined) {
        position = snapshot;
        positionAt = at;
        return;
      }
      const entries = await changesSince(tx, from);
      const byDataset = new Map<string, Set<string>>();
      const datasetRows = new Set<string>();
      for (const e of entries) {
        if (e.kind === 'poi' && e.poiId) {
          let set = byDataset.get(e.datasetId);
          if (!set) byDataset.set(e.datasetId, (set = new Set()));
          set.add(e.poiId);
        } else if (e.kind === 'pois') {
          // Too many to read one by one: built again, on PostgreSQL meanwhile.
          if (states.get(e.datasetId)?.status !== 'building') states.delete(e.datasetId);
          enqueue(e.datasetId);
        } else datasetRows.add(e.datasetId);
      }
      if (datasetRows.size) {
        const exists = await existingDatasetIds(tx, [...datasetRows]);
        let freed = false;
        for (const id of datasetRows) {
          if (!exists.has(id)) {
            freed = states.delete(id) || freed;
            const dir = deps.snapshotDir;
            if (dir) {
              saved.delete(id);
              void queueFileWork('removing a snapshot', () => removeSnapshot(dir, id));
            }
          } else if (!states.has(id)) enqueue(id);
        }
        if (freed) retryOverBudget();
      }
      const ready: Array<[DatasetIndex, string, string[]]> = [];
      for (const [id, ids] of byDataset) {
        const s = states.get(id);
        if (s?.status === 'ready') ready.push([s.index, id, [...ids]]);
        else if (s?.status === 'building') for (const poiId of ids) s.pending.add(poiId);
        else if (!s) enqueue(id);
      }
      const wanted = ready.flatMap(([, , ids]) => ids);
      const rows = wanted.length ? await readPois(tx, [...new Set(wanted)]) : [];
      for (const [index, id, ids] of ready) {
        // The dataset may have been dropped meanwhile (a bulk change in the same read).
        if ((states.get(id) as { index?: DatasetIndex } | undefined)?.index !== index) continue;
        applyRows(index, id, ids, rows);
        if (usedBytes() > budget) {
          // Rows written since the build took the index past its budget: this dataset goes to
          // PostgreSQL (its memory freed), as a dataset too large for the budget does.
          states.set(id, { status: 'over_budget' });
          log.info({ datasetId: id }, 'search index: over its memory budget after writes; searches of this dataset go to PostgreSQL');
        } else if (index.churn > REBUILD_CHURN && index.churn * 10 > index.size) {
          // Built again without the side map; PostgreSQL answers meanwhile.
          states.delete(id);
          enqueue(id);
        }
      }
      position = snapshot;
      positionAt = at;
      // This instance's caches of those datasets (answers, totals, prices) are dropped too: a write
      // whose change notification never came (another process, a lost NOTIFY) is not served from
      // them either.
      const touched = new Set(entries.map((e) => e.datasetId));
      selfNotice = true;
      try {
        for (const id of touched) deps.changes?.receive('dataset', id);
      } finally {
        selfNotice = false;
      }
    });
    lastReadAt = startedAt;
  }

  /** Reads the log; a read asked while one runs is done once more after it. */
  function read(): Promise<void> {
    if (reading) {
      // A read whose snapshot is not yet taken will see every commit made so far: it is enough.
      if (snapshotAsked) readAgain = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          readAgain = false;
          snapshotAsked = false;
          await readLog();
        } while (readAgain && !stopped);
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  /** Whether the last read failed: an outage is logged once, not four times a second. */
  let readFailing = false;
  const readQuietly = () =>
    read().then(
      () => {
        if (readFailing) log.info('search index: the change log is read again');
        readFailing = false;
        const now = Date.now();
        for (const [id, f] of buildFailures) if (f.retryAt <= now && !states.has(id)) enqueue(id);
      },
      (err: Error) => {
        if (!stopped && !readFailing) log.warn({ err: { message: err.message } }, 'search index: reading the change log failed; searches go to PostgreSQL until it can be read');
        readFailing = true;
      },
    );

  /**
   * Other instances' writes, heard at once. The connection is opened again with backoff after a
   * loss (lib/pg-listen.ts); on every re-connection the log is read, which catches up on what was
   * written meanwhile (the read starts from the snapshot of the last one). The poll every
   * SEARCH_INDEX_POLL_MS reads it too, whether or not the connection is up.
   */
  function listen(url: string): PgListener {
    return listenWithRetry({
      url,
      channel: SEARCH_CHANNEL,
      onNotification: () => void readQuietly(),
      onListening: (again) => {
        if (again) void readQuietly();
      },
      onDown: (err) => log.warn({ err: { message: err.message } }, 'search index: change notifications lost; listening again with backoff, the log is read every 250 ms meanwhile'),
      onUp: () => log.info('search index: change notifications back; the log is read for what was missed'),
    });
  }

  /** Whether the datasets were listed since the last start-up (a failed one, the database being away, is tried again by the poll). */
  let startedUp = false;
  let startingUp: Promise<void> | undefined;
  function startUp(): Promise<void> {
    startingUp ??= (async () => {
      try {
        startedUp = false;
        await read();
        const ids = await datasetIdsBySize(db);
        for (const id of ids) if (!states.has(id)) enqueue(id);
        if (deps.snapshotDir) void removeStrayFiles(deps.snapshotDir, ids);
        startedUp = true;
      } finally {
        startingUp = undefined;
      }
    })();
    return startingUp;
  }

  /** The search from the datasets' indexes; undefined when one of them leaves it to PostgreSQL (DatasetIndex.search). */
  function merge(filter: PoiSearchFilter, indexes: DatasetIndex[], words: string[]): IndexedSearch | undefined {
    const point = filter.point!;
    const key = filter.after && 'knn' in filter.after ? filter.after : undefined;
    const after = key ? { ...knnBand(key, true), id: key.id } : undefined;
    const offset = after ? 0 : filter.offset;
    const cap = SEARCH_TOTAL_CAP + 1;
    // The first n matches of every dataset, and their number up to `count`.
    const look = (q: PreparedQuery, n: number, count: number): Nearest | undefined => {
      if (indexes.length === 1) return indexes[0]!.search(q, n, count);
      const each: Nearest[] = [];
      for (const ix of indexes) {
        const found = ix.search(q, n, count);
        if (!found) return undefined;
        each.push(found);
      }
      return {
        matches: each.flatMap((e) => e.matches).sort(byKey).slice(0, n),
        counted: Math.min(count, each.reduce((sum, e) => sum + e.counted, 0)),
      };
    };
    const want = offset + filter.limit + 1;
    let page: Match[];
    let counted: number;
    if (after) {
      const found = look(prepareQuery({ ...point, after, words, bbox: filter.bbox }), want, 0);
      // The total counts every match, those before the cursor too, up to the cap and one.
      const all = found && look(prepareQuery({ ...point, words, bbox: filter.bbox }), 0, cap);
      if (!found || !all) return undefined;
      page = found.matches;
      counted = all.counted;
    } else {
      // One look gives the page and the total (at least the cap and one rows are found; only the page's are ranked).
      const found = look(prepareQuery({ ...point, words, bbox: filter.bbox }), want, cap);
      if (!found) return undefined;
      ({ matches: page, counted } = found);
    }
    const more = page.length > offset + filter.limit;
    const shown = page.slice(offset, offset + filter.limit);
    const last = shown[shown.length - 1];
    const total = { total: Math.min(counted, SEARCH_TOTAL_CAP), capped: counted > SEARCH_TOTAL_CAP };
    return { answers: shown.map((m) => m.from.answerOf(m)), ...total, next: more && last ? { knn: last.knn, id: last.id, memory: true } : undefined };
  }

  return {
    start() {
      deps.changes?.on('dataset', () => {
        if (!selfNotice) void readQuietly();
      });
      if (deps.url) listener = listen(deps.url);
      void startUp().catch((err) => {
        if (!stopped) log.warn({ err }, 'search index: start-up failed; searches go to PostgreSQL');
      });
    },

    async stop() {
      stopped = true;
      const c = listener;
      listener = undefined;
      await c?.close();
      await reading?.catch(() => undefined);
      await building?.catch(() => undefined);
      // The files at the last position read: the next start catches up from here.
      if (deps.snapshotDir) await saveAll();
    },

    search(filter) {
      if (!enabled || stopped || !filter.point || Date.now() - lastReadAt > staleMs) return undefined;
      // While rows folded before migration 0014 may remain, a keyword also matches them in their old
      // form (pois.repository's legacy terms): PostgreSQL answers those.
      if (filter.keyword && staleSearchRowsMayExist()) return undefined;
      const words = filter.keyword ? requiredWords(foldKeywordTerms(filter.keyword)).map((w) => w.word) : [];
      const indexes: DatasetIndex[] = [];
      for (const id of filter.datasetIds) {
        const s = states.get(id);
        if (s?.status !== 'ready') return undefined;
        indexes.push(s.index);
      }
      const answer = merge(filter, indexes, words);
      if (answer) served += 1;
      return answer;
    },

    suggestTables(datasetIds) {
      if (!enabled || stopped || Date.now() - lastReadAt > staleMs) return undefined;
      const tables: SuggestTable[] = [];
      let missing = false;
      for (const id of datasetIds) {
        const s = states.get(id);
        if (s?.status !== 'ready') return undefined;
        const table = suggestBuilt.get(s.index);
        if (table) tables.push(table);
        else {
          missing = true;
          void buildSuggest(s.index);
        }
      }
      return missing ? undefined : tables;
    },

    async suggestTablesBuilt(datasetIds) {
      const tables = this.suggestTables(datasetIds);
      if (tables || !enabled || stopped || Date.now() - lastReadAt > staleMs) return tables;
      const builds: Array<Promise<void>> = [];
      for (const id of datasetIds) {
        const s = states.get(id);
        if (s?.status !== 'ready') return undefined;
        if (!suggestBuilt.has(s.index)) builds.push(buildSuggest(s.index));
      }
      await Promise.all(builds);
      return this.suggestTables(datasetIds);
    },

    async prepareSuggest(datasetIds) {
      const builds: Array<Promise<void>> = [];
      for (const id of datasetIds) {
        const s = states.get(id);
        if (s?.status === 'ready') builds.push(buildSuggest(s.index));
      }
      await Promise.all(builds);
    },

    async poll() {
      if (stopped) return;
      // Fired and not awaited, as a lost notification's fallback: a read that hangs (a database
      // going away) must not hold the next poll back from noticing the log is too old.
      if (Date.now() - lastReadAt > LOG_RETENTION_MS / 2 && lastReadAt) {
        // Too long without the log: what it held may be pruned. Start over.
        states.clear();
        position = undefined;
        void startUp().catch(() => undefined);
        return;
      }
      if (!startedUp) {
        void startUp().catch(() => undefined);
        return;
      }
      void readQuietly();
    },

    async prune() {
      await pruneSearchChanges(db, LOG_RETENTION_MS);
      // The files must stay younger than what the log keeps (LOG_RETENTION_MS / 2 when loaded).
      if (deps.snapshotDir && !stopped) await saveAll();
    },

    catchUp: () => readQuietly(),

    whenIdle() {
      if (!building && !queue.length) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },

    state() {
      let ready = 0;
      let buildingCount = 0;
      let overBudget = 0;
      let poiCount = 0;
      for (const s of states.values()) {
        if (s.status === 'ready') {
          ready += 1;
          poiCount += s.index.size;
        } else if (s.status === 'over_budget') overBudget += 1;
        else buildingCount += 1;
      }
      return {
        enabled,
        ready,
        building: buildingCount,
        overBudget,
        pois: poiCount,
        memoryMb: Math.round((usedBytes() / 1024 / 1024) * 10) / 10,
        memoryBytes: usedBytes(),
        budgetMb: deps.maxMb,
        lagMs: lastReadAt ? Date.now() - lastReadAt : null,
        served,
        builtBy: { ...builtBy },
        startedUp,
      };
    },

    isReady: (id) => states.get(id)?.status === 'ready',

    setEnabled(on) {
      enabled = on;
    },

    setBudget(bytes) {
      budget = bytes ?? deps.maxMb * 1024 * 1024;
      retryOverBudget();
    },
  };
}
