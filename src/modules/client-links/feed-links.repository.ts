// docs/api.md §33: a gallery's RESO feed links, the `feed` rows of gallery_links (the one kind of
// public link to a gallery, client-links.repository.ts): each opens its gallery's mls variants alone
// until its expires_at, for the feed's MediaURL.
import type { Executor } from '../../db/executor.ts';
import type { LinkRow } from './client-links.repository.ts';

/**
 * docs/api.md §33: the RESO feed's links of these galleries that work until at least `until`,
 * the latest of each gallery (by expiry). Scoped by the account; through gallery_links_listing_idx.
 */
export async function feedLinksOf(
  db: Executor,
  accountId: string,
  listingIds: readonly string[],
  until: string,
): Promise<Map<string, string>> {
  if (listingIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('gallery_links')
    .select(['listing_id', 'token'])
    .where('account_id', '=', accountId)
    .where('listing_id', 'in', listingIds)
    .where('kind', '=', 'feed')
    .where('expires_at', '>=', until)
    .orderBy('expires_at')
    .execute();
  return new Map(rows.map((r) => [r.listing_id, r.token]));
}

/** A gallery's new feed link (no favorites, no downloads: it opens its mls variants only); its expired ones go. */
export async function insertFeedLink(
  db: Executor,
  row: Pick<LinkRow, 'id' | 'listing_id' | 'account_id' | 'token' | 'created_at' | 'expires_at'>,
): Promise<void> {
  await db
    .deleteFrom('gallery_links')
    .where('account_id', '=', row.account_id)
    .where('listing_id', '=', row.listing_id)
    .where('kind', '=', 'feed')
    .where('expires_at', '<=', row.created_at)
    .execute();
  await db
    .insertInto('gallery_links')
    .values({
      ...row,
      kind: 'feed',
      client_id: null,
      label: null,
      email: null,
      updated_at: row.created_at,
      first_viewed_at: null,
      last_viewed_at: null,
      password_hash: null,
      downloads_enabled: 0,
      favorites_enabled: 0,
      selection_min: null,
      selection_max: null,
      favorites_note: null,
      favorites_submitted_at: null,
      favorites_updated_at: null,
    })
    .execute();
}
