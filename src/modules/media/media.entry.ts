// The media feature's entry points for other features' writes (the gallery's cover), in the
// caller's transaction.
import type { Executor } from '../../db/executor.ts';
import { hasIdShape } from '../../lib/ids.ts';
import * as repo from './media.repository.ts';

/**
 * Whether `mediaId` may be the gallery's cover: one of its photos. Called in the transaction that
 * sets the cover, after it took the gallery's lock, so a deletion cannot slip in between.
 */
export async function isPhotoOfGallery(
  trx: Executor,
  accountId: string,
  listingId: string,
  mediaId: string,
): Promise<boolean> {
  if (!hasIdShape('med', mediaId)) return false;
  const row = await repo.findMedia(trx, accountId, listingId, mediaId);
  return row?.kind === 'photo';
}
