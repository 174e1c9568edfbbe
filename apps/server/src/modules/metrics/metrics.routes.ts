import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors';
import { bearerOf } from '../../plugins/auth';
import type { Metrics } from './metrics';

export const metricsMessages = {
  tokenRequired: 'メトリクスの取得には正しいトークンが必要です(Authorization: Bearer <METRICS_TOKEN>)',
  loopbackOnly: 'メトリクスはこのサーバー自身(ループバックアドレス)からのみ取得できます。他のホストから取得するには METRICS_TOKEN を設定してください',
} as const;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
const isLoopback = (address: string | undefined) => !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/**
 * A request that came through a proxy: a reverse proxy on the same host connects from loopback,
 * and would otherwise hand /metrics to whoever it serves.
 */
const forwarded = (request: FastifyRequest) => request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined || request.headers['x-real-ip'] !== undefined;

/**
 * GET /metrics in Prometheus' text format. With METRICS_TOKEN, `Authorization: Bearer <token>`
 * (compared in constant time) from anywhere; without it, only clients on this host's loopback
 * (the socket's address, never X-Forwarded-For) that did not come through a proxy. Not in the
 * OpenAPI document: it is for operators, not API consumers.
 */
export const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics; token?: string }> = async (app, { metrics, token }) => {
  const expected = token === undefined ? undefined : digest(token);
  const authorize = (request: FastifyRequest) => {
    if (expected) {
      const given = bearerOf(request.headers.authorization);
      // Digests of equal length, so the comparison neither throws nor tells the token's length.
      if (given === undefined || !timingSafeEqual(digest(given), expected)) throw new AppError('UNAUTHORIZED', metricsMessages.tokenRequired);
      return;
    }
    if (!isLoopback(request.socket.remoteAddress) || forwarded(request)) throw new AppError('FORBIDDEN', metricsMessages.loopbackOnly);
  };

  app.get(
    '/metrics',
    {
      // A scrape every few seconds would fill the log with two lines each; a refusal writes one warning.
      logLevel: 'warn',
      schema: { hide: true },
    },
    async (request, reply) => {
      try {
        authorize(request);
      } catch (err) {
        request.log.warn({ remoteAddress: request.socket.remoteAddress, token: expected ? 'wrong or missing' : 'not configured' }, 'metrics scrape refused');
        if (expected) reply.header('WWW-Authenticate', 'Bearer');
        throw err;
      }
      const body = await metrics.scrape();
      return reply.header('Cache-Control', 'no-store').type(metrics.contentType).send(body);
    },
  );
};
