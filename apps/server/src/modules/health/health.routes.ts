import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messages } from '@poi/shared/messages';
import type { RedisState } from '../../lib/redis-circuit';
import { checkDatabase } from './health.repository';
import type { SearchIndexState } from '../pois/search-index';

/** A database that does not answer within this is down for the health check (a blackholed host would hang the probe). */
const CHECK_TIMEOUT_MS = 2_000;

class CheckTimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The driver's message under drizzle's "Failed query" wrapper (connect ECONNREFUSED, the database system is starting up). */
function innermostMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message || String(err);
}

const healthFields = {
  database: z.enum(['pglite', 'postgres']),
  redis: z.enum(['ok', 'degraded', 'not_configured']),
  search_backfill: z.object({ running: z.boolean(), rewritten: z.number().int(), per_second: z.number().nullable() }),
  search_index: z.object({
    enabled: z.boolean(),
    datasets_ready: z.number().int(),
    datasets_building: z.number().int(),
    datasets_over_budget: z.number().int(),
    pois: z.number().int(),
    memory_mb: z.number(),
    budget_mb: z.number().int(),
    lag_ms: z.number().int().nullable(),
    served: z.number().int(),
  }),
};

function searchIndexHealth(s: SearchIndexState | undefined) {
  return {
    enabled: s?.enabled ?? false,
    datasets_ready: s?.ready ?? 0,
    datasets_building: s?.building ?? 0,
    datasets_over_budget: s?.overBudget ?? 0,
    pois: s?.pois ?? 0,
    memory_mb: s?.memoryMb ?? 0,
    budget_mb: s?.budgetMb ?? 0,
    lag_ms: s?.lagMs ?? null,
    served: s?.served ?? 0,
  };
}

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['運用'],
        summary: 'ヘルスチェック',
        description:
          'データベースに接続できれば200、接続できない間は503(status が down、reason に理由。再接続は自動で行われ、接続が戻ると200に戻ります)。REDIS_URL を設定していて Redis に接続できない間は status と redis が degraded になります(レート制限はこのインスタンスのメモリで継続)。search_backfill は、既存POIの検索用の列(読み・表記ゆれの吸収)をこのインスタンスが書き直している間 running が true になり、書き直した件数と毎秒の件数を示します。search_index は公開検索APIのメモリ上の索引です: 検索に使えるデータセット数(datasets_ready)、構築中(datasets_building)、メモリ上限(SEARCH_INDEX_MAX_MB)に収まらずデータベースで検索するもの(datasets_over_budget)、件数、使用メモリ、変更ログを最後に読んでからの経過ミリ秒(lag_ms)、メモリから答えた検索の数(served)。構築中・上限超過のデータセットの検索はデータベースが応答します。',
        response: {
          200: z.object({ status: z.enum(['ok', 'degraded']), ...healthFields }),
          503: z.object({
            status: z.literal('down'),
            ...healthFields,
            reason: z.string().describe('データベースに接続できない理由(日本語)'),
            reason_detail: z.string().describe('接続できなかったときのエラー(英語、運用者向け)'),
          }),
        },
      },
    },
    async (_request, reply) => {
      // A Redis outage degrades the shared rate limits only: the instance still serves (200).
      const redis: RedisState | 'not_configured' = app.redis?.state() ?? 'not_configured';
      const backfill = app.searchBackfill.state();
      const fields = {
        database: app.database.engine,
        redis,
        search_backfill: { running: backfill.running, rewritten: backfill.rewritten, per_second: backfill.rate },
        search_index: searchIndexHealth(app.searchIndex?.state()),
      };
      try {
        await withTimeout(checkDatabase(app.database.db), CHECK_TIMEOUT_MS);
      } catch (err) {
        // PGlite runs in this process on one connection: a check that waits behind a long
        // transaction (an import) means busy, not unreachable. Saying "down" would take the only
        // instance out of a load balancer for as long as the import runs.
        if (err instanceof CheckTimeoutError && app.database.engine === 'pglite') {
          return { status: redis === 'degraded' ? ('degraded' as const) : ('ok' as const), ...fields };
        }
        // The database away (a restart, a failover): this instance cannot serve, but it is alive and
        // reconnects on its own. 503 takes it out of a load balancer's rotation until then.
        reply.header('Cache-Control', 'no-store').header('Retry-After', '2');
        return reply.status(503).send({
          status: 'down' as const,
          ...fields,
          reason: messages.databaseUnavailable,
          reason_detail: innermostMessage(err),
        });
      }
      return { status: redis === 'degraded' ? ('degraded' as const) : ('ok' as const), ...fields };
    },
  );
};
