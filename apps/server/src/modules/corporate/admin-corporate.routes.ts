import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { addCorporateMemberBodySchema, corporateDetailResponseSchema, corporateListQuerySchema, corporateListResponseSchema, corporateMemberParamsSchema, corporateReasonBodySchema, createCorporateBodySchema, updateCorporateBodySchema } from '@poi/shared/schemas/corporate';
import { activateCorporateBodySchema, corporateApplicationResponseSchema, corporateParamsSchema } from '@poi/shared/schemas/corporate';
import { attachment } from '../../lib/http';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { AdminCorporateService } from './admin-corporate.service';
import type { CorporateService } from './corporate.service';

/** Admin calls on corporate accounts (the console specification's "Admin: Corporate"); activation is in admin-transfers.routes. */
export const adminCorporateRoutes: FastifyPluginAsyncZod<{ adminCorporate: AdminCorporateService; corporateService: CorporateService }> = async (
  app,
  { adminCorporate, corporateService },
) => {
  const tags = ['管理: 法人'];
  requireSignIn(app, 'admin');
  const ok = <T>(data: T) => ({ success: true as const, data });

  app.get(
    '/admin/corporate',
    {
      schema: {
        tags,
        summary: '法人アカウント一覧(状態で絞り込み、会社名・カナ・お客様番号で検索、新しい順)',
        querystring: corporateListQuerySchema,
        response: { 200: corporateListResponseSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ok(await adminCorporate.list(request.query)),
  );

  app.get(
    '/admin/corporate.csv',
    {
      schema: {
        tags,
        summary: '法人アカウント一覧のCSV(絞り込みに合う全件、UTF-8 BOM付き)',
        querystring: corporateListQuerySchema.pick({ status: true, q: true }),
        produces: ['text/csv'],
        response: errorResponses(400, 401, 403),
      },
    },
    async (request, reply) =>
      reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment('法人アカウント一覧.csv', { ascii: 'corporate-accounts.csv' }))
        .send(await adminCorporate.csv(request.query)),
  );

  app.post(
    '/admin/corporate/create',
    {
      schema: {
        tags,
        summary: '法人アカウントの作成(オーナーは既存のユーザー。作成と同時に有効)',
        body: createCorporateBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.create(actorOf(request), request.body)),
  );

  app.get(
    '/admin/corporate/:id',
    {
      schema: {
        tags,
        summary: '法人アカウントの詳細(メンバー、請求書、与信限度額、支払条件、監査ログ)',
        params: corporateParamsSchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ok(await adminCorporate.detail(request.params.id)),
  );

  app.post(
    '/admin/corporate/:id/update',
    {
      schema: {
        tags,
        summary: '会社情報・請求先・与信限度額・支払条件の変更(今後の請求書から反映。理由必須)',
        params: corporateParamsSchema,
        body: updateCorporateBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.update(actorOf(request), request.params.id, request.body)),
  );

  app.post(
    '/admin/corporate/:id/suspend',
    {
      schema: {
        tags,
        summary: '法人アカウントの停止(メンバーのAPIキーは使えなくなる。コンソールへのログインは可能。理由必須)',
        params: corporateParamsSchema,
        body: corporateReasonBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.suspend(actorOf(request), request.params.id, request.body.reason)),
  );

  app.post(
    '/admin/corporate/:id/reject',
    {
      schema: {
        tags,
        summary: '審査中のお申し込みを却下する(理由必須。申込者は /upgrade で結果を確認できる)',
        params: corporateParamsSchema,
        body: corporateReasonBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.reject(actorOf(request), request.params.id, request.body.reason)),
  );

  app.post(
    '/admin/corporate/:id/members',
    {
      schema: {
        tags,
        summary: 'メンバーの追加(既存のユーザー。役割: owner / billing / member。理由必須)',
        params: corporateParamsSchema,
        body: addCorporateMemberBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.addMember(actorOf(request), request.params.id, request.body)),
  );

  app.post(
    '/admin/corporate/:id/members/:userId/remove',
    {
      schema: {
        tags,
        summary: 'メンバーを外す(最後のオーナーは外せない。外れたユーザーはトライアルに戻る。理由必須)',
        params: corporateMemberParamsSchema,
        body: corporateReasonBodySchema,
        response: { 200: corporateDetailResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ok(await adminCorporate.removeMember(actorOf(request), request.params.id, request.params.userId, request.body.reason)),
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
