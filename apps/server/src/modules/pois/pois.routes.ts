import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '@poi/shared/messages';
import {
  poiGetQuerySchema,
  poiParamsSchema,
  poiRegisterResponseSchema,
  poiResponseSchema,
  poiSearchQuerySchema,
  poiSearchResponseSchema,
  registerPoiBodySchema,
  movePoiBodySchema,
  exportQuerySchema,
  bulkImportResponseSchema,
  importFieldsSchema,
} from '@poi/shared/schemas/pois';
import { IMPORT_MAX_BYTES } from '@poi/shared/limits';
import { z } from 'zod';
import { AppError } from '../../lib/errors';
import { assertBoundary, brokenMultipart } from '../../lib/broken-multipart';
import { attachment, downloadName } from '../../lib/http';
import { datasetParamsSchema } from '@poi/shared/schemas/datasets';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { csvHeader, csvRow, geoJsonFeature } from './export-format';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { toPoi } from './pois.mapper';
import { ImportInterruptedError, type PoisService } from './pois.service';

/** .csv, .json, .geojson, each optionally gzip-compressed (.gz). */
const IMPORT_FILE_NAME = /\.(csv|json|geojson)(\.gz)?$/i;
/** Form fields allowed in an import (dataset_id, format, mode and a few spare). */
const IMPORT_MAX_FIELDS = 10;

/**
 * Reads the whole multipart form before anything is written: the fields in any order and one
 * file of at most 10 MB, held in memory (the limit bounds it). A second file, too many fields
 * or a file over the limit is refused here, so no row is ever written for a request that then
 * fails, and an oversize upload is answered as soon as its 10 MB are in, not after parsing.
 */
async function readImportForm(request: FastifyRequest): Promise<{ fields: Record<string, string>; file?: { filename: string; data: Buffer } }> {
  if (!request.isMultipart()) throw new AppError('VALIDATION_ERROR', messages.importFileMissing);
  assertBoundary(request.headers['content-type']);
  const fields: Record<string, string> = {};
  let file: { filename: string; data: Buffer } | undefined;
  try {
    const parts = request.parts({ limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: IMPORT_MAX_FIELDS, fieldSize: 1024 } });
    for await (const part of parts) {
      if (part.type === 'field') fields[part.fieldname] = String(part.value);
      else file = { filename: part.filename, data: await part.toBuffer() };
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE', messages.importTooLarge);
    if (code === 'FST_FILES_LIMIT') throw new AppError('VALIDATION_ERROR', messages.importOneFile);
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw new AppError('PAYLOAD_TOO_LARGE', messages.importTooManyFields);
    throw brokenMultipart(err);
  }
  return { fields, file };
}

