import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { yearMonthOf } from '@poi/shared/billing-time';
import { closeBodySchema, closeResponseSchema } from '@poi/shared/schemas/invoices';
import { AppError } from '../../lib/errors';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { CloseService } from './close.service';

export const CLOSE_NOT_PAST_MONTH = '締め処理は前月以前の月のみ実行できます(当月・未来の月は締められません)';

/** Runs the monthly close for a past month by hand (the job does it at 00:05 JST on the 1st). */
export const adminBillingRoutes: FastifyPluginAsyncZod<{ closeService: CloseService; now?: () => Date }> = async (app, { closeService, now }) => {
  requireSignIn(app, 'admin');

  app.post(
    '/admin/billing/close',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '指定した月(前月以前)の締め処理を実行し請求書を発行(同じ月は何度実行しても1アカウント1通)',
        body: closeBodySchema,
        response: { 200: closeResponseSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const yearMonth = request.body.year_month;
      if (yearMonth >= yearMonthOf(now?.() ?? new Date())) throw new AppError('BAD_REQUEST', CLOSE_NOT_PAST_MONTH);
      const result = await closeService.closeMonth(yearMonth, actorOf(request));
      if (result.failed) throw new AppError('INTERNAL_ERROR', `${result.failed}件の請求先で締め処理に失敗しました。もう一度実行してください`);
      return { success: true as const, data: { year_month: result.year_month, issued: result.issued, skipped: result.skipped } };
    },
  );
};
