import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { commerceResponseSchema } from '@poi/shared/schemas/commerce';
import type { Config } from '../../config';
import { commerceOf } from './commerce';

/** GET /console/v1/commerce: public (no sign-in), the 特定商取引法に基づく表記's configured items. */
export const commerceRoutes: FastifyPluginAsyncZod<{ config: Pick<Config, 'issuer' | 'bank'> }> = async (app, { config }) => {
  const data = commerceOf(config);
  app.get(
    '/commerce',
    { schema: { tags: ['公開'], summary: '特定商取引法に基づく表記の設定項目(未設定の必須項目は missing)', response: { 200: commerceResponseSchema } } },
    async () => ({ success: true as const, data }),
  );
};
