import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { datasetParamsSchema } from '@poi/shared/schemas/datasets';
import {
  datasetRevenueResponseSchema,
  revenueReportResponseSchema,
  usageSummaryResponseSchema,
  yearMonthQuerySchema,
} from '@poi/shared/schemas/usage';
import { requireSignIn, requireUser } from '../../plugins/auth';
import type { UsageService } from './usage.service';
import { errorResponses } from '../../plugins/openapi';

export const usageRoutes: FastifyPluginAsyncZod<{ usageService: UsageService }> = async (app, { usageService: service }) => {
  requireSignIn(app);

  app.get(
    '/usage/summary',
    {
      schema: {
        tags: ['利用状況'],
        summary: '月の利用状況(検索数・料金・日別・キー別・データセット別・無料枠)',
        querystring: yearMonthQuerySchema,
        response: { 200: usageSummaryResponseSchema },
      },
    },
    async (request) => ({ success: true as const, data: await service.summary(requireUser(request), request.query.year_month) }),
  );

  app.get(
    '/datasets/revenue/monthly',
    {
      schema: {
        tags: ['収益'],
        summary: 'プロバイダー収益レポート(月次、データセット別)',
        querystring: yearMonthQuerySchema,
        response: { 200: revenueReportResponseSchema },
      },
    },
    async (request) => ({ success: true as const, data: await service.revenueReport(requireUser(request), request.query.year_month) }),
  );

  app.get(
    '/datasets/revenue/dataset/:id',
    {
      schema: {
        tags: ['収益'],
        summary: 'データセットの月次収益(日別)',
        params: datasetParamsSchema,
        querystring: yearMonthQuerySchema,
        response: { 200: datasetRevenueResponseSchema, ...errorResponses(403) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await service.datasetRevenue(requireUser(request), request.params.id, request.query.year_month),
    }),
  );
};
