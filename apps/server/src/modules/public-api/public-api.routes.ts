import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { publicPoiSearchQuerySchema } from '@poi/shared/schemas/pois';
import { publicErrorResponses, publicSearchResponseSchema, type PublicSearchResponse } from '@poi/shared/schemas/public-api';
import { messages } from '@poi/shared/messages';
import { AppError } from '../../lib/errors';
import { sendError } from '../../plugins/error-handler';
import { API_KEY_SECURITY } from '../../plugins/openapi';
import { toPoi } from '../pois/pois.mapper';
import { answersJson } from '../pois/dataset-index';
import type { PoisService } from '../pois/pois.service';
import type { RateLimitResult } from './rate-limiter';
import type { SearchCache } from './search-cache';
import { PublicApiError, publicApiMessages, type Caller, type PublicApiService, type SearchPlan } from './public-api.service';
import { checkSearchQuery, summarizeQueryErrors } from './strict-query';
import { fastSearchQueryCompiler } from './fast-query';
import { answerFormat, GEOJSON_CONTENT_TYPE, shapeAnswer, type SearchData } from './answer-format';
import { registerSuggestRoute } from './suggest.routes';
import type { Suggester } from '../pois/suggest';

function setRateHeaders(reply: FastifyReply, rate: RateLimitResult): void {
  reply.header('X-RateLimit-Limit', String(rate.limit));
  reply.header('X-RateLimit-Remaining', String(rate.remaining));
  reply.header('X-RateLimit-Reset', String(rate.resetSeconds));
}

/**
 * Browsers may call the API from any origin (referrer restrictions decide who may): CORS for
 * every answer, errors and unknown paths included. No answer may be stored by a cache: each is
 * a billed search or about one.
 */
function setCommonHeaders(reply: FastifyReply): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Expose-Headers', 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After');
  reply.header('Cache-Control', 'no-store');
  // Error messages follow Accept-Language (English or Japanese, plugins/error-handler.ts).
  reply.header('Vary', 'Accept-Language');
}

