// The one serializer of the share link object (docs/api.md §28): the API, webhook events and pages
// build it here from the stored link.
import { galleryUrl } from '../listings/listings.serializer.ts';
import type { LinkRow } from './client-links.repository.ts';
import type { ShareLinkType } from './share-links.schemas.ts';

export type ShareLinkSerializer = (row: LinkRow) => ShareLinkType;

export function shareLinkSerializer(publicUrl: string): ShareLinkSerializer {
  return (row) => ({
    id: row.id,
    listing_id: row.listing_id,
    label: row.label ?? '',
    email: row.email,
    url: galleryUrl(publicUrl, row.token),
    expires_at: row.expires_at,
    password_protected: row.password_hash !== null,
    downloads_enabled: row.downloads_enabled !== 0,
    favorites_enabled: row.favorites_enabled !== 0,
    selection_min: row.selection_min,
    selection_max: row.selection_max,
    views: row.views,
    downloads: row.downloads,
    favorites_count: row.favorites_count,
    first_viewed_at: row.first_viewed_at,
    last_viewed_at: row.last_viewed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
}
