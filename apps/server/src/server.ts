import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { DatabaseLocaleError } from './db/client';
import { holdDataDir } from './lib/data-dir-lock';
import { answerSnapshotRequest, type SnapshotSource } from './lib/pglite-snapshot';
import { createLifecycle } from './modules/health/lifecycle';
import { listenEarly } from './modules/health/startup-listener';

/** While draining, connections whose last answer was sent before SIGTERM are closed this often (a download's, say). */
const REAP_IDLE_MS = 100;

async function main(): Promise<void> {
  const config = loadConfig();
  // From before the database opens (migrations included): `npm run restore` refuses while the
  // directory is held, and `npm run backup` asks this process for a copy (lib/pglite-snapshot.ts).
  const snapshot: { source?: SnapshotSource } = {};
  if (!config.databaseUrl) {
    process.on('exit', holdDataDir(config.dataDir));
    process.on('SIGUSR2', () => void answerSnapshotRequest(snapshot.source, config.dataDir));
  }
  // The probes answer from now on (docs/operations.md "Health probes and shutdown"): /livez 200,
  // /readyz 503 while the migrations run and the app is built, then the app takes the port.
  const lifecycle = createLifecycle();
  const early = await listenEarly({ port: config.port, host: config.host, lifecycle });
  let app: FastifyInstance | undefined;
  const started = (async () => {
    app = await buildApp(config, { lifecycle, serverFactory: early.serverFactory });
    snapshot.source = { client: (app.database.db as unknown as { $client: SnapshotSource['client'] }).$client, log: app.log };
    await app.ready();
    if (lifecycle.phase() === 'draining') return;
    // The app answers on the port the start-up listener holds: it never closes in between.
    early.handOver();
    lifecycle.serving();
    app.log.info(
      `POI Cloud is running: ${config.publicUrl} (database: ${app.database.engine}${config.databaseUrl ? '' : ` in ${config.dataDir}`}, mail: ${config.smtpUrl ? 'SMTP' : 'server log'})`,
    );
  })();

  let closing = false;
  /**
   * SIGTERM/SIGINT: /readyz answers 503 at once, no new connection is accepted, requests under way
   * finish (answers close their connections), then the app's onClose hooks stop the jobs, store
   * every metered search and close the database. Exit 0, or 1 past SHUTDOWN_TIMEOUT_MS.
   */
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const startedAt = Date.now();
    lifecycle.drain();
    const log = app?.log;
    if (log) log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down: draining');
    else console.warn(`${signal}: shutting down during start-up`);
    const force = setTimeout(() => {
      (log ?? console).error(`shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms): exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      // No new connection from here on; before the hand-over the start-up answers' ones end too.
      const closed = early.close();
      // A start-up under way ends first (the migrations are not cut short); the force exit bounds it.
      await started.catch(() => undefined);
      if (app) {
        const server = app.server;
        const reap = setInterval(() => server.closeIdleConnections(), REAP_IDLE_MS);
        reap.unref();
        // Requests under way finish (their answers close their connections), then the app's
        // onClose hooks store the usage and close the database.
        await closed;
        await app.close();
        clearInterval(reap);
        app.log.info({ ms: Date.now() - startedAt }, 'shut down');
      }
      process.exit(0);
    } catch (err) {
      (app?.log ?? console).error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await started;
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseLocaleError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
