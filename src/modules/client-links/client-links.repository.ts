import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { ClientLinksTable } from '../../db/schema.ts';

/** A link as stored, with how many photos its client marked (the favorites_count of docs/api.md §25). */
export type ClientLinkRow = Selectable<ClientLinksTable> & { favorites_count: number };

/** A gallery's link for its (new) client: any earlier link of the gallery is replaced. */
export async function replaceLink(
  db: Executor,
  row: Pick<ClientLinkRow, 'listing_id' | 'account_id' | 'client_id' | 'token' | 'created_at'>,
): Promise<void> {
  await db
    .deleteFrom('client_links')
    .where('account_id', '=', row.account_id)
    .where('listing_id', '=', row.listing_id)
    .execute();
  await db
    .insertInto('client_links')
    .values({
      ...row,
      first_viewed_at: null,
      last_viewed_at: null,
      expires_at: null,
      password_hash: null,
      favorites_note: null,
      favorites_submitted_at: null,
      favorites_updated_at: null,
    })
    .execute();
}

export async function deleteLink(db: Executor, accountId: string, listingId: string): Promise<void> {
  await db.deleteFrom('client_links').where('account_id', '=', accountId).where('listing_id', '=', listingId).execute();
}

export async function deleteLinksOfClient(db: Executor, accountId: string, clientId: string): Promise<void> {
  await db.deleteFrom('client_links').where('account_id', '=', accountId).where('client_id', '=', clientId).execute();
}

