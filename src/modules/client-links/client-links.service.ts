// What the client gallery (/g) asks of links: resolve a token, and count a view or a download.
// A count is a change of the gallery object (its client_link counters), so it records its event
// (client_link.viewed, client_link.downloaded) in the same transaction (section 15).
import type { Deps } from '../../deps.ts';
import { addCounts } from '../counts/counts.repository.ts';
import { loadListing } from '../listings/listings.service.ts';
import { listingSerializer } from '../listings/listings.serializer.ts';
import { recordEvents } from '../webhooks/webhooks.events.ts';
import { hasTokenShape } from './client-links.entry.ts';
import * as repo from './client-links.repository.ts';

export type ClientLinksService = ReturnType<typeof createClientLinksService>;

export function createClientLinksService({ db, clock, config }: Pick<Deps, 'db' | 'clock' | 'config'>) {
  const serialize = listingSerializer(config.publicUrl);

  /** Counts once, with its event; false when the link stopped working meanwhile. */
  function count(link: repo.ClientLinkRow, what: 'view' | 'download'): Promise<boolean> {
    return db.kysely.transaction().execute(async (trx) => {
      const now = clock.iso();
      const counted =
        what === 'view'
          ? await repo.countView(trx, link.listing_id, link.token, now)
          : await repo.countDownload(trx, link.listing_id, link.token);
      if (!counted) return false;
      const listing = await loadListing(trx, serialize, link.account_id, link.listing_id);
      if (listing !== undefined) {
        const type = what === 'view' ? 'client_link.viewed' : 'client_link.downloaded';
        await addCounts(
          trx,
          link.account_id,
          await recordEvents(trx, link.account_id, [{ type, object: listing }], now),
        );
      }
      return true;
    });
  }

  return {
    /** The link a token opens, or undefined (unknown, replaced or revoked: all the same). */
    async resolve(token: string): Promise<repo.ClientLinkRow | undefined> {
      return hasTokenShape(token) ? repo.findByToken(db.kysely, token) : undefined;
    },

    /** A page load. False when the link stopped working meanwhile. */
    countView: (link: repo.ClientLinkRow): Promise<boolean> => count(link, 'view'),

    /** A download that starts at byte 0 of an original or the ZIP. */
    countDownload: (link: repo.ClientLinkRow): Promise<boolean> => count(link, 'download'),

    /** The newest links of the account, with their client and gallery (the dashboard). */
    latest(accountId: string, limit: number): Promise<repo.LatestLinkRow[]> {
      return repo.latestLinks(db.kysely, accountId, limit);
    },
  };
}
