import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  apiKeyListResponseSchema,
  apiKeyParamsSchema,
  apiKeyResponseSchema,
  apiKeySecretResponseSchema,
  createApiKeyBodySchema,
} from '@poi/shared/schemas/api-keys';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { toApiKey } from './api-keys.mapper';
import { apiKeyMessages, type ApiKeysService } from './api-keys.service';
import { errorResponses } from '../../plugins/openapi';

export const apiKeyRoutes: FastifyPluginAsyncZod<{ apiKeysService: ApiKeysService }> = async (app, { apiKeysService: service }) => {
  const tags = ['APIキー'];
  requireSignIn(app);

  app.get('/api-keys', { schema: { tags, summary: 'APIキーの一覧', response: { 200: apiKeyListResponseSchema } } }, async (request) => {
    const { keys, activeCount, maxKeys } = await service.list(requireUser(request));
    const now = new Date();
    return { success: true as const, data: { api_keys: keys.map((k) => toApiKey(k, now)), active_count: activeCount, max_keys: maxKeys } };
  });

  app.post(
    '/api-keys',
    {
      schema: {
        tags,
        summary: 'APIキーの作成(キー全体はこの応答でのみ返されます)',
        body: createApiKeyBodySchema,
        response: { 200: apiKeySecretResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => {
      const { key, secret } = await service.create(requireUser(request), request.body);
      return { success: true as const, message: apiKeyMessages.created, data: { api_key: toApiKey(key), key: secret } };
    },
  );

  app.post(
    '/api-keys/:id/revoke',
    { schema: { tags, summary: 'APIキーの無効化(直ちに使えなくなります)', params: apiKeyParamsSchema, response: { 200: apiKeyResponseSchema, ...errorResponses(409) } } },
    async (request) => {
      const key = await service.revoke(requireUser(request), request.params.id);
      return { success: true as const, message: apiKeyMessages.revoked, data: { api_key: toApiKey(key) } };
    },
  );

  app.post(
    '/api-keys/:id/rotate',
    {
      schema: {
        tags,
        summary: 'APIキーのローテーション(新しいキーを発行し、古いキーは24時間後に無効)',
        params: apiKeyParamsSchema,
        response: { 200: apiKeySecretResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => {
      const { key, secret } = await service.rotate(requireUser(request), request.params.id);
      return { success: true as const, message: apiKeyMessages.rotated, data: { api_key: toApiKey(key), key: secret } };
    },
  );
};
