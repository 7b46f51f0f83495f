// The `media.variants` job on the durable queue: makes a photo's thumb, large and mls variants
// (variants.images.ts does the image work), or a video's poster and web rendition
// (variants.video.ts, docs/api.md §25), and records them: one job, one set of guarantees. Every variant object is owned at all
// times: by a cleanup-ledger lease while it is written, by its media_variants row once recorded
// (the lease goes in the same transaction), so a crash leaves nothing the sweep does not remove.
// Each making writes new keys; a remake replaces the rows and schedules the old keys' deletion.
// The rows are recorded under the gallery's lock, then the photo's (the deletions' order), and
// the job's lease and the keys' ledger lease are renewed while the photo is made
// (VARIANT_LEASE_MS), so a slow photo is neither taken over by another node nor swept.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import { finishJob, renewLease, retryJob, withJobOutcome, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import * as repo from '../media/media.repository.ts';
import * as variantsRepo from './variants.repository.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { makeVariants, variantSpecs, VariantError } from './variants.images.ts';
import { mlsFitOf } from '../mls/mls.entry.ts';
import { makeVideoVariants, VIDEO_VARIANT_NAMES, type VideoLimits } from './variants.video.ts';
import { STAGED_MARK, stagingLabelWanted } from './variants.staging.ts';

type Photo = repo.MediaRow;

/** A photo that will not make its variants ends `failed` after this many tries. */
export const MAX_VARIANT_TRIES = 3;
const RETRY_DELAYS_MS = [30_000, 2 * 60_000];

