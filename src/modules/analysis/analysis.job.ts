// The `media.analyze` job on the durable queue (docs/api.md §30): one per photo, queued in the
// upload's own write beside its variants job. It gives way as variant work does, and to variant
// work itself: it waits (unattempted) while the photo's variants are pending or any photo's
// variants are due, reads the photo's `large` variant (at most 2048 pixels a side, so the
// original is never decoded again), runs the pixel stage (analysis.pixels.ts), then the model
// stage (analysis.models.ts, with the room and alt text of analysis.rooms.ts) and records the
// result on the photo's row with the gallery's similar groups (analysis.groups.ts), under the
// gallery's lock then the photo's, in one fenced transaction with the job's end. `media.analyzed`
// is announced there; photos whose group changed with it get `media.updated`. A crash or another
// node leaves the job due again once its lease ends; a photo that cannot be analysed ends failed.
import path from 'node:path';
import type { Deps } from '../../deps.ts';
import type { Log } from '../../lib/log.ts';
import { withLocalFile } from '../../storage/local-file.ts';
import { finishJob, postponeJob, retryJob, withJobOutcome, type ClaimedJob } from '../../mechanisms/queue/queue.ts';
import type { JobHandler } from '../../mechanisms/queue/queue.runner.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaRow } from '../media/media.repository.ts';
import * as repo from './analysis.repository.ts';
import { analysePixels, AnalysisError, type PixelAnalysis } from './analysis.pixels.ts';
import { groupSimilar } from './analysis.groups.ts';
import type { ModelReader } from './analysis.models.ts';
import { altText, inferRoom, type ModelFindings } from './analysis.rooms.ts';

/** A photo whose analysis keeps failing for other reasons than its pixels ends failed after this many tries. */
const MAX_ANALYSIS_TRIES = 3;
const RETRY_DELAYS_MS = [30_000, 2 * 60_000];
/** How long an analysis waits, unattempted, for variant work before looking again. */
const GIVE_WAY_MS = 2_000;
const LEASE_MS = 60_000;

/**
 * `models` reads the model stage (jobs.ts passes the process's one reader); without it the model
 * fields are recorded null, "not read".
 */
export function analysisHandler(
  { db, clock, config, storage, writes }: Pick<Deps, 'db' | 'clock' | 'config' | 'storage'> & { writes: Writes },
  log: Log,
  models?: ModelReader,
): JobHandler {
  const tmpDir = path.join(config.dataDir, 'tmp');
  const delay = (attempts: number): number => RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? 0;

  async function fail(job: ClaimedJob, photo: MediaRow, reason: string): Promise<void> {
    await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(trx, photo.account_id, { now: clock.iso() }, async (w) => {
          if (await repo.failAnalysis(trx, photo.id)) w.announce('media.updated', photo.id);
        }),
    );
    log.warn({ media_id: photo.id, attempts: job.attempts + 1, reason }, 'photo analysis failed');
  }

  async function record(
    job: ClaimedJob,
    photo: MediaRow,
    result: PixelAnalysis,
    found: ModelFindings | null,
  ): Promise<void> {
    const now = clock.iso();
    await withJobOutcome(
      db,
      (trx) => finishJob(trx, job),
      (trx) =>
        writes.within(
          trx,
          photo.account_id,
          // The gallery's lock first: two photos of one gallery regroup it one after the other.
          { lock: { listing: photo.listing_id, photo: photo.id }, now },
          async (w) => {
            if (w.photo === undefined) return;
            await repo.recordAnalysis(trx, photo.id, result, found);
            const photos = await repo.galleryHashes(trx, photo.account_id, photo.listing_id);
            const groups = groupSimilar(
              photos.flatMap((p) =>
                p.analysis_phash === null
                  ? []
                  : [
                      {
                        id: p.id,
                        phash: p.analysis_phash,
                        sharpness: p.analysis_sharpness ?? 0,
                        pixels: (p.width ?? 0) * (p.height ?? 0),
                      },
                    ],
              ),
            );
            for (const p of photos) {
              const g = groups.get(p.id);
              if (g === undefined) continue;
              const best = g.bestInGroup ? 1 : 0;
              if (p.id !== photo.id && p.analysis_similar_group === g.similarGroup && p.analysis_best_in_group === best)
                continue;
              await repo.setGrouping(trx, photo.account_id, p.id, g.similarGroup, g.bestInGroup);
              if (p.id !== photo.id) w.announce('media.updated', p.id);
            }
            // "Analysed" happens here, announced in this transaction (docs/api.md §15, §30).
            w.announce('media.analyzed', photo.id);
          },
        ),
    );
  }

  async function run(job: ClaimedJob): Promise<void> {
    const photo = await repo.findPhotoForAnalysis(db.kysely, job.subject_id);
    if (photo === undefined) {
      // Deleted since it was queued, or not a photo: nothing to analyse.
      await finishJob(db.kysely, job);
      return;
    }
    // Variants first: this photo's (their `large` is what is read), and every photo's waiting.
    if (photo.variants_status === 'pending' || (await repo.variantsWaiting(db.kysely, clock.iso(), photo.id))) {
      await postponeJob(db.kysely, job, clock.iso(GIVE_WAY_MS));
      return;
    }
    const key = photo.variants_status === 'ready' ? await repo.largeVariantKey(db.kysely, photo.id) : undefined;
    if (key === undefined) {
      await fail(job, photo, 'the photo has no large variant (its variants failed): it cannot be decoded');
      return;
    }
    let result: PixelAnalysis;
    let found: ModelFindings | null = null;
    try {
      result = await withLocalFile(storage, key, tmpDir, async (file) => {
        // In the models' thread when there is one (analysis.models.thread.ts), else here.
        const pixels = await (models?.pixels?.(file) ?? analysePixels(file, config.media.maxImagePixels));
        found = await readModels(file, job);
        return pixels;
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof AnalysisError || job.attempts + 1 >= MAX_ANALYSIS_TRIES) {
        await fail(job, photo, reason);
        return;
      }
      await retryJob(db.kysely, job, clock.iso(delay(job.attempts + 1)), reason.slice(0, 500), clock.iso());
      log.info({ media_id: photo.id, attempts: job.attempts + 1, reason }, 'photo analysis will be retried');
      return;
    }
    await record(job, photo, result, found);
  }

  /** The model stage; on the last try, a model that keeps failing leaves its fields unread (null). */
  async function readModels(file: string, job: ClaimedJob): Promise<ModelFindings | null> {
    if (models === undefined) return null;
    try {
      const m = await models.read(file);
      const room = inferRoom(m.objects, m.scene);
      return {
        faces: m.faces,
        people: m.people,
        objects: m.objects,
        text: m.text,
        qrCodes: m.qrCodes,
        room,
        altText: altText(room, m.objects),
      };
    } catch (err) {
      if (err instanceof AnalysisError || job.attempts + 1 < MAX_ANALYSIS_TRIES) throw err;
      log.error({ media_id: job.subject_id, err }, 'the analysis models failed: the photo is recorded without them');
      return null;
    }
  }

  return {
    kind: 'media.analyze',
    concurrency: 1,
    batch: 1,
    leaseMs: LEASE_MS,
    startMarginMs: 0,
    run,
    faultDelayMs: (attempts) => delay(Math.min(attempts, RETRY_DELAYS_MS.length)),
  };
}
