import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { budgetBodySchema, budgetResponseSchema } from '@poi/shared/schemas/budgets';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { BudgetsService } from './budgets.service';

export const budgetRoutes: FastifyPluginAsyncZod<{ budgetsService: BudgetsService }> = async (app, { budgetsService: service }) => {
  requireSignIn(app);

  app.get(
    '/billing/budget',
    {
      schema: {
        tags: ['請求'],
        summary: '月間予算(上限・停止設定・今月のご利用額(税込)・送信済みアラート)',
        response: { 200: budgetResponseSchema },
      },
    },
    async (request) => ({ success: true as const, data: await service.get(requireUser(request)) }),
  );

  app.post(
    '/billing/budget',
    {
      schema: {
        tags: ['請求'],
        summary: '月間予算の設定(monthly_limit が null なら削除)',
        description:
          '今月のご利用額(税込)が予算の50%・80%・100%に達すると、請求先メールアドレスへ各1回お知らせします。hard_stop が true なら、上限に達した時点で公開検索APIは 402 (BUDGET_EXCEEDED) を返し、課金されません。',
        body: budgetBodySchema,
        response: { 200: budgetResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => ({ success: true as const, data: await service.set(requireUser(request), request.body, actorOf(request)) }),
  );
};
