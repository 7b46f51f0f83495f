// The SQL of photo analysis (docs/api.md §30): the photo its job reads, the analysis recorded on
// the photo's row, a gallery's hashes for its similar groups, and the photos `lightbox media
// analyze` queues. The operator's reads span accounts on purpose, as variants.repository.ts's do.
import type { Executor } from '../../db/executor.ts';
import type { MediaRow } from '../media/media.repository.ts';
import type { PixelAnalysis } from './analysis.pixels.ts';
import type { ModelFindings } from './analysis.rooms.ts';

/** A photo to analyse (the job carries its id); undefined when gone or not to be analysed. */
export function findPhotoForAnalysis(db: Executor, mediaId: string): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('id', '=', mediaId)
    .where('kind', '=', 'photo')
    .where('analysis_status', 'is not', null)
    .executeTakeFirst();
}

/** The storage key of a photo's `large` variant (at most 2048 pixels a side, upright, sRGB). */
export async function largeVariantKey(db: Executor, mediaId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('media_variants')
    .select('storage_key')
    .where('media_id', '=', mediaId)
    .where('name', '=', 'large')
    .executeTakeFirst();
  return row?.storage_key;
}

/** Whether any photo's variants are due and waiting for a worker: analysis gives way to them. */
export async function variantsWaiting(db: Executor, now: string, photoId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'media.variants')
    .where((eb) =>
      eb.or([
        // This photo's variants being made again (an MLS profile's fit, a staging label): the
        // `large` it would read is about to be replaced and its file removed.
        eb('subject_id', '=', photoId),
        eb.and([eb('lease', 'is', null), eb('run_at', '<=', now)]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records both stages; what the models did not read (m null, or its text null) is recorded null. */
export async function recordAnalysis(
  db: Executor,
  mediaId: string,
  a: PixelAnalysis,
  m: ModelFindings | null,
): Promise<void> {
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  await db
    .updateTable('media')
    .set({
      analysis_status: 'ready',
      analysis_phash: a.phash,
      analysis_sharpness: a.sharpness,
      analysis_blurry: a.blurry ? 1 : 0,
      analysis_exposure_mean: a.exposure.mean,
      analysis_clipped_highlights: a.exposure.clippedHighlights,
      analysis_clipped_shadows: a.exposure.clippedShadows,
      analysis_tilt_degrees: a.tiltDegrees,
      analysis_faces: m?.faces ?? null,
      analysis_people: m?.people ?? null,
      analysis_objects: json(m?.objects),
      analysis_text: json(m?.text),
      analysis_qr_codes: json(m?.qrCodes),
      analysis_room: m?.room.label ?? null,
      analysis_room_confidence: m?.room.confidence ?? null,
      alt_text: m?.altText ?? null,
    })
    .where('id', '=', mediaId)
    .execute();
}

/** The analysis ends failed (a ready one from before stays: an analysis again that failed changes nothing). */
export async function failAnalysis(db: Executor, mediaId: string): Promise<boolean> {
  const result = await db
    .updateTable('media')
    .set({ analysis_status: 'failed' })
    .where('id', '=', mediaId)
    .where('analysis_status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type GalleryHash = Pick<
  MediaRow,
  | 'id'
  | 'analysis_phash'
  | 'analysis_sharpness'
  | 'width'
  | 'height'
  | 'analysis_similar_group'
  | 'analysis_best_in_group'
>;

/** The gallery's analysed photos, with what their similar groups are made from. */
export function galleryHashes(db: Executor, accountId: string, listingId: string): Promise<GalleryHash[]> {
  return db
    .selectFrom('media')
    .select([
      'id',
      'analysis_phash',
      'analysis_sharpness',
      'width',
      'height',
      'analysis_similar_group',
      'analysis_best_in_group',
    ])
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'photo')
    .where('analysis_status', '=', 'ready')
    .execute();
}

export async function setGrouping(
  db: Executor,
  accountId: string,
  mediaId: string,
  group: string | null,
  best: boolean,
): Promise<void> {
  await db
    .updateTable('media')
    .set({ analysis_similar_group: group, analysis_best_in_group: best ? 1 : 0 })
    .where('account_id', '=', accountId)
    .where('id', '=', mediaId)
    .execute();
}

/** Photos whose analysis is missing or failed, by id, a page at a time (`lightbox media analyze`). */
export function photosToAnalyse(
  db: Executor,
  listingId: string | undefined,
  after: string,
  limit: number,
): Promise<Pick<MediaRow, 'id' | 'account_id'>[]> {
  let q = db
    .selectFrom('media')
    .select(['id', 'account_id'])
    .where('kind', '=', 'photo')
    .where((eb) => eb.or([eb('analysis_status', 'is', null), eb('analysis_status', '=', 'failed')]))
    .where('id', '>', after);
  if (listingId !== undefined) q = q.where('listing_id', '=', listingId);
  return q.orderBy('id').limit(limit).execute();
}

export async function setPending(db: Executor, accountId: string, mediaId: string): Promise<void> {
  await db
    .updateTable('media')
    .set({ analysis_status: 'pending' })
    .where('account_id', '=', accountId)
    .where('id', '=', mediaId)
    .execute();
}
