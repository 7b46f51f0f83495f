// What the gallery page (/g) asks of links, whatever their kind (docs/api.md §28: the client's link
// and share links are one mechanism): resolve a token, count a view or a download, mark favorites,
// comment, send the selection, answer the password. A count is a change of the link's object (the
// gallery's client_link, or the share link), so it records its event (client_link.viewed or
// share_link.viewed, ...) in the same transaction (docs/api.md §15).
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import type { Write, Writes } from '../../mechanisms/writes/writes.ts';
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

/** The photos marked at a link that the page still shows (hidden ones do not count towards its bounds). */
async function visibleMarks(trx: Executor, link: repo.LinkRow): Promise<number> {
  return repo.countVisibleFavorites(trx, link.account_id, link.id);
}

export function createClientLinksService({ db, config, writes }: Pick<Deps, 'db' | 'config'> & { writes: Writes }) {
  /**
   * The event of a link's change, and what it carries: the gallery for its client link, the share
   * link itself for a share link (docs/api.md §15, §28).
   */
  const announce = (w: Write, link: repo.LinkRow, what: 'viewed' | 'downloaded' | 'selection_submitted') => {
    if (link.kind === 'share') w.announce(`share_link.${what}`, link.id);
    else w.announce(`client_link.${what}`, link.listing_id);
  };

  /** Counts once, with its event; false when the link stopped working meanwhile. */
  function count(link: repo.LinkRow, what: 'view' | 'download'): Promise<boolean> {
    return writes.run(link.account_id, {}, async (w) => {
      const { trx, now } = w;
      const counted = what === 'view' ? await repo.countView(trx, link, now) : await repo.countDownload(trx, link);
      if (!counted) return false;
      announce(w, link, what === 'view' ? 'viewed' : 'downloaded');
      return true;
    });
  }

  /**
   * A change of what was marked or written at the link: favorites_count is a field of its object
   * (the gallery's client_link, or the share link), so that object's updated_at moves (docs/api.md
   * §19). The gallery is locked first, as every write that touches it.
   */
  const changeSelection = (link: repo.LinkRow, change: (w: Write) => Promise<boolean>): Promise<boolean> =>
    writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
      if (w.listing === undefined) return false;
      if (!(await change(w))) return false;
      if (link.kind === 'share') w.touch('share_link', link.id);
      else w.touch('listing', link.listing_id);
      return true;
    });

  return {
    /** The link a token opens, or undefined (unknown, replaced or revoked: all the same). */
    async resolve(token: string): Promise<repo.LinkRow | undefined> {
      return hasTokenShape(token) ? repo.findByToken(db.kysely, token) : undefined;
    },

    /** A page load. False when the link stopped working meanwhile. */
    countView: (link: repo.LinkRow): Promise<boolean> => count(link, 'view'),

    /** A download that starts at byte 0 of an original or the ZIP. */
    countDownload: (link: repo.LinkRow): Promise<boolean> => count(link, 'download'),

    /** Marks or unmarks a visible photo at the link. False when the link stopped working meanwhile. */
    setFavorite: (link: repo.LinkRow, mediaId: string, on: boolean): Promise<boolean> =>
      changeSelection(link, (w) => repo.setFavorite(w.trx, link, mediaId, on, w.now)),

    /** Writes (or, empty, removes) the comment on a photo at the link (docs/api.md §28). */
    setComment: (link: repo.LinkRow, mediaId: string, text: string): Promise<boolean> =>
      changeSelection(link, (w) => repo.setComment(w.trx, link, mediaId, text, w.now)),

    /**
     * The selection is sent (with an optional note): client_link.selection_submitted with the
     * gallery object, or share_link.selection_submitted with the share link, and the studio's email
     * (a selection.email job, unless one is waiting), in the same transaction. The selection's
     * bounds (docs/api.md §28) are checked against the marks as they are in that transaction:
     * 'too_few' or 'too_many' sends nothing. 'gone' when the link stopped working meanwhile.
     */
    async submitFavorites(
      link: repo.LinkRow,
      note: string | null,
    ): Promise<'sent' | 'gone' | { refused: 'too_few' | 'too_many'; count: number }> {
      return writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return 'gone';
        const marked = await visibleMarks(w.trx, link);
        if (link.selection_min !== null && marked < link.selection_min) return { refused: 'too_few', count: marked };
        if (link.selection_max !== null && marked > link.selection_max) return { refused: 'too_many', count: marked };
        if (!(await repo.submitFavorites(w.trx, link, note, w.now))) return 'gone';
        announce(w, link, 'selection_submitted');
        // The studio's email, sent in the background from the same transaction (never lost), a few
        // minutes on: presses meanwhile join it (it reads the selection when it runs), so 20
        // presses are one email with the latest selection. The gallery's lock orders the presses.
        const subjectId = link.kind === 'share' ? link.id : link.listing_id;
        if (!(await repo.selectionEmailWaiting(w.trx, link.account_id, subjectId))) {
          const runAt = isoAt(Date.parse(w.now) + SELECTION_EMAIL_DELAY_MS);
          w.enqueue({ kind: 'selection.email', accountId: link.account_id, subjectId, runAt });
        }
        return 'sent';
      });
    },

    /**
     * Marks a photo at a link whose selection has a maximum: refused ('too_many') when as many
     * visible photos are marked already, checked and written in one transaction (the gallery's
     * lock orders concurrent marks), so a maximum is never passed. 'gone' when the link stopped.
     */
    async markWithinLimit(link: repo.LinkRow, mediaId: string): Promise<'marked' | 'too_many' | 'gone'> {
      return writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return 'gone';
        const marked = new Set(await repo.favoriteIds(w.trx, link.account_id, link.id));
        if (!marked.has(mediaId) && link.selection_max !== null) {
          const visible = await visibleMarks(w.trx, link);
          if (visible >= link.selection_max) return 'too_many';
        }
        if (!(await repo.setFavorite(w.trx, link, mediaId, true, w.now))) return 'gone';
        if (link.kind === 'share') w.touch('share_link', link.id);
        else w.touch('listing', link.listing_id);
        return 'marked';
      });
    },

    /** The marked photos' ids, in position order. */
    favoriteIds: (link: repo.LinkRow): Promise<string[]> => repo.favoriteIds(db.kysely, link.account_id, link.id),

    /** The comments written at the link, in position order. */
    comments: (link: repo.LinkRow): Promise<repo.CommentRow[]> => repo.commentsOf(db.kysely, link.account_id, link.id),

    /**
     * An answer to the link's password, counted before it is checked: with the gallery locked (every
     * node waits on its row), the answers of the last `windowMs` from this address are counted and,
     * under `limit`, this one is recorded as if wrong. So guesses sent at once are checked `limit` at
     * most; the right one clears the address's record (`passwordRight`). 'gone' when the gallery went.
     */
    claimPasswordAttempt: (
      link: repo.LinkRow,
      address: string,
      limit: number,
      windowMs: number,
    ): Promise<'claimed' | 'limited' | 'gone'> =>
      writes.run(link.account_id, { lock: { listing: link.listing_id } }, async (w) => {
        if (w.listing === undefined) return 'gone';
        const since = new Date(Date.parse(w.now) - windowMs).toISOString();
        const answers = await repo.countPasswordFailures(w.trx, link.account_id, link.id, address, since);
        if (answers >= limit) return 'limited';
        const row = { link_id: link.id, account_id: link.account_id, address, failed_at: w.now };
        await repo.recordPasswordFailure(w.trx, row, since);
        return 'claimed';
      }),

    /** The right password from this address: its earlier answers at this link no longer count. */
    passwordRight: (link: repo.LinkRow, address: string): Promise<void> =>
      writes.run(link.account_id, {}, (w) => repo.clearPasswordFailures(w.trx, link.account_id, link.id, address)),

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