export function variantsHandler(
  { db, clock, config, storage, writes }: Pick<Deps, 'db' | 'clock' | 'config' | 'storage'> & { writes: Writes },
  cleanup: MediaCleanup,
  log: Log,
): JobHandler {
  const specs = variantSpecs(config.media.variants.mlsBox);
  /**
   * The photo's variants under its gallery's MLS profile, when it has one (docs/api.md §31): the
   * `mls` one fits it, and whether a staged photo's label is drawn follows its disclose_staging.
   */
  const plan = async (photo: Photo, executor: Executor = db.kysely) => {
    const fit = await mlsFitOf(executor, photo.account_id, photo.listing_id);
    return {
      specs: fit === undefined ? specs : variantSpecs(config.media.variants.mlsBox, fit),
      label: stagingLabelWanted(photo, fit === undefined ? null : { disclose_staging: fit.discloseStaging }),
    };
  };
  const leaseMs = config.media.variants.leaseMs;
  const tmpDir = path.join(config.dataDir, 'tmp');
  const videoLimits: VideoLimits = {
    timeoutMs: config.media.variants.videoTimeoutMs,
    memoryBytes: config.media.variants.videoMemoryBytes,
    threads: config.media.variants.threads,
  };
  const delay = (attempts: number): number => RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? 0;

  /**
   * Ends the photo's variants as failed: the job goes, and so do the bytes this try wrote. A remake
   * of ready variants that fails leaves them ready and served: the failed try replaces nothing.
   */
  async function fail(job: ClaimedJob, photo: Photo, keys: string[], reason: string): Promise<void> {
    const mediaId = photo.id;
    const failed = await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(trx, photo.account_id, { now: clock.iso() }, async (w) => {
          const changed = await variantsRepo.failVariants(trx, mediaId);
          // By id: the unit of work loads it as its GET returns it, once the write's changes are made.
          if (changed) w.announce('media.updated', mediaId);
          return changed;
        }),
    );
    await cleanup.dueNow(keys);
    await cleanup.purge(keys, log);
    const details = { media_id: mediaId, attempts: job.attempts + 1, reason };
    if (failed === false) log.warn(details, `remaking ${photo.kind} variants failed; the previous ones are kept`);
    else log.warn(details, `${photo.kind} variants failed`);
  }

  /**
   * Renews the job's lease, and the ledger's lease on the keys being written, every quarter of a
   * lease while the photo is made: a large photo on a slow node may take longer than one lease,
   * and another node must not take the job over (and make it twice) nor a purge remove the bytes
   * meanwhile. Stops renewing once the lease is lost. stop() waits for a renewal in flight, so
   * nothing renews the ledger's lease after the job has recorded its outcome.
   */
  function heartbeat(job: ClaimedJob, keys: string[]): { stop(): Promise<void> } {
    let inFlight: Promise<void> | undefined;
    const timer = setInterval(
      () => {
        if (inFlight !== undefined) return;
        inFlight = (async () => {
          try {
            if (await renewLease(db.kysely, job, clock.iso(leaseMs), clock.iso())) {
              await cleanup.extendLease(keys, leaseMs);
            } else {
              clearInterval(timer);
            }
          } catch (err) {
            // The database is unreachable: the next beat tries again, and the outcome is fenced.
            log.warn({ err, job_id: job.id }, 'could not renew a variants job lease');
          }
        })().finally(() => (inFlight = undefined));
      },
      Math.max(1, Math.floor(leaseMs / 4)),
    );
    return {
      async stop() {
        clearInterval(timer);
        await inFlight;
      },
    };
  }

  async function run(job: ClaimedJob): Promise<void> {
    const photo = await variantsRepo.findPhotoForVariants(db.kysely, job.subject_id);
    if (photo === undefined) {
      // Deleted since it was uploaded: nothing to make.
      await finishJob(db.kysely, job);
      return;
    }
    const generation = randomBytes(6).toString('base64url');
    const keyOf = (name: string): string => `${photo.storage_key}-${name}-${generation}`;
    const names: readonly string[] = photo.kind === 'video' ? VIDEO_VARIANT_NAMES : specs.map((s) => s.name);
    const keys = names.map(keyOf);
    // The ledger first: no byte is written before a row accounts for it.
    await cleanup.lease(keys, leaseMs);
    const beat = heartbeat(job, keys);
    // docs/api.md §31: a staged photo's large and mls carry the label, as its gallery's profile says.
    const { specs: photoSpecs, label } = await plan(photo);
    let made: {
      name: repo.VariantRow['name'];
      contentType: string;
      width: number;
      height: number;
      size: number;
      labelled?: boolean;
    }[];
    try {
      made = await withLocalFile(storage, photo.storage_key, tmpDir, async (file) => {
        const put = (name: string, body: Readable, contentType: string) =>
          storage.put(keyOf(name), body, { contentType });
        if (photo.kind === 'video') {
          await mkdir(tmpDir, { recursive: true });
          return makeVideoVariants(file, photo.content_type, tmpDir, put, videoLimits);
        }
        return makeVariants(file, photoSpecs, put, { maxPixels: config.media.maxImagePixels, label });
      });
    } catch (err) {
      await beat.stop();
      if (err instanceof VariantError) {
        await fail(job, photo, keys, err.message);
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (job.attempts + 1 >= MAX_VARIANT_TRIES) {
        await fail(job, photo, keys, `gave up after ${MAX_VARIANT_TRIES} tries: ${reason}`);
        return;
      }
      await retryJob(db.kysely, job, clock.iso(delay(job.attempts + 1)), reason.slice(0, 500), clock.iso());
      await cleanup.dueNow(keys);
      log.info({ media_id: photo.id, attempts: job.attempts + 1, reason }, `${photo.kind} variants will be retried`);
      return;
    }
    await beat.stop();
    const now = clock.iso();
    const outcome = await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx): Promise<{ gone: true } | { gone: false; replaced: string[] }> =>
        // The gallery's lock, then the photo's: the order of a media or gallery deletion, which
        // reads the keys it schedules under the gallery's lock. Taken before this transaction
        // writes anything it reads, a deletion either committed first (the photo is gone) or
        // waits, and then reads these variants' rows. Without the gallery's lock a gallery
        // deletion could read its keys, then cascade away rows recorded here meanwhile.
        writes.within(
          trx,
          photo.account_id,
          { lock: { listing: photo.listing_id, photo: photo.id }, now },
          async (w) => {
            if (w.photo === undefined) return { gone: true };
            const old = await repo.deleteVariants(trx, photo.id);
            await repo.insertVariants(
              trx,
              made.map((v) => ({
                media_id: photo.id,
                name: v.name,
                account_id: photo.account_id,
                listing_id: photo.listing_id,
                storage_key: keyOf(v.name),
                content_type: v.contentType,
                width: v.width,
                height: v.height,
                size: v.size,
                created_at: now,
                mark: v.labelled === true ? STAGED_MARK : null,
              })),
            );
            await repo.setVariantsStatus(trx, photo.id, 'ready');
            // Staged or unstaged since this job read the photo: these are recorded (better than
            // none), and the photo is queued again to be drawn as it is now.
            if ((await plan(w.photo, trx)).label !== label) {
              w.enqueue({ kind: 'media.variants', accountId: photo.account_id, subjectId: photo.id, runAt: now });
            }
            await cleanup.release(trx, keys);
            await cleanup.scheduleNow(trx, old);
            // "Variants ready" happens here, and is announced in this transaction (docs/api.md §15).
            w.announce('media.variants_ready', photo.id);
            return { gone: false, replaced: old };
          },
        ),
    );
    if (outcome === undefined || outcome.gone) {
      // The lease was lost (another node took the job over), or the photo was deleted while its
      // variants were made: these bytes are nobody's, so they go now, not when their lease ends.
      await cleanup.dueNow(keys);
      await cleanup.purge(keys, log);
      return;
    }
    await cleanup.purge(outcome.replaced, log);
  }

  return {
    kind: 'media.variants',
    concurrency: config.media.variants.concurrency,
    batch: 1,
    leaseMs,
    startMarginMs: 0,
    run,
    faultDelayMs: (attempts) => delay(Math.min(attempts, RETRY_DELAYS_MS.length)),
  };
}
