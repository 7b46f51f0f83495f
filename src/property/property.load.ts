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
  /**
   * Visible media in position order. While an open invoice locks the gallery (docs/api.md §29):
   * the branded page's photos with their previews for thumb and large, the unbranded page's with
   * no image at all (a preview carries the studio's name), and no video. The unbranded page leaves
   * out the photos the gallery's MLS profile fails for text, a QR code or a person (§31).
   */
  media: VisibleMedia[];
  /** docs/api.md §29: the gallery waits for payment, and the page is a preview. */
  locked: boolean;
  /**
   * docs/api.md §31: the unbranded page leaves out photos its gallery's MLS profile forbids there
   * (so it offers no file made of every photo: the kit's unbranded slideshow, src/property/property.kit.ts).
   */
  leavesOut: boolean;
  /** docs/api.md §31: staged photos are labelled and shown beside their originals (the profile's disclose_staging). */
  disclosesStaging: boolean;
  /** The cover: the chosen photo if visible and ready, else the first visible photo with variants. */
  cover: VisibleMedia | undefined;
}

export async function loadProperty(services: Services, token: string): Promise<PropertyView | undefined> {
  const found = await services.propertyPages.resolve(token);
  if (found === undefined) return undefined;
  const { page, branded } = found;
  const studio = services.accounts.get(page.account_id).catch(() => undefined);
  const [listing, account, visible, lock, leftOut, disclosesStaging] = await Promise.all([
    services.listings.get(page.account_id, page.listing_id).catch(() => undefined),
    studio,
    services.media.visible(page.account_id, page.listing_id),
    services.payLocks.of(page.account_id, page.listing_id, studio),
    // docs/api.md §31: what the gallery's MLS profile forbids in the pixels stays off the unbranded page.
    branded ? new Set<string>() : services.mls.unbrandedExclusions(page.account_id, page.listing_id),
    services.mls.disclosesStaging(page.account_id, page.listing_id),
  ]);
  if (listing === undefined || account === undefined || listing.status !== 'active') return undefined;
  let media: VisibleMedia[] = leftOut.size === 0 ? visible : visible.filter((m) => !leftOut.has(m.row.id));
  if (lock !== undefined) {
    const shown = media.filter((m) => m.row.kind !== 'video');
    media = branded
      ? await services.payLocks.preview(page.account_id, lock, shown)
      : shown.map((m) => ({ row: m.row, variants: [] }));
  }
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
    locked: lock !== undefined,
    leavesOut: leftOut.size > 0,
    disclosesStaging,
  };
}
