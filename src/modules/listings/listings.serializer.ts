// The one serializer of the gallery object (docs/api.md §5, §13, §14 and §25): the API, webhook events
// and pages build it here, from the stored row, its client link and its property pages.
import type { ClientLinkRow } from '../client-links/client-links.entry.ts';
import type { PropertyPageRow } from '../property-pages/property-pages.entry.ts';
import type { ListingItemType, ListingType } from './listings.schemas.ts';
import type { ListingItemRow, ListingRow } from './listings.repository.ts';
import { parseTours } from './tours.ts';

export type ListingSerializer = (
  row: ListingRow,
  link: ClientLinkRow | undefined,
  page: PropertyPageRow | undefined,
) => ListingType;

/** The client gallery's address for a link token. */
export const galleryUrl = (publicUrl: string, token: string): string => `${publicUrl}/g/${token}`;

/** A property page's address for one of its tokens (docs/api.md §25). */
export const propertyPageUrl = (publicUrl: string, token: string): string => `${publicUrl}/p/${token}`;

export function listingSerializer(publicUrl: string): ListingSerializer {
  return (row, link, page) => ({
    id: row.id,
    address: row.address,
    beds: row.beds,
    baths: row.baths,
    sqft: row.sqft,
    status: row.status,
    description: row.description,
    mls_number: row.mls_number,
    client_id: row.client_id,
    media_count: row.media_count,
    cover_media_id: row.cover_media_id,
    // Only the current client's link: one left from an earlier client never shows.
    client_link:
      link === undefined || link.client_id !== row.client_id
        ? null
        : {
            url: galleryUrl(publicUrl, link.token),
            created_at: link.created_at,
            views: link.views,
            first_viewed_at: link.first_viewed_at,
            last_viewed_at: link.last_viewed_at,
            downloads: link.downloads,
            expires_at: link.expires_at,
            password_protected: link.password_hash !== null,
            downloads_enabled: link.downloads_enabled !== 0,
            favorites_count: link.favorites_count,
            selection_min: link.selection_min,
            selection_max: link.selection_max,
          },
    property_page:
      page === undefined
        ? null
        : {
            url: propertyPageUrl(publicUrl, page.token),
            unbranded_url: propertyPageUrl(publicUrl, page.unbranded_token),
            published_at: page.published_at,
            views: page.views,
          },
    tours: parseTours(row.tours),
    mls_profile_id: row.mls_profile_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
}

export const toListingItem = (row: ListingItemRow): ListingItemType => ({
  id: row.id,
  address: row.address,
  beds: row.beds,
  baths: row.baths,
  sqft: row.sqft,
  status: row.status,
  client_id: row.client_id,
  created_at: row.created_at,
});
