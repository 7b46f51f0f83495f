// The SQL of photo variants beyond their rows (media.repository.ts): the photo read and locked by
// its job, and the photos `lightbox media variants` and `lightbox doctor` queue again. These read
// across accounts on purpose: they are the operator's, and act on every account's photos.
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { MediaVariantsTable } from '../../db/schema.ts';
import { forUpdate } from '../../db/locking.ts';
import type { MediaRow } from '../media/media.repository.ts';

/** The kinds that have variants: photos (docs/api.md §13) and videos (§25). */
const WITH_VARIANTS = ['photo', 'video'] as const;

/** A photo or video for its variants job (the job carries the ids). */
export async function findPhotoForVariants(db: Executor, mediaId: string): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('id', '=', mediaId)
    .where('kind', 'in', WITH_VARIANTS)
    .executeTakeFirst();
}

/**
 * A photo read to record or queue its variants, its row locked until the transaction ends (the
 * unit of work's `lock: { photo }`, registered in src/services.ts): a
 * deletion of the photo, which locks it too before reading its variants, cannot slip in between
 * and cascade away rows whose bytes it never scheduled, and two remakes cannot both queue it.
 *
 * On SQLite the read is a write (an UPDATE that changes nothing), so a transaction that starts
 * with it takes the database's write lock at once, waiting out the busy timeout. Read first, a
 * transaction whose later write comes after another process's commit (the service recording a
 * photo while `lightbox media variants` runs) fails at once with "database is locked".
 */
export async function lockPhotoForVariants(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  mediaId: string,
): Promise<MediaRow | undefined> {
  if (dialect === 'sqlite') {
    return db
      .updateTable('media')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('account_id', '=', accountId)
      .where('id', '=', mediaId)
      .where('kind', 'in', WITH_VARIANTS)
      .returningAll()
      .executeTakeFirst();
  }
  return forUpdate(
    dialect,
    db
      .selectFrom('media')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', mediaId)
      .where('kind', 'in', WITH_VARIANTS),
  ).executeTakeFirst();
}

