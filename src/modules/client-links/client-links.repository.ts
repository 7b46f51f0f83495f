import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';
import type { ClientLinksTable } from '../../db/schema.ts';

export type ClientLinkRow = Selectable<ClientLinksTable>;

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
    .values({ ...row, first_viewed_at: null, last_viewed_at: null })
    .execute();
}

export async function deleteLink(db: Executor, accountId: string, listingId: string): Promise<void> {
  await db.deleteFrom('client_links').where('account_id', '=', accountId).where('listing_id', '=', listingId).execute();
}

export async function deleteLinksOfClient(db: Executor, accountId: string, clientId: string): Promise<void> {
  await db.deleteFrom('client_links').where('account_id', '=', accountId).where('client_id', '=', clientId).execute();
}

/** A new token for the gallery's link (the counters are kept); undefined when it has none. */
export async function rotateToken(
  db: Executor,
  accountId: string,
  listingId: string,
  token: string,
): Promise<ClientLinkRow | undefined> {
  return db
    .updateTable('client_links')
    .set({ token })
    .where('account_id', '=', accountId)
    .where('listing_id', '=', listingId)
    .returningAll()
    .executeTakeFirst();
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
} satisfies Record<keyof ClientLinksTable, true>) as (keyof ClientLinksTable)[];

const linkOfQuery = prepared((db, p: { accountId: string; listingId: string }) =>
  db
    .selectFrom('client_links')
    .select(LINK_COLUMNS)
    .where('account_id', '=', p.accountId)
    .where('listing_id', '=', p.listingId),
);

export async function linkOf(db: Executor, accountId: string, listingId: string): Promise<ClientLinkRow | undefined> {
  return linkOfQuery.first(db, { accountId, listingId });
}

const byTokenQuery = prepared((db, p: { token: string }) =>
  db.selectFrom('client_links').select(LINK_COLUMNS).where('token', '=', p.token),
);

export async function findByToken(db: Executor, token: string): Promise<ClientLinkRow | undefined> {
  return byTokenQuery.first(db, { token });
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

export type LatestLinkRow = ClientLinkRow & { client_name: string; client_email: string; listing_address: string };

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
