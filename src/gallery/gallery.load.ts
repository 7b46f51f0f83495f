// What a link shows, whatever its kind (the client's or a share link, docs/api.md §28): resolved
// from its token through the services, never SQL. An unknown,
// replaced or revoked token, and a gallery or client that is gone, are all the same: nothing.
import type { Services } from '../services.ts';
import type { ClientLinkRow } from '../modules/client-links/client-links.entry.ts';
import type { ListingType } from '../modules/listings/listings.schemas.ts';
import type { VisibleMedia } from '../modules/media/media.service.ts';
import type { PayLock } from '../modules/invoices/invoices.lock.ts';

export interface GalleryView {
  link: ClientLinkRow;
  listing: ListingType;
  studioName: string;
  /** false for a gallery of the studio's test data (docs/api.md §20): its pages say "Test mode". */
  livemode: boolean;
  /**
   * Visible media in position order. While the gallery is locked (docs/api.md §29), its photos'
   * previews stand for thumb and large, and no item has any other variant.
   */
  media: VisibleMedia[];
  /** The open invoice that keeps the gallery a preview (docs/api.md §29), or undefined. */
  lock: PayLock | undefined;
  /** The cover: the chosen photo if visible and ready, else the first visible photo with variants. */
  cover: VisibleMedia | undefined;
}

export async function loadGallery(services: Services, token: string): Promise<GalleryView | undefined> {
  const link = await services.clientLinks.resolve(token);
  if (link === undefined) return undefined;
  const studio = services.accounts.get(link.account_id).catch(() => undefined);
  const [listing, account, visible, lock] = await Promise.all([
    services.listings.get(link.account_id, link.listing_id).catch(() => undefined),
    studio,
    services.media.visible(link.account_id, link.listing_id),
    services.payLocks.of(link.account_id, link.listing_id, studio),
  ]);
  if (listing === undefined || account === undefined) return undefined;
  // A client link whose gallery went to another client since it was read is not the client's any more.
  if (link.kind === 'client' && listing.client_id !== link.client_id) return undefined;
  const media = lock === undefined ? visible : await services.payLocks.preview(link.account_id, lock, visible);
  const withVariants = media.filter((m) => m.row.kind === 'photo' && m.variants.length > 0);
  const cover = withVariants.find((m) => m.row.id === listing.cover_media_id) ?? withVariants[0];
  return { link, listing, studioName: account.name, livemode: account.livemode, media, cover, lock };
}
