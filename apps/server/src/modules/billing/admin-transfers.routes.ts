import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  activateCorporateBodySchema,
  confirmTransferBodySchema,
  confirmTransferResponseSchema,
  corporateApplicationResponseSchema,
  corporateParamsSchema,
  invoiceParamsSchema,
  pendingTransfersQuerySchema,
  pendingTransfersResponseSchema,
} from '@poi/shared/schemas/billing';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { CorporateService } from './corporate.service';
import type { TransfersService } from './transfers.service';

/** Administrators: expected bank transfers and their confirmation; approving corporate applications. */
export const adminTransferRoutes: FastifyPluginAsyncZod<{ transfersService: TransfersService; corporateService: CorporateService }> = async (
  app,
  { transfersService, corporateService },
) => {
  requireSignIn(app, 'admin');

  app.get(
    '/admin/transfers/pending',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '入金待ちの銀行振込(発行済・一部入金・期限超過で残額のある請求書。支払期限、請求書番号の順)',
        querystring: pendingTransfersQuerySchema,
        response: { 200: pendingTransfersResponseSchema },
      },
    },
    async (request) => ({ success: true as const, data: await transfersService.listPending(request.query) }),
  );

  app.post(
    '/admin/transfers/:id/confirm',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '銀行振込の入金を消し込む(過不足の扱い: ¥1,000以下の不足は振込手数料として処理可、超過分はクレジット)。領収メールを送信',
        params: invoiceParamsSchema,
        body: confirmTransferBodySchema,
        response: { 200: confirmTransferResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => ({ success: true as const, data: await transfersService.confirm(request.params.id, request.body, actorOf(request)) }),
  );

  app.post(
    '/admin/corporate/:id/activate',
    {
      schema: {
        tags: ['管理: 法人'],
        summary: '法人アカウントの申し込みを承認する(支払方法を問わず)、または停止中の法人アカウントを再開する',
        params: corporateParamsSchema,
        body: activateCorporateBodySchema,
        response: { 200: corporateApplicationResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => ({ success: true as const, data: await corporateService.activate(request.params.id, request.body, actorOf(request)) }),
  );
};
