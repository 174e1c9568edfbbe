import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { timeSlice } from '../../lib/time-slice';
import { DATASET_SEARCH_VERSION, datasetSearchColumns } from '../datasets/datasets.repository';
import { lockStaleSearchDatasets, lockStaleSearchPois, lockUntaggedPois, writeDatasetSearchColumns, writePoiSearchColumns, writePoiTagColumns } from './pois.repository';
import { prepareSearchColumns, SEARCH_FOLD_VERSION, searchColumns, setStaleSearchRows, tagColumns } from './search-columns';

/**
 * Rewrites the search columns of one batch of POIs written by an older folding (search_version
 * below SEARCH_FOLD_VERSION: every POI before migration 0014), in id order through
 * pois_search_stale_idx. Rows another instance is rewriting are skipped (SKIP LOCKED), so several
 * instances share the work; a batch is one transaction, so a stop or a crash loses at most the
 * batch in flight and the next start resumes where the table says. The provider's fields and
 * updated_at are not touched. Answers how many rows it rewrote.
 */
export async function backfillSearchBatch(db: Executor, size: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const rows = await lockStaleSearchPois(tx, SEARCH_FOLD_VERSION, size);
    if (!rows.length) return 0;
    // Rows written without readings would stay stale and be read again forever.
    await prepareSearchColumns();
    // Readings of 2,000 names held the event loop 175–760 ms per batch (bench generator names,
    // the shared 2-core machine); computed in time slices, requests get the thread every few ms.
    const slice = timeSlice();
    const cols: ReturnType<typeof searchColumns>[] = [];
    for (const r of rows) {
      await slice.tick();
      cols.push(searchColumns({ name: r.name, address: r.address, category: r.category, tags: r.tags }));
    }
    await writePoiSearchColumns(
      tx,
      rows.map((r) => r.id),
      cols,
    );
    return rows.length;
  });
}

/**
 * Writes the folded tags and category of one batch of POIs written before migration 0022 (through
 * pois_search_tags_stale_idx): only those two columns, no readings (cheap), so rows already at the
 * current folding keep their search text. Answers how many it wrote.
 */
export async function backfillSearchTagsBatch(db: Executor, size: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const rows = await lockUntaggedPois(tx, size);
    if (!rows.length) return 0;
    await writePoiTagColumns(
      tx,
      rows.map((r) => r.id),
      rows.map((r) => tagColumns(r)),
    );
    return rows.length;
  });
}

/**
 * Rewrites the search columns of the datasets written by an older folding (migration 0015): a few
 * thousand short rows, in one statement per batch. Answers how many it rewrote.
 */
export async function backfillDatasetSearchBatch(db: Executor, size: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    const rows = await lockStaleSearchDatasets(tx, DATASET_SEARCH_VERSION, size);
    if (!rows.length) return 0;
    const cols = rows.map((r) => datasetSearchColumns(r.name, r.description));
    await writeDatasetSearchColumns(
      tx,
      rows.map((r) => r.id),
      cols,
    );
    return rows.length;
  });
}

export interface SearchBackfill {
  /** Starts the back-fill in the background (once per process); it stops by itself when no row is left. */
  start(): void;
  /** Runs batches until none is left (or stop); answers the rows rewritten. */
  runToEnd(): Promise<number>;
  /** Waits for the batch in flight and stops. */
  stop(): Promise<void>;
  state(): { running: boolean; rewritten: number; rate: number | null };
}

/**
 * The back-fill of migrations 0014 and 0015 (readings and the new folding for every stored POI,
 * the new folding for every dataset): PostgreSQL cannot compute readings, so the server does it,
 * in batches, while it serves. Searches meanwhile also find the rows not yet rewritten as the old
 * search did (pois.repository's legacy keyword terms, until setStaleSearchRows(false)).
 */
export function createSearchBackfill(deps: { db: Executor; log: FastifyBaseLogger; batchSize?: number; afterRun?: () => Promise<void> }): SearchBackfill {
  const size = deps.batchSize ?? 2000;
  let running: Promise<number> | undefined;
  let stopping = false;
  let rewritten = 0;
  let rate: number | null = null;

  const runToEnd = async () => {
    stopping = false;
    const started = performance.now();
    let total = 0;
    // Datasets first: a few short rows, and the list pickers search them.
    let datasetsRewritten = 0;
    while (!stopping) {
      const n = await backfillDatasetSearchBatch(deps.db, size);
      if (!n) break;
      datasetsRewritten += n;
    }
    if (datasetsRewritten) deps.log.info({ rewritten: datasetsRewritten }, 'dataset search columns back-filled (folding of migration 0015)');
    while (!stopping) {
      const n = await backfillSearchBatch(deps.db, size);
      if (!n) {
        // Every POI holds the current folding: searches stop matching the old forms.
        setStaleSearchRows(false);
        break;
      }
      total += n;
      rewritten += n;
      rate = Math.round(total / ((performance.now() - started) / 1000));
      // Let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (total) deps.log.info({ rewritten: total, perSecond: rate }, 'search columns back-filled (readings and folding of migration 0014)');
    // Then the folded tags and category of rows written before migration 0022 (the rows rewritten
    // above have them already).
    let tagged = 0;
    while (!stopping) {
      const n = await backfillSearchTagsBatch(deps.db, size);
      if (!n) break;
      tagged += n;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (tagged) deps.log.info({ rewritten: tagged }, 'search tags and category back-filled (migration 0022)');
    if (total || tagged) await deps.afterRun?.();
    return total + tagged;
  };

  return {
    start() {
      if (running) return;
      running = runToEnd()
        .catch((err) => {
          deps.log.warn({ err }, 'search back-fill stopped; it resumes on the next start');
          return 0;
        })
        .finally(() => (running = undefined));
    },
    runToEnd,
    async stop() {
      stopping = true;
      await running;
    },
    state: () => ({ running: !!running, rewritten, rate }),
  };
}
