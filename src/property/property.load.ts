// What a property page shows (docs/api.md §25): resolved from its token through the services,
// never SQL. An unknown token, a page taken down, a gallery no longer active or gone: all nothing.
// The unbranded page takes only one fact of the account, whether it is test data (docs/api.md
// §20), so nothing of the studio can reach it.
import type { Services } from '../services.ts';
import type { PropertyPageRow } from '../modules/property-pages/property-pages.entry.ts';
import type { ListingType } from '../modules/listings/listings.schemas.ts';
import type { VisibleMedia } from '../modules/media/media.service.ts';

export interface PropertyView {
  page: PropertyPageRow;
  /** The token in the URL: the branded or the unbranded one. */
  token: string;
  listing: ListingType;
  /** The branded page (`url`), or the unbranded one (`unbranded_url`). */
  branded: boolean;
  /** The studio's name on the branded page; null on the unbranded one. */
  studioName: string | null;
  /** False for test data: the page says so (docs/api.md §20). */
  livemode: boolean;
  /** Visible media in position order. */
  media: VisibleMedia[];
  /** The cover: the chosen photo if visible and ready, else the first visible photo with variants. */
  cover: VisibleMedia | undefined;
}

export async function loadProperty(services: Services, token: string): Promise<PropertyView | undefined> {
  const found = await services.propertyPages.resolve(token);
  if (found === undefined) return undefined;
  const { page, branded } = found;
  const [listing, account, media] = await Promise.all([
    services.listings.get(page.account_id, page.listing_id).catch(() => undefined),
    services.accounts.get(page.account_id).catch(() => undefined),
    services.media.visible(page.account_id, page.listing_id),
  ]);
  if (listing === undefined || account === undefined || listing.status !== 'active') return undefined;
  const withVariants = media.filter((m) => m.row.kind === 'photo' && m.variants.length > 0);
  const cover = withVariants.find((m) => m.row.id === listing.cover_media_id) ?? withVariants[0];
  return {
    page,
    token,
    listing,
    branded,
    studioName: branded ? account.name : null,
    livemode: account.livemode,
    media,
    cover,
  };
}
