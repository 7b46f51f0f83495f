// The transaction step that turns stored files into media rows at the end of the gallery's
// positions, shared by the multipart upload (media.service.ts) and the resumable upload
// (uploads.service.ts): positions reserved through the gallery row (so a deletion of the
// gallery cannot interleave), photos' variants queued, `media.created` recorded, counts applied.
import type { Write } from '../../mechanisms/writes/writes.ts';
import { notFound } from '../../errors.ts';
import type { Dimensions, Sniffed } from './media.ingest.ts';
import type { MediaType } from './media.schemas.ts';
import type { mediaSerializer } from './media.serializer.ts';
import * as repo from './media.repository.ts';

export interface StoredFile {
  id: string;
  key: string;
  filename: string;
  sniffed: Sniffed;
  size: number;
  sha256: string;
  crc32: number;
  dimensions: Dimensions | null;
}

/**
 * In the caller's unit of work: reserves the next positions (404 if the gallery is gone), lets
 * `claim` take the bytes' leases (it throws to refuse), then inserts the rows and what follows.
 */
export async function commitMedia(
  w: Write,
  serialize: ReturnType<typeof mediaSerializer>,
  listingId: string,
  stored: readonly StoredFile[],
  claim: () => Promise<void>,
  analyse: boolean,
): Promise<MediaType[]> {
  const { trx, accountId, now } = w;
  const last = await repo.reservePositions(trx, accountId, listingId, stored.length, now);
  if (last === undefined) throw notFound('Gallery');
  await claim();
  const first = last - stored.length + 1;
  const inserted = stored.map((file, i) => ({
    id: file.id,
    account_id: accountId,
    listing_id: listingId,
    kind: file.sniffed.kind,
    filename: file.filename,
    content_type: file.sniffed.contentType,
    size: file.size,
    sha256: file.sha256,
    crc32: file.crc32,
    width: file.dimensions?.width ?? null,
    height: file.dimensions?.height ?? null,
    position: first + i,
    storage_key: file.key,
    caption: null,
    hidden: 0,
    virtually_staged: 0,
    original_media_id: null,
    variants_status: file.sniffed.kind === 'document' ? null : ('pending' as const),
    // docs/api.md §30: photos only, unless ANALYSIS=off.
    analysis_status: analyse && file.sniffed.kind === 'photo' ? ('pending' as const) : null,
    analysis_phash: null,
    analysis_sharpness: null,
    analysis_blurry: null,
    analysis_exposure_mean: null,
    analysis_clipped_highlights: null,
    analysis_clipped_shadows: null,
    analysis_tilt_degrees: null,
    analysis_similar_group: null,
    analysis_best_in_group: null,
    analysis_faces: null,
    analysis_people: null,
    analysis_objects: null,
    analysis_text: null,
    analysis_qr_codes: null,
    analysis_room: null,
    analysis_room_confidence: null,
    alt_text: null,
    // Replaced by the database (migration 2026-12-09-0500): the RESO feed's MediaModificationTimestamp.
    modified_at: now,
    created_at: now,
  }));
  await repo.insertMedia(trx, inserted);
  // Each photo's and video's variants are made in the background (variants.job.ts, docs/api.md §25).
  for (const m of inserted) {
    if (m.kind !== 'document') w.enqueue({ kind: 'media.variants', accountId, subjectId: m.id, runAt: now });
    // Its analysis waits for its variants (it reads the `large` one), then runs as they do (analysis.job.ts).
    if (m.analysis_status === 'pending') w.enqueue({ kind: 'media.analyze', accountId, subjectId: m.id, runAt: now });
  }
  const created = inserted.map((row) => serialize(row, []));
  // A new media has no variants yet: its object is its row's, handed over, not read again.
  for (const object of created) {
    w.loaded('media', object.id, object);
    w.announce('media.created', object.id);
  }
  w.count({ media: inserted.length });
  return created;
}
