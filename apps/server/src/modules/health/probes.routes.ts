import fp from 'fastify-plugin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Lifecycle } from './lifecycle';
import { NOT_READY_REASONS, type Readiness } from './readiness';

export const livenessBody = { status: 'ok' } as const;

/**
 * The orchestrator's probes (docs/operations.md "Health probes and shutdown"): /livez touches
 * nothing but the event loop, /readyz says whether this instance should get traffic. While the
 * process drains (SIGTERM) every answer closes its connection, so keep-alive clients move to
 * another instance and the drain does not wait for their sockets.
 */
const probes: FastifyPluginAsyncZod<{ lifecycle: Lifecycle; readiness: () => Promise<Readiness> }> = async (app, { lifecycle, readiness }) => {
  app.addHook('onSend', async (_request, reply) => {
    if (lifecycle.phase() === 'draining') reply.header('Connection', 'close');
  });

  app.get(
    '/livez',
    {
      schema: {
        tags: ['運用'],
        summary: '生存確認(liveness)',
        description:
          'プロセスが応答できれば常に200。データベースやRedisには触れません(それらの障害でプロセスを再起動させないため)。起動中(マイグレーション中を含む)と停止処理中も200です。',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return livenessBody;
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['運用'],
        summary: '受け入れ可否(readiness)',
        description:
          'このインスタンスにリクエストを送ってよければ200。送るべきでない間は503で、reason に理由のコード、message に日本語の説明: starting(起動中)、migrating(データベースのマイグレーション中)、search_index_building(起動時の検索索引の作成中)、database_unreachable(データベースに接続できない。確認は1秒ごとに1回)、draining(SIGTERM を受けて停止処理中)。',
        response: {
          200: z.object({ status: z.literal('ready') }),
          503: z.object({
            status: z.literal('not_ready'),
            reason: z.enum(NOT_READY_REASONS),
            message: z.string().describe('理由(日本語)'),
          }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const verdict = await readiness();
      if (verdict.ready) return { status: 'ready' as const };
      reply.header('Retry-After', '1');
      return reply.status(503).send({ status: 'not_ready' as const, reason: verdict.reason, message: verdict.message });
    },
  );
};

/** Global (fastify-plugin): its onSend hook closes every connection that answers during the drain. */
export const probeRoutes = fp(probes, { name: 'probes' });