export const poiRoutes: FastifyPluginAsyncZod<{ poisService: PoisService }> = async (app, { poisService: service }) => {
  const tags = ['POI'];
  requireSignIn(app);
  // The server closing (SIGTERM) stops imports under way at their next slice, rolled back, so
  // that close() does not wait for them: on PGlite a 9.5 MB import takes tens of seconds, past
  // server.ts's 10 s forced exit.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort(new ImportInterruptedError('the server is closing')));

  app.post(
    '/poi/register',
    {
      schema: {
        tags,
        summary: 'POIの登録(dataset_id と poi_id を指定すると更新)',
        body: registerPoiBodySchema,
        response: { 200: poiRegisterResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { poi, created } = await service.register(requireUser(request), request.body);
      return { success: true as const, message: created ? messages.poiRegistered : messages.poiUpdated, data: { poi: toPoi(poi) } };
    },
  );

  app.get(
    '/poi/search',
    { schema: { tags, summary: 'POIの検索', querystring: poiSearchQuerySchema, response: { 200: poiSearchResponseSchema, ...errorResponses(403, 404) } } },
    async (request) => {
      const { rows, total, capped, nextCursor, preview } = await service.search(requireUser(request), request.query);
      return {
        success: true as const,
        data: { pois: rows.map((r) => toPoi(r, r.distance ?? undefined)), total, total_capped: capped, next_cursor: nextCursor, preview },
      };
    },
  );

  app.get(
    '/poi/:poiId',
    { schema: { tags, summary: 'POIの取得', params: poiParamsSchema, querystring: poiGetQuerySchema, response: { 200: poiResponseSchema, ...errorResponses(403) } } },
    async (request) => {
      const poi = await service.get(requireUser(request), request.params.poiId, request.query.dataset_id);
      return { success: true as const, data: { poi: toPoi(poi) } };
    },
  );

  app.post(
    '/poi/remove/:poiId',
    { schema: { tags, summary: 'POIの削除', params: poiParamsSchema, response: { 200: poiResponseSchema.extend({ message: poiRegisterResponseSchema.shape.message }), ...errorResponses(403) } } },
    async (request) => {
      const poi = await service.remove(requireUser(request), request.params.poiId);
      return { success: true as const, message: messages.poiDeleted, data: { poi: toPoi(poi) } };
    },
  );

  app.post(
    '/poi/move/:poiId',
    {
      schema: {
        tags,
        summary: 'POIを別のデータセットへ移動(両方を管理している場合のみ)',
        params: poiParamsSchema,
        body: movePoiBodySchema,
        response: { 200: poiRegisterResponseSchema, ...errorResponses(403) },
      },
    },
    async (request) => {
      const poi = await service.move(requireUser(request), request.params.poiId, request.body.target_dataset_id);
      return { success: true as const, message: messages.poiMoved, data: { poi: toPoi(poi) } };
    },
  );

  app.get(
    '/datasets/:id/export',
    {
      schema: {
        tags,
        summary: 'データセットのPOIをCSV(UTF-8 BOM付き)またはGeoJSONで書き出し(compress=gzip で gzip 圧縮)',
        params: datasetParamsSchema,
        querystring: exportQuerySchema,
        produces: ['text/csv', 'application/geo+json'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => {
      const { name, pages } = await service.exportRows(requireUser(request), request.params.id);
      const csv = request.query.format === 'csv';
      const gzip = request.query.compress === 'gzip';
      async function* body() {
        if (csv) {
          yield csvHeader();
          for await (const page of pages) yield page.map(csvRow).join('');
          return;
        }
        yield '{"type":"FeatureCollection","features":[';
        let first = true;
        for await (const page of pages) {
          for (const poi of page) {
            yield (first ? '' : ',') + geoJsonFeature(poi);
            first = false;
          }
        }
        yield ']}';
      }
      const type = csv ? 'text/csv; charset=utf-8' : 'application/geo+json; charset=utf-8';
      reply
        .header('Content-Type', gzip ? 'application/gzip' : type)
        .header('Content-Disposition', attachment(downloadName(name, csv ? 'csv' : 'geojson', ...(gzip ? ['gz'] : [])), { stem: `dataset-${request.params.id}` }))
        .header('Cache-Control', 'no-store');
      const stream = Readable.from(body());
      return reply.send(gzip ? stream.pipe(createGzip()) : stream);
    },
  );

  app.post(
    '/poi/bulk-import',
    {
      schema: {
        tags,
        summary: 'POIの一括インポート(multipart: dataset_id, format, mode, file。CSV または JSON、gzip可、送信時最大10MB・展開後最大100MB)',
        consumes: ['multipart/form-data'],
        response: { 200: bulkImportResponseSchema, ...errorResponses(403, 404) },
      },
      // Read part by part by the handler, so documented only (a body schema would be validated).
      config: {
        openapiBody: importFieldsSchema.extend({
          file: z.string().meta({ format: 'binary', description: 'CSV・JSON・GeoJSON のファイル(gzip可、送信時最大10MB。フィールドの順序は問いません)' }),
        }),
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { fields, file } = await readImportForm(request);
      const parsed = importFieldsSchema.safeParse(fields);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError('VALIDATION_ERROR', issue?.message ?? messages.validationFailed, {
          errors: parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? 'file'), message: i.message })),
        });
      }
      if (!file) throw new AppError('VALIDATION_ERROR', messages.importFileMissing);
      if (!IMPORT_FILE_NAME.test(file.filename)) throw new AppError('VALIDATION_ERROR', messages.importFileExtension);
      const { format, mode, dataset_id: datasetId } = parsed.data;
      const result = await service.importFile(user, datasetId, { format, mode, signal: closing.signal }, file.data);
      return {
        success: true as const,
        message: messages.importCompleted,
        imported_count: result.added + result.updated + result.unchanged,
        total_count: result.total,
        added_count: result.added,
        updated_count: result.updated,
        unchanged_count: result.unchanged,
        deleted_count: result.deleted,
        skipped_count: result.skippedCount,
        skipped: result.skipped,
      };
    },
  );
};
