// Reads config, builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT.
import { buildApp, type Services } from './app.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { closeDeps, createDeps } from './deps.ts';
import type { App } from './http/types.ts';
import { createNotificationWorker } from './modules/notifications/notifications.worker.ts';

/** How long in-flight requests get to finish after SIGTERM (within a typical 30 s orchestrator grace). */
const SHUTDOWN_GRACE_MS = 25_000;

export async function serve(config: Config): Promise<void> {
  const deps = createDeps(config);
  let app: App | undefined;
  let services: Services;
  try {
    await migrateToLatest(deps.db);
    ({ app, services } = await buildApp(deps));
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // A start that fails (port taken, database unreachable) must not leave a pool or a
    // half-built app holding the process open: the caller reports the error and exits.
    await app?.close().catch(() => undefined);
    await closeDeps(deps).catch(() => undefined);
    throw err;
  }
  const running = app;
  // Bytes of deleted media, and of uploads cut short by an earlier crash, are removed now and
  // then whenever their deletion falls due.
  const stopSweeper = services.mediaCleanup.startBackground(running.log);
  // Idempotency records older than 24 h are ignored at once, and deleted now and then.
  const stopPruner = services.idempotency.startPruning(running.log);
  // The outbox worker sends the notification emails that assignments queue.
  const worker = createNotificationWorker(deps, running.log);
  worker.start();
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    running.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Requests still running after the grace period (a stalled upload, say) are cut off.
    const force = setTimeout(() => running.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      await running.close();
      // A send in flight finishes (bounded); anything unsent stays queued for the next start.
      await worker.stop(10_000);
      await stopSweeper();
      await stopPruner();
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
