import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { publicErrorResponses } from '@poi/shared/schemas/public-api';
import { SUGGEST_PARAMETERS, suggestQuerySchema, suggestResponseSchema } from '@poi/shared/schemas/suggest';
import { AppError } from '../../lib/errors';
import { API_KEY_SECURITY } from '../../plugins/openapi';
import type { Suggester } from '../pois/suggest';
import type { Caller, PublicApiService, SearchPlan } from './public-api.service';
import { checkSearchQuery, summarizeQueryErrors } from './strict-query';

export const SUGGEST_PATH = '/poi/suggest';

type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/**
 * GET /api/v1/poi/suggest inside the public API's plugin (public-api.routes.ts): its hooks
 * authenticate and limit it (`metered`) and settle its plan by the status sent, as for the search.
 */
export function registerSuggestRoute(
  app: ZodApp,
  deps: {
    publicApi: PublicApiService;
    suggester: Suggester;
    callers: WeakMap<FastifyRequest, Caller>;
    plans: WeakMap<FastifyRequest, SearchPlan>;
    refuseMethod: (request: FastifyRequest, reply: FastifyReply) => unknown;
  },
): void {
  const { publicApi, suggester, callers, plans } = deps;
  // HEAD would run (and bill) the suggest without showing it: refused like the search's.
  app.route({ method: ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: SUGGEST_PATH, schema: { hide: true }, handler: deps.refuseMethod });
  app.get(
    SUGGEST_PATH,
    {
      exposeHeadRoute: false,
      config: { metered: true },
      preValidation: async (request) => {
        const url = request.raw.url ?? '';
        const at = url.indexOf('?');
        const errors = at === -1 ? [] : checkSearchQuery(url.slice(at + 1), SUGGEST_PARAMETERS);
        if (errors.length) throw new AppError('VALIDATION_ERROR', summarizeQueryErrors(errors, SUGGEST_PARAMETERS), { errors });
      },
      schema: {
        tags: ['公開検索API'],
        summary: '入力中の文字からPOIの候補(サジェスト・APIキー認証・従量課金)',
        description:
          '入力途中の文字(q)から、名称とその読みが一致するPOIを最大 limit 件返します(検索ボックスの入力補完向け)。かな・カタカナ・半角カナ・ローマ字(ヘボン式・訓令式、入力途中の子音も可)で探せ、名称の一致 → 名称の前方一致 → 読みの前方一致 → 途中一致の順、地点を指定すれば同じ順位の中で近い順に並びます。200の応答1件が課金対象で、料金は1検索の5分の1(データセットの検索単価と基本料金をそれぞれ5で割り、1銭未満切り捨て)。無料検索回数・予算・レート制限は検索と同じく1回として数えます。',
        security: API_KEY_SECURITY,
        querystring: suggestQuerySchema,
        response: { 200: suggestResponseSchema.describe('候補(課金対象の1サジェスト)'), ...publicErrorResponses },
      },
    },
    async (request, reply) => {
      const caller = callers.get(request)!;
      const query = request.query;
      const plan = await publicApi.plan(caller, query.dataset_id, 'suggest');
      plans.set(request, plan);
      const body = await suggester.suggest({ datasetIds: query.dataset_id, q: query.q, latitude: query.latitude, longitude: query.longitude, limit: query.limit });
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
}
