import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { adminCancellationRequestsResponseSchema, corporateCancellationBodySchema, planStateResponseSchema } from '@poi/shared/schemas/plans';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { PlansService } from './plans.service';

const TAGS = ['請求・お支払い'];

/** Leaving a plan: an individual's cancellation at month end and its undo, a corporate owner's request. */
export const planRoutes: FastifyPluginAsyncZod<{ plansService: PlansService }> = async (app, { plansService }) => {
  requireSignIn(app);

  app.get(
    '/billing/plan',
    { schema: { tags: TAGS, summary: '現在のプランと解約の予約・申請の状況', response: { 200: planStateResponseSchema } } },
    async (request) => ({ success: true as const, data: await plansService.state(requireUser(request)) }),
  );

  app.post(
    '/billing/plan/cancel',
    {
      schema: {
        tags: TAGS,
        summary: '個人プランを月末で解約する(翌月1日 0:00 からトライアル)',
        response: { 200: planStateResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => ({ success: true as const, data: await plansService.cancel(requireUser(request), actorOf(request)) }),
  );

  app.post(
    '/billing/plan/cancel/undo',
    {
      schema: { tags: TAGS, summary: '月末での解約の予約を取り消す', response: { 200: planStateResponseSchema, ...errorResponses(409) } },
    },
    async (request) => ({ success: true as const, data: await plansService.undoCancel(requireUser(request), actorOf(request)) }),
  );

  app.post(
    '/corporate/cancellation-request',
    {
      schema: {
        tags: TAGS,
        summary: '法人アカウントの解約を申請する(所有者のみ。管理者が月末で処理)',
        body: corporateCancellationBodySchema,
        response: { 200: planStateResponseSchema, ...errorResponses(403, 409) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await plansService.requestCorporateCancellation(requireUser(request), request.body, actorOf(request)),
    }),
  );
};

/** The administrator's list of corporate cancellation requests still to process. */
export const adminPlanRoutes: FastifyPluginAsyncZod<{ plansService: PlansService }> = async (app, { plansService }) => {
  requireSignIn(app, 'admin');

  app.get(
    '/admin/corporate/cancellation-requests',
    {
      schema: {
        tags: ['管理: 法人'],
        summary: '処理待ちの法人アカウント解約申請(停止されていないもの、古い順)',
        response: { 200: adminCancellationRequestsResponseSchema },
      },
    },
    async () => ({ success: true as const, data: { requests: await plansService.listCancellationRequests() } }),
  );
};
