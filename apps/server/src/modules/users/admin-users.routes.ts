import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  adminReasonBodySchema,
  adminUserCsvQuerySchema,
  adminUserDetailResponseSchema,
  adminUserListQuerySchema,
  adminUserListResponseSchema,
  adminUserResponseSchema,
  auditLogListResponseSchema,
  auditLogQuerySchema,
  changeAccountTypeBodySchema,
  userIdParamsSchema,
} from '@poi/shared/schemas/users';
import { attachment } from '../../lib/http';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import type { AdminUsersService } from './admin-users.service';

/** Admin calls on users and the audit log (the console specification's "Admin"); admin role only. */
export const adminUserRoutes: FastifyPluginAsyncZod<{ adminUsers: AdminUsersService }> = async (app, { adminUsers }) => {
  const tags = ['管理: ユーザー'];
  requireSignIn(app, 'admin');

  app.get(
    '/admin/users',
    {
      schema: {
        tags,
        summary: 'ユーザー一覧(検索・絞り込み・並び替え・ページング、totalは正確な件数)',
        querystring: adminUserListQuerySchema,
        response: { 200: adminUserListResponseSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ success: true as const, data: await adminUsers.list(request.query) }),
  );

  app.get(
    '/admin/users.csv',
    {
      schema: {
        tags,
        summary: 'ユーザー一覧のCSV(絞り込みに合う全件、UTF-8 BOM付き)',
        querystring: adminUserCsvQuerySchema,
        produces: ['text/csv'],
        response: errorResponses(400, 401, 403),
      },
    },
    async (request, reply) =>
      reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment('ユーザー一覧.csv', { ascii: 'users.csv' }))
        .send(await adminUsers.csv(request.query)),
  );

  app.get(
    '/admin/users/:id',
    {
      schema: {
        tags,
        summary: 'ユーザー詳細(今月の利用、APIキー、請求書、監査ログ)',
        params: userIdParamsSchema,
        response: { 200: adminUserDetailResponseSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ success: true as const, data: await adminUsers.detail(request.params.id) }),
  );

  app.post(
    '/admin/users/:id/change-type',
    {
      schema: {
        tags,
        summary: 'アカウント種別(と管理者権限)の変更。理由は必須。最後の有効な管理者は降格できない',
        description: 'データ提供者から(へ)の変更でも、すでに発生した収益は当時の受取人のまま変わりません。',
        params: userIdParamsSchema,
        body: changeAccountTypeBodySchema,
        response: { 200: adminUserResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      success: true as const,
      data: { user: await adminUsers.changeType(actorOf(request), request.params.id, request.body) },
    }),
  );

  app.post(
    '/admin/users/:id/suspend',
    {
      schema: {
        tags,
        summary: 'ユーザーの停止(理由必須)',
        description:
          '全セッションとAPIキーを無効化します(処理したインスタンスでは即時、他のインスタンスにはPostgreSQLの通知で数ミリ秒以内、通知が届かない場合でも10秒以内)。最後の有効な管理者と自分自身は停止できません。',
        params: userIdParamsSchema,
        body: adminReasonBodySchema,
        response: { 200: adminUserResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      success: true as const,
      data: { user: await adminUsers.suspend(actorOf(request), request.params.id, request.body.reason) },
    }),
  );

  app.post(
    '/admin/users/:id/activate',
    {
      schema: {
        tags,
        summary: 'ユーザーの再開(理由必須)',
        params: userIdParamsSchema,
        body: adminReasonBodySchema,
        response: { 200: adminUserResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      success: true as const,
      data: { user: await adminUsers.activate(actorOf(request), request.params.id, request.body.reason) },
    }),
  );

  app.get(
    '/admin/audit-logs',
    {
      schema: {
        tags: ['管理: 監査ログ'],
        summary: '監査ログ(新しい順。操作者・対象・操作・期間で絞り込み)',
        querystring: auditLogQuerySchema,
        response: { 200: auditLogListResponseSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ success: true as const, data: await adminUsers.auditLogs(request.query) }),
  );
};
