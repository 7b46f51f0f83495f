// Reads config, builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT.
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { closeDeps, createDeps } from './deps.ts';

export async function serve(config: Config): Promise<void> {
  const deps = createDeps(config);
  await migrateToLatest(deps.db);
  const { app } = await buildApp(deps);
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await app.close();
      await closeDeps(deps);
      app.log.info('stopped');
      process.exitCode = 0;
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
}
