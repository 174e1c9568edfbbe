import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '@poi/shared/messages';
import { messageResponseSchema } from '@poi/shared/schemas/common';
import {
  assignDatasetBodySchema,
  createDatasetBodySchema,
  datasetCreatedResponseSchema,
  datasetDetailResponseSchema,
  datasetListQuerySchema,
  datasetListResponseSchema,
  datasetParamsSchema,
  priceChangeBodySchema,
} from '@poi/shared/schemas/datasets';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { toDataset, toDatasetDetail } from './datasets.mapper';
import type { DatasetsService } from './datasets.service';
import { errorResponses } from '../../plugins/openapi';

export const datasetRoutes: FastifyPluginAsyncZod<{ datasetsService: DatasetsService }> = async (app, { datasetsService: service }) => {
  const tags = ['データセット'];
  requireSignIn(app);

  app.get(
    '/datasets/public',
    { schema: { tags, summary: '公開データセット一覧', querystring: datasetListQuerySchema, response: { 200: datasetListResponseSchema } } },
    async (request) => {
      const user = requireUser(request);
      const { rows, total } = await service.list(user, request.query);
      return { success: true as const, data: { datasets: rows.map((r) => toDataset(r, user)), total } };
    },
  );

  app.post(
    '/datasets/public/create',
    {
      schema: { tags, summary: 'データセットの作成(データプロバイダー)', body: createDatasetBodySchema, response: { 200: datasetCreatedResponseSchema, ...errorResponses(403) } },
    },
    async (request) => {
      const user = requireUser(request);
      const row = await service.createAsProvider(user, request.body);
      return { success: true as const, message: messages.datasetCreated, data: toDataset(row, user) };
    },
  );

  app.post(
    '/admin/datasets/assign',
    {
      schema: {
        tags,
        summary: 'データセットの作成(プラットフォーム管理者: 編集者と収益受取人を指定)',
        body: assignDatasetBodySchema,
        response: { 200: datasetCreatedResponseSchema, ...errorResponses(403) },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const row = await service.assign(user, request.body);
      return { success: true as const, message: messages.datasetCreated, data: toDataset(row, user) };
    },
  );

  app.get(
    '/datasets/:id',
    { schema: { tags, summary: 'データセット詳細', params: datasetParamsSchema, response: { 200: datasetDetailResponseSchema } } },
    async (request) => {
      const user = requireUser(request);
      const { dataset, history } = await service.get(user, request.params.id);
      return { success: true as const, data: toDatasetDetail(dataset, history, user) };
    },
  );

  app.post(
    '/datasets/:id/price',
    {
      schema: { tags, summary: '価格の変更', params: datasetParamsSchema, body: priceChangeBodySchema, response: { 200: datasetDetailResponseSchema, ...errorResponses(403) } },
    },
    async (request) => {
      const user = requireUser(request);
      await service.changePrice(user, request.params.id, request.body);
      const { dataset, history } = await service.get(user, request.params.id);
      return { success: true as const, data: toDatasetDetail(dataset, history, user) };
    },
  );

  app.delete(
    '/datasets/:id',
    { schema: { tags, summary: 'データセットの削除(POIと価格履歴も削除)', params: datasetParamsSchema, response: { 200: messageResponseSchema, ...errorResponses(403) } } },
    async (request) => {
      await service.remove(requireUser(request), request.params.id);
      return { success: true as const, message: messages.datasetDeleted };
    },
  );
};
