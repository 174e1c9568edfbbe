import type { FastifyBaseLogger } from 'fastify';
import { greatCircleMeters } from '@poi/shared/geo';
import { messages } from '@poi/shared/messages';
import {
  IMPORT_ISSUES_REPORTED,
  POI_PREVIEW_LIMIT,
  SEARCH_TOTAL_CAP,
  searchMessages,
  type ImportFormat,
  type ImportIssue,
  type ImportMode,
  type PoiFields,
  type SearchBbox,
} from '@poi/shared/schemas/pois';
import { ImportFormatError, parseImport } from './import-parser';
import { ImportExpandedTooLargeError, prepareImportSource, type ImportSource } from './import-source';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import { timeSlice } from '../../lib/time-slice';
import { createTtlCache } from '../../lib/ttl-cache';
import type { CurrentUser } from '../../plugins/auth';
import { adjustPoiCount, findDataset, type DatasetRow } from '../datasets/datasets.repository';
import { canManageDataset } from '../datasets/dataset-access';
import type { DatasetsService } from '../datasets/datasets.service';
import * as repo from './pois.repository';
import { createCursorCodec, scopeOf, type CursorCodec } from './search-cursor';
import type { SearchIndex } from './search-index';
import type { AnswerParts } from './dataset-index';

const EXPORT_PAGE = 2000;
/** Rows naming a poi_id are looked up and updated this many at a time. */
const NAMED_BATCH = 1000;

/** The import was stopped because the server is closing (SIGTERM): nothing was written, 503. */
export class ImportInterruptedError extends Error {}

/** What an import failure tells the client: file problems are 400, sizes 413, a shutdown 503. */
function importError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof ImportInterruptedError) return new AppError('SERVICE_UNAVAILABLE', messages.internalError);
  if (err instanceof ImportExpandedTooLargeError) return new AppError('PAYLOAD_TOO_LARGE', err.message);
  if (err instanceof ImportFormatError) return new AppError('VALIDATION_ERROR', err.message);
  return err;
}

const DATASET_OWNERS_CACHE_MS = 5_000;
type OwnersRow = Pick<DatasetRow, 'id' | 'createdBy' | 'assignedUserId'>;

export interface PoiSearchInput {
  dataset_id: string[];
  keyword?: string;
  latitude?: number;
  longitude?: number;
  radius?: number;
  limit: number;
  offset: number;
  /** A next_cursor of an earlier answer of the same search. */
  cursor?: string;
  /** [minLon, minLat, maxLon, maxLat], borders included. */
  bbox?: SearchBbox;
  /** Folded tags, all required (the schema folds them). */
  tags?: string[];
  /** A folded category (the schema folds it). */
  category?: string;
}

export interface SearchAnswer {
  rows: repo.PoiSearchRow[];
  total: number;
  capped: boolean;
  /** The cursor of the next page, when there is one. */
  nextCursor: string | null;
  /** From the in-memory index: the page's POIs as the index keeps them (rows is then empty; answersJson writes them). */
  answers?: AnswerParts[];
}

export interface ImportResult {
  added: number;
  /** Rows naming a POI of the dataset that differed from it, rewritten. */
  updated: number;
  /** Rows naming a POI of the dataset equal to it: nothing written. */
  unchanged: number;
  deleted: number;
  total: number;
  skippedCount: number;
  skipped: ImportIssue[];
}

export interface PoisService {
  register(user: CurrentUser, input: PoiFields & { dataset_id: string; poi_id?: string }): Promise<{ poi: repo.PoiRow; created: boolean }>;
  search(user: CurrentUser, query: PoiSearchInput): Promise<SearchAnswer & { preview: boolean }>;
  /** Searches datasets in full, without a permission check: the public API, where every search is paid. */
  searchMarketplace(query: PoiSearchInput): Promise<SearchAnswer>;
  get(user: CurrentUser, poiId: string, datasetId?: string): Promise<repo.PoiRow>;
  remove(user: CurrentUser, poiId: string): Promise<repo.PoiRow>;
  move(user: CurrentUser, poiId: string, targetDatasetId: string): Promise<repo.PoiRow>;
  /**
   * An uploaded file (≤ 10 MB as sent, gzip or not): valid rows in one transaction, as the mode
   * says (see IMPORT_MODES), invalid ones skipped and reported (the first 100 issues).
   */
  importFile(user: CurrentUser, datasetId: string, options: { format: ImportFormat; mode: ImportMode; signal?: AbortSignal }, upload: Buffer): Promise<ImportResult>;
  /** The dataset's name and every POI of it (a managed dataset), a page at a time, in id order. */
  exportRows(user: CurrentUser, datasetId: string): Promise<{ name: string; pages: AsyncGenerator<repo.PoiRow[]> }>;
  /** Resolves when no statistics refresh is under way (before the database closes; tests). */
  settled(): Promise<void>;
}

