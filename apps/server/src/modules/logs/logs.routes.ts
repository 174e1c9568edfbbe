import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { FRONTEND_LOG_MAX_BYTES } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { messageResponseSchema } from '@poi/shared/schemas/common';
import { frontendLogBodySchema } from '@poi/shared/schemas/logs';
import type { LogsService } from './logs.service';

export const logRoutes: FastifyPluginAsyncZod<{ logsService: LogsService }> = async (app, { logsService }) => {
  app.post(
    '/logs/frontend',
    {
      bodyLimit: FRONTEND_LOG_MAX_BYTES,
      config: { rateLimit: { max: 60, timeWindow: 60_000 } },
      schema: {
        tags: ['ログ'],
        summary: 'コンソールのエラーログを記録',
        body: frontendLogBodySchema,
        response: { 200: messageResponseSchema },
      },
    },
    async (request) => {
      // The log usually follows a failed call, often a 401: the session is optional here.
      const user = await app.optionalUser(request);
      await logsService.store(request.body, { userId: user?.id ?? null, ip: request.ip });
      return { success: true as const, message: messages.logStored };
    },
  );
};
