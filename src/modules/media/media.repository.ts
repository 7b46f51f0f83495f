import { sql, type Insertable, type Selectable } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { forUpdate } from '../../db/locking.ts';
import type { MediaTable, MediaVariantsTable, VariantsStatus } from '../../db/schema.ts';

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

/** The gallery's media among `ids` (those of another gallery or account are not found). */
export async function mediaOfIds(
  db: Executor,
  accountId: string,
  listingId: string,
  ids: readonly string[],
): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('media')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', 'in', ids)
    .orderBy('position', 'asc')
    .execute();
}

/** Hides or shows these media of the gallery, in one statement. */
export async function setHidden(
  db: Executor,
  accountId: string,
  listingId: string,
  ids: readonly string[],
  hidden: boolean,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('media')
    .set({ hidden: hidden ? 1 : 0 })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', 'in', ids)
    .execute();
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
 * Reserves `count` positions at the end of the gallery and counts the new media, in one
 * statement (which also takes the gallery's row lock). Returns the last reserved position, or
 * undefined when the gallery is gone.
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
    .set((eb) => ({ media_count: eb('media_count', '+', count), updated_at: now }))
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .returning('media_count')
    .executeTakeFirst();
  return row?.media_count;
}

/** After a deletion (under the gallery's lock): the gap closes, the count drops, the cover clears. */
export async function closeGap(
  db: Executor,
  accountId: string,
  listingId: string,
  removed: { id: string; position: number },
  now: string,
): Promise<void> {
  await db
    .updateTable('media')
    .set((eb) => ({ position: eb('position', '-', 1) }))
    .where('listing_id', '=', listingId)
    .where('position', '>', removed.position)
    .execute();
  await db
    .updateTable('listings')
    .set((eb) => ({
      media_count: eb('media_count', '-', 1),
      cover_media_id: eb.case().when('cover_media_id', '=', removed.id).then(null).else(eb.ref('cover_media_id')).end(),
      updated_at: now,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .execute();
}

/** Moves one media from `from` to `to`, shifting the items between (under the gallery's lock). */
export async function movePosition(
  db: Executor,
  listingId: string,
  mediaId: string,
  from: number,
  to: number,
): Promise<void> {
  if (from === to) return;
  const up = to < from;
  await db
    .updateTable('media')
    .set((eb) => ({ position: eb('position', up ? '+' : '-', 1) }))
    .where('listing_id', '=', listingId)
    .where('position', up ? '>=' : '>', up ? to : from)
    .where('position', up ? '<' : '<=', up ? from : to)
    .execute();
  await db.updateTable('media').set({ position: to }).where('id', '=', mediaId).execute();
}

/** Ids per statement when renumbering (far below every driver's parameter limit). */
const RENUMBER_BATCH = 400;

/** Gives the gallery's media the positions 1..n in `order` (under the gallery's lock). */
export async function setPositions(db: Executor, listingId: string, order: readonly string[]): Promise<void> {
  for (let start = 0; start < order.length; start += RENUMBER_BATCH) {
    const batch = order.slice(start, start + RENUMBER_BATCH);
    const position = sql<number>`case ${sql.ref('id')} ${sql.join(
      batch.map((id, i) => sql`when ${id} then cast(${start + i + 1} as integer)`),
      sql` `,
    )} else ${sql.ref('position')} end`;
    await db
      .updateTable('media')
      .set({ position })
      .where('listing_id', '=', listingId)
      .where('id', 'in', batch)
      .execute();
  }
}

/** The media ids of a gallery, in position order. */
export async function mediaOrder(db: Executor, accountId: string, listingId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('media')
    .select('id')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.id);
}

export async function updateMediaFields(
  db: Executor,
  accountId: string,
  listingId: string,
  id: string,
  fields: { caption?: string | null; hidden?: number; virtually_staged?: number; original_media_id?: string | null },
): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await db
    .updateTable('media')
    .set(fields)
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .execute();
}

// Variants (docs/api.md §13): a row per derived size of a photo, owning its object in storage.

export type VariantRow = Selectable<MediaVariantsTable>;

/** Every variant of a gallery's photos (for the media list). */
export async function variantsOfGallery(db: Executor, accountId: string, listingId: string): Promise<VariantRow[]> {
  return db
    .selectFrom('media_variants')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .execute();
}

export async function variantsOfMedia(db: Executor, mediaId: string): Promise<VariantRow[]> {
  return db.selectFrom('media_variants').selectAll().where('media_id', '=', mediaId).execute();
}

export async function insertVariants(db: Executor, rows: Insertable<MediaVariantsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('media_variants').values(rows).execute();
}

/** Replaces a photo's variant rows (a remake); returns the keys of the ones replaced. */
export async function deleteVariants(db: Executor, mediaId: string): Promise<string[]> {
  const rows = await db.deleteFrom('media_variants').where('media_id', '=', mediaId).returning('storage_key').execute();
  return rows.map((r) => r.storage_key);
}

export async function setVariantsStatus(db: Executor, mediaId: string, status: VariantsStatus): Promise<boolean> {
  const result = await db
    .updateTable('media')
    .set({ variants_status: status })
    .where('id', '=', mediaId)
    .where('kind', 'in', ['photo', 'video'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A media row read to delete it, locked until the transaction ends (see lockPhotoForVariants in variants.repository.ts). */
export async function lockMedia(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  listingId: string,
  id: string,
): Promise<MediaRow | undefined> {
  return forUpdate(
    dialect,
    db
      .selectFrom('media')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('listing_id', '=', listingId)
      .where('id', '=', id),
  ).executeTakeFirst();
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
 * A cleanup row for every stored object of the gallery (its media and their variants), in one
 * INSERT ... SELECT: a gallery of any size
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
        .where('listing_id', '=', listingId)
        // The photos' variants are stored objects of the gallery too.
        .unionAll(
          db
            .selectFrom('media_variants')
            .select((eb) => [
              'storage_key',
              eb.cast<string>(eb.val(deleteAfter), 'text').as('delete_after'),
              eb.cast<string>(eb.val(now), 'text').as('created_at'),
            ])
            .where('account_id', '=', accountId)
            .where('listing_id', '=', listingId),
        )
        // docs/api.md §32: and its listing kit's items.
        .unionAll(
          db
            .selectFrom('listing_kit_items')
            .select((eb) => [
              'storage_key',
              eb.cast<string>(eb.val(deleteAfter), 'text').as('delete_after'),
              eb.cast<string>(eb.val(now), 'text').as('created_at'),
            ])
            .where('account_id', '=', accountId)
            .where('listing_id', '=', listingId),
        ),
    )
    .returning('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

/**
 * Every stored object of an account's media and variants is to go (test data's deletion, docs/api.md
 * §20), with the bytes of its unfinished uploads (their cleanup rows, due later, are due now).
 * Returns the keys, for the purge after commit.
 */
export async function scheduleAccountCleanup(
  db: Executor,
  accountId: string,
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
        .unionAll(
          db
            .selectFrom('media_variants')
            .select((eb) => [
              'storage_key',
              eb.cast<string>(eb.val(deleteAfter), 'text').as('delete_after'),
              eb.cast<string>(eb.val(now), 'text').as('created_at'),
            ])
            .where('account_id', '=', accountId),
        )
        .unionAll(
          db
            .selectFrom('listing_kit_items')
            .select((eb) => [
              'storage_key',
              eb.cast<string>(eb.val(deleteAfter), 'text').as('delete_after'),
              eb.cast<string>(eb.val(now), 'text').as('created_at'),
            ])
            .where('account_id', '=', accountId),
        ),
    )
    .onConflict((oc) => oc.column('storage_key').doUpdateSet({ delete_after: deleteAfter }))
    .returning('storage_key')
    .execute();
  const unfinished = await db
    .updateTable('media_cleanup')
    .set({ delete_after: deleteAfter })
    .where('storage_key', 'in', (eb) =>
      eb.selectFrom('uploads').select('storage_key').where('account_id', '=', accountId).where('media_id', 'is', null),
    )
    .returning('storage_key')
    .execute();
  return [...rows, ...unfinished].map((r) => r.storage_key);
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
    .unionAll(db.selectFrom('media_variants').select('storage_key').where('storage_key', 'in', keys))
    .unionAll(db.selectFrom('media_cleanup').select('storage_key').where('storage_key', 'in', keys))
    // docs/api.md §32: a gallery's listing kit items.
    .unionAll(db.selectFrom('listing_kit_items').select('storage_key').where('storage_key', 'in', keys))
    // docs/api.md §29: a studio's watermark logo (variants.logo.ts).
    .unionAll(
      db
        .selectFrom('accounts')
        .select((eb) => eb.fn.coalesce('watermark_logo_key', eb.val('')).as('storage_key'))
        .where('watermark_logo_key', 'in', keys),
    )
    // docs/api.md §32: a studio's music track for the kit's videos (kit.music.ts).
    .unionAll(
      db
        .selectFrom('accounts')
        .select((eb) => eb.fn.coalesce('kit_music_key', eb.val('')).as('storage_key'))
        .where('kit_music_key', 'in', keys),
    )
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

export type MediaKeyRow = Pick<MediaRow, 'id' | 'account_id' | 'listing_id' | 'storage_key'> & {
  /** The variant's name for a variant's key, null for a media's own. */
  variant: string | null;
};

/**
 * The keys rows say are stored (media and their variants; `id` is the media's), in storage-key
 * order after `afterKey`: a page of the ledger for the doctor.
 */
export async function mediaKeysPage(db: Executor, afterKey: string, limit: number): Promise<MediaKeyRow[]> {
  return db
    .selectFrom('media')
    .select(['id', 'account_id', 'listing_id', 'storage_key', sql<string | null>`cast(null as text)`.as('variant')])
    .where('storage_key', '>', afterKey)
    .unionAll(
      db
        .selectFrom('media_variants')
        .select(['media_id as id', 'account_id', 'listing_id', 'storage_key', 'name as variant'])
        .where('storage_key', '>', afterKey),
    )
    .orderBy('storage_key')
    .limit(limit)
    .execute();
}

/** Of these keys, those whose row (a media's or a variant's) is still there. */
export async function mediaKeysStill(db: Executor, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .selectFrom('media')
    .select('storage_key')
    .where('storage_key', 'in', keys)
    .unionAll(db.selectFrom('media_variants').select('storage_key').where('storage_key', 'in', keys))
    .execute();
  return new Set(rows.map((r) => r.storage_key));
}

/** A media row of the account by its id alone (the unit of work's loader of the media object). */
export async function findMediaOfAccount(db: Executor, accountId: string, id: string): Promise<MediaRow | undefined> {
  return db.selectFrom('media').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** A media row by id alone, for its background jobs (the job carries the account). */
export async function findMediaById(db: Executor, id: string): Promise<MediaRow | undefined> {
  return db.selectFrom('media').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setCrc32(db: Executor, id: string, crc: number): Promise<void> {
  await db.updateTable('media').set({ crc32: crc }).where('id', '=', id).where('crc32', 'is', null).execute();
}

/** A media item the client may see, with its ready variants. */
export interface VisibleMedia {
  row: MediaRow;
  variants: VariantRow[];
}
