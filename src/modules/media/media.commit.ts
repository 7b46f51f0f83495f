// The transaction step that turns stored files into media rows at the end of the gallery's
// positions, shared by the multipart upload (media.service.ts) and the resumable upload
// (uploads.service.ts): positions reserved through the gallery row (so a deletion of the
// gallery cannot interleave), photos' variants queued, `media.created` recorded, counts applied.
import type { Executor } from '../../db/executor.ts';
import { notFound } from '../../errors.ts';
import { enqueue } from '../../mechanisms/queue/queue.ts';
import { recordEvents } from '../../mechanisms/events/events.entry.ts';
import { addCounts } from '../../mechanisms/counts/counts.repository.ts';
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
 * In the caller's transaction: reserves the next positions (404 if the gallery is gone), lets
 * `claim` take the bytes' leases (it throws to refuse), then inserts the rows and what follows.
 */
export async function commitMedia(
  trx: Executor,
  serialize: ReturnType<typeof mediaSerializer>,
  accountId: string,
  listingId: string,
  stored: readonly StoredFile[],
  now: string,
  claim: () => Promise<void>,
): Promise<MediaType[]> {
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
    variants_status: file.sniffed.kind === 'photo' ? ('pending' as const) : null,
    created_at: now,
  }));
  await repo.insertMedia(trx, inserted);
  // Each photo's variants are made in the background (variants.job.ts).
  await enqueue(
    trx,
    inserted
      .filter((m) => m.kind === 'photo')
      .map((m) => ({ kind: 'media.variants' as const, accountId, subjectId: m.id, runAt: now })),
    now,
  );
  const created = inserted.map((row) => serialize(row, []));
  const events = await recordEvents(
    trx,
    accountId,
    created.map((object) => ({ type: 'media.created' as const, object })),
    now,
  );
  await addCounts(trx, accountId, { media: inserted.length }, events);
  return created;
}