/**
 * Totals of recent searches by their filters (not their page): the next pages of a walk and
 * repeated searches skip counting, and every page of a walk shows the same total. Emptied by any
 * write to a dataset's POIs on this instance (the change feed), as the search cache is; another
 * instance's writes show in the total after TOTALS_TTL_MS at most.
 */
const TOTALS_TTL_MS = 5_000;
const TOTALS_MAX = 5_000;
type Total = { total: number; capped: boolean };

function createTotalsCache(now: () => number = Date.now) {
  const entries = new Map<string, Total & { at: number }>();
  let generation = 0;
  return {
    get(key: string): Total | undefined {
      const e = entries.get(key);
      if (e && now() - e.at < TOTALS_TTL_MS) return { total: e.total, capped: e.capped };
      if (e) entries.delete(key);
      return undefined;
    },
    generation: () => generation,
    /** Stores a total counted since `readAt`, unless a write came in between. */
    set(key: string, total: Total, readAt: number) {
      if (readAt !== generation) return;
      if (entries.size >= TOTALS_MAX) for (const k of [...entries.keys()].slice(0, TOTALS_MAX / 10)) entries.delete(k);
      entries.set(key, { ...total, at: now() });
    },
    clear() {
      generation += 1;
      entries.clear();
    },
  };
}

/**
 * Places where a search found more than SEARCH_TOTAL_CAP matches close by, by the search's
 * datasets and keyword: "at least cap + 1 matches lie within `within` metres of (lat, lon)". A
 * point search whose circle holds such a circle whole (triangle inequality on the sphere, with a
 * metre to spare for rounding) has a total of SEARCH_TOTAL_CAP, capped, without counting; one
 * without a radius too. That is what a map panning around a dense city asks, every point a little
 * different: counting would walk 80 more KNN rows per search (0.5 ms, a third of a radius search's
 * time on 1M POIs). Same lifetime and invalidation as the totals (TOTALS_TTL_MS, emptied by any
 * POI write on this instance). Only the newest AREAS_PER_SCOPE per scope are checked.
 */
const AREAS_PER_SCOPE = 256;
/** At most this many circles in all (a few hundred kB); past it the oldest scope is dropped. */
const AREAS_MAX = 10_000;
type Area = { latitude: number; longitude: number; within: number; at: number };

function createCappedAreas(now: () => number = Date.now) {
  const byScope = new Map<string, Area[]>();
  let generation = 0;
  let size = 0;
  return {
    generation: () => generation,
    covers(scope: string, point: { latitude: number; longitude: number; radius?: number }): boolean {
      const areas = byScope.get(scope);
      if (!areas) return false;
      const t = now();
      while (areas.length && t - areas[0]!.at >= TOTALS_TTL_MS) {
        areas.shift();
        size -= 1;
      }
      return areas.some(
        (a) => point.radius === undefined || greatCircleMeters(a.latitude, a.longitude, point.latitude, point.longitude) + a.within + 1 <= point.radius,
      );
    },
    add(scope: string, area: Omit<Area, 'at'>, readAt: number) {
      if (readAt !== generation) return;
      while (size >= AREAS_MAX) {
        const [oldest, dropped] = byScope.entries().next().value!;
        byScope.delete(oldest);
        size -= dropped.length;
      }
      let areas = byScope.get(scope);
      if (!areas) byScope.set(scope, (areas = []));
      if (areas.length >= AREAS_PER_SCOPE) {
        areas.shift();
        size -= 1;
      }
      areas.push({ ...area, at: now() });
      size += 1;
    },
    clear() {
      generation += 1;
      byScope.clear();
      size = 0;
    },
  };
}

