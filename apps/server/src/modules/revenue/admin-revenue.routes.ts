import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminDashboardResponseSchema,
  platformDatasetsRevenueResponseSchema,
  platformRevenueResponseSchema,
  providerRevenueDetailResponseSchema,
  providersRevenueResponseSchema,
  yearMonthQuerySchema,
} from '@poi/shared/schemas/revenue';
import { attachment, downloadName } from '../../lib/http';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import type { AdminRevenueService } from './admin-revenue.service';

const providerParamsSchema = z.object({ id: z.uuid({ error: 'データ提供者IDが正しくありません' }) });

/** Admin revenue views and the admin dashboard (the console specification's "Admin: Revenue"). */
export const adminRevenueRoutes: FastifyPluginAsyncZod<{ adminRevenue: AdminRevenueService }> = async (app, { adminRevenue }) => {
  const tags = ['管理: 収益'];
  requireSignIn(app, 'admin');
  const errors = errorResponses(400, 401, 403);

  app.get(
    '/admin/platform/revenue',
    {
      schema: {
        tags,
        summary: '月次のプラットフォーム収益(請求額・消費税・提供者分配・純収益・回収済・未回収、データセット別)',
        querystring: yearMonthQuerySchema,
        response: { 200: platformRevenueResponseSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await adminRevenue.platform(request.query.year_month) }),
  );

  app.get(
    '/admin/platform/revenue.csv',
    { schema: { tags, summary: 'データセット別のプラットフォーム収益のCSV(UTF-8 BOM付き)', querystring: yearMonthQuerySchema, produces: ['text/csv'], response: errors } },
    async (request, reply) =>
      reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment(downloadName(`プラットフォーム収益_${request.query.year_month}`, 'csv'), { ascii: downloadName(`platform-revenue-${request.query.year_month}`, 'csv') }))
        .send(adminRevenue.csv('platform', await adminRevenue.platform(request.query.year_month))),
  );

  app.get(
    '/admin/data-providers/revenue',
    {
      schema: {
        tags,
        summary: '月次のデータ提供者別収益(検索数・売上・分配額・支払予定額)',
        querystring: yearMonthQuerySchema,
        response: { 200: providersRevenueResponseSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await adminRevenue.providers(request.query.year_month) }),
  );

  app.get(
    '/admin/data-providers/revenue.csv',
    { schema: { tags, summary: 'データ提供者別収益のCSV(UTF-8 BOM付き)', querystring: yearMonthQuerySchema, produces: ['text/csv'], response: errors } },
    async (request, reply) =>
      reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment(downloadName(`提供者別収益_${request.query.year_month}`, 'csv'), { ascii: downloadName(`provider-revenue-${request.query.year_month}`, 'csv') }))
        .send(adminRevenue.csv('providers', await adminRevenue.providers(request.query.year_month))),
  );

  app.get(
    '/admin/data-providers/:id/revenue-detail',
    {
      schema: {
        tags,
        summary: 'データ提供者の収益明細(直近12か月、月別・データセット別)',
        params: providerParamsSchema,
        response: { 200: providerRevenueDetailResponseSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true as const, data: await adminRevenue.providerDetail(request.params.id) }),
  );

  app.get(
    '/admin/datasets/revenue/platform',
    {
      schema: {
        tags,
        summary: 'プラットフォームのデータセット(提供者のいないもの)の月次収益',
        querystring: yearMonthQuerySchema.pick({ year_month: true }),
        response: { 200: platformDatasetsRevenueResponseSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await adminRevenue.platformDatasets(request.query.year_month) }),
  );

  app.get(
    '/admin/dashboard',
    { schema: { tags: ['管理: ダッシュボード'], summary: '管理ダッシュボードの数値(直近12か月、対応待ち、最近の監査ログ、設定の警告)', response: { 200: adminDashboardResponseSchema, ...errors } } },
    async () => ({ success: true as const, data: await adminRevenue.dashboard() }),
  );
};
