// The serve process: config -> deps -> migrate -> app -> listen -> jobs -> signals. Shuts down
// gracefully on SIGTERM/SIGINT: stop accepting, finish in-flight requests, stop the jobs, close.
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { closeDeps, createDeps } from './deps.ts';
import type { App } from './http/types.ts';
import { startJobs } from './jobs.ts';
import { startMetricsServer, type MetricsServer } from './mechanisms/metrics/metrics.server.ts';
import { createServices } from './services.ts';
import { startupLine } from './startup.ts';

/** How long in-flight requests get to finish after SIGTERM (within a typical 30 s orchestrator grace). */
const SHUTDOWN_GRACE_MS = 25_000;

/**
 * The one line that tells whoever started the service what runs and where to go: the version,
 * database, storage, mailer, public URL, dashboard and API reference (src/startup.ts).
 */
export function readyLine(config: Config): { fields: Record<string, string>; msg: string } {
  return startupLine(config, 'serve');
}

export async function serve(config: Config): Promise<void> {
  const deps = createDeps(config);
  const services = createServices(deps);
  let app: App | undefined;
  let metrics: MetricsServer | undefined;
  try {
    await migrateToLatest(deps.db);
    ({ app } = await buildApp(deps, { services }));
    await app.listen({ port: config.port, host: config.host });
    // Prometheus' GET /metrics, on its own listener (METRICS_PORT), never the public port.
    const log = app.log;
    if (config.metrics !== undefined)
      metrics = await startMetricsServer(deps.metrics, config.metrics, (err) =>
        log.error({ err }, 'metrics scrape failed'),
      );
  } catch (err) {
    // A start that fails (port taken, database unreachable) must not leave a pool or a
    // half-built app holding the process open: the caller reports the error and exits.
    await metrics?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await closeDeps(deps).catch(() => undefined);
    throw err;
  }
  const running = app;
  const ready = readyLine(config);
  running.log.info(ready.fields, ready.msg);
  // JOBS=false: an API node; `lightbox worker` processes run the jobs (src/worker.ts).
  const jobs = config.jobs ? startJobs(deps, services, running.log) : { stop: () => Promise.resolve() };
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
      await metrics?.close();
      await jobs.stop();
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
