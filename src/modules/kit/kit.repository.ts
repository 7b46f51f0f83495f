// The SQL of the listing kit (docs/api.md §32): its row, its items' rows (each owns its bytes, as a
// variant's row does), and what a build reads. Every read is scoped by account, but the job's,
// which carries the gallery id and reads the account from the kit's own row.
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ListingsTable, MediaTable, MediaVariantsTable } from '../../db/schema.ts';
import type { KitItemName, KitStatus, ListingKitItemsTable, ListingKitsTable } from '../../db/schema-kit.ts';

export type KitRow = Selectable<ListingKitsTable>;
export type KitItemRow = Selectable<ListingKitItemsTable>;

export async function findKit(db: Executor, accountId: string, listingId: string): Promise<KitRow | undefined> {
  return db
    .selectFrom('listing_kits')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
}

/** The kit by its gallery alone (its job carries the id). */
export async function findKitById(db: Executor, listingId: string): Promise<KitRow | undefined> {
  return db.selectFrom('listing_kits').selectAll().where('listing_id', '=', listingId).executeTakeFirst();
}

export async function findItems(db: Executor, accountId: string, listingId: string): Promise<KitItemRow[]> {
  return db
    .selectFrom('listing_kit_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .execute();
}

export async function findItem(
  db: Executor,
  accountId: string,
  listingId: string,
  name: KitItemName,
): Promise<KitItemRow | undefined> {
  return db
    .selectFrom('listing_kit_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** A build is asked for: the row is made, or its status moves to `building`. */
export async function markBuilding(trx: Executor, accountId: string, listingId: string, now: string): Promise<void> {
  await trx
    .insertInto('listing_kits')
    .values({
      listing_id: listingId,
      account_id: accountId,
      status: 'building',
      built_at: null,
      fingerprint: null,
      error: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('listing_id').doUpdateSet({ status: 'building', error: null, updated_at: now }))
    .execute();
}

export async function setStatus(
  trx: Executor,
  listingId: string,
  status: KitStatus,
  now: string,
  extra: Partial<Pick<KitRow, 'built_at' | 'fingerprint' | 'error'>> = {},
): Promise<void> {
  await trx
    .updateTable('listing_kits')
    .set({ status, updated_at: now, ...extra })
    .where('listing_id', '=', listingId)
    .execute();
}

/** The items of a build replace the last build's: returns the keys whose bytes are to go. */
export async function replaceItems(trx: Executor, listingId: string, items: readonly KitItemRow[]): Promise<string[]> {
  const old = await trx
    .deleteFrom('listing_kit_items')
    .where('listing_id', '=', listingId)
    .returning('storage_key')
    .execute();
  if (items.length > 0)
    await trx
      .insertInto('listing_kit_items')
      .values([...items])
      .execute();
  const kept = new Set(items.map((i) => i.storage_key));
  return old.map((r) => r.storage_key).filter((k) => !kept.has(k));
}

export type KitListing = Pick<
  Selectable<ListingsTable>,
  | 'id'
  | 'account_id'
  | 'address'
  | 'beds'
  | 'baths'
  | 'sqft'
  | 'status'
  | 'description'
  | 'mls_number'
  | 'cover_media_id'
  | 'mls_profile_id'
>;

export async function findListingForKit(
  db: Executor,
  accountId: string,
  listingId: string,
): Promise<KitListing | undefined> {
  return db
    .selectFrom('listings')
    .select([
      'id',
      'account_id',
      'address',
      'beds',
      'baths',
      'sqft',
      'status',
      'description',
      'mls_number',
      'cover_media_id',
      'mls_profile_id',
    ])
    .where('account_id', '=', accountId)
    .where('id', '=', listingId)
    .executeTakeFirst();
}

const KIT_PHOTO = [
  'id',
  'position',
  'caption',
  'alt_text',
  'analysis_room',
  'variants_status',
  'created_at',
  // The teaser's best photos (kit.teaser.ts).
  'analysis_status',
  'analysis_sharpness',
  'analysis_blurry',
  'analysis_clipped_highlights',
  'analysis_clipped_shadows',
  'analysis_tilt_degrees',
  'analysis_best_in_group',
] as const;

export type KitPhoto = Pick<Selectable<MediaTable>, (typeof KIT_PHOTO)[number]>;

/** The gallery's visible photos, in order (hidden ones never go into a kit). */
export async function visiblePhotos(db: Executor, accountId: string, listingId: string): Promise<KitPhoto[]> {
  return db
    .selectFrom('media')
    .select(KIT_PHOTO)
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'photo')
    .where('hidden', '=', 0)
    .orderBy('position')
    .execute();
}

export type KitVariant = Pick<
  Selectable<MediaVariantsTable>,
  'media_id' | 'name' | 'storage_key' | 'content_type' | 'width' | 'height' | 'size'
>;

/** The ready `mls` and `large` variants of these photos. */
export async function photoVariants(
  db: Executor,
  accountId: string,
  mediaIds: readonly string[],
): Promise<KitVariant[]> {
  if (mediaIds.length === 0) return [];
  return db
    .selectFrom('media_variants as v')
    .innerJoin('media as m', 'm.id', 'v.media_id')
    .select(['v.media_id', 'v.name', 'v.storage_key', 'v.content_type', 'v.width', 'v.height', 'v.size'])
    .where('m.account_id', '=', accountId)
    .where('v.media_id', 'in', [...mediaIds])
    .where('v.name', 'in', ['mls', 'large'])
    .execute();
}

/** Whether the gallery has a visible photo whose variants are ready (a build needs one: 409 otherwise). */
export async function hasReadyPhoto(db: Executor, accountId: string, listingId: string): Promise<boolean> {
  const row = await db
    .selectFrom('media')
    .select('id')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'photo')
    .where('hidden', '=', 0)
    .where('variants_status', '=', 'ready')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function studioOf(
  db: Executor,
  accountId: string,
): Promise<{ name: string; kit_paper: 'letter' | 'a4' | null } | undefined> {
  return db.selectFrom('accounts').select(['name', 'kit_paper']).where('id', '=', accountId).executeTakeFirst();
}

export async function setPaper(
  trx: Executor,
  accountId: string,
  paper: 'letter' | 'a4' | null,
  now: string,
): Promise<void> {
  await trx.updateTable('accounts').set({ kit_paper: paper, updated_at: now }).where('id', '=', accountId).execute();
}

export async function pageTokens(
  db: Executor,
  accountId: string,
  listingId: string,
): Promise<{ token: string; unbranded_token: string } | undefined> {
  return db
    .selectFrom('property_pages')
    .select(['token', 'unbranded_token'])
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
}

/** Of these galleries, those with a kit, and its status. */
export async function kitsOf(db: Executor, accountId: string, listingIds: readonly string[]): Promise<KitRow[]> {
  if (listingIds.length === 0) return [];
  return db
    .selectFrom('listing_kits')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listing_id', 'in', [...listingIds])
    .execute();
}
