import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkoutBodySchema, checkoutResponseSchema, completeBodySchema, completeResponseSchema, payInvoiceResponseSchema } from '@poi/shared/schemas/payments';
import { invoiceParamsSchema } from '@poi/shared/schemas/invoices';
import { messageResponseSchema } from '@poi/shared/schemas/common';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import { paymentMessages } from './payment-messages';
import type { PaymentsService } from './payments.service';

/**
 * The card (Stripe Checkout in setup mode): start, complete (verify the session and save the
 * card; safe to repeat) and remove. Without STRIPE_SECRET_KEY each answers 503 with a Japanese
 * message; when Stripe cannot be reached, 503 too, with nothing written.
 */
export const paymentRoutes: FastifyPluginAsyncZod<{ paymentsService: PaymentsService }> = async (app, { paymentsService: service }) => {
  requireSignIn(app);

  app.post(
    '/payment-method/checkout',
    {
      schema: {
        tags: ['請求・お支払い'],
        summary: 'カード登録(Stripe Checkout セットアップモード)を開始し、遷移先URLを返す',
        body: checkoutBodySchema,
        response: { 200: checkoutResponseSchema, ...errorResponses(403, 409, 503) },
      },
    },
    async (request) => ({ success: true as const, data: await service.startCheckout(requireUser(request), request.body.purpose) }),
  );

  app.post(
    '/payment-method/complete',
    {
      schema: {
        tags: ['請求・お支払い'],
        summary: 'Checkout セッションを検証してカードを既定のお支払い方法に設定する(再実行しても同じ結果)',
        body: completeBodySchema,
        response: { 200: completeResponseSchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => ({ success: true as const, data: await service.completeCheckout(requireUser(request), request.body.session_id, actorOf(request)) }),
  );

  app.post(
    '/billing/invoices/:id/pay',
    {
      schema: {
        tags: ['請求・お支払い'],
        summary: '請求書の残高をカードで今すぐ支払う(Stripe Checkout 支払いモードの遷移先URLを返す。開いている同額のセッションがあれば同じURL)',
        params: invoiceParamsSchema,
        response: { 200: payInvoiceResponseSchema, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request) => ({ success: true as const, data: await service.payInvoice(requireUser(request), request.params.id, actorOf(request)) }),
  );

  app.post(
    '/payment-method/remove',
    {
      schema: {
        tags: ['請求・お支払い'],
        summary: '登録済みのカードを削除する(未払いの請求書があるときは409)',
        response: { 200: messageResponseSchema, ...errorResponses(403, 409, 503) },
      },
    },
    async (request) => {
      const { removed } = await service.removeCard(requireUser(request), actorOf(request));
      return { success: true as const, message: removed ? paymentMessages.cardRemoved : paymentMessages.noCard };
    },
  );
};