/** The repository's filter of a query; a cursor is decoded against the query's own filters. */
function searchFilter(query: PoiSearchInput, cursors: CursorCodec): repo.PoiSearchFilter {
  const point =
    query.latitude !== undefined && query.longitude !== undefined
      ? { latitude: query.latitude, longitude: query.longitude, radius: query.radius }
      : undefined;
  const filter = {
    datasetIds: [...new Set(query.dataset_id)],
    keyword: query.keyword,
    point,
    bbox: query.bbox,
    tags: query.tags?.length ? query.tags : undefined,
    category: query.category,
    limit: query.limit,
    offset: query.offset,
  };
  if (query.cursor === undefined) return filter;
  const after = cursors.decode(query.cursor, filter);
  if (!after) throw new AppError('VALIDATION_ERROR', searchMessages.cursorInvalid, { errors: [{ field: 'cursor', message: searchMessages.cursorInvalid }] });
  return { ...filter, offset: 0, after };
}

export function createPoisService(deps: {
  db: Db;
  /** Database.knnDb: nearest-first searches with a keyword run there (PostgreSQL). */
  knnDb?: Db;
  engine: 'pglite' | 'postgres';
  datasetsService: DatasetsService;
  changes?: ChangeFeed;
  log?: Pick<FastifyBaseLogger, 'warn'>;
  /** Signs search cursors (APP_SECRET). */
  cursorSecret: string;
  /** The public API's point searches from memory when their datasets are ready. */
  searchIndex?: SearchIndex;
}): PoisService {
  const { db, engine, datasetsService } = deps;
  const cursors = createCursorCodec(deps.cursorSecret);
  const answer = (filter: repo.PoiSearchFilter, result: repo.PoiSearchResult): SearchAnswer => ({
    rows: result.rows,
    total: result.total,
    capped: result.capped,
    nextCursor: result.next ? cursors.encode(result.next, filter) : null,
  });
  const totals = createTotalsCache();
  const areas = createCappedAreas();
  deps.changes?.on('dataset', () => {
    totals.clear();
    areas.clear();
  });
  const run = async (filter: repo.PoiSearchFilter) => {
    // A plain list's total is its datasets' POI counts, read with the page: nothing to keep.
    const counted = !!(filter.keyword || filter.point || filter.bbox || filter.tags || filter.category !== undefined);
    const key = counted ? scopeOf(filter) : '';
    const { point } = filter;
    const areaKey = point ? scopeOf({ ...filter, point: undefined }) : '';
    const knownTotal = !counted ? undefined : (totals.get(key) ?? (point && areas.covers(areaKey, point) ? { total: SEARCH_TOTAL_CAP, capped: true } : undefined));
    const generation = totals.generation();
    const areasGeneration = areas.generation();
    const result = await repo.searchPois(db, { ...filter, knownTotal }, deps.knnDb);
    if (counted && !knownTotal) totals.set(key, { total: result.total, capped: result.capped }, generation);
    if (point && result.cappedWithin !== undefined) areas.add(areaKey, { latitude: point.latitude, longitude: point.longitude, within: result.cappedWithin }, areasGeneration);
    return answer(filter, result);
  };

  /**
   * Planner statistics and the visibility map after an import (VACUUM ANALYZE). PGlite never
   * autovacuums and runs one statement at a time anyway, so it is done before answering. On
   * PostgreSQL the import is committed and searchable already; the run (about 1 s on 1M POIs)
   * comes after the answer, one at a time, and imports arriving meanwhile share the next run.
   */
  let refreshing: Promise<void> = Promise.resolve();
  let refreshQueued = false;
  async function refreshStatistics(): Promise<void> {
    if (engine === 'pglite') return repo.refreshPoiStatistics(db);
    if (refreshQueued) return;
    refreshQueued = true;
    refreshing = refreshing.then(async () => {
      refreshQueued = false;
      try {
        await repo.refreshPoiStatistics(db);
      } catch (err) {
        deps.log?.warn({ err }, 'VACUUM ANALYZE pois after an import failed');
      }
    });
  }

  /**
   * Who manages a dataset, for the search's permission check, kept for a few seconds: creator and
   * editor never change after creation, and a deletion on this instance drops the entry at once
   * (elsewhere a deleted dataset's search finds no POIs until the entry expires).
   */
  const owners = createTtlCache<string, OwnersRow | undefined>(DATASET_OWNERS_CACHE_MS);
  deps.changes?.on('dataset', (id) => (id ? owners.delete(id) : owners.forget()));
  const ownersOf = (id: string) =>
    owners.get(id, async () => {
      const row = await findDataset(db, id);
      return row && { id: row.id, createdBy: row.createdBy, assignedUserId: row.assignedUserId };
    });

  const notFound = () => new AppError('NOT_FOUND', messages.poiNotFound);
  /** A writing transaction; once it commits, caches holding these datasets' POIs are told. */
  async function changed<T>(datasetIds: string[], work: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>): Promise<T> {
    const result = await inTransaction(db, work);
    for (const id of datasetIds) deps.changes?.changed('dataset', id);
    // The in-memory index has applied the write before it answers: the writer's next search sees it.
    await deps.searchIndex?.catchUp();
    return result;
  }

  return {
    async register(user, input) {
      const { dataset_id: datasetId, poi_id: poiId, ...fields } = input;
      return changed([datasetId], async (tx) => {
        await datasetsService.requireManaged(tx, user, datasetId, { forUpdate: true });
        if (poiId) {
          const existing = await repo.findPoi(tx, poiId);
          if (!existing || existing.datasetId !== datasetId) throw notFound();
          // An edit that changes nothing writes nothing and answers the POI as stored.
          return { poi: (await repo.updatePoi(tx, poiId, fields)) ?? existing, created: false };
        }
        const poi = await repo.insertPoi(tx, datasetId, fields);
        await adjustPoiCount(tx, datasetId, 1);
        return { poi, created: true };
      });
    },

    async searchMarketplace(query) {
      const filter = searchFilter(query, cursors);
      // The tag and category filters are PostgreSQL's: the index holds neither folded tags nor categories.
      const indexed = filter.tags || filter.category !== undefined ? undefined : deps.searchIndex?.search(filter);
      if (!indexed) return run(filter);
      return {
        rows: [],
        answers: indexed.answers,
        total: indexed.total,
        capped: indexed.capped,
        nextCursor: indexed.next ? cursors.encode(indexed.next, filter) : null,
      };
    },

    async search(user, query) {
      const filter = searchFilter(query, cursors);
      const { datasetIds, point } = filter;
      // The search starts while the permission is checked; its rows are used only if allowed.
      const optimistic = run(filter);
      optimistic.catch(() => undefined);
      const datasets = await Promise.all(datasetIds.map(ownersOf));
      const managed: string[] = [];
      for (const dataset of datasets) {
        if (!dataset) throw new AppError('NOT_FOUND', messages.datasetNotFound);
        if (canManageDataset(user, dataset)) managed.push(dataset.id);
      }
      if (managed.length === datasetIds.length) return { ...(await optimistic), preview: false };
      // Others see the first POIs of one dataset; searching it in full is what the paid API is for.
      if (datasetIds.length > 1 || query.keyword || point || filter.bbox || filter.tags || filter.category !== undefined || query.cursor !== undefined || query.offset >= POI_PREVIEW_LIMIT) {
        throw new AppError('FORBIDDEN', messages.poiPreviewOnly);
      }
      const limit = Math.min(query.limit, POI_PREVIEW_LIMIT - query.offset);
      const result = await repo.searchPois(db, { datasetIds, limit, offset: query.offset });
      return { rows: result.rows, total: Math.min(result.total, POI_PREVIEW_LIMIT), capped: false, nextCursor: null, preview: true };
    },

    async get(user, poiId, datasetId) {
      const poi = await repo.findPoi(db, poiId);
      if (!poi || (datasetId && poi.datasetId !== datasetId)) throw notFound();
      const dataset = await findDataset(db, poi.datasetId);
      if (!dataset) throw notFound();
      if (!canManageDataset(user, dataset) && !(await repo.isInPreview(db, poi, POI_PREVIEW_LIMIT))) {
        throw new AppError('FORBIDDEN', messages.poiPreviewOnly);
      }
      return poi;
    },

    async remove(user, poiId) {
      const datasets: string[] = [];
      return changed(datasets, async (tx) => {
        const poi = await repo.findPoi(tx, poiId);
        if (!poi) throw notFound();
        await datasetsService.requireManaged(tx, user, poi.datasetId, { forUpdate: true });
        const deleted = await repo.deletePoi(tx, poiId);
        if (!deleted) throw notFound();
        datasets.push(poi.datasetId);
        await adjustPoiCount(tx, poi.datasetId, -1);
        return deleted;
      });
    },

    async move(user, poiId, targetDatasetId) {
      const datasets = [targetDatasetId];
      return changed(datasets, async (tx) => {
        const poi = await repo.findPoi(tx, poiId);
        if (!poi) throw notFound();
        if (poi.datasetId === targetDatasetId) throw new AppError('VALIDATION_ERROR', messages.poiMoveSameDataset);
        // Both datasets are locked, always in the same order, so two opposite moves cannot deadlock.
        for (const id of [poi.datasetId, targetDatasetId].sort()) {
          await datasetsService.requireManaged(tx, user, id, { forUpdate: true });
        }
        const moved = await repo.movePoi(tx, poiId, targetDatasetId);
        if (!moved) throw notFound();
        datasets.push(poi.datasetId);
        await adjustPoiCount(tx, poi.datasetId, -1);
        await adjustPoiCount(tx, targetDatasetId, 1);
        return moved;
      });
    },

    async importFile(user, datasetId, { format, mode, signal }, upload) {
      // Decoding, parsing, validating, folding and readings run on this thread in slices of
      // DEFAULT_SLICE_MS, each followed by a turn of the event loop (lib/time-slice: why, and
      // what it cost); the server closing stops the import at the next slice, rolled back.
      const slice = timeSlice({ signal });
      let source: ImportSource;
      try {
        source = await prepareImportSource(upload);
      } catch (err) {
        throw importError(err);
      }
      const result = await changed([datasetId], async (tx) => {
        await datasetsService.requireManaged(tx, user, datasetId, { forUpdate: true });
        const out: ImportResult = { added: 0, updated: 0, unchanged: 0, deleted: 0, total: 0, skippedCount: 0, skipped: [] };
        const skip = (issues: ImportIssue[]) => {
          out.skippedCount += 1;
          out.skipped.push(...issues.slice(0, IMPORT_ISSUES_REPORTED - out.skipped.length));
        };
        const sink = repo.importSink(tx, engine, datasetId);
        let streaming = true;
        // Rows naming a poi_id (update, replace) wait until the file is read: the COPY holds the
        // connection meanwhile, and each id must be looked up (this dataset, another, none).
        const named = new Map<string, { line: number; fields: PoiFields }>();
        try {
          for await (const item of parseImport(source.chunks(), format, source.encoding)) {
            await slice.tick();
            out.total += 1;
            if (!item.ok) {
              skip(item.issues);
            } else if (mode !== 'add' && item.poiId) {
              if (named.has(item.poiId)) skip([{ line: item.line, field: 'poi_id', reason: 'このPOI IDはファイルの前の行にもあります' }]);
              else named.set(item.poiId, { line: item.line, fields: item.fields });
            } else {
              await sink.add(item.fields);
              out.added += 1;
            }
          }
          streaming = false;
          await sink.finish();
          const unknown = repo.insertSink(tx, datasetId);
          const kept: string[] = [];
          const entries = [...named];
          named.clear();
          for (let at = 0; at < entries.length; at += NAMED_BATCH) {
            const batch = entries.slice(at, at + NAMED_BATCH);
            const owners = await repo.findPoiDatasets(tx, batch.map(([id]) => id));
            const updates: Array<{ id: string; fields: PoiFields }> = [];
            for (const [id, row] of batch) {
              await slice.tick();
              const owner = owners.get(id);
              if (owner === datasetId) {
                updates.push({ id, fields: row.fields });
                kept.push(id);
              } else if (owner) {
                skip([{ line: row.line, field: 'poi_id', reason: 'このPOI IDは別のデータセットのPOIです' }]);
              } else {
                await unknown.add(row.fields);
                out.added += 1;
              }
            }
            await slice.tick();
            const rewritten = await repo.updatePoisBulk(tx, updates);
            out.updated += rewritten;
            out.unchanged += updates.length - rewritten;
          }
          await unknown.finish();
          if (out.added + out.updated + out.unchanged === 0) {
            throw new AppError('VALIDATION_ERROR', messages.importNoValidRows, {
              errors: out.skipped.map((s) => ({ field: `${s.line}:${s.field}`, message: `${s.line}行目 ${s.reason}` })),
            });
          }
          if (mode === 'replace') out.deleted = await repo.deleteUntouchedPois(tx, datasetId, kept);
        } catch (err) {
          if (streaming) await sink.abort();
          throw importError(err);
        }
        out.skipped.sort((a, b) => a.line - b.line);
        await adjustPoiCount(tx, datasetId, out.added - out.deleted);
        return out;
      });
      await refreshStatistics();
      return result;
    },

    async exportRows(user, datasetId) {
      const dataset = await datasetsService.requireManaged(db, user, datasetId);
      return { name: dataset.name, pages: (async function* pages() {
        let after: string | undefined;
        for (;;) {
          const page = await repo.listPoisAfter(db, datasetId, after, EXPORT_PAGE);
          if (page.length === 0) return;
          yield page;
          after = page[page.length - 1]!.id;
        }
      })() };
    },

    settled: () => refreshing,
  };
}
