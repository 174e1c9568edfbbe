import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { startOfDay } from '@poi/shared/billing-time';
import {
  pricingAtDateQuerySchema,
  pricingDeleteBodySchema,
  pricingIdParamsSchema,
  pricingListResponseSchema,
  pricingPreviewResponseSchema,
  pricingVersionBodySchema,
  pricingVersionResponseSchema,
  updatePricingVersionBodySchema,
} from '@poi/shared/schemas/pricing';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { AdminPricingService } from './admin-pricing.service';
import { toPricingVersion } from './pricing.mapper';
import type { PricingService } from './pricing.service';

/** A bare 'YYYY-MM-DD' is that day in Japan time (prices change at 00:00 JST); else an ISO instant. */
const instantOf = (date: string) => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? startOfDay(date) : new Date(date));

/** The admin pricing calls (the console specification's "Admin: Pricing"). */
export const adminPricingRoutes: FastifyPluginAsyncZod<{ pricingService: PricingService; adminPricing: AdminPricingService }> = async (
  app,
  { pricingService, adminPricing },
) => {
  const tags = ['管理: 料金'];
  requireSignIn(app, 'admin');
  const errors = errorResponses(400, 401, 403, 404, 409);

  app.get('/admin/pricing/current', { schema: { tags, summary: '現在有効な料金(アカウント種別ごと)', response: { 200: pricingListResponseSchema } } }, async () => ({
    success: true as const,
    data: { versions: (await pricingService.current()).map(toPricingVersion) },
  }));

  app.get('/admin/pricing/history', { schema: { tags, summary: '料金の全バージョン(適用予定を含む)', response: { 200: pricingListResponseSchema } } }, async () => ({
    success: true as const,
    data: { versions: (await pricingService.history()).map(toPricingVersion) },
  }));

  app.get(
    '/admin/pricing/at-date',
    {
      schema: {
        tags,
        summary: '指定日時に有効な料金(日付のみの指定は日本時間のその日)',
        querystring: pricingAtDateQuerySchema,
        response: { 200: pricingVersionResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      success: true as const,
      data: { version: toPricingVersion(await pricingService.versionAt(request.query.account_type, instantOf(request.query.date))) },
    }),
  );

  app.post(
    '/admin/pricing/preview',
    {
      schema: {
        tags,
        summary: '新しい料金設定の確認(直前の設定との差分と対象ユーザー数。保存しない)',
        body: pricingVersionBodySchema,
        response: { 200: pricingPreviewResponseSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await adminPricing.preview(request.body) }),
  );

  app.post(
    '/admin/pricing/create',
    {
      schema: {
        tags,
        summary: '料金設定の作成(適用開始は日本時間の明日以降。さかのぼらない。理由必須)',
        body: pricingVersionBodySchema,
        response: { 200: pricingVersionResponseSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: { version: toPricingVersion(await adminPricing.create(actorOf(request), request.body)) } }),
  );

  app.post(
    '/admin/pricing/update/:id',
    {
      schema: {
        tags,
        summary: '適用前の料金設定の変更(適用が始まった設定は変更できない。理由必須)',
        params: pricingIdParamsSchema,
        body: updatePricingVersionBodySchema,
        response: { 200: pricingVersionResponseSchema, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      data: { version: toPricingVersion(await adminPricing.update(actorOf(request), request.params.id, request.body)) },
    }),
  );

  app.post(
    '/admin/pricing/delete/:id',
    {
      schema: {
        tags,
        summary: '適用前の料金設定の削除(理由必須)',
        params: pricingIdParamsSchema,
        body: pricingDeleteBodySchema,
        response: { 200: z.object({ success: z.literal(true) }).describe('削除しました'), ...errors },
      },
    },
    async (request) => {
      await adminPricing.remove(actorOf(request), request.params.id, request.body.reason);
      return { success: true as const };
    },
  );
};
