import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pricingAtDateQuerySchema, pricingListResponseSchema, pricingVersionResponseSchema } from '@poi/shared/schemas/pricing';
import { toPricingVersion } from './pricing.mapper';
import type { PricingService } from './pricing.service';
import { requireSignIn } from '../../plugins/auth';

/** Read side of the admin pricing calls (spec 7); the admin pricing screen and its writes come with the admin issue. */
export const adminPricingRoutes: FastifyPluginAsyncZod<{ pricingService: PricingService }> = async (app, { pricingService }) => {
  const tags = ['管理: 料金'];
  requireSignIn(app, 'admin');

  app.get('/admin/pricing/current', { schema: { tags, summary: '現在有効な料金(アカウント種別ごと)', response: { 200: pricingListResponseSchema } } }, async () => ({
    success: true as const,
    data: { versions: (await pricingService.current()).map(toPricingVersion) },
  }));

  app.get('/admin/pricing/history', { schema: { tags, summary: '料金の全バージョン', response: { 200: pricingListResponseSchema } } }, async () => ({
    success: true as const,
    data: { versions: (await pricingService.history()).map(toPricingVersion) },
  }));

  app.get(
    '/admin/pricing/at-date',
    { schema: { tags, summary: '指定日時に有効だった料金', querystring: pricingAtDateQuerySchema, response: { 200: pricingVersionResponseSchema } } },
    async (request) => ({
      success: true as const,
      data: { version: toPricingVersion(await pricingService.versionAt(request.query.account_type, new Date(request.query.date))) },
    }),
  );
};
