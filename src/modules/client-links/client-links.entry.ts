// The client-links feature's entry points for other features' writes (docs/api.md §14): one link per
// assigned gallery, for its current client. Assignment gives one, reassignment a new one,
// unassignment and client deletion take it away, in those writes' transactions. The client's link
// is one kind of gallery link (docs/api.md §28): share links are the other (share-links.service.ts). The /g scope's
// reads and counters are client-links.service.ts.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './client-links.repository.ts';
import * as feeds from './feed-links.repository.ts';

export type { LinkRow as ClientLinkRow } from './client-links.repository.ts';

/** 192 random bits, base64url: 32 URL-safe characters. */
export const newLinkToken = (): string => randomBytes(24).toString('base64url');

/** A token of the shape we issue (anything else is not looked up). */
export const hasTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(token);

/** In the assignment's write: the gallery's link for this client, replacing any earlier one. */
export async function giveLink(w: Write, listingId: string, clientId: string): Promise<void> {
  await repo.replaceClientLink(w.trx, {
    id: newId('gln'),
    listing_id: listingId,
    account_id: w.accountId,
    client_id: clientId,
    token: newLinkToken(),
    created_at: w.now,
  });
}

/** In the unassignment's write: the link stops working. */
export const dropLink = (w: Write, listingId: string): Promise<void> =>
  repo.deleteClientLink(w.trx, w.accountId, listingId);

/** In the client deletion's write: every link of theirs stops working. */
export const dropLinksOfClient = (w: Write, clientId: string): Promise<void> =>
  repo.deleteLinksOfClient(w.trx, w.accountId, clientId);

/** In the gallery's write: a new token for its link, counters kept; undefined when it has no client. */
export const rotateLink = (w: Write, listingId: string) =>
  repo.rotateClientToken(w.trx, w.accountId, listingId, newLinkToken(), w.now);

/** The gallery's link, if it is assigned. */
export const linkOf = (db: Executor, accountId: string, listingId: string) => repo.linkOf(db, accountId, listingId);

/** In the PATCH's write: the controls of docs/api.md §25 and §28. False when the gallery has no link. */
export const setLinkControls = (w: Write, listingId: string, controls: repo.LinkChanges) =>
  repo.updateClientLink(w.trx, w.accountId, listingId, controls, w.now);

/** The photos marked at a link, in position order. */
export const favoritesOf = (db: Executor, accountId: string, linkId: string): Promise<string[]> =>
  repo.favoriteIds(db, accountId, linkId);

/** The comments written at a link, in position order. */
export const commentsOf = (db: Executor, accountId: string, linkId: string): Promise<repo.CommentRow[]> =>
  repo.commentsOf(db, accountId, linkId);

/**
 * docs/api.md §33: a link to each of these galleries' mls variants that works until at least
 * `until`, made (in its own write, its gallery's expired ones removed) for those without one: the
 * one kind of public link, its gate and its expiry (410), as every link to a gallery.
 */
export async function feedLinks(
  db: Executor,
  writes: Pick<Writes, 'run'>,
  accountId: string,
  listingIds: readonly string[],
  until: string,
): Promise<Map<string, string>> {
  const links = await feeds.feedLinksOf(db, accountId, listingIds, until);
  const missing = listingIds.filter((id) => !links.has(id));
  if (missing.length === 0) return links;
  return writes.run(accountId, {}, async (w) => {
    // Another request may have made some meanwhile: read again in the write, make the rest.
    const made = await feeds.feedLinksOf(w.trx, accountId, missing, until);
    for (const listingId of missing) {
      if (made.has(listingId)) continue;
      const token = newLinkToken();
      await feeds.insertFeedLink(w.trx, {
        id: newId('gln'),
        listing_id: listingId,
        account_id: accountId,
        token,
        created_at: w.now,
        expires_at: until,
      });
      made.set(listingId, token);
    }
    return new Map([...links, ...made]);
  });
}
