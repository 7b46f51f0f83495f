// The one serializer of the gallery object (docs/api.md §5, §13 and §14): the API, webhook events and
// pages build it here, from the stored row and its client link.
import type { ClientLinkRow } from '../client-links/client-links.entry.ts';
import type { ListingItemType, ListingType } from './listings.schemas.ts';
import type { ListingItemRow, ListingRow } from './listings.repository.ts';

export type ListingSerializer = (row: ListingRow, link: ClientLinkRow | undefined) => ListingType;

/** The client gallery's address for a link token. */
export const galleryUrl = (publicUrl: string, token: string): string => `${publicUrl}/g/${token}`;

export function listingSerializer(publicUrl: string): ListingSerializer {
  return (row, link) => ({
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
          },
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
