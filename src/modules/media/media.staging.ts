// Virtual staging (docs/api.md §31): the rules of a media's `virtually_staged` and
// `original_media_id` for its PATCH and its deletion, inside the media service's write (the
// gallery's lock held). The label itself is drawn by the variants job (variants.staging.ts).
import { AppError } from '../../errors.ts';
import { hasIdShape } from '../../lib/ids.ts';
import type { Executor } from '../../db/executor.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import { pendingJob } from '../../mechanisms/queue/queue.ts';
import type { MediaUpdateInput } from './media.schemas.ts';
import * as repo from './media.repository.ts';

const refuse = (field: string, message: string): never => {
  throw new AppError('validation_error', `${field} ${message}`, [{ field, message }]);
};

/**
 * Only a photo is staged, and its original is another photo of the gallery that was not itself
 * staged from this one (following originals from it never comes back here): else 400 naming the field.
 */
export async function checkStaging(
  trx: Executor,
  accountId: string,
  listingId: string,
  row: repo.MediaRow,
  patch: MediaUpdateInput,
): Promise<void> {
  if (row.kind !== 'photo') {
    if (patch.virtually_staged === true) refuse('virtually_staged', 'applies to photos only');
    if (typeof patch.original_media_id === 'string') refuse('original_media_id', 'applies to photos only');
  }
  const originalId = patch.original_media_id;
  if (typeof originalId !== 'string') return;
  if (originalId === row.id) refuse('original_media_id', 'must be another photo, not this one');
  const original = hasIdShape('med', originalId)
    ? await repo.findMedia(trx, accountId, listingId, originalId)
    : undefined;
  if (original?.kind !== 'photo') refuse('original_media_id', 'must be a photo of this gallery');
  // Each photo names at most one original, so the walk ends within the gallery's media.
  const seen = new Set<string>([originalId]);
  let next = original?.original_media_id ?? null;
  while (next !== null && !seen.has(next)) {
    if (next === row.id) refuse('original_media_id', `${originalId} is staged from this photo (a cycle)`);
    seen.add(next);
    next = (await repo.findMedia(trx, accountId, listingId, next))?.original_media_id ?? null;
  }
}

/** The columns a PATCH sets. */
export const stagingFields = (
  patch: MediaUpdateInput,
): { virtually_staged?: number; original_media_id?: string | null } => ({
  ...(patch.virtually_staged === undefined ? {} : { virtually_staged: patch.virtually_staged ? 1 : 0 }),
  ...(patch.original_media_id === undefined ? {} : { original_media_id: patch.original_media_id }),
});

/**
 * Staged or unstaged, a photo's large and mls are stale: the one variants job draws them again
 * (with the label or without). A job queued or running already will do: one that read the photo
 * before this change queues it again when it records (variants.job.ts). Until then the variants
 * made before are served.
 */
export async function queueRelabel(w: Write, row: repo.MediaRow, patch: MediaUpdateInput): Promise<void> {
  if (
    patch.virtually_staged !== undefined &&
    (patch.virtually_staged ? 1 : 0) !== row.virtually_staged &&
    row.variants_status !== null &&
    row.variants_status !== 'failed' &&
    (await pendingJob(w.trx, 'media.variants', row.id)) === undefined
  ) {
    w.enqueue({ kind: 'media.variants', accountId: w.accountId, subjectId: row.id, runAt: w.now });
  }
}

/**
 * After a deletion (under the gallery's lock): the staged photos that named a deleted photo as
 * their original name none now. Returns their ids (each is announced as changed).
 */
export async function clearOriginals(
  db: Executor,
  accountId: string,
  listingId: string,
  removedIds: readonly string[],
): Promise<string[]> {
  if (removedIds.length === 0) return [];
  const rows = await db
    .updateTable('media')
    .set({ original_media_id: null })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('original_media_id', 'in', removedIds)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
