// The links that open a gallery's page (docs/api.md §14, §25, §28), one table for both kinds: the
// assigned client's link (`client`, one per gallery) and share links (`share`). Everything a page
// does at a link (count a view or a download, mark a favorite, comment, send the selection, answer
// the password) is keyed by the link's id and fenced by its token, whatever its kind.
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { GalleryLinksTable } from '../../db/schema.ts';

/** A link as stored, with how many photos were marked at it (its favorites_count). */
export type LinkRow = Selectable<GalleryLinksTable> & { favorites_count: number };

/** The fields a link's page writes are fenced by: its id and its current token. */
export interface LinkKey {
  id: string;
  account_id: string;
  token: string;
}

/** A gallery's link for its (new) client: any earlier client link of the gallery is replaced. */
export async function replaceClientLink(
  db: Executor,
  row: Pick<LinkRow, 'id' | 'listing_id' | 'account_id' | 'client_id' | 'token' | 'created_at'>,
): Promise<void> {
  await db
    .deleteFrom('gallery_links')
    .where('account_id', '=', row.account_id)
    .where('listing_id', '=', row.listing_id)
    .where('kind', '=', 'client')
    .execute();
  await db
    .insertInto('gallery_links')
    .values({
      ...row,
      kind: 'client',
      label: null,
      email: null,
      updated_at: row.created_at,
      first_viewed_at: null,
      last_viewed_at: null,
      expires_at: null,
      password_hash: null,
      selection_min: null,
      selection_max: null,
      favorites_note: null,
      favorites_submitted_at: null,
      favorites_updated_at: null,
    })
    .execute();
}

export async function deleteClientLink(db: Executor, accountId: string, listingId: string): Promise<void> {
  await db
    .deleteFrom('gallery_links')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'client')
    .execute();
}

export async function deleteLinksOfClient(db: Executor, accountId: string, clientId: string): Promise<void> {
  await db
    .deleteFrom('gallery_links')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('kind', '=', 'client')
    .execute();
}

/** A new token for the gallery's client link (the counters are kept); false when it has none. */
export async function rotateClientToken(
  db: Executor,
  accountId: string,
  listingId: string,
  token: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    .set({ token, updated_at: now })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'client')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Every column, named, as listings.repository.ts explains: a named statement must not select `*`.
export const LINK_COLUMNS = Object.keys({
  id: true,
  kind: true,
  listing_id: true,
  account_id: true,
  client_id: true,
  label: true,
  email: true,
  token: true,
  views: true,
  downloads: true,
  first_viewed_at: true,
  last_viewed_at: true,
  created_at: true,
  updated_at: true,
  expires_at: true,
  password_hash: true,
  downloads_enabled: true,
  favorites_enabled: true,
  selection_min: true,
  selection_max: true,
  favorites_note: true,
  favorites_submitted_at: true,
  favorites_updated_at: true,
} satisfies Record<keyof GalleryLinksTable, true>) as (keyof GalleryLinksTable)[];

export type StoredLink = Selectable<GalleryLinksTable> & { favorites_count: number | string | bigint };

/** Counts come back as strings from PostgreSQL. */
export const withCount = (row: StoredLink | undefined): LinkRow | undefined =>
  row === undefined ? undefined : { ...row, favorites_count: Number(row.favorites_count) };

const linkOfQuery = prepared((db, p: { accountId: string; listingId: string }) =>
  db
    .selectFrom('gallery_links')
    .select(LINK_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('gallery_link_favorites')
        .select(eb.fn.countAll<number>().as('n'))
        .where('gallery_link_favorites.account_id', '=', p.accountId)
        .whereRef('gallery_link_favorites.link_id', '=', 'gallery_links.id')
        .as('favorites_count'),
    )
    .where('account_id', '=', p.accountId)
    .where('listing_id', '=', p.listingId)
    .where('kind', '=', 'client'),
);

/** The gallery's client link, if it is assigned. */
export async function linkOf(db: Executor, accountId: string, listingId: string): Promise<LinkRow | undefined> {
  return withCount((await linkOfQuery.first(db, { accountId, listingId })) as StoredLink | undefined);
}

const byTokenQuery = prepared((db, p: { token: string }) =>
  db
    .selectFrom('gallery_links')
    .select(LINK_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('gallery_link_favorites')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('gallery_link_favorites.link_id', '=', 'gallery_links.id')
        .as('favorites_count'),
    )
    .where('token', '=', p.token),
);

