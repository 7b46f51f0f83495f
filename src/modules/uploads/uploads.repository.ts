// The `uploads` table (docs/api.md §16): one row per resumable upload until it expires, with the tus
// server's record of it and a lease lock shared by every node.
import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { UploadsTable } from '../../db/schema.ts';

export type UploadRow = Selectable<UploadsTable>;

export async function insertUpload(db: Executor, row: Insertable<UploadsTable>): Promise<void> {
  await db.insertInto('uploads').values(row).execute();
}

export async function findUpload(
  db: Executor,
  accountId: string,
  listingId: string,
  id: string,
): Promise<UploadRow | undefined> {
  return db
    .selectFrom('uploads')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
}

/**
 * An upload by its id alone, in any account: for the work no request drives (the expiry job, the
 * upload lock, given the id of a row a scoped read found). Requests use findUpload.
 */
export async function findUploadById(db: Executor, id: string): Promise<UploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function readInfo(db: Executor, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('uploads').select('info').where('id', '=', id).executeTakeFirst();
  return row?.info;
}

export async function writeInfo(db: Executor, id: string, info: string | null): Promise<void> {
  await db.updateTable('uploads').set({ info }).where('id', '=', id).execute();
}

export async function readParts(db: Executor, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('uploads').select('parts').where('id', '=', id).executeTakeFirst();
  return row?.parts;
}

export async function writeParts(db: Executor, id: string, parts: string): Promise<void> {
  await db.updateTable('uploads').set({ parts }).where('id', '=', id).execute();
}

/** The upload became this media row (in the media's transaction); false if it was not there. */
export async function markCompleted(db: Executor, id: string, mediaId: string): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ media_id: mediaId })
    .where('id', '=', id)
    .where('media_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUpload(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('uploads').where('id', '=', id).execute();
}

/** A gallery's uploads that have not become media (their bytes go with the gallery). */
export async function unfinishedOfGallery(db: Executor, accountId: string, listingId: string): Promise<UploadRow[]> {
  return db
    .selectFrom('uploads')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('media_id', 'is', null)
    .execute();
}

/** Takes the lock when it is free or its holder's lease ran out; true when taken. */
export async function tryLock(db: Executor, id: string, token: string, until: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ lock_token: token, lock_until: until, release_wanted: 0 })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lock_token', 'is', null), eb('lock_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Extends a held lock; answers whether another request asked for it, or undefined if it was lost. */
export async function renewLock(
  db: Executor,
  id: string,
  token: string,
  until: string,
): Promise<{ releaseWanted: boolean } | undefined> {
  const row = await db
    .updateTable('uploads')
    .set({ lock_until: until })
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .returning('release_wanted')
    .executeTakeFirst();
  return row === undefined ? undefined : { releaseWanted: row.release_wanted === 1 };
}

export async function askRelease(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('uploads')
    .set({ release_wanted: 1 })
    .where('id', '=', id)
    .where('lock_token', 'is not', null)
    .execute();
}

export async function unlock(db: Executor, id: string, token: string): Promise<void> {
  await db
    .updateTable('uploads')
    .set({ lock_token: null, lock_until: null, release_wanted: 0 })
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .execute();
}
