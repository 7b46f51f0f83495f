// The property-pages feature's entry points for the galleries' writes (docs/api.md §25): publish,
// unpublish, and the take-down that archiving (any move away from `active`) and deletion make, each
// in the caller's transaction. The /p scope's reads and view counter are property-pages.service.ts.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import type { Write } from '../../mechanisms/writes/writes.ts';
import * as repo from './property-pages.repository.ts';

export type { PropertyPageRow } from './property-pages.repository.ts';

/** 192 random bits, base64url: 32 URL-safe characters, as client link tokens are. */
const newPageToken = (): string => randomBytes(24).toString('base64url');

/** A token of the shape we issue (anything else is not looked up). */
export const hasPageTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(token);

/** The gallery's pages, if published. */
export const pageOf = (db: Executor, accountId: string, listingId: string) => repo.pageOf(db, accountId, listingId);

/** In the publishing write: two new tokens, unless the gallery is already published (then unchanged). */
export async function publishPage(w: Write, listingId: string): Promise<boolean> {
  if ((await repo.pageOf(w.trx, w.accountId, listingId)) !== undefined) return false;
  await repo.insertPage(w.trx, {
    listing_id: listingId,
    account_id: w.accountId,
    token: newPageToken(),
    unbranded_token: newPageToken(),
    published_at: w.now,
  });
  return true;
}

/** In the unpublishing (or archiving) write: both URLs stop at once. False when it had none. */
export const takeDownPage = (w: Write, listingId: string): Promise<boolean> =>
  repo.deletePage(w.trx, w.accountId, listingId);
