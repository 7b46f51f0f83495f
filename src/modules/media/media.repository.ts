import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { MediaTable } from '../../db/schema.ts';

export type MediaRow = Selectable<MediaTable>;

export async function insertMedia(db: Executor, rows: Insertable<MediaTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('media').values(rows).execute();
}

export async function listMedia(db: Executor, accountId: string, listingId: string): Promise<MediaRow[]> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .orderBy('position', 'asc')
    .execute();
}

export async function findMedia(
  db: Executor,
  accountId: string,
  listingId: string,
  id: string,
): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteMedia(db: Executor, accountId: string, listingId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('media')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Takes the gallery row's write lock for the rest of the transaction (a no-op update, which both
 * dialects lock the same way). Uploads commit by updating this row (reservePositions), so once
 * it is held no upload to the gallery can commit until the transaction ends. False when the
 * gallery is not there.
 */
export async function lockGallery(db: Executor, accountId: string, listingId: string): Promise<boolean> {
  const row = await db
    .updateTable('listings')
    .set((eb) => ({ media_seq: eb.ref('media_seq') }))
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Reserves `count` positions on the gallery and counts the new media, in one statement so
 * concurrent uploads never share a position. Returns the last reserved position, or undefined
 * when the gallery is gone.
 */
export async function reservePositions(
  db: Executor,
  accountId: string,
  listingId: string,
  count: number,
  now: string,
): Promise<number | undefined> {
  const row = await db
    .updateTable('listings')
    .set((eb) => ({
      media_seq: eb('media_seq', '+', count),
      media_count: eb('media_count', '+', count),
      updated_at: now,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .returning('media_seq')
    .executeTakeFirst();
  return row?.media_seq;
}

export async function uncountMedia(db: Executor, accountId: string, listingId: string, now: string): Promise<void> {
  await db
    .updateTable('listings')
    .set((eb) => ({ media_count: eb('media_count', '-', 1), updated_at: now }))
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .execute();
}

// The cleanup ledger (see the media_cleanup migration).

export async function scheduleCleanup(db: Executor, keys: string[], deleteAfter: string, now: string): Promise<void> {
  if (keys.length === 0) return;
  await db
    .insertInto('media_cleanup')
    .values(keys.map((storage_key) => ({ storage_key, delete_after: deleteAfter, created_at: now })))
    .execute();
}

/**
 * A cleanup row for every media of the gallery, in one INSERT ... SELECT: a gallery of any size
 * takes four parameters (one row per media would pass the drivers' parameter limits). Returns
 * the keys.
 */
export async function scheduleGalleryCleanup(
  db: Executor,
  accountId: string,
  listingId: string,
  deleteAfter: string,
  now: string,
): Promise<string[]> {
  const rows = await db
    .insertInto('media_cleanup')
    .columns(['storage_key', 'delete_after', 'created_at'])
    .expression(
      db
        .selectFrom('media')
        .select((eb) => [
          'storage_key',
          eb.cast<string>(eb.val(deleteAfter), 'text').as('delete_after'),
          eb.cast<string>(eb.val(now), 'text').as('created_at'),
        ])
        .where('account_id', '=', accountId)
        .where('listing_id', '=', listingId),
    )
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

export async function extendCleanup(db: Executor, keys: string[], deleteAfter: string): Promise<void> {
  if (keys.length === 0) return;
  await db.updateTable('media_cleanup').set({ delete_after: deleteAfter }).where('storage_key', 'in', keys).execute();
}

/** Removes the cleanup rows of `keys`; returns how many there were. */
export async function cancelCleanup(db: Executor, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const result = await db.deleteFrom('media_cleanup').where('storage_key', 'in', keys).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function dueCleanup(db: Executor, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('media_cleanup')
    .select('storage_key')
    .where('delete_after', '<=', now)
    .orderBy('delete_after')
    .limit(limit)
    .execute();
  return rows.map((r) => r.storage_key);
}

/**
 * Of `keys`, those that some media row or cleanup row still accounts for. One statement, so
 * one snapshot: an upload committing meanwhile (cleanup row out, media row in) is never missed.
 */
export async function knownKeys(db: Executor, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('media')
    .select('storage_key')
    .where('storage_key', 'in', keys)
    .unionAll(db.selectFrom('media_cleanup').select('storage_key').where('storage_key', 'in', keys))
    .execute();
  return new Set(rows.map((r) => r.storage_key));
}

/**
 * Takes the due cleanup rows among `keys` for this purge (at most a few hundred keys); returns
 * those taken. A row another purge took first, or one not due, is not returned.
 */
export async function claimCleanup(db: Executor, keys: string[], now: string): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .deleteFrom('media_cleanup')
    .where('storage_key', 'in', keys)
    .where('delete_after', '<=', now)
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

export type MediaKeyRow = Pick<MediaRow, 'id' | 'account_id' | 'listing_id' | 'storage_key'>;

/** Media rows in storage-key order, after `afterKey`: a page of the ledger for the doctor. */
export async function mediaKeysPage(db: Executor, afterKey: string, limit: number): Promise<MediaKeyRow[]> {
  return db
    .selectFrom('media')
    .select(['id', 'account_id', 'listing_id', 'storage_key'])
    .where('storage_key', '>', afterKey)
    .orderBy('storage_key')
    .limit(limit)
    .execute();
}

/** Of these media rows' keys, those whose row is still there. */
export async function mediaKeysStill(db: Executor, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('media').select('storage_key').where('storage_key', 'in', keys).execute();
  return new Set(rows.map((r) => r.storage_key));
}