/** The link of either kind a token opens. */
export async function findByToken(db: Executor, token: string): Promise<LinkRow | undefined> {
  return withCount((await byTokenQuery.first(db, { token })) as StoredLink | undefined);
}

/** The controls a link's PATCH may change (docs/api.md §25, §28). */
export interface LinkChanges {
  label?: string;
  expires_at?: string | null;
  password_hash?: string | null;
  downloads_enabled?: number;
  favorites_enabled?: number;
  selection_min?: number | null;
  selection_max?: number | null;
  token?: string;
}

/** The gallery's client link's controls; only the fields given change. False when it has none. */
export async function updateClientLink(
  db: Executor,
  accountId: string,
  listingId: string,
  changes: LinkChanges,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    .set({ ...changes, updated_at: now })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('kind', '=', 'client')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Answers (pending or wrong) at this link from this address since `since`. */
export async function countPasswordFailures(
  db: Executor,
  accountId: string,
  linkId: string,
  address: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('gallery_link_password_failures')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('link_id', '=', linkId)
    .where('address', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function recordPasswordFailure(
  db: Executor,
  row: { link_id: string; account_id: string; address: string; failed_at: string },
  before: string,
): Promise<void> {
  // Old failures go as new ones come: the table holds at most 15 minutes of them per link.
  await db
    .deleteFrom('gallery_link_password_failures')
    .where('account_id', '=', row.account_id)
    .where('link_id', '=', row.link_id)
    .where('failed_at', '<=', before)
    .execute();
  await db.insertInto('gallery_link_password_failures').values(row).execute();
}

/** The right password was given: this address's answers at this link no longer count. */
export async function clearPasswordFailures(
  db: Executor,
  accountId: string,
  linkId: string,
  address: string,
): Promise<void> {
  await db
    .deleteFrom('gallery_link_password_failures')
    .where('account_id', '=', accountId)
    .where('link_id', '=', linkId)
    .where('address', '=', address)
    .execute();
}

/** A page load: one more view. Fenced by the token, so a link replaced meanwhile counts nothing. */
export async function countView(db: Executor, link: LinkKey, now: string): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    .set((eb) => ({
      views: eb('views', '+', 1),
      first_viewed_at: eb.fn.coalesce('first_viewed_at', eb.val(now)),
      last_viewed_at: now,
    }))
    .where('account_id', '=', link.account_id)
    .where('id', '=', link.id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function countDownload(db: Executor, link: LinkKey): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('account_id', '=', link.account_id)
    .where('id', '=', link.id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type LatestLinkRow = Selectable<GalleryLinksTable> & {
  client_id: string;
  client_name: string;
  client_email: string;
  listing_address: string;
};

/**
 * The newest client links of an account with their client and gallery (the dashboard): newest
 * assignment first, through the (account_id, kind, created_at) index. Every table is scoped by the account.
 */
export async function latestLinks(db: Executor, accountId: string, limit: number): Promise<LatestLinkRow[]> {
  const rows = await db
    .selectFrom('gallery_links')
    .innerJoin('clients', (join) =>
      join.onRef('clients.id', '=', 'gallery_links.client_id').on('clients.account_id', '=', accountId),
    )
    .innerJoin('listings', (join) =>
      join.onRef('listings.id', '=', 'gallery_links.listing_id').on('listings.account_id', '=', accountId),
    )
    .selectAll('gallery_links')
    .select(['clients.name as client_name', 'clients.email as client_email', 'listings.address as listing_address'])
    .where('gallery_links.account_id', '=', accountId)
    .where('gallery_links.kind', '=', 'client')
    .orderBy('gallery_links.created_at', 'desc')
    .orderBy('gallery_links.listing_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, client_id: r.client_id ?? '' }));
}

/** Moves the selection's updated_at, fenced by the token: false when the link was replaced meanwhile. */
async function touchSelection(db: Executor, link: LinkKey, now: string): Promise<boolean> {
  const touched = await db
    .updateTable('gallery_links')
    .set({ favorites_updated_at: now })
    .where('account_id', '=', link.account_id)
    .where('id', '=', link.id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  return Number(touched.numUpdatedRows) > 0;
}

/** Marks or unmarks a photo as a favorite at the link; the selection's updated_at moves. */
export async function setFavorite(
  db: Executor,
  link: LinkKey,
  mediaId: string,
  on: boolean,
  now: string,
): Promise<boolean> {
  if (!(await touchSelection(db, link, now))) return false;
  if (on) {
    await db
      .insertInto('gallery_link_favorites')
      .values({ link_id: link.id, media_id: mediaId, account_id: link.account_id, created_at: now })
      .onConflict((oc) => oc.columns(['link_id', 'media_id']).doNothing())
      .execute();
  } else {
    await db
      .deleteFrom('gallery_link_favorites')
      .where('account_id', '=', link.account_id)
      .where('link_id', '=', link.id)
      .where('media_id', '=', mediaId)
      .execute();
  }
  return true;
}

/** Writes (or, with an empty text, removes) the comment on a photo at the link. */
export async function setComment(
  db: Executor,
  link: LinkKey,
  mediaId: string,
  text: string,
  now: string,
): Promise<boolean> {
  if (!(await touchSelection(db, link, now))) return false;
  if (text === '') {
    await db
      .deleteFrom('gallery_link_comments')
      .where('account_id', '=', link.account_id)
      .where('link_id', '=', link.id)
      .where('media_id', '=', mediaId)
      .execute();
  } else {
    await db
      .insertInto('gallery_link_comments')
      .values({ link_id: link.id, media_id: mediaId, account_id: link.account_id, text, updated_at: now })
      .onConflict((oc) => oc.columns(['link_id', 'media_id']).doUpdateSet({ text, updated_at: now }))
      .execute();
  }
  return true;
}

/** The link's sender sends the selection: the note and when. False when the link was replaced meanwhile. */
export async function submitFavorites(db: Executor, link: LinkKey, note: string | null, now: string): Promise<boolean> {
  const result = await db
    .updateTable('gallery_links')
    // Sending changes the selection (its note): one write, one timestamp for both.
    .set({ favorites_note: note, favorites_submitted_at: now, favorites_updated_at: now })
    .where('account_id', '=', link.account_id)
    .where('id', '=', link.id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Whether the link's selection email is queued and not yet taken by a worker (a retry waiting
 * counts): it reads the selection when it runs, so a new press needs no email of its own. The
 * job's subject is the gallery for its client link and the share link's id for a share link.
 */
export async function selectionEmailWaiting(db: Executor, accountId: string, subjectId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'selection.email')
    .where('account_id', '=', accountId)
    .where('subject_id', '=', subjectId)
    .where('lease', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The photos marked at a link, in position order (scoped by the account). */
export async function favoriteIds(db: Executor, accountId: string, linkId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('gallery_link_favorites')
    .innerJoin('media', (join) =>
      join.onRef('media.id', '=', 'gallery_link_favorites.media_id').on('media.account_id', '=', accountId),
    )
    .select('media.id')
    .where('gallery_link_favorites.account_id', '=', accountId)
    .where('gallery_link_favorites.link_id', '=', linkId)
    .orderBy('media.position')
    .execute();
  return rows.map((r) => r.id);
}

export interface CommentRow {
  media_id: string;
  text: string;
  updated_at: string;
}

/** The comments written at a link, in position order (scoped by the account). */
export async function commentsOf(db: Executor, accountId: string, linkId: string): Promise<CommentRow[]> {
  return db
    .selectFrom('gallery_link_comments')
    .innerJoin('media', (join) =>
      join.onRef('media.id', '=', 'gallery_link_comments.media_id').on('media.account_id', '=', accountId),
    )
    .select(['gallery_link_comments.media_id', 'gallery_link_comments.text', 'gallery_link_comments.updated_at'])
    .where('gallery_link_comments.account_id', '=', accountId)
    .where('gallery_link_comments.link_id', '=', linkId)
    .orderBy('media.position')
    .execute();
}

/** The visible photos marked at a link (what its selection bounds count, docs/api.md §28). */
export async function countVisibleFavorites(db: Executor, accountId: string, linkId: string): Promise<number> {
  const row = await db
    .selectFrom('gallery_link_favorites')
    .innerJoin('media', (join) =>
      join.onRef('media.id', '=', 'gallery_link_favorites.media_id').on('media.account_id', '=', accountId),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('gallery_link_favorites.account_id', '=', accountId)
    .where('gallery_link_favorites.link_id', '=', linkId)
    .where('media.hidden', '=', 0)
    .where('media.kind', '=', 'photo')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
