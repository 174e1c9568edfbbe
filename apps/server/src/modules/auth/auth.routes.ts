import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '@poi/shared/messages';
import {
  loginResponseSchema,
  magicParamsSchema,
  requestOtpBodySchema,
  requestOtpResponseSchema,
  verifyOtpBodySchema,
} from '@poi/shared/schemas/auth';
import { messageResponseSchema } from '@poi/shared/schemas/common';
import { AppError } from '../../lib/errors';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { toUser } from '../users/users.mapper';
import { errorResponses } from '../../plugins/openapi';
import type { AuthService } from './auth.service';

const TEN_MINUTES = 10 * 60 * 1000;

export const authRoutes: FastifyPluginAsyncZod<{ authIpLimit: number; authService: AuthService }> = async (app, opts) => {
  const { authService } = opts;
  const ipLimit = { rateLimit: { max: opts.authIpLimit, timeWindow: TEN_MINUTES } };
  const tags = ['認証'];

  app.post(
    '/auth/request-otp',
    {
      config: ipLimit,
      schema: {
        tags,
        summary: 'ログイン用の認証コードとリンクをメールで送信',
        body: requestOtpBodySchema,
        response: { 200: requestOtpResponseSchema, ...errorResponses(503) },
      },
    },
    async (request) => {
      const { email, redirect } = request.body;
      const result = await authService.requestOtp(email, request.ip, redirect);
      return { success: true as const, message: messages.otpSent, resend_after: result.resendAfter };
    },
  );

  app.post(
    '/auth/verify-otp',
    {
      config: ipLimit,
      schema: { tags, summary: '認証コードでログイン', body: verifyOtpBodySchema, response: { 200: loginResponseSchema, ...errorResponses(403) } },
    },
    async (request) => {
      const { token, user } = await authService.verifyOtp(request.body.email, request.body.code);
      return { success: true as const, token, user: toUser(user), message: messages.loggedIn };
    },
  );

  // The link in the mail opens a console page where the person presses 「ログインする」: only that
  // POST spends the link. Mail scanners and link prefetchers (some run JavaScript in a headless
  // browser) only load the page, so they can no longer sign in or use up the user's code.
  app.post(
    '/auth/magic/:token',
    {
      config: ipLimit,
      schema: { tags, summary: 'マジックリンクでログイン(確認画面のボタンから)', params: magicParamsSchema, response: { 200: loginResponseSchema, ...errorResponses(403) } },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const { token, user } = await authService.verifyMagicLink(request.params.token);
      return { success: true as const, token, user: toUser(user), message: messages.loggedIn };
    },
  );

  // A GET (and so a HEAD) of the link's API path, as a scanner following URLs would make it:
  // 405 and nothing spent.
  app.get(
    '/auth/magic/:token',
    { schema: { hide: true, params: magicParamsSchema } },
    async (_request, reply) => {
      reply.header('Allow', 'POST').header('Cache-Control', 'no-store');
      throw new AppError('METHOD_NOT_ALLOWED', messages.methodNotAllowed);
    },
  );

  // The one signed-in route of this module, in a context of its own so requireSignIn guards it alone.
  await app.register(async (signedIn) => {
    requireSignIn(signedIn);
    signedIn.post(
      '/auth/logout',
      { schema: { tags, summary: 'ログアウト(セッションを無効化)', response: { 200: messageResponseSchema } } },
      async (request) => {
        await authService.logout(requireUser(request).sessionId);
        return { success: true as const, message: messages.logoutDone };
      },
    );
  });
};
