import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { DatabaseLocaleError } from './db/client';
import { holdDataDir } from './lib/data-dir-lock';
import { answerSnapshotRequest, type SnapshotSource } from './lib/pglite-snapshot';

async function main(): Promise<void> {
  const config = loadConfig();
  // From before the database opens (migrations included): `npm run restore` refuses while the
  // directory is held, and `npm run backup` asks this process for a copy (lib/pglite-snapshot.ts).
  const snapshot: { source?: SnapshotSource } = {};
  if (!config.databaseUrl) {
    process.on('exit', holdDataDir(config.dataDir));
    process.on('SIGUSR2', () => void answerSnapshotRequest(snapshot.source, config.dataDir));
  }
  const app = await buildApp(config);
  snapshot.source = { client: (app.database.db as unknown as { $client: SnapshotSource['client'] }).$client, log: app.log };

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    `POI Cloud is running: ${config.publicUrl} (database: ${app.database.engine}${config.databaseUrl ? '' : ` in ${config.dataDir}`}, mail: ${config.smtpUrl ? 'SMTP' : 'server log'})`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseLocaleError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
