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
} from '@poi/shared/schemas/poi';
import { requireUser } from '../../plugins/auth';
import { toPoi } from './pois.mapper';
import type { PoisService } from './pois.service';

export const poiRoutes: FastifyPluginAsyncZod<{ poisService: PoisService }> = async (app, { poisService: service }) => {
  const tags = ['POI'];
  app.addHook('preHandler', app.authenticate);

  app.post(
    '/poi/register',
    {
      schema: {
        tags,
        summary: 'POIの登録(dataset_id と poi_id を指定すると更新)',
        body: registerPoiBodySchema,
        response: { 200: poiRegisterResponseSchema },
      },
    },
    async (request) => {
      const { poi, created } = await service.register(requireUser(request), request.body);
      return { success: true as const, message: created ? messages.poiRegistered : messages.poiUpdated, data: { poi: toPoi(poi) } };
    },
  );

  app.get(
    '/poi/search',
    { schema: { tags, summary: 'POIの検索', querystring: poiSearchQuerySchema, response: { 200: poiSearchResponseSchema } } },
    async (request) => {
      const { rows, total, preview } = await service.search(requireUser(request), request.query);
      return { success: true as const, data: { pois: rows.map((r) => toPoi(r)), total, preview } };
    },
  );

  app.get(
    '/poi/:poiId',
    { schema: { tags, summary: 'POIの取得', params: poiParamsSchema, querystring: poiGetQuerySchema, response: { 200: poiResponseSchema } } },
    async (request) => {
      const poi = await service.get(requireUser(request), request.params.poiId, request.query.dataset_id);
      return { success: true as const, data: { poi: toPoi(poi) } };
    },
  );

  app.post(
    '/poi/remove/:poiId',
    { schema: { tags, summary: 'POIの削除', params: poiParamsSchema, response: { 200: poiResponseSchema.extend({ message: poiRegisterResponseSchema.shape.message }) } } },
    async (request) => {
      const poi = await service.remove(requireUser(request), request.params.poiId);
      return { success: true as const, message: messages.poiDeleted, data: { poi: toPoi(poi) } };
    },
  );
};