const SEARCH_PATH = '/poi/search';
const ALLOWED_METHODS = 'GET, OPTIONS';

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The metered public API (`/api/v1`): API-key authentication, per-minute limits, one usage event per 200. */
export const publicApiRoutes: FastifyPluginAsyncZod<{
  publicApi: PublicApiService;
  poisService: PoisService;
  searchCache: SearchCache;
  suggester: Suggester;
  /** Told which path answered each search (/metrics): the answer cache, the in-memory index or PostgreSQL. */
  onSearch?: (path: 'cache' | 'index' | 'postgres') => void;
}> = async (app, { publicApi, poisService, searchCache, suggester, onSearch }) => {
  const callers = new WeakMap<FastifyRequest, Caller>();
  const plans = new WeakMap<FastifyRequest, SearchPlan>();

  app.addHook('onRequest', async (request, reply) => {
    setCommonHeaders(reply);
    // Only the search itself is authenticated and limited: a CORS preflight carries no key, and
    // a wrong method or path is told so (405/404) whatever the key.
    if (request.method !== 'GET' || !(request.routeOptions.config as { metered?: boolean }).metered) return;
    try {
      const caller = await publicApi.authenticate({
        authorization: request.headers.authorization,
        apiKey: headerValue(request.headers['x-api-key']),
        ip: request.ip,
        referer: headerValue(request.headers.referer),
        origin: headerValue(request.headers.origin),
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

  app.setNotFoundHandler((request, reply) => sendError(reply, 404, 'NOT_FOUND', messages.notFound));

  // HEAD would run the search without showing it (Fastify answers HEAD from the GET route by
  // default, billed): it is refused like every other method but GET.
  const refuseMethod = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Allow', ALLOWED_METHODS);
    return sendError(reply, 405, 'METHOD_NOT_ALLOWED', publicApiMessages.methodNotAllowed);
  };
  app.route({
    method: ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: SEARCH_PATH,
    schema: { hide: true },
    handler: refuseMethod,
  });

  const preflight = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Access-Control-Allow-Methods', ALLOWED_METHODS);
    reply.header('Access-Control-Allow-Headers', 'Authorization, X-API-Key, Content-Type');
    reply.header('Access-Control-Max-Age', '86400');
    return reply.status(204).send();
  };
  app.options(SEARCH_PATH, { schema: { hide: true } }, preflight);
  // A browser reads an answer only after its preflight passed, and a preflight passes only with a
  // 2xx: a 404 preflight to a mistyped path showed as a CORS failure instead of the Japanese 404.
  // So every preflight under /api/v1 passes, and the request that follows gets the 404 (with CORS
  // headers, see setCommonHeaders). A bare OPTIONS (no Access-Control-Request-Method) is no
  // preflight: 404 as any unknown path.
  app.options('/*', { schema: { hide: true } }, async (request, reply) => {
    if (!request.headers['access-control-request-method']) return sendError(reply, 404, 'NOT_FOUND', messages.notFound);
    return preflight(request, reply);
  });

  app.get(
    SEARCH_PATH,
    {
      exposeHeadRoute: false,
      config: { metered: true },
      // The common point search's query without zod; anything else (and every error) through the schema.
      validatorCompiler: fastSearchQueryCompiler,
      // Before the schema: what Fastify's parser would silently accept (see strict-query.ts).
      preValidation: async (request) => {
        const url = request.raw.url ?? '';
        const at = url.indexOf('?');
        const errors = at === -1 ? [] : checkSearchQuery(url.slice(at + 1));
        if (errors.length) throw new AppError('VALIDATION_ERROR', summarizeQueryErrors(errors), { errors });
      },
      schema: {
        tags: ['公開検索API'],
        summary: 'POIの検索(APIキー認証・従量課金)',
        description:
          'dataset_id で指定したデータセット(1〜10件、カンマ区切りまたは繰り返し指定)からPOIを検索します。キーワード、緯度・経度・半径(メートル)で絞り込めます。200の応答1件が課金対象の1検索です。すべての応答に X-RateLimit-Limit / X-RateLimit-Remaining / X-RateLimit-Reset と X-Request-Id ヘッダーが付きます。',
        security: API_KEY_SECURITY,
        querystring: publicPoiSearchQuerySchema,
        response: { 200: publicSearchResponseSchema, ...publicErrorResponses },
      },
    },
    async (request, reply) => {
      const caller = callers.get(request)!;
      const plan = await publicApi.plan(caller, request.query.dataset_id);
      plans.set(request, plan);
      const format = answerFormat(request.query.format, headerValue(request.headers.accept));
      const { fields } = request.query;
      // The answer depends on Accept: a shared cache must not give a GeoJSON answer to a JSON client.
      const vary = reply.getHeader('Vary');
      reply.header('Vary', vary ? `${String(vary)}, Accept` : 'Accept');
      const key = searchCache.keyOf(request.query, format);
      let body = searchCache.get(key);
      if (body) onSearch?.('cache');
      if (!body && (format === 'geojson' || fields)) {
        // Another shape of the same POIs: written from the parsed answer (rows or the index's
        // JSON), so it equals the JSON answer by construction; the default JSON never comes here.
        const generation = searchCache.generation();
        const { rows, total, capped, nextCursor, answers } = await poisService.searchMarketplace(request.query);
        onSearch?.(answers !== undefined ? 'index' : 'postgres');
        const pois =
          answers !== undefined ? (JSON.parse(answersJson(answers, '{"pois":', '}').toString('utf8')) as Pick<SearchData, 'pois'>).pois : rows.map((r) => toPoi(r, r.distance ?? undefined));
        body = shapeAnswer({ pois, total, total_capped: capped, next_cursor: nextCursor }, format, fields);
        searchCache.set(key, body, generation);
      }
      if (!body) {
        const generation = searchCache.generation();
        const { rows, total, capped, nextCursor, answers } = await poisService.searchMarketplace(request.query);
        onSearch?.(answers !== undefined ? 'index' : 'postgres');
        if (answers !== undefined) {
          // The in-memory index's answer: the POIs' JSON as the index keeps it, the envelope as
          // JSON.stringify writes it, all written once into the bytes that go out.
          body = answersJson(answers, '{"success":true,"data":{"pois":', `,"total":${total},"total_capped":${capped},"next_cursor":${JSON.stringify(nextCursor)}}}`);
          // Kept from a search's second call on (see SearchCache.repeated).
          if (searchCache.repeated(key)) searchCache.set(key, body, generation);
        } else {
          const answer: PublicSearchResponse = {
            success: true,
            data: { pois: rows.map((r) => toPoi(r, r.distance ?? undefined)), total, total_capped: capped, next_cursor: nextCursor },
          };
          body = JSON.stringify(answer);
          // Kept at once: each repeat within the cache's moment spares a database query.
          searchCache.set(key, body, generation);
        }
      }
      // Serialised once here and reused by the cache: a string or buffer goes out as it is (Fastify
      // runs its serializer on objects only), so 20 POIs are not run through the schema per call.
      return reply.type(format === 'geojson' ? GEOJSON_CONTENT_TYPE : 'application/json; charset=utf-8').send(body as never);
    },
  );

  registerSuggestRoute(app, { publicApi, suggester, callers, plans, refuseMethod });
};
