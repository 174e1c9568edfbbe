import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { corporateApplicationBodySchema, corporateApplicationResponseSchema, upgradeViewResponseSchema } from '@poi/shared/schemas/corporate';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { CorporateService } from './corporate.service';

/** The upgrade page: plans in force, the caller's state, and the corporate application. */
export const upgradeRoutes: FastifyPluginAsyncZod<{ corporateService: CorporateService; cardPaymentsAvailable: boolean }> = async (
  app,
  { corporateService, cardPaymentsAvailable },
) => {
  requireSignIn(app);

  app.get(
    '/upgrade',
    { schema: { tags: ['請求・お支払い'], summary: '現在の料金プラン(トライアル・個人・法人)と自分の申し込み状況', response: { 200: upgradeViewResponseSchema } } },
    async (request) => ({ success: true as const, data: await corporateService.upgradeView(requireUser(request), cardPaymentsAvailable) }),
  );

  app.post(
    '/upgrade/corporate',
    {
      schema: {
        tags: ['請求・お支払い'],
        summary: '法人アカウントに申し込む(カード払いはカード登録で、請求書払いは管理者の承認で有効化)',
        body: corporateApplicationBodySchema,
        response: { 200: corporateApplicationResponseSchema, ...errorResponses(409, 503) },
      },
    },
    async (request) => ({ success: true as const, data: await corporateService.apply(requireUser(request), request.body, actorOf(request), cardPaymentsAvailable) }),
  );
};
