// Every background job of the serve process, started and stopped here and nowhere else: the
// notification email worker, the media cleanup (a full sweep at start, then deletions as they
// fall due, and at once when a large deletion wakes it) and the pruning of expired idempotency records.
import type { Deps } from './deps.ts';
import type { Log } from './lib/log.ts';
import { every, type Periodic } from './lib/periodic.ts';
import { createNotificationWorker } from './modules/notifications/notifications.worker.ts';
import type { Services } from './services.ts';

/** Due cleanup rows are acted on this often (upload leases cut short by a crash fall due in minutes). */
const CLEANUP_INTERVAL_MS = 60_000;
/** Idempotency records older than 24 h are ignored at once, and deleted this often. */
const PRUNE_INTERVAL_MS = 10 * 60_000;

export interface Jobs {
  /** Stops claiming new work; waits (bounded) for work in flight. Unfinished work stays queued. */
  stop(): Promise<void>;
}

export function startJobs(deps: Deps, services: Services, log: Log): Jobs {
  const worker = createNotificationWorker(deps, log);
  worker.start();
  let sweptAtStart = false;
  const cleanup: Periodic = every(
    CLEANUP_INTERVAL_MS,
    async () => {
      if (sweptAtStart) {
        await services.mediaCleanup.purgeDue(log);
        return;
      }
      // Bytes of deleted media, and of uploads cut short by an earlier crash, go at start.
      sweptAtStart = true;
      const swept = await services.mediaCleanup.sweep(log);
      if (swept.purged + swept.orphans > 0) log.info(swept, 'media sweep at start-up');
    },
    log,
    'media cleanup',
  );
  // A large deletion hands its bytes to this job rather than making its request wait for them.
  const detach = services.mediaCleanup.attachWorker(() => cleanup.wake());
  const pruning = every(
    PRUNE_INTERVAL_MS,
    async () => {
      const pruned = await services.idempotency.prune();
      if (pruned > 0) log.info({ pruned }, 'expired idempotency keys pruned');
    },
    log,
    'pruning idempotency keys',
  );
  return {
    async stop() {
      // A send in flight finishes (bounded); anything unsent stays queued for the next start.
      await worker.stop(10_000);
      detach();
      await cleanup.stop();
      await pruning.stop();
    },
  };
}
