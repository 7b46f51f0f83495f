// docs/api.md §28: a gallery's share links, the other kind of gallery link beside its client's. A
// share link is a row of the same table as the client's link and opens the same page through the
// same code (src/gallery/): only its management is here. Every write is one unit of work with its
// event (share_link.created, .updated, .deleted); its email is a notification in the outbox.
import type { Deps } from '../../deps.ts';
import type { Executor } from '../../db/executor.ts';
import { AppError, notFound } from '../../errors.ts';
import { cursorPage, pageRequest, sinceValue, sortOf, type CursorPage } from '../../lib/cursor-page.ts';
import { listCursors } from '../../db/keyset.ts';
import { hasIdShape, newId } from '../../lib/ids.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { cancelQueuedNotifications, queueShareLinkNotification } from '../notifications/notifications.entry.ts';
import type { NotificationType } from '../notifications/notifications.schemas.ts';
import { newLinkToken } from './client-links.entry.ts';
import * as links from './client-links.repository.ts';
import * as repo from './share-links.repository.ts';
import { findListing } from '../listings/listings.repository.ts';
import { checkSelectionBounds, linkChanges } from './link-controls.ts';
import {
  MAX_SHARE_LINKS,
  type FavoritesType,
  type ShareLinkCreateInput,
  type ShareLinkListQueryType,
  type ShareLinkType,
  type ShareLinkUpdateInput,
} from './share-links.schemas.ts';
import { shareLinkSerializer, type ShareLinkSerializer } from './share-links.serializer.ts';

// The share link is a resource of the unit of work: its events carry it as its GET returns it,
// loaded through loadShareLink (registered in src/services.ts).
declare module '../../mechanisms/writes/writes.ts' {
  interface Resources {
    share_link: ShareLinkType;
  }
}

/** The share link object as its GET returns it, read in `db`. */
export async function loadShareLink(
  db: Executor,
  serialize: ShareLinkSerializer,
  accountId: string,
  id: string,
): Promise<ShareLinkType | undefined> {
  const row = await repo.shareLinkById(db, accountId, id);
  return row === undefined ? undefined : serialize(row);
}

export { touchShareLink } from './share-links.repository.ts';

export type ShareLinksService = ReturnType<typeof createShareLinksService>;

