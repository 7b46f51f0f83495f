// Keeping photos' variants whole, for the operator: `lightbox media variants` queues photos to have
// them made again, and `lightbox doctor` finds what nothing will repair by itself (ready variants
// whose bytes are gone, photos whose job is lost or whose variants are incomplete) and, with
// --fix, queues those photos. Queuing goes through one function, under the photo's lock, so two
// operators (or a remake beside a doctor) never queue a photo twice.
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import type { MediaKeyRow } from '../media/media.repository.ts';
import * as repo from '../media/media.repository.ts';
import * as variantsRepo from './variants.repository.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import { REQUIRED_VARIANT_NAMES } from './variants.images.ts';

/** Photos per page when walking every photo. */
const PAGE = 500;

/** What `lightbox doctor` reports of photo variants; each is repaired by queuing the photo. */
export interface VariantsReport {
  /** Ready variants whose bytes are not in storage, of photos with no job queued to remake them. */
  missingBytes: MediaKeyRow[];
  /** Photos pending with no job, or ready without all their variants. */
  stalled: variantsRepo.StalledPhoto[];
}

export type VariantsUpkeep = ReturnType<typeof createVariantsUpkeep>;

/** A photo to queue: its id and its account (the write is the account's). */
type PhotoRef = Pick<MediaKeyRow, 'id' | 'account_id'>;

export function createVariantsUpkeep({ db, writes }: Pick<Deps, 'db'> & { writes: Writes }) {
  /**
   * Queues one photo's variants, unless a job is queued or running for it; a photo without ready
   * variants becomes pending. The photo's lock comes first (`lock: { photo }`): two runs at once
   * would otherwise both find no job and both queue (PostgreSQL). False when it was not queued
   * (or is gone).
   */
  function queue(ref: PhotoRef): Promise<boolean> {
    return writes.run(ref.account_id, { lock: { photo: ref.id } }, async (w) => {
      const photo = w.photo;
      if (photo === undefined) return false;
      if ((await pendingJob(w.trx, 'media.variants', photo.id)) !== undefined) return false;
      if (photo.variants_status !== 'ready') await repo.setVariantsStatus(w.trx, photo.id, 'pending');
      w.enqueue({ kind: 'media.variants', accountId: w.accountId, subjectId: photo.id, runAt: w.now });
      return true;
    });
  }

  async function queueEach(photos: Iterable<PhotoRef>): Promise<number> {
    let queued = 0;
    for (const photo of photos) {
      if (await queue(photo)) queued += 1;
    }
    return queued;
  }

  return {
    /**
     * Queues photos' variants to be made again (`lightbox media variants`): `missing`, those not
     * ready (pending with no job, or failed); `failed`, only the failed; `all`, every photo (ready
     * ones keep theirs until the new ones replace them, and keep them if the remake fails). A
     * photo whose job is already queued is left alone. Returns how many were queued.
     */
    async remake(which: 'missing' | 'failed' | 'all'): Promise<number> {
      let queued = 0;
      let after = '';
      for (;;) {
        const page = await variantsRepo.photosForRemake(db.kysely, which, after, PAGE);
        const last = page.at(-1);
        if (last === undefined) return queued;
        after = last.id;
        queued += await queueEach(page);
      }
    },

    /**
     * The variants' part of the doctor's check. `missingVariants` are the variant keys the storage
     * audit found without bytes (media.cleanup.ts lists storage once for both).
     */
    async check(missingVariants: readonly MediaKeyRow[]): Promise<VariantsReport> {
      // A photo already queued is being remade: its missing bytes will be replaced.
      const queued = await variantsRepo.photosWithJobs(db.kysely, [...new Set(missingVariants.map((m) => m.id))]);
      const missingBytes = missingVariants.filter((m) => !queued.has(m.id));
      const stalled: variantsRepo.StalledPhoto[] = [];
      let after = '';
      for (;;) {
        const page = await variantsRepo.stalledPhotosPage(db.kysely, REQUIRED_VARIANT_NAMES, after, PAGE);
        const last = page.at(-1);
        if (last === undefined) break;
        stalled.push(...page);
        after = last.id;
      }
      return { missingBytes, stalled };
    },

    /** `lightbox doctor --fix`: queues every photo the report names. Returns how many were queued. */
    async repair(report: VariantsReport): Promise<number> {
      const photos = new Map([...report.missingBytes, ...report.stalled].map((p) => [p.id, p]));
      return queueEach(photos.values());
    },
  };
}
