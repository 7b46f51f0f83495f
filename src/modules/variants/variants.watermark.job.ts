// The `media.watermark` job on the durable queue (docs/api.md §29): makes one photo's previews
// (`thumb_wm`, `large_wm`: its large variant with the studio's name or logo across it, variants.watermark.ts)
// and records them as variants, with the same guarantees as the `media.variants` job: the keys are
// leased in the cleanup ledger before a byte is written, the rows are recorded with the job's
// outcome under the gallery's lock, then the photo's, and replaced previews are scheduled for
// deletion. A photo's deletion takes its previews with its other variants; a remake of its
// variants (variants.job.ts) replaces every row, previews included, so they are made again from
// the new `large` when next needed.
//
// When: queued for each photo of the gallery when an invoice with pay_to_unlock is issued, and for
// any photo a locked page finds without a current preview (one uploaded since, or a studio renamed
// or changed its logo since: `mark` differs). Until it has run, the page shows the photo as being
// prepared and its image URLs answer 503 with Retry-After; no request ever draws a watermark itself.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import { finishJob, retryJob, withJobOutcome, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaCleanup } from '../media/media.cleanup.ts';
import * as repo from '../media/media.repository.ts';
import * as variantsRepo from './variants.repository.ts';
import { VariantError } from './variants.images.ts';
import { makePreviews, markOf, WATERMARK_NAMES } from './variants.watermark.ts';

const MAX_TRIES = 3;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Queues the previews of these photos of the write's account, except those with a job queued or
 * running already.
 */
export async function queuePreviews(w: Write, photoIds: readonly string[]): Promise<void> {
  const queued = await variantsRepo.photosWithPreviewJobs(w.trx, w.accountId, photoIds);
  for (const id of photoIds) {
    if (!queued.has(id)) w.enqueue({ kind: 'media.watermark', accountId: w.accountId, subjectId: id, runAt: w.now });
  }
}

/** docs/api.md §29: an invoice with pay_to_unlock is issued: its gallery's previews are made now. */
export async function queueGalleryPreviews(w: Write, listingId: string): Promise<void> {
  await queuePreviews(w, await variantsRepo.readyPhotosOfGallery(w.trx, w.accountId, listingId));
}
const RETRY_DELAY_MS = 30_000;

export function watermarkHandler(
  { db, clock, config, storage, writes }: Pick<Deps, 'db' | 'clock' | 'config' | 'storage'> & { writes: Writes },
  cleanup: MediaCleanup,
  studioName: (accountId: string) => Promise<string | undefined>,
  logoKey: (accountId: string) => Promise<string | null>,
  log: Log,
): JobHandler {
  const leaseMs = config.media.variants.leaseMs;
  const tmpDir = path.join(config.dataDir, 'tmp');

  async function run(job: ClaimedJob): Promise<void> {
    const photo = await variantsRepo.findPhotoForVariants(db.kysely, job.subject_id);
    const variants = photo === undefined ? [] : await repo.variantsOfMedia(db.kysely, photo.id);
    const large = variants.find((v) => v.name === 'large');
    const name = photo === undefined ? undefined : await studioName(photo.account_id);
    if (photo === undefined || photo.kind !== 'photo' || large === undefined || name === undefined) {
      // Gone, not a photo, or its variants not made (their job queues nothing here: a locked page
      // asks again once they are).
      await finishJob(db.kysely, job);
      return;
    }
    const logo = await logoKey(photo.account_id);
    const mark = markOf(name, logo);
    if (WATERMARK_NAMES.every((n) => variants.some((v) => v.name === n && v.mark === mark))) {
      await finishJob(db.kysely, job);
      return;
    }
    const generation = randomBytes(6).toString('base64url');
    const keyOf = (n: string): string => `${photo.storage_key}-${n}-${generation}`;
    const keys = WATERMARK_NAMES.map(keyOf);
    await cleanup.lease(keys, leaseMs);
    let made;
    try {
      const logoBytes = logo === null ? undefined : await readAll(await storage.get(logo));
      made = await withLocalFile(storage, large.storage_key, tmpDir, (file) =>
        makePreviews(file, { studioName: name, logo: logoBytes }, (n, body: Readable, contentType) =>
          storage.put(keyOf(n), body, { contentType }),
        ),
      );
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await cleanup.dueNow(keys);
      if (err instanceof VariantError || job.attempts + 1 >= MAX_TRIES) {
        await finishJob(db.kysely, job);
        await cleanup.purge(keys, log);
        log.warn({ media_id: photo.id, reason }, 'photo previews failed');
        return;
      }
      await retryJob(db.kysely, job, clock.iso(RETRY_DELAY_MS), reason.slice(0, 500), clock.iso());
      return;
    }
    const now = clock.iso();
    const outcome = await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(
          trx,
          photo.account_id,
          { lock: { listing: photo.listing_id, photo: photo.id }, now },
          async (w): Promise<string[] | undefined> => {
            if (w.photo === undefined) return undefined;
            // Made from a large variant a remake has replaced since: not this photo's any more.
            const current = (await repo.variantsOfMedia(trx, photo.id)).find((v) => v.name === 'large');
            if (current?.storage_key !== large.storage_key) return undefined;
            const old = await variantsRepo.deletePreviews(trx, photo.account_id, photo.id);
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
                mark,
              })),
            );
            await cleanup.release(trx, keys);
            await cleanup.scheduleNow(trx, old);
            return old;
          },
        ),
    );
    if (outcome === undefined) {
      // The lease was lost, or the photo (or its large variant) went meanwhile: these bytes are nobody's.
      await cleanup.dueNow(keys);
      await cleanup.purge(keys, log);
      return;
    }
    await cleanup.purge(outcome, log);
  }

  return {
    kind: 'media.watermark',
    concurrency: config.media.variants.concurrency,
    batch: 1,
    leaseMs,
    startMarginMs: 0,
    run,
    faultDelayMs: () => RETRY_DELAY_MS,
  };
}