/** A new token for the gallery's link (the counters are kept); undefined when it has none. */
export async function rotateToken(db: Executor, accountId: string, listingId: string, token: string): Promise<boolean> {
  const result = await db
    .updateTable('client_links')
    .set({ token })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Every column, named, as listings.repository.ts explains: a named statement must not select `*`.
const LINK_COLUMNS = Object.keys({
  listing_id: true,
  account_id: true,
  client_id: true,
  token: true,
  views: true,
  downloads: true,
  first_viewed_at: true,
  last_viewed_at: true,
  created_at: true,
  expires_at: true,
  password_hash: true,
  downloads_enabled: true,
  favorites_note: true,
  favorites_submitted_at: true,
  favorites_updated_at: true,
} satisfies Record<keyof ClientLinksTable, true>) as (keyof ClientLinksTable)[];

type StoredLink = Selectable<ClientLinksTable> & { favorites_count: number | string | bigint };

/** Counts come back as strings from PostgreSQL. */
const withCount = (row: StoredLink | undefined): ClientLinkRow | undefined =>
  row === undefined ? undefined : { ...row, favorites_count: Number(row.favorites_count) };

const linkOfQuery = prepared((db, p: { accountId: string; listingId: string }) =>
  db
    .selectFrom('client_links')
    .select(LINK_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('client_link_favorites')
        .select(eb.fn.countAll<number>().as('n'))
        .where('client_link_favorites.account_id', '=', p.accountId)
        .whereRef('client_link_favorites.listing_id', '=', 'client_links.listing_id')
        .as('favorites_count'),
    )
    .where('account_id', '=', p.accountId)
    .where('listing_id', '=', p.listingId),
);

export async function linkOf(db: Executor, accountId: string, listingId: string): Promise<ClientLinkRow | undefined> {
  return withCount((await linkOfQuery.first(db, { accountId, listingId })) as StoredLink | undefined);
}

const byTokenQuery = prepared((db, p: { token: string }) =>
  db
    .selectFrom('client_links')
    .select(LINK_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('client_link_favorites')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('client_link_favorites.listing_id', '=', 'client_links.listing_id')
        .as('favorites_count'),
    )
    .where('token', '=', p.token),
);

export async function findByToken(db: Executor, token: string): Promise<ClientLinkRow | undefined> {
  return withCount((await byTokenQuery.first(db, { token })) as StoredLink | undefined);
}

/** The controls of docs/api.md §25; only the fields given change. False when the gallery has no link. */
export async function updateControls(
  db: Executor,
  accountId: string,
  listingId: string,
  controls: { expires_at?: string | null; password_hash?: string | null; downloads_enabled?: number },
): Promise<boolean> {
  const result = await db
    .updateTable('client_links')
    .set(controls)
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Answers (pending or wrong) at this link from this address since `since`. */
export async function countPasswordFailures(
  db: Executor,
  accountId: string,
  listingId: string,
  address: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('client_link_password_failures')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('address', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function recordPasswordFailure(
  db: Executor,
  row: { listing_id: string; account_id: string; address: string; failed_at: string },
  before: string,
): Promise<void> {
  // Old failures go as new ones come: the table holds at most 15 minutes of them per link.
  await db
    .deleteFrom('client_link_password_failures')
    .where('account_id', '=', row.account_id)
    .where('listing_id', '=', row.listing_id)
    .where('failed_at', '<=', before)
    .execute();
  await db.insertInto('client_link_password_failures').values(row).execute();
}

/** The right password was given: this address's answers at this link no longer count. */
export async function clearPasswordFailures(
  db: Executor,
  accountId: string,
  listingId: string,
  address: string,
): Promise<void> {
  await db
    .deleteFrom('client_link_password_failures')
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('address', '=', address)
    .execute();
}

/** A page load: one more view. Fenced by the token, so a link replaced meanwhile counts nothing. */
export async function countView(
  db: Executor,
  accountId: string,
  listingId: string,
  token: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('client_links')
    .set((eb) => ({
      views: eb('views', '+', 1),
      first_viewed_at: eb.fn.coalesce('first_viewed_at', eb.val(now)),
      last_viewed_at: now,
    }))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function countDownload(
  db: Executor,
  accountId: string,
  listingId: string,
  token: string,
): Promise<boolean> {
  const result = await db
    .updateTable('client_links')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .where('token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type LatestLinkRow = Selectable<ClientLinksTable> & {
  client_name: string;
  client_email: string;
  listing_address: string;
};

/**
 * The newest links of an account with their client and gallery (the dashboard): newest
 * assignment first, through the (account_id, created_at) index. Every table is scoped by the account.
 */
export async function latestLinks(db: Executor, accountId: string, limit: number): Promise<LatestLinkRow[]> {
  return db
    .selectFrom('client_links')
    .innerJoin('clients', (join) =>
      join.onRef('clients.id', '=', 'client_links.client_id').on('clients.account_id', '=', accountId),
    )
    .innerJoin('listings', (join) =>
      join.onRef('listings.id', '=', 'client_links.listing_id').on('listings.account_id', '=', accountId),
    )
    .selectAll('client_links')
    .select(['clients.name as client_name', 'clients.email as client_email', 'listings.address as listing_address'])
    .where('client_links.account_id', '=', accountId)
    .orderBy('client_links.created_at', 'desc')
    .orderBy('client_links.listing_id', 'desc')
    .limit(limit)
    .execute();
}

/** Marks or unmarks a photo as a favorite of the link's client; the selection's updated_at moves. */
export async function setFavorite(
  db: Executor,
  link: { listing_id: string; account_id: string; token: string },
  mediaId: string,
  on: boolean,
  now: string,
): Promise<boolean> {
  // Fenced by the token: a link replaced meanwhile changes nothing.
  const touched = await db
    .updateTable('client_links')
    .set({ favorites_updated_at: now })
    .where('account_id', '=', link.account_id)
    .where('listing_id', '=', link.listing_id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  if (Number(touched.numUpdatedRows) === 0) return false;
  if (on) {
    await db
      .insertInto('client_link_favorites')
      .values({ listing_id: link.listing_id, media_id: mediaId, account_id: link.account_id, created_at: now })
      .onConflict((oc) => oc.columns(['listing_id', 'media_id']).doNothing())
      .execute();
  } else {
    await db
      .deleteFrom('client_link_favorites')
      .where('account_id', '=', link.account_id)
      .where('listing_id', '=', link.listing_id)
      .where('media_id', '=', mediaId)
      .execute();
  }
  return true;
}

/** The client sends the selection: the note and when. False when the link was replaced meanwhile. */
export async function submitFavorites(
  db: Executor,
  link: { listing_id: string; account_id: string; token: string },
  note: string | null,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('client_links')
    // Sending changes the selection (its note): one write, one timestamp for both.
    .set({ favorites_note: note, favorites_submitted_at: now, favorites_updated_at: now })
    .where('account_id', '=', link.account_id)
    .where('listing_id', '=', link.listing_id)
    .where('token', '=', link.token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Whether the gallery's selection email is queued and not yet taken by a worker (a retry waiting
 * counts): it reads the selection when it runs, so a new press needs no email of its own.
 */
export async function selectionEmailWaiting(db: Executor, accountId: string, listingId: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'selection.email')
    .where('account_id', '=', accountId)
    .where('subject_id', '=', listingId)
    .where('lease', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The marked photos of a gallery's link, in position order (scoped by the account). */
export async function favoriteIds(db: Executor, accountId: string, listingId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('client_link_favorites')
    .innerJoin('media', (join) =>
      join.onRef('media.id', '=', 'client_link_favorites.media_id').on('media.account_id', '=', accountId),
    )
    .select('media.id')
    .where('client_link_favorites.account_id', '=', accountId)
    .where('client_link_favorites.listing_id', '=', listingId)
    .orderBy('media.position')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * What the studio's selection email says (docs/api.md §25): the studio, the client, the gallery's
 * address, the note, and the marked visible photos in position order. Undefined when the gallery,
 * its link or its client is gone.
 */
export async function selectionForEmail(db: Executor, accountId: string, listingId: string) {
  const [link, account, files] = await Promise.all([
    db
      .selectFrom('client_links')
      .innerJoin('listings', (join) =>
        join
          .onRef('listings.id', '=', 'client_links.listing_id')
          .onRef('listings.client_id', '=', 'client_links.client_id')
          .on('listings.account_id', '=', accountId),
      )
      .innerJoin('clients', (join) =>
        join.onRef('clients.id', '=', 'client_links.client_id').on('clients.account_id', '=', accountId),
      )
      .select([
        'listings.address',
        'clients.name as client_name',
        'clients.email as client_email',
        'client_links.favorites_note',
        'client_links.favorites_submitted_at',
      ])
      .where('client_links.account_id', '=', accountId)
      .where('client_links.listing_id', '=', listingId)
      .executeTakeFirst(),
    db
      .selectFrom('accounts')
      .select(['name', 'email', 'live_account_id'])
      .where('id', '=', accountId)
      .executeTakeFirst(),
    db
      .selectFrom('client_link_favorites')
      .innerJoin('media', (join) =>
        join.onRef('media.id', '=', 'client_link_favorites.media_id').on('media.account_id', '=', accountId),
      )
      .select(['media.filename', 'media.caption'])
      .where('client_link_favorites.account_id', '=', accountId)
      .where('client_link_favorites.listing_id', '=', listingId)
      .where('media.hidden', '=', 0)
      .orderBy('media.position')
      .execute(),
  ]);
  if (link === undefined || account === undefined || link.favorites_submitted_at === null) return undefined;
  return { ...link, favorites_submitted_at: link.favorites_submitted_at, account, files };
}
