// The client's portal's reads (docs/api.md §28): the client a token names, and the links of a page of
// their galleries. Nothing here writes: the token is issued and replaced by the clients feature.
import type { Executor } from '../../db/executor.ts';
import { prepared } from '../../db/prepared.ts';

export interface PortalClientRow {
  id: string;
  account_id: string;
  name: string;
  portal_token: string;
}

const byTokenQuery = prepared((db, p: { token: string }) =>
  db.selectFrom('clients').select(['id', 'account_id', 'name', 'portal_token']).where('portal_token', '=', p.token),
);

/** The client whose portal this token opens (unique across accounts), if any. */
export const findClientByPortalToken = (db: Executor, token: string): Promise<PortalClientRow | undefined> =>
  byTokenQuery.first(db, { token });

export interface PortalLinkRow {
  listing_id: string;
  token: string;
  expires_at: string | null;
  password_protected: boolean;
}

/** The gallery links of these galleries that belong to this client (a link of an earlier client never shows). */
export async function linksOf(
  db: Executor,
  accountId: string,
  clientId: string,
  listingIds: readonly string[],
): Promise<PortalLinkRow[]> {
  if (listingIds.length === 0) return [];
  const rows = await db
    .selectFrom('gallery_links')
    .select(['listing_id', 'token', 'expires_at', 'password_hash'])
    .where('kind', '=', 'client')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('listing_id', 'in', listingIds)
    .execute();
  return rows.map((r) => ({
    listing_id: r.listing_id,
    token: r.token,
    expires_at: r.expires_at,
    password_protected: r.password_hash !== null,
  }));
}
