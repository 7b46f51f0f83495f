// docs/api.md §28: the share links of a gallery, the `share` rows of gallery_links (the client's link
// is the `client` row, client-links.repository.ts, which has everything a page does at either).
import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { LINK_COLUMNS, withCount, type LinkChanges, type LinkRow, type StoredLink } from './client-links.repository.ts';

/** A new share link (docs/api.md §28). */
export async function insertShareLink(
  db: Executor,
  row: Pick<
    LinkRow,
    | 'id'
    | 'listing_id'
    | 'account_id'
    | 'label'
    | 'email'
    | 'token'
    | 'created_at'
    | 'expires_at'
    | 'password_hash'
    | 'downloads_enabled'
    | 'favorites_enabled'
    | 'selection_min'
    | 'selection_max'
  >,
): Promise<void> {
  await db
    .insertInto('gallery_links')
    .values({
      ...row,
      kind: 'share',
      client_id: null,
      updated_at: row.created_at,
      first_viewed_at: null,
      last_viewed_at: null,
      favorites_note: null,
      favorites_submitted_at: null,
      favorites_updated_at: null,
    })
    .execute();
}

/** A share link stops at once; false when there was none. */
export async function deleteShareLink(db: Executor, accountId: string, listingId: string, id: string) {
  const result = await db
    .deleteFrom('gallery_links')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .where('kind', '=', 'share')
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const favoritesCount = (eb: ExpressionBuilder<Database, 'gallery_links'>, accountId: string) =>
  eb
    .selectFrom('gallery_link_favorites')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('gallery_link_favorites.account_id', '=', accountId)
    .whereRef('gallery_link_favorites.link_id', '=', 'gallery_links.id');

/** A gallery's share links, newest first (at most 50). */
export async function shareLinksOf(db: Executor, accountId: string, listingId: string): Promise<LinkRow[]> {
  const rows = await db
    .selectFrom('gallery_links')
    .select(LINK_COLUMNS)
    .select((eb) => favoritesCount(eb, accountId).as('favorites_count'))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'share')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => withCount(r as StoredLink) as LinkRow);
}

/** One share link of a gallery. */
export async function shareLinkOf(
  db: Executor,
  accountId: string,
  listingId: string,
  id: string,
): Promise<LinkRow | undefined> {
  const row = await db
    .selectFrom('gallery_links')
    .select(LINK_COLUMNS)
    .select((eb) => favoritesCount(eb, accountId).as('favorites_count'))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .where('kind', '=', 'share')
    .executeTakeFirst();
  return withCount(row as StoredLink | undefined);
}

/** A share link by its id alone (its events' loader: an event names the link, not its gallery). */
export async function shareLinkById(db: Executor, accountId: string, id: string): Promise<LinkRow | undefined> {
  const row = await db
    .selectFrom('gallery_links')
    .select(LINK_COLUMNS)
    .select((eb) => favoritesCount(eb, accountId).as('favorites_count'))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('kind', '=', 'share')
    .executeTakeFirst();
  return withCount(row as StoredLink | undefined);
}

/** How many share links a gallery has (at most 50 are allowed). */
export async function countShareLinks(db: Executor, accountId: string, listingId: string): Promise<number> {
  const row = await db
    .selectFrom('gallery_links')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'share')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A share link's fields; only those given change. False when there is no such link. */
export async function updateShareLink(
  db: Executor,
  accountId: string,
  listingId: string,
  id: string,
  changes: LinkChanges,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    .set({ ...changes, updated_at: now })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('id', '=', id)
    .where('kind', '=', 'share')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A share link's updated_at moves (a field of its object changed in another table: its favorites). */
export async function touchShareLink(db: Executor, accountId: string, id: string, now: string): Promise<void> {
  await db
    .updateTable('gallery_links')
    .set({ updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('kind', '=', 'share')
    .execute();
}
