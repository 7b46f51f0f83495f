// Reads config, builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT.
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { closeDeps, createDeps } from './deps.ts';
import type { App } from './http/types.ts';

export async function serve(config: Config): Promise<void> {
  const deps = createDeps(config);
  let app: App | undefined;
  try {
    await migrateToLatest(deps.db);
    ({ app } = await buildApp(deps));
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // A start that fails (port taken, database unreachable) must not leave a pool or a
    // half-built app holding the process open: the caller reports the error and exits.
    await app?.close().catch(() => undefined);
    await closeDeps(deps).catch(() => undefined);
    throw err;
  }
  const running = app;
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    running.log.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await running.close();
      await closeDeps(deps);
      running.log.info('stopped');
      process.exitCode = 0;
    } catch (err) {
      running.log.error({ err }, 'error while shutting down');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
