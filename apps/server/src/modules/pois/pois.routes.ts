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
} from '@poi/shared/schemas/poi';
import { IMPORT_MAX_BYTES } from '@poi/shared/limits';
import { z } from 'zod';
import { AppError } from '../../lib/errors';
import { datasetParamsSchema } from '@poi/shared/schemas/dataset';
import { Readable } from 'node:stream';
import { csvHeader, csvRow, geoJsonFeature } from './export-format';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { toPoi } from './pois.mapper';
import type { ImportResult, PoisService } from './pois.service';
import { errorResponses } from '../../plugins/openapi';

export const poiRoutes: FastifyPluginAsyncZod<{ poisService: PoisService }> = async (app, { poisService: service }) => {
  const tags = ['POI'];
  requireSignIn(app);

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
        summary: 'データセットのPOIをCSV(UTF-8 BOM付き)またはGeoJSONで書き出し',
        params: datasetParamsSchema,
        querystring: exportQuerySchema,
        produces: ['text/csv', 'application/geo+json'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => {
      const pages = await service.exportRows(requireUser(request), request.params.id);
      const csv = request.query.format === 'csv';
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
      reply
        .header('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/geo+json; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="dataset-${request.params.id}.${csv ? 'csv' : 'geojson'}"`)
        .header('Cache-Control', 'no-store');
      return reply.send(Readable.from(body()));
    },
  );

  app.post(
    '/poi/bulk-import',
    {
      schema: {
        tags,
        summary: 'POIの一括インポート(multipart: dataset_id, format, file の順。CSV または JSON、最大10MB)',
        consumes: ['multipart/form-data'],
        response: { 200: bulkImportResponseSchema, ...errorResponses(403, 404) },
      },
      // Read part by part by the handler, so documented only (a body schema would be validated).
      config: {
        openapiBody: importFieldsSchema.extend({
          file: z.string().meta({ format: 'binary', description: 'CSV または JSON のファイル(最大10MB、dataset_id と format より後に送信)' }),
        }),
      },
    },
    async (request) => {
      const user = requireUser(request);
      if (!request.isMultipart()) throw new AppError('VALIDATION_ERROR', messages.importFileMissing);
      const fields: Record<string, string> = {};
      let result: ImportResult | undefined;
      for await (const part of request.parts({ limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024 } })) {
        if (part.type === 'field') {
          fields[part.fieldname] = String(part.value);
          continue;
        }
        const parsed = importFieldsSchema.safeParse(fields);
        if (!parsed.success) {
          part.file.resume();
          const issue = parsed.error.issues[0];
          throw new AppError('VALIDATION_ERROR', issue?.message ?? messages.validationFailed, {
            errors: parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? 'file'), message: i.message })),
          });
        }
        if (!/\.(csv|json|geojson)$/i.test(part.filename)) {
          part.file.resume();
          throw new AppError('VALIDATION_ERROR', messages.importFileExtension);
        }
        result = await service.importFile(user, parsed.data.dataset_id, parsed.data.format, part.file);
      }
      if (!result) throw new AppError('VALIDATION_ERROR', messages.importFileMissing);
      return {
        success: true as const,
        message: messages.importCompleted,
        imported_count: result.imported,
        total_count: result.total,
        skipped_count: result.skippedCount,
        skipped: result.skipped,
      };
    },
  );
};
