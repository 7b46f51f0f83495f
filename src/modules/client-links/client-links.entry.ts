// The client-links feature's entry points for other features' writes (docs/api.md §14): one link per
// assigned gallery, for its current client. Assignment gives one, reassignment a new one,
// unassignment and client deletion take it away, in those writes' transactions. The /g scope's
// reads and counters are client-links.service.ts.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import * as repo from './client-links.repository.ts';

export type { ClientLinkRow } from './client-links.repository.ts';

/** 192 random bits, base64url: 32 URL-safe characters. */
const newLinkToken = (): string => randomBytes(24).toString('base64url');

/** A token of the shape we issue (anything else is not looked up). */
export const hasTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(token);

/** In the assignment's transaction: the gallery's link for this client, replacing any earlier one. */
export async function giveLink(
  trx: Executor,
  input: { accountId: string; listingId: string; clientId: string; now: string },
): Promise<void> {
  await repo.replaceLink(trx, {
    listing_id: input.listingId,
    account_id: input.accountId,
    client_id: input.clientId,
    token: newLinkToken(),
    created_at: input.now,
  });
}

/** In the unassignment's transaction: the link stops working. */
export const dropLink = (trx: Executor, accountId: string, listingId: string): Promise<void> =>
  repo.deleteLink(trx, accountId, listingId);

/** In the client deletion's transaction: every link of theirs stops working. */
export const dropLinksOfClient = (trx: Executor, accountId: string, clientId: string): Promise<void> =>
  repo.deleteLinksOfClient(trx, accountId, clientId);

/** A new token for the gallery's link, counters kept; undefined when the gallery has no client. */
export const rotateLink = (trx: Executor, accountId: string, listingId: string) =>
  repo.rotateToken(trx, accountId, listingId, newLinkToken());

/** The gallery's link, if it is assigned. */
export const linkOf = (db: Executor, accountId: string, listingId: string) => repo.linkOf(db, accountId, listingId);

/** In the PATCH's transaction: the controls of docs/api.md §25. False when the gallery has no link. */
export const setLinkControls = (
  trx: Executor,
  accountId: string,
  listingId: string,
  controls: { expires_at?: string | null; password_hash?: string | null; downloads_enabled?: number },
) => repo.updateControls(trx, accountId, listingId, controls);

/** The photos the gallery's client marked, in position order. */
export const favoritesOf = (db: Executor, accountId: string, listingId: string): Promise<string[]> =>
  repo.favoriteIds(db, accountId, listingId);
