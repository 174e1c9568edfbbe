import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { updateProfileBodySchema, userResponseSchema } from '@poi/shared/schemas/users';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { toUser } from './users.mapper';
import type { UsersService } from './users.service';

export const userRoutes: FastifyPluginAsyncZod<{ usersService: UsersService }> = async (app, { usersService }) => {
  const tags = ['ユーザー'];
  requireSignIn(app);
  app.get(
    '/user',
    { schema: { tags, summary: 'ログイン中のユーザー', response: { 200: userResponseSchema } } },
    async (request) => ({ success: true as const, user: toUser(requireUser(request)) }),
  );

  app.patch(
    '/user',
    {
      schema: { tags, summary: 'プロフィール(表示名)の更新', body: updateProfileBodySchema, response: { 200: userResponseSchema } },
    },
    async (request) => {
      const row = await usersService.updateProfile(requireUser(request).id, request.body.display_name);
      return { success: true as const, user: toUser(row) };
    },
  );
};
