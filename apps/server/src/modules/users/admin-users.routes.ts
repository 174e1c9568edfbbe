import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  adminUserListQuerySchema,
  adminUserListResponseSchema,
  adminUserResponseSchema,
  changeAccountTypeBodySchema,
  userIdParamsSchema,
} from '@poi/shared/schemas/user';
import { requireSignIn, requireUser } from '../../plugins/auth';
import type { UserRow } from './users.repository';
import { toUser } from './users.mapper';
import type { UsersService } from './users.service';

const toAdminUser = (row: UserRow) => ({
  ...toUser(row),
  status: row.status,
  created_at: row.createdAt.toISOString(),
  last_login_at: row.lastLoginAt ? row.lastLoginAt.toISOString() : null,
});

export const adminUserRoutes: FastifyPluginAsyncZod<{ usersService: UsersService }> = async (app, { usersService }) => {
  const tags = ['管理: ユーザー'];
  requireSignIn(app, 'admin');

  app.get(
    '/admin/users',
    { schema: { tags, summary: 'ユーザー一覧', querystring: adminUserListQuerySchema, response: { 200: adminUserListResponseSchema } } },
    async (request) => {
      const q = request.query;
      const { rows, total } = await usersService.list({ accountType: q.account_type, keyword: q.keyword, limit: q.limit, offset: q.offset });
      return { success: true as const, data: { users: rows.map(toAdminUser), total } };
    },
  );

  app.get(
    '/admin/users/:id',
    { schema: { tags, summary: 'ユーザー詳細', params: userIdParamsSchema, response: { 200: adminUserResponseSchema } } },
    async (request) => ({ success: true as const, data: { user: toAdminUser(await usersService.get(request.params.id)) } }),
  );

  app.post(
    '/admin/users/:id/change-type',
    {
      schema: {
        tags,
        summary: 'アカウント種別の変更',
        params: userIdParamsSchema,
        body: changeAccountTypeBodySchema,
        response: { 200: adminUserResponseSchema },
      },
    },
    async (request) => ({
      success: true as const,
      data: { user: toAdminUser(await usersService.changeType(request.params.id, request.body.account_type)) },
    }),
  );

  app.post(
    '/admin/users/:id/suspend',
    { schema: { tags, summary: 'ユーザーの停止(全セッションを無効化)', params: userIdParamsSchema, response: { 200: adminUserResponseSchema } } },
    async (request) => ({
      success: true as const,
      data: { user: toAdminUser(await usersService.suspend(requireUser(request).id, request.params.id)) },
    }),
  );

  app.post(
    '/admin/users/:id/activate',
    { schema: { tags, summary: 'ユーザーの有効化', params: userIdParamsSchema, response: { 200: adminUserResponseSchema } } },
    async (request) => ({ success: true as const, data: { user: toAdminUser(await usersService.activate(request.params.id)) } }),
  );
};
