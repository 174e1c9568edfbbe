import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { messages } from '@poi/shared/messages';
import { isAdmin } from '@poi/shared/roles';
import { AppError } from '../lib/errors';
import type { AuthService } from '../modules/auth/auth.service';
import type { UserRow } from '../modules/users/users.repository';

export type CurrentUser = UserRow & { sessionId: string };

declare module 'fastify' {
  interface FastifyInstance {
    authService: AuthService;
    /** preHandler: a live session is required. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** preHandler: a live session of an admin (role admin) is required. */
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    currentUser: CurrentUser | null;
  }
}

/** The credential of an `Authorization: Bearer …` header (a session token, or an API key on /api). */
export function bearerOf(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

export const bearerToken = (request: FastifyRequest): string | undefined => bearerOf(request.headers.authorization);

/** Resolves the session of a request; authorisation itself happens in the preHandlers and services. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { authService: AuthService }) => {
  app.decorate('authService', opts.authService);
  app.decorateRequest('currentUser', null);

  async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', messages.unauthorized);
    const user = await opts.authService.authenticate(token);
    if (!user) throw new AppError('UNAUTHORIZED', messages.sessionExpired);
    request.currentUser = user;
  }

  app.decorate('authenticate', authenticate);
  app.decorate('requireAdmin', async (request: FastifyRequest) => {
    await authenticate(request);
    if (!isAdmin({ role: request.currentUser?.role ?? '', account_type: request.currentUser?.accountType ?? '' })) throw new AppError('FORBIDDEN', messages.forbidden);
  });
});

/** The signed-in user of a route guarded by `authenticate`. */
export function requireUser(request: FastifyRequest): CurrentUser {
  if (!request.currentUser) throw new AppError('UNAUTHORIZED', messages.unauthorized);
  return request.currentUser;
}