/** A photo's or video's variants end failed, unless it has ready ones (a remake failed: they stay). */
export async function failVariants(db: Executor, mediaId: string): Promise<boolean> {
  const result = await db
    .updateTable('media')
    .set({ variants_status: 'failed' })
    .where('id', '=', mediaId)
    .where('kind', 'in', WITH_VARIANTS)
    .where('variants_status', '<>', 'ready')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Photos and videos whose variants match `which`, oldest first, a page at a time (`lightbox media variants`). */
export async function photosForRemake(
  db: Executor,
  which: 'missing' | 'failed' | 'all',
  after: string,
  limit: number,
): Promise<Pick<MediaRow, 'id' | 'account_id' | 'variants_status'>[]> {
  let q = db
    .selectFrom('media')
    .select(['id', 'account_id', 'variants_status'])
    .where('kind', 'in', WITH_VARIANTS)
    .where('id', '>', after);
  if (which === 'failed') q = q.where('variants_status', '=', 'failed');
  if (which === 'missing') q = q.where('variants_status', '<>', 'ready');
  return q.orderBy('id').limit(limit).execute();
}

export type StalledPhoto = Pick<MediaRow, 'id' | 'account_id' | 'listing_id' | 'kind' | 'variants_status'> & {
  /** How many of the `expected` variant rows it has (a photo's). */
  variants: number;
};

/** A ready video's renditions that the unbranded page may play, one of which it has (docs/api.md §25). */
const UNTAGGED_RENDITIONS = ['web', 'stripped'] as const;

/**
 * Photos and videos whose variants nothing will make, a page at a time by id (`lightbox doctor`):
 * with no job queued or running, pending (the job is lost), a photo ready without a row for each
 * `expected` name (others, such as the pages' optional `medium`, are not counted), or a video ready
 * without its poster or without a rendition with none of the original's tags (`web`, else
 * `stripped`: a video made before the stripped copy existed).
 * A job ends with the status and the rows in one transaction, so a photo in progress is never one.
 */
export async function stalledPhotosPage(
  db: Executor,
  expected: readonly MediaVariantsTable['name'][],
  after: string,
  limit: number,
): Promise<StalledPhoto[]> {
  const rows = await db
    .selectFrom('media')
    .select((eb) => [
      'media.id',
      'media.account_id',
      'media.listing_id',
      'media.kind',
      'media.variants_status',
      eb
        .selectFrom('media_variants')
        .select((v) => v.fn.countAll<number | string>().as('n'))
        .whereRef('media_variants.media_id', '=', 'media.id')
        .where('media_variants.name', 'in', expected)
        .as('variants'),
    ])
    .where('media.kind', 'in', WITH_VARIANTS)
    .where('media.id', '>', after)
    // A photo with a job queued or running is on its way.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('jobs')
            .select('jobs.id')
            .where('jobs.kind', '=', 'media.variants')
            .whereRef('jobs.subject_id', '=', 'media.id'),
        ),
      ),
    )
    .where((eb) =>
      eb.or([
        eb('media.variants_status', '=', 'pending'),
        // A ready video has a poster, and a web rendition, or the stripped copy when the original needs none.
        eb.and([
          eb('media.kind', '=', 'video'),
          eb('media.variants_status', '=', 'ready'),
          eb.or([
            eb.not(
              eb.exists(
                eb
                  .selectFrom('media_variants')
                  .select('media_variants.media_id')
                  .whereRef('media_variants.media_id', '=', 'media.id')
                  .where('media_variants.name', '=', 'poster'),
              ),
            ),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('media_variants')
                  .select('media_variants.media_id')
                  .whereRef('media_variants.media_id', '=', 'media.id')
                  .where('media_variants.name', 'in', UNTAGGED_RENDITIONS),
              ),
            ),
          ]),
        ]),
        eb.and([
          eb('media.kind', '=', 'photo'),
          eb('media.variants_status', '=', 'ready'),
          eb(
            eb
              .selectFrom('media_variants')
              .select((v) => v.fn.countAll<number>().as('n'))
              .whereRef('media_variants.media_id', '=', 'media.id')
              .where('media_variants.name', 'in', expected),
            '<',
            expected.length,
          ),
        ]),
      ]),
    )
    .orderBy('media.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, variants: Number(r.variants ?? 0) }));
}

/** Of these photos, those with a variants job queued or running. */
export async function photosWithJobs(db: Executor, photoIds: readonly string[]): Promise<Set<string>> {
  if (photoIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('subject_id')
    .where('kind', '=', 'media.variants')
    .where('subject_id', 'in', [...photoIds])
    .execute();
  return new Set(rows.map((r) => r.subject_id));
}

/** docs/api.md §29: the previews' names (variants.watermark.ts). */
const PREVIEWS = ['thumb_wm', 'large_wm'] as const;

/** Removes a photo's previews (to record new ones); returns their keys, for the cleanup. */
export async function deletePreviews(db: Executor, accountId: string, mediaId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('media_variants')
    .where('account_id', '=', accountId)
    .where('media_id', '=', mediaId)
    .where('name', 'in', PREVIEWS)
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

/** Of these photos (of one account), those with a preview job queued or running. */
export async function photosWithPreviewJobs(
  db: Executor,
  accountId: string,
  photoIds: readonly string[],
): Promise<Set<string>> {
  if (photoIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('subject_id')
    .where('kind', '=', 'media.watermark')
    .where('account_id', '=', accountId)
    .where('subject_id', 'in', [...photoIds])
    .execute();
  return new Set(rows.map((r) => r.subject_id));
}

/** A gallery's photos whose variants are ready (their previews can be made from `large`). */
export async function readyPhotosOfGallery(db: Executor, accountId: string, listingId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('media')
    .select('id')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'photo')
    .where('variants_status', '=', 'ready')
    .execute();
  return rows.map((r) => r.id);
}