export function createShareLinksService({
  db,
  clock,
  config,
  writes,
  passwords,
}: Pick<Deps, 'db' | 'clock' | 'config' | 'passwords'> & { writes: Writes }) {
  const serialize = shareLinkSerializer(config.publicUrl);
  const messageIdHost = new URL(config.publicUrl).hostname || 'lightbox.local';
  const noLink = () => notFound('Share link');

  /** The link, or 404 (an id of a wrong shape, another gallery's or account's link: all not found). */
  async function find(trx: Executor, accountId: string, listingId: string, id: string): Promise<links.LinkRow> {
    const row = hasIdShape('shl', id) ? await repo.shareLinkOf(trx, accountId, listingId, id) : undefined;
    if (row === undefined) throw noLink();
    return row;
  }

  return {
    async create(accountId: string, listingId: string, input: ShareLinkCreateInput): Promise<ShareLinkType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      const changes = await linkChanges(input, clock.now(), passwords);
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        // Once the gallery is known to be the caller's: another studio's id is 404 whatever the body.
        checkSelectionBounds({ selection_min: null, selection_max: null }, changes);
        // The gallery's lock orders creations: the 51st is refused however they race.
        if ((await repo.countShareLinks(w.trx, accountId, listingId)) >= MAX_SHARE_LINKS) {
          throw new AppError('conflict', `A gallery can have at most ${MAX_SHARE_LINKS} share links; delete one first`);
        }
        const id = newId('shl');
        const email = input.email ?? null;
        await repo.insertShareLink(w.trx, {
          id,
          listing_id: listingId,
          account_id: accountId,
          label: input.label,
          email,
          token: newLinkToken(),
          created_at: w.now,
          expires_at: changes.expires_at ?? null,
          password_hash: changes.password_hash ?? null,
          downloads_enabled: changes.downloads_enabled ?? 1,
          favorites_enabled: changes.favorites_enabled ?? 1,
          selection_min: changes.selection_min ?? null,
          selection_max: changes.selection_max ?? null,
        });
        if (email !== null) {
          await queueShareLinkNotification(w, { shareLinkId: id, listingId, to: email, messageIdHost });
        }
        w.announce('share_link.created', id);
        const link = await w.load('share_link', id);
        if (link === undefined) throw new Error('a share link just made is not there');
        return link;
      });
    },

    async get(accountId: string, listingId: string, id: string): Promise<ShareLinkType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.snapshot(async (trx) => {
        if (!(await galleryExists(trx, accountId, listingId))) throw notFound('Gallery');
        return serialize(await find(trx, accountId, listingId, id));
      });
    },

    /**
     * A gallery's share links (at most 50): ordered, filtered and paged by number or cursor as
     * every list (docs/api.md §19), over the links read at once.
     */
    async list(
      accountId: string,
      listingId: string,
      query: ShareLinkListQueryType,
    ): Promise<CursorPage<ShareLinkType>> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      const codec = await listCursors(db);
      const { column, desc } = sortOf(query.sort);
      const since = sinceValue('updated_since', query.updated_since);
      const scope = {
        list: 'share_links',
        accountId,
        params: { listing: listingId, sort: query.sort ?? '-created_at', updated_since: since ?? null },
      };
      const request = pageRequest(query, codec, scope);
      const rows = await writes.snapshot(async (trx) => {
        if (!(await galleryExists(trx, accountId, listingId))) throw notFound('Gallery');
        return repo.shareLinksOf(trx, accountId, listingId);
      });
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const ordered = rows
        .filter((r) => since === undefined || r.updated_at >= since)
        .sort((a, b) => (desc ? -1 : 1) * (cmp(a[column], b[column]) || cmp(a.id, b.id)));
      const after = request.after;
      const rest =
        after === undefined
          ? ordered.slice(request.offset)
          : ordered.filter((r) => {
              const c = cmp(r[column], after.value) || cmp(r.id, after.id);
              return desc ? c < 0 : c > 0;
            });
      const position = (r: links.LinkRow) => ({ value: r[column], id: r.id });
      return cursorPage(rest.slice(0, request.fetch), request, ordered.length, codec, scope, position, serialize);
    },

    async update(
      accountId: string,
      listingId: string,
      id: string,
      input: ShareLinkUpdateInput,
    ): Promise<ShareLinkType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      const changes = await linkChanges(input, clock.now(), passwords);
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        const current = await find(w.trx, accountId, listingId, id);
        checkSelectionBounds(current, changes);
        await repo.updateShareLink(w.trx, accountId, listingId, id, changes, w.now);
        w.announce('share_link.updated', id);
        const link = await w.load('share_link', id);
        if (link === undefined) throw noLink();
        return link;
      });
    },

    /** A new token: the old URL stops at once (404); the counters, favorites and comments are kept. */
    async rotate(accountId: string, listingId: string, id: string): Promise<ShareLinkType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        await find(w.trx, accountId, listingId, id);
        await repo.updateShareLink(w.trx, accountId, listingId, id, { token: newLinkToken() }, w.now);
        w.announce('share_link.updated', id);
        const link = await w.load('share_link', id);
        if (link === undefined) throw noLink();
        return link;
      });
    },

    /** The link stops at once; its email not yet sent is cancelled. */
    async delete(accountId: string, listingId: string, id: string): Promise<void> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      await writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        if (!hasIdShape('shl', id) || !(await repo.deleteShareLink(w.trx, accountId, listingId, id))) throw noLink();
        await cancelQueuedNotifications(w, { shareLinkId: id });
        w.announce('share_link.deleted', id);
      });
    },

    /** Emails the link to its recipient again (202, the new notification); 409 when it has no email. */
    async notify(accountId: string, listingId: string, id: string): Promise<NotificationType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.run(accountId, { lock: { listing: listingId } }, async (w) => {
        if (w.listing === undefined) throw notFound('Gallery');
        const link = await find(w.trx, accountId, listingId, id);
        if (link.email === null) {
          throw new AppError('conflict', 'This share link has no email address to send it to; create one with email');
        }
        const notificationId = await queueShareLinkNotification(w, {
          shareLinkId: id,
          listingId,
          to: link.email,
          messageIdHost,
        });
        const notification = await w.load('notification', notificationId);
        if (notification === undefined) throw new Error('a notification just queued is not there');
        return notification;
      });
    },

    /** docs/api.md §28: what was marked, written and sent at the link. */
    async favorites(accountId: string, listingId: string, id: string): Promise<FavoritesType> {
      if (!hasIdShape('lst', listingId)) throw notFound('Gallery');
      return writes.snapshot(async (trx) => {
        if (!(await galleryExists(trx, accountId, listingId))) throw notFound('Gallery');
        const link = await find(trx, accountId, listingId, id);
        return {
          media_ids: await links.favoriteIds(trx, accountId, link.id),
          note: link.favorites_note,
          comments: await links.commentsOf(trx, accountId, link.id),
          submitted_at: link.favorites_submitted_at,
          updated_at: link.favorites_updated_at,
        };
      });
    },
  };
}

async function galleryExists(trx: Executor, accountId: string, listingId: string): Promise<boolean> {
  return (await findListing(trx, accountId, listingId)) !== undefined;
}
