// What the client gallery (/g) asks of links: resolve a token, and count a view or a download.
// A count is a change of the gallery object (its client_link counters), so it records its event
// (client_link.viewed, client_link.downloaded) in the same transaction (docs/api.md §15).
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { galleryUrl } from '../listings/listings.serializer.ts';
import { hasTokenShape } from './client-links.entry.ts';
import * as repo from './client-links.repository.ts';
import { SELECTION_EMAIL_DELAY_MS } from './selection-email.job.ts';
import { isoAt } from '../../lib/clock.ts';

export type ClientLinksService = ReturnType<typeof createClientLinksService>;

/** A gallery assigned to a client, with what the client did with its link (the dashboard). */
export interface RecentAssignment {
  listing_id: string;
  listing_address: string;
  client_id: string;
  client_name: string;
  client_email: string;
  /** When the gallery was assigned to this client (a new token keeps it). */
  assigned_at: string;
  /** PUBLIC_URL/g/<token>: the gallery as the client sees it. */
  url: string;
  views: number;
  downloads: number;
  last_viewed_at: string | null;
  /** The controls of docs/api.md §25, as the gallery object shows them. */
  expires_at: string | null;
  password_protected: boolean;
  downloads_enabled: boolean;
}

export function createClientLinksService({ db, config, writes }: Pick<Deps, 'db' | 'config'> & { writes: Writes }) {
  /** Counts once, with its event; false when the link stopped working meanwhile. */
  function count(link: repo.ClientLinkRow, what: 'view' | 'download'): Promise<boolean> {
    return writes.run(link.account_id, {}, async (w) => {
      const { trx, now } = w;
      const counted =
        what === 'view'
          ? await repo.countView(trx, link.account_id, link.listing_id, link.token, now)
          : await repo.countDownload(trx, link.account_id, link.listing_id, link.token);
      if (!counted) return false;
      w.announce(what === 'view' ? 'client_link.viewed' : 'client_link.downloaded', link.listing_id);
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

    /**
     * The client marks or unmarks a visible photo. favorites_count is a field of the gallery object,
     * so the gallery's updated_at moves (docs/api.md §19); the gallery is locked first, as every
     * write that touches it. False when the link stopped working meanwhile.
     */
    async setFavorite(link: repo.ClientLinkRow, mediaId: string, on: boolean): Promise<boolean> {
      return writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return false;
        if (!(await repo.setFavorite(w.trx, link, mediaId, on, w.now))) return false;
        w.touch('listing', link.listing_id);
        return true;
      });
    },

    /**
     * The client sends the selection (with an optional note): client_link.selection_submitted with
     * the gallery object, and the studio's email (a selection.email job, unless one is waiting), in
     * the same transaction. False when the link stopped working meanwhile.
     */
    async submitFavorites(link: repo.ClientLinkRow, note: string | null): Promise<boolean> {
      return writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return false;
        if (!(await repo.submitFavorites(w.trx, link, note, w.now))) return false;
        w.announce('client_link.selection_submitted', link.listing_id);
        // The studio's email, sent in the background from the same transaction (never lost), a few
        // minutes on: presses meanwhile join it (it reads the selection when it runs), so 20
        // presses are one email with the latest selection. The gallery's lock orders the presses.
        if (!(await repo.selectionEmailWaiting(w.trx, link.account_id, link.listing_id))) {
          const runAt = isoAt(Date.parse(w.now) + SELECTION_EMAIL_DELAY_MS);
          w.enqueue({ kind: 'selection.email', accountId: link.account_id, subjectId: link.listing_id, runAt });
        }
        return true;
      });
    },

    /** The marked photos' ids, in position order. */
    favoriteIds: (link: repo.ClientLinkRow): Promise<string[]> =>
      repo.favoriteIds(db.kysely, link.account_id, link.listing_id),

    /**
     * An answer to the link's password, counted before it is checked: with the gallery locked (every
     * node waits on its row), the answers of the last `windowMs` from this address are counted and,
     * under `limit`, this one is recorded as if wrong. So guesses sent at once are checked `limit` at
     * most; the right one clears the address's record (`passwordRight`). 'gone' when the gallery went.
     */
    claimPasswordAttempt: (
      link: repo.ClientLinkRow,
      address: string,
      limit: number,
      windowMs: number,
    ): Promise<'claimed' | 'limited' | 'gone'> =>
      writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return 'gone';
        const since = new Date(Date.parse(w.now) - windowMs).toISOString();
        const answers = await repo.countPasswordFailures(w.trx, link.account_id, link.listing_id, address, since);
        if (answers >= limit) return 'limited';
        const row = { listing_id: link.listing_id, account_id: link.account_id, address, failed_at: w.now };
        await repo.recordPasswordFailure(w.trx, row, since);
        return 'claimed';
      }),

    /** The right password from this address: its earlier answers at this link no longer count. */
    passwordRight: (link: repo.ClientLinkRow, address: string): Promise<void> =>
      writes.run(link.account_id, {}, (w) =>
        repo.clearPasswordFailures(w.trx, link.account_id, link.listing_id, address),
      ),

    /** The account's latest assignments, newest first, with their link's counters (the dashboard). */
    async latest(accountId: string, limit: number): Promise<RecentAssignment[]> {
      const rows = await repo.latestLinks(db.kysely, accountId, limit);
      return rows.map((r) => ({
        listing_id: r.listing_id,
        listing_address: r.listing_address,
        client_id: r.client_id,
        client_name: r.client_name,
        client_email: r.client_email,
        assigned_at: r.created_at,
        url: galleryUrl(config.publicUrl, r.token),
        views: r.views,
        downloads: r.downloads,
        last_viewed_at: r.last_viewed_at,
        expires_at: r.expires_at,
        password_protected: r.password_hash !== null,
        downloads_enabled: r.downloads_enabled !== 0,
      }));
    },
  };
}
