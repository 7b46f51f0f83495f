// What the client's portal (/c, docs/api.md §28) asks: the client a token names, and a page of their
// galleries, newest first (keyset by cursor, as the API's lists page: docs/api.md §19), each with its
// address, status, cover and gallery link. An unknown or replaced token is nothing.
import type { Deps } from '../../deps.ts';
import { listCursors } from '../../db/keyset.ts';
import { cursorPage, pageRequest } from '../../lib/cursor-page.ts';
import { galleryUrl } from '../listings/listings.serializer.ts';
import { listingRows } from '../listings/listings.list.repository.ts';
import type { ListingItemType } from '../listings/listings.schemas.ts';
import { toListingItem } from '../listings/listings.serializer.ts';
import type { MediaService, VisibleMedia } from '../media/media.service.ts';
import type { AccountsService } from '../accounts/accounts.service.ts';
import { hasPortalTokenShape } from './portals.entry.ts';
import * as repo from './portals.repository.ts';

/** Galleries on one page of a portal: a desktop shows four rows of three. */
const PORTAL_PAGE_SIZE = 24;

export interface Portal {
  client: repo.PortalClientRow;
  studioName: string;
  /** false for a client of the studio's test data (docs/api.md §20): the page says "Test mode". */
  livemode: boolean;
}

export interface PortalGallery {
  listing: ListingItemType;
  /** The gallery page (/g/<token>) the client opens, or null when it has no link for them. */
  href: string | null;
  /** The link asks for a password, or has passed its end date: its cover is not shown here. */
  locked: 'password' | 'expired' | null;
  /** The cover, when the gallery has one and its link is open. */
  cover: VisibleMedia | undefined;
}

export interface PortalPage {
  galleries: PortalGallery[];
  total: number;
  /** The cursor of the next (older) page, or null on the last. */
  next: string | null;
}

export type PortalsService = ReturnType<typeof createPortalsService>;

export function createPortalsService({
  db,
  clock,
  media,
  accounts,
}: Pick<Deps, 'db' | 'clock'> & { media: MediaService; accounts: AccountsService }) {
  return {
    async resolve(token: string): Promise<Portal | undefined> {
      if (!hasPortalTokenShape(token)) return undefined;
      const client = await repo.findClientByPortalToken(db.kysely, token);
      if (client === undefined) return undefined;
      const account = await accounts.get(client.account_id).catch(() => undefined);
      if (account === undefined) return undefined;
      return { client, studioName: account.name, livemode: account.livemode };
    },

    /** A page of the client's galleries, newest first; `cursor` (from `next`) for the older ones. */
    async page(portal: Portal, cursor: string | undefined): Promise<PortalPage> {
      const { account_id: accountId, id: clientId } = portal.client;
      const codec = await listCursors(db);
      const scope = { list: 'portal', accountId, params: { client_id: clientId } };
      const request = pageRequest({ limit: PORTAL_PAGE_SIZE, cursor }, codec, scope);
      const filters = { clientId, sort: { column: 'created_at', desc: true } } as const;
      const [rows, total] = await Promise.all([
        listingRows(db.kysely, db.dialect, accountId, filters, request),
        db.kysely
          .selectFrom('listings')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('account_id', '=', accountId)
          .where('client_id', '=', clientId)
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n)),
      ]);
      const page = cursorPage(
        rows,
        request,
        total,
        codec,
        scope,
        (r) => ({ value: r.created_at, id: r.id }),
        toListingItem,
      );
      const ids = page.data.map((g) => g.id);
      const [links, covers] = await Promise.all([
        repo.linksOf(db.kysely, accountId, clientId, ids),
        media.covers(accountId, ids),
      ]);
      const linkOf = new Map(links.map((l) => [l.listing_id, l]));
      const now = clock.now();
      const galleries = page.data.map((listing): PortalGallery => {
        const link = linkOf.get(listing.id);
        const locked =
          link === undefined
            ? null
            : link.expires_at !== null && Date.parse(link.expires_at) <= now
              ? 'expired'
              : link.password_protected
                ? 'password'
                : null;
        return {
          listing,
          href: link === undefined ? null : galleryUrl('', link.token),
          locked,
          cover: link === undefined || locked !== null ? undefined : covers.get(listing.id),
        };
      });
      return { galleries, total, next: page.pagination.next_cursor };
    },

    /**
     * The cover photo `mediaId`, when it is the shown cover of one of the client's galleries with an
     * open link (what the portal's image routes serve); undefined otherwise.
     */
    async cover(portal: Portal, mediaId: string): Promise<VisibleMedia | undefined> {
      const { account_id: accountId, id: clientId } = portal.client;
      const photo = await db.kysely
        .selectFrom('media')
        .innerJoin('listings', 'listings.id', 'media.listing_id')
        .select('media.listing_id')
        .where('media.account_id', '=', accountId)
        .where('media.id', '=', mediaId)
        .where('listings.client_id', '=', clientId)
        .executeTakeFirst();
      if (photo === undefined) return undefined;
      const [link] = await repo.linksOf(db.kysely, accountId, clientId, [photo.listing_id]);
      if (link === undefined || link.password_protected) return undefined;
      if (link.expires_at !== null && Date.parse(link.expires_at) <= clock.now()) return undefined;
      const cover = (await media.covers(accountId, [photo.listing_id])).get(photo.listing_id);
      return cover?.row.id === mediaId ? cover : undefined;
    },
  };
}
