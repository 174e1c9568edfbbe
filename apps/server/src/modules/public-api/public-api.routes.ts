import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { poiSearchQuerySchema } from '@poi/shared/schemas/poi';
import { publicErrorResponses, publicSearchResponseSchema } from '@poi/shared/schemas/public-api';
import { toPoi } from '../pois/pois.mapper';
import type { PoisService } from '../pois/pois.service';
import type { RateLimitResult } from './rate-limiter';
import { PublicApiError, type Caller, type PublicApiService, type SearchPlan } from './public-api.service';

function setRateHeaders(reply: FastifyReply, rate: RateLimitResult): void {
  reply.header('X-RateLimit-Limit', String(rate.limit));
  reply.header('X-RateLimit-Remaining', String(rate.remaining));
  reply.header('X-RateLimit-Reset', String(rate.resetSeconds));
}

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The metered public API (`/api/v1`): API-key authentication, per-minute limits, one usage event per 200. */
export const publicApiRoutes: FastifyPluginAsyncZod<{ publicApi: PublicApiService; poisService: PoisService }> = async (app, { publicApi, poisService }) => {
  const callers = new WeakMap<FastifyRequest, Caller>();
  const plans = new WeakMap<FastifyRequest, SearchPlan>();

  app.addHook('onRequest', async (request, reply) => {
    try {
      const caller = await publicApi.authenticate({
        authorization: request.headers.authorization,
        apiKey: headerValue(request.headers['x-api-key']),
        ip: request.ip,
        referer: headerValue(request.headers.referer),
      });
      setRateHeaders(reply, caller.rate);
      callers.set(request, caller);
    } catch (err) {
      if (err instanceof PublicApiError) setRateHeaders(reply, err.rate);
      throw err;
    }
  });

  // Billing follows the status actually sent: only a 200 is a billable search.
  const settle = (request: FastifyRequest, succeeded: boolean) => {
    const plan = plans.get(request);
    if (plan) publicApi.settle(plan, succeeded);
  };
  app.addHook('onResponse', async (request, reply) => settle(request, reply.statusCode === 200));
  app.addHook('onRequestAbort', async (request) => settle(request, false));

  app.get(
    '/poi/search',
    {
      schema: {
        tags: ['公開検索API'],
        summary: 'POIの検索(APIキー認証・従量課金)',
        description:
          'dataset_id で指定したデータセット(1〜10件、カンマ区切りまたは繰り返し指定)からPOIを検索します。キーワード、緯度・経度・半径(メートル)で絞り込めます。200の応答1件が課金対象の1検索です。すべての応答に X-RateLimit-Limit / X-RateLimit-Remaining / X-RateLimit-Reset と X-Request-Id ヘッダーが付きます。',
        security: [{ apiKeyHeader: [] }, { bearerAuth: [] }],
        querystring: poiSearchQuerySchema,
        response: { 200: publicSearchResponseSchema, ...publicErrorResponses },
      },
    },
    async (request) => {
      const caller = callers.get(request)!;
      const plan = await publicApi.plan(caller, request.query.dataset_id);
      plans.set(request, plan);
      const { rows, total, capped } = await poisService.searchMarketplace(request.query);
      return { success: true as const, data: { pois: rows.map((r) => toPoi(r, r.distance ?? undefined)), total, total_capped: capped } };
    },
  );
};
