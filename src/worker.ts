// The worker process (`lightbox worker`): config -> deps -> migrate -> jobs -> signals, and no
// HTTP. It runs the same background jobs as `lightbox serve` (src/jobs.ts) on the same database,
// so a deployment can give its API nodes (JOBS=false) all of their event loop and run the queue's
// work (webhook deliveries, emails, photo variants) elsewhere; any number of each may run.
// SIGTERM/SIGINT stop claiming, wait (bounded) for the jobs in flight, and exit 0.
import type { Config } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { closeDeps, createDeps } from './deps.ts';
import { startJobs } from './jobs.ts';
import { startMetricsServer, type MetricsServer } from './mechanisms/metrics/metrics.server.ts';
import type { Log } from './lib/log.ts';
import { createServices } from './services.ts';
import { startupLine } from './startup.ts';

export async function work(config: Config): Promise<void> {
  const deps = createDeps(config);
  const log = jsonLog(config.logLevel);
  let metrics: MetricsServer | undefined;
  try {
    await migrateToLatest(deps.db);
    // The worker's own counts (emails, webhook outcomes) and the queue, on METRICS_PORT.
    if (config.metrics !== undefined)
      metrics = await startMetricsServer(deps.metrics, config.metrics, (err) =>
        log.error({ err }, 'metrics scrape failed'),
      );
  } catch (err) {
    await metrics?.close().catch(() => undefined);
    await closeDeps(deps).catch(() => undefined);
    throw err;
  }
  const services = createServices(deps);
  const jobs = startJobs(deps, services, log);
  const ready = startupLine(config, 'worker');
  log.info({ pid: process.pid, ...ready.fields }, ready.msg);
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing the jobs in flight');
    try {
      await jobs.stop();
      await metrics?.close();
      await closeDeps(deps);
      log.info({}, 'stopped');
      process.exitCode = 0;
    } catch (err) {
      log.error({ err }, 'error while shutting down');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

/** JSON lines on stdout in pino's shape (the serve process's log format), without an HTTP app. */
function jsonLog(level: Config['logLevel']): Log {
  const least = LEVELS[level];
  const line = (n: number, obj: object, msg: string): void => {
    if (n < least) return;
    const fields: Record<string, unknown> = { level: n, time: Date.now(), pid: process.pid, role: 'worker' };
    for (const [key, value] of Object.entries(obj)) {
      fields[key] = value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value;
    }
    process.stdout.write(`${JSON.stringify({ ...fields, msg })}\n`);
  };
  return {
    info: (obj, msg) => line(30, obj, msg),
    warn: (obj, msg) => line(40, obj, msg),
    error: (obj, msg) => line(50, obj, msg),
  };
}
