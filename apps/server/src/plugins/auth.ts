import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { messages } from '@poi/shared/messages';
import { isAdmin } from '@poi/shared/roles';
import { AppError } from '../lib/errors';
import type { users } from '../db/schema/users';

/** The signed-in user of a request: the user's row and the session it came with. */
export type CurrentUser = typeof users.$inferSelect & { sessionId: string };

/**
 * What the plugin needs to resolve a bearer token: the auth module's session check, passed in by
 * the composition root, so plugins (below the modules) import no module.
 */
export type SessionAuthenticator = (token: string) => Promise<CurrentUser | null | undefined>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The user of the request's session when it has one (routes where signing in is optional). */
    optionalUser: (request: FastifyRequest) => Promise<CurrentUser | null>;
    /** Hook: a live session is required. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Hook: a live session of an admin (role admin) is required. */
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    currentUser: CurrentUser | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route (set by `requireSignIn`); the OpenAPI document lists its 401/403 from it. */
    access?: RouteAccess;
  }
}

export type RouteAccess = 'user' | 'admin';

/**
 * Every route declared after this call in the plugin needs a session (`admin`: an admin's).
 * The check is the route's first onRequest hook, so it runs before the body is read, parsed or
 * validated: a caller without a session gets 401 whatever else is wrong with the request, and an
 * unauthenticated upload is refused before it is read. The route is marked for the OpenAPI
 * document (bearer security, 401/403).
 */
export function requireSignIn(app: FastifyInstance, access: RouteAccess = 'user'): void {
  const check = access === 'admin' ? app.requireAdmin : app.authenticate;
  app.addHook('onRoute', (route: RouteOptions) => {
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    // A GET's HEAD twin arrives with the GET's hooks already in place.
    if (!existing.includes(check)) route.onRequest = [check, ...existing];
    route.config = { ...route.config, access };
    route.schema = { ...route.schema, security: [{ bearerAuth: [] }] };
  });
}

/** The credential of an `Authorization: Bearer …` header (a session token, or an API key on /api). */
export function bearerOf(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

export const bearerToken = (request: FastifyRequest): string | undefined => bearerOf(request.headers.authorization);

/** Resolves the session of a request; authorisation itself happens in the route hooks and services. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { authenticate: SessionAuthenticator }) => {
  app.decorateRequest('currentUser', null);
  app.decorate('optionalUser', async (request: FastifyRequest) => {
    const token = bearerToken(request);
    return (token && (await opts.authenticate(token))) || null;
  });

  async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', messages.unauthorized);
    const user = await opts.authenticate(token);
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
