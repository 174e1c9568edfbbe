import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RedisState } from '../../lib/redis-circuit';
import { checkDatabase } from './health.repository';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['運用'],
        summary: 'ヘルスチェック',
        description:
          'データベースに接続できれば200。REDIS_URL を設定していて Redis に接続できない間は status と redis が degraded になります(レート制限はこのインスタンスのメモリで継続)。search_backfill は、既存POIの検索用の列(読み・表記ゆれの吸収)をこのインスタンスが書き直している間 running が true になり、書き直した件数と毎秒の件数を示します。',
        response: {
          200: z.object({
            status: z.enum(['ok', 'degraded']),
            database: z.enum(['pglite', 'postgres']),
            redis: z.enum(['ok', 'degraded', 'not_configured']),
            search_backfill: z.object({ running: z.boolean(), rewritten: z.number().int(), per_second: z.number().nullable() }),
          }),
        },
      },
    },
    async () => {
      await checkDatabase(app.database.db);
      // A Redis outage degrades the shared rate limits only: the instance still serves (200).
      const redis: RedisState | 'not_configured' = app.redis?.state() ?? 'not_configured';
      const backfill = app.searchBackfill.state();
      return {
        status: redis === 'degraded' ? ('degraded' as const) : ('ok' as const),
        database: app.database.engine,
        redis,
        search_backfill: { running: backfill.running, rewritten: backfill.rewritten, per_second: backfill.rate },
      };
    },
  );
};
