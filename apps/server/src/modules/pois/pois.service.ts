import { messages } from '@poi/shared/messages';
import { IMPORT_ISSUES_REPORTED, POI_PREVIEW_LIMIT, type ImportFormat, type ImportIssue, type PoiFields } from '@poi/shared/schemas/poi';
import { ImportFormatError, parseImport } from './import-parser';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { adjustPoiCount, findDataset } from '../datasets/datasets.repository';
import { canManageDataset, type DatasetsService } from '../datasets/datasets.service';
import * as repo from './pois.repository';

const EXPORT_PAGE = 2000;

export interface PoiSearchInput {
  dataset_id: string[];
  keyword?: string;
  latitude?: number;
  longitude?: number;
  radius?: number;
  limit: number;
  offset: number;
}

export interface ImportResult {
  imported: number;
  total: number;
  skippedCount: number;
  skipped: ImportIssue[];
}

const IMPORT_BATCH = 1000;

export interface PoisService {
  register(user: CurrentUser, input: PoiFields & { dataset_id: string; poi_id?: string }): Promise<{ poi: repo.PoiRow; created: boolean }>;
  search(user: CurrentUser, query: PoiSearchInput): Promise<{ rows: repo.PoiSearchRow[]; total: number; capped: boolean; preview: boolean }>;
  /** Searches datasets in full, without a permission check: the public API, where every search is paid. */
  searchMarketplace(query: PoiSearchInput): Promise<{ rows: repo.PoiSearchRow[]; total: number; capped: boolean }>;
  get(user: CurrentUser, poiId: string, datasetId?: string): Promise<repo.PoiRow>;
  remove(user: CurrentUser, poiId: string): Promise<repo.PoiRow>;
  move(user: CurrentUser, poiId: string, targetDatasetId: string): Promise<repo.PoiRow>;
  /** Valid rows in one transaction, invalid ones skipped and reported (the first 100 issues). */
  importFile(user: CurrentUser, datasetId: string, format: ImportFormat, file: AsyncIterable<Uint8Array> & { truncated?: boolean }): Promise<ImportResult>;
  /** Every POI of a managed dataset, a page at a time, in id order. */
  exportRows(user: CurrentUser, datasetId: string): Promise<AsyncGenerator<repo.PoiRow[]>>;
}

function searchFilter(query: PoiSearchInput) {
  const point =
    query.latitude !== undefined && query.longitude !== undefined
      ? { latitude: query.latitude, longitude: query.longitude, radius: query.radius }
      : undefined;
  return { datasetIds: [...new Set(query.dataset_id)], keyword: query.keyword, point, limit: query.limit, offset: query.offset };
}

export function createPoisService(deps: { db: Db; engine: 'pglite' | 'postgres'; datasetsService: DatasetsService; changes?: ChangeFeed }): PoisService {
  const { db, engine, datasetsService } = deps;

  const notFound = () => new AppError('NOT_FOUND', messages.poiNotFound);
  /** A writing transaction; once it commits, caches holding these datasets' POIs are told. */
  async function changed<T>(datasetIds: string[], work: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>): Promise<T> {
    const result = await db.transaction(work);
    for (const id of datasetIds) deps.changes?.changed('dataset', id);
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
          return { poi: (await repo.updatePoi(tx, poiId, fields))!, created: false };
        }
        const poi = await repo.insertPoi(tx, datasetId, fields);
        await adjustPoiCount(tx, datasetId, 1);
        return { poi, created: true };
      });
    },

    searchMarketplace: (query) => repo.searchPois(db, searchFilter(query)),

    async search(user, query) {
      const filter = searchFilter(query);
      const { datasetIds, point } = filter;
      // The search starts while the permission is checked; its rows are used only if allowed.
      const optimistic = repo.searchPois(db, filter);
      optimistic.catch(() => undefined);
      const datasets = await Promise.all(datasetIds.map((id) => findDataset(db, id)));
      const managed: string[] = [];
      for (const dataset of datasets) {
        if (!dataset) throw new AppError('NOT_FOUND', messages.datasetNotFound);
        if (canManageDataset(user, dataset)) managed.push(dataset.id);
      }
      if (managed.length === datasetIds.length) return { ...(await optimistic), preview: false };
      // Others see the first POIs of one dataset; searching it in full is what the paid API is for.
      if (datasetIds.length > 1 || query.keyword || point || query.offset >= POI_PREVIEW_LIMIT) {
        throw new AppError('FORBIDDEN', messages.poiPreviewOnly);
      }
      const limit = Math.min(query.limit, POI_PREVIEW_LIMIT - query.offset);
      const result = await repo.searchPois(db, { datasetIds, limit, offset: query.offset });
      return { rows: result.rows, total: Math.min(result.total, POI_PREVIEW_LIMIT), capped: false, preview: true };
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

    async importFile(user, datasetId, format, file) {
      const result = await changed([datasetId], async (tx) => {
        await datasetsService.requireManaged(tx, user, datasetId, { forUpdate: true });
        const out: ImportResult = { imported: 0, total: 0, skippedCount: 0, skipped: [] };
        let batch: PoiFields[] = [];
        const flush = async () => {
          if (!batch.length) return;
          await repo.insertPoisBulk(tx, datasetId, batch);
          out.imported += batch.length;
          batch = [];
        };
        try {
          for await (const item of parseImport(file, format)) {
            out.total += 1;
            if (item.ok) {
              batch.push(item.fields);
              if (batch.length >= IMPORT_BATCH) await flush();
            } else {
              out.skippedCount += 1;
              out.skipped.push(...item.issues.slice(0, IMPORT_ISSUES_REPORTED - out.skipped.length));
            }
          }
        } catch (err) {
          // A file cut at the size limit usually ends mid-row or mid-character: the limit is the news.
          if (file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', messages.importTooLarge);
          if (err instanceof ImportFormatError) throw new AppError('VALIDATION_ERROR', err.message);
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE', messages.importTooLarge);
          throw err;
        }
        if (file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', messages.importTooLarge);
        await flush();
        if (out.imported === 0) {
          throw new AppError('VALIDATION_ERROR', messages.importNoValidRows, {
            errors: out.skipped.map((s) => ({ field: `${s.line}:${s.field}`, message: `${s.line}行目 ${s.reason}` })),
          });
        }
        await adjustPoiCount(tx, datasetId, out.imported);
        return out;
      });
      await repo.refreshPoiStatistics(db, engine);
      return result;
    },

    async exportRows(user, datasetId) {
      await datasetsService.requireManaged(db, user, datasetId);
      return (async function* pages() {
        let after: string | undefined;
        for (;;) {
          const page = await repo.listPoisAfter(db, datasetId, after, EXPORT_PAGE);
          if (page.length === 0) return;
          yield page;
          after = page[page.length - 1]!.id;
        }
      })();
    },
  };
}
