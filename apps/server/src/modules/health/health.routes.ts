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
          'データベースに接続できれば200。REDIS_URL を設定していて Redis に接続できない間は status と redis が degraded になります(レート制限はこのインスタンスのメモリで継続)。',
        response: {
          200: z.object({
            status: z.enum(['ok', 'degraded']),
            database: z.enum(['pglite', 'postgres']),
            redis: z.enum(['ok', 'degraded', 'not_configured']),
          }),
        },
      },
    },
    async () => {
      await checkDatabase(app.database.db);
      // A Redis outage degrades the shared rate limits only: the instance still serves (200).
      const redis: RedisState | 'not_configured' = app.redis?.state() ?? 'not_configured';
      return { status: redis === 'degraded' ? ('degraded' as const) : ('ok' as const), database: app.database.engine, redis };
    },
  );
};
