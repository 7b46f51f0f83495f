// Every background job of the serve process, started and stopped here and nowhere else: a runner
// per kind of job on the durable queue (notification emails, selection emails to studios, photo variants, checksums, webhook
// deliveries, the expiry of resumable uploads), the pruning of 30-day-old events, the media cleanup
// (a full sweep at start, then deletions as they fall due, and at once when a large deletion
// wakes it) and the pruning of expired idempotency records.
import type { Deps } from './deps.ts';
import type { Log } from './lib/log.ts';
import { every, type Periodic } from './lib/periodic.ts';
import { checksumHandler } from './modules/media/media.checksum.job.ts';
import { uploadExpiryHandler } from './modules/uploads/uploads.expire.job.ts';
import { variantsHandler } from './modules/variants/variants.job.ts';
import { watermarkHandler } from './modules/variants/variants.watermark.job.ts';
import { analysisHandler } from './modules/analysis/analysis.job.ts';
import type { ModelReader } from './modules/analysis/analysis.models.ts';
import { modelReader } from './modules/analysis/analysis.models.thread.ts';
import { kitHandler } from './modules/kit/kit.job.ts';
import { configureSharp } from './modules/variants/variants.images.ts';
import { selectionEmailHandler } from './modules/client-links/selection-email.job.ts';
import { notificationHandler } from './modules/notifications/notifications.worker.ts';
import { deliveryHandler } from './modules/webhooks/webhooks.delivery.job.ts';
import { createJobRunner, type JobRunner } from './mechanisms/queue/queue.runner.ts';
import type { Services } from './services.ts';

/** Due cleanup rows are acted on this often (upload leases cut short by a crash fall due in minutes). */
const CLEANUP_INTERVAL_MS = 60_000;
/** Idempotency records older than 24 h are ignored at once, and deleted this often. */
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** How often an idle node looks for webhook deliveries: the bulk of commit-to-delivery time. */
const DELIVERY_POLL_MS = 200;
/**
 * Deliveries (and fan-outs) started a second at most while the node is busy answering requests:
 * the API keeps the JS thread, deliveries keep moving, the backlog goes once the requests ease
 * (decisions/0015). Worker nodes (`lightbox worker`) answer no requests and never wait.
 */
const DELIVERIES_PER_SECOND_WHEN_BUSY = 100;
/** Photo analyses started a second at most while the node is busy answering requests. */
const ANALYSES_PER_SECOND_WHEN_BUSY = 1;
/** Listing kits started a second at most while the node is busy answering requests (docs/api.md §32). */
const KITS_PER_SECOND_WHEN_BUSY = 0.2;
/** Events older than 30 days are deleted this often. */
const EVENT_PRUNE_INTERVAL_MS = 60 * 60_000;
/** How long stop() waits for jobs in flight (an email send, a photo); the rest stays queued. */
const STOP_GRACE_MS = 10_000;

export interface Jobs {
  /** Stops claiming new work; waits (bounded) for work in flight. Unfinished work stays queued. */
  stop(): Promise<void>;
}

/** The studio's name that previews carry (undefined: the account is gone). */
export const studioName =
  (services: Pick<Services, 'accounts'>) =>
  (accountId: string): Promise<string | undefined> =>
    services.accounts.get(accountId).then(
      (a) => a.name,
      () => undefined,
    );

/** The runner of every kind of job on the queue. */
function createRunners(deps: Deps, services: Services, log: Log, models: ModelReader): JobRunner[] {
  // Jobs change rows through the process's one unit of work, as the services do.
  const writing = { ...deps, writes: services.writes };
  return [
    createJobRunner(deps, log, notificationHandler(writing, log)),
    // docs/api.md §25: the studio's email when a client sends a selection.
    createJobRunner(deps, log, selectionEmailHandler(deps, log)),
    createJobRunner(deps, log, variantsHandler(writing, services.mediaCleanup, log)),
    // docs/api.md §29: a locked gallery's previews, the studio's name (or logo) across each photo.
    createJobRunner(
      deps,
      log,
      watermarkHandler(writing, services.mediaCleanup, studioName(services), (id) => services.logos.key(id), log),
    ),
    // docs/api.md §30: after variants, and a photo a second at most while requests keep the node busy.
    ...(deps.config.media.analysis
      ? [
          createJobRunner(deps, log, analysisHandler(writing, log, models), {
            giveWay: { to: deps.foreground, perSecond: ANALYSES_PER_SECOND_WHEN_BUSY },
          }),
        ]
      : []),
    createJobRunner(deps, log, checksumHandler(deps, log)),
    // docs/api.md §32: one kit at a time, after photos' variants, and rarely while requests keep the node busy.
    createJobRunner(
      deps,
      log,
      kitHandler(writing, services.mediaCleanup, log, { music: (id) => services.kitMusic.open(id) }),
      {
        giveWay: { to: deps.foreground, perSecond: KITS_PER_SECOND_WHEN_BUSY },
      },
    ),
    createJobRunner(deps, log, uploadExpiryHandler(deps, services.uploads, log)),
    // Deliveries are due the moment their write commits: looked for often, to keep them prompt.
    // While requests keep the node busy, they go first.
    createJobRunner(deps, log, deliveryHandler(deps, log), {
      pollMs: DELIVERY_POLL_MS,
      giveWay: { to: deps.foreground, perSecond: DELIVERIES_PER_SECOND_WHEN_BUSY },
    }),
  ];
}

export function startJobs(deps: Deps, services: Services, log: Log): Jobs {
  // libvips' own threads per photo: with one photo at a time, the API keeps a core.
  configureSharp({ threads: deps.config.media.variants.threads });
  // docs/api.md §30: the models load on the first photo analysed, once for the process.
  const models = modelReader({ ocr: deps.config.media.analysisOcr, maxPixels: deps.config.media.maxImagePixels });
  const runners = createRunners(deps, services, log, models);
  deps.foreground.start();
  for (const runner of runners) runner.start();
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
  const eventPruning = every(
    EVENT_PRUNE_INTERVAL_MS,
    async () => {
      const pruned = await services.webhooks.pruneEvents();
      if (pruned > 0) log.info({ pruned }, 'events older than 30 days pruned');
    },
    log,
    'pruning events',
  );
  return {
    async stop() {
      await Promise.all(runners.map((runner) => runner.stop(STOP_GRACE_MS)));
      deps.foreground.stop();
      detach();
      await cleanup.stop();
      await pruning.stop();
      await eventPruning.stop();
      await models.close();
    },
  };
}
