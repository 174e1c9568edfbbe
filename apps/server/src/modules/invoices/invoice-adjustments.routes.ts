import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { creditNoteBodySchema, invoiceAdjustmentResponseSchema, invoiceParamsSchema, invoiceReasonBodySchema } from '@poi/shared/schemas/invoices';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { InvoiceAdjustmentsService } from './invoice-adjustments.service';

/** Void, credit notes (適格返還請求書) and write-off of an issued invoice (admin only, audit-logged). */
export const adminInvoiceAdjustmentRoutes: FastifyPluginAsyncZod<{ invoiceAdjustments: InvoiceAdjustmentsService }> = async (app, { invoiceAdjustments: service }) => {
  requireSignIn(app, 'admin');
  const tags = ['管理: 請求'];

  app.post(
    '/admin/invoices/:id/void',
    {
      schema: {
        tags,
        summary: '請求書を無効にする(入金がない発行済み・支払期限超過のみ。充当したクレジットは残高に戻す。番号は再利用しない)',
        params: invoiceParamsSchema,
        body: invoiceReasonBodySchema,
        response: { 200: invoiceAdjustmentResponseSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => ({ success: true as const, data: await service.voidInvoice(request.params.id, request.body.reason, actorOf(request)) }),
  );

  app.post(
    '/admin/invoices/:id/credit-notes',
    {
      schema: {
        tags,
        summary: '返還請求書(適格返還請求書)を発行(返還額の合計は請求金額まで。未払分を減らし、超えた分はクレジット残高へ)',
        params: invoiceParamsSchema,
        body: creditNoteBodySchema,
        response: { 200: invoiceAdjustmentResponseSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => ({ success: true as const, data: await service.issueCreditNote(request.params.id, request.body, actorOf(request)) }),
  );

  app.post(
    '/admin/invoices/:id/write-off',
    {
      schema: {
        tags,
        summary: '支払期限超過の請求書を貸倒れ処理(回収不能)にする',
        params: invoiceParamsSchema,
        body: invoiceReasonBodySchema,
        response: { 200: invoiceAdjustmentResponseSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => ({ success: true as const, data: await service.writeOff(request.params.id, request.body.reason, actorOf(request)) }),
  );
};
