import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { billingAccountViewResponseSchema, billingDetailsBodySchema, currentChargesResponseSchema, invoiceCsvQuerySchema, invoiceDetailResponseSchema, invoiceListQuerySchema, invoiceListResponseSchema, invoiceParamsSchema } from '@poi/shared/schemas/invoices';
import { attachment } from '../../lib/http';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { BillingService } from './invoices.service';

/** The caller's billing account, this month so far and their invoices. */
export const billingRoutes: FastifyPluginAsyncZod<{ billingService: BillingService }> = async (app, { billingService: service }) => {
  const tags = ['請求'];
  requireSignIn(app);

  app.get(
    '/billing/account',
    { schema: { tags, summary: '請求先アカウント(宛名・支払方法・カード・振込先)', response: { 200: billingAccountViewResponseSchema } } },
    async (request) => ({ success: true as const, data: await service.accountView(requireUser(request)) }),
  );

  app.post(
    '/billing/account',
    {
      schema: {
        tags,
        summary: '請求先情報(宛名・敬称・住所・請求書送付先)の変更。次回以降の請求書に反映',
        body: billingDetailsBodySchema,
        response: { 200: billingAccountViewResponseSchema, ...errorResponses(403) },
      },
    },
    async (request) => ({ success: true as const, data: await service.updateDetails(requireUser(request), request.body, actorOf(request)) }),
  );

  app.get(
    '/billing/current',
    { schema: { tags, summary: '今月のご利用額(確定前、請求書と同じ計算)', response: { 200: currentChargesResponseSchema } } },
    async (request) => ({ success: true as const, data: await service.current(requireUser(request)) }),
  );

  app.get(
    '/billing/invoices',
    {
      schema: {
        tags,
        summary: '請求書の一覧(発行日・金額で絞り込み、発行日の新しい順)',
        querystring: invoiceListQuerySchema,
        response: { 200: invoiceListResponseSchema, ...errorResponses(403) },
      },
    },
    async (request) => ({ success: true as const, data: await service.listInvoices(requireUser(request), request.query) }),
  );

  app.get(
    '/billing/invoices.csv',
    {
      schema: {
        tags,
        summary: '請求書一覧のCSV(UTF-8 BOM付き、絞り込みに合う全件)',
        querystring: invoiceCsvQuerySchema,
        produces: ['text/csv'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => {
      const csv = await service.invoicesCsv(requireUser(request), request.query);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment('請求書一覧.csv', { ascii: 'invoices.csv' }))
        .send(csv);
    },
  );

  app.get(
    '/billing/invoices/:id',
    {
      schema: {
        tags,
        summary: '請求書の詳細(明細・消費税・入金)',
        params: invoiceParamsSchema,
        response: { 200: invoiceDetailResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ success: true as const, data: await service.invoiceDetail(requireUser(request), request.params.id) }),
  );
};
