// Table types of docs/api.md §32 (the listing kit), beside schema.ts.
import type { Generated } from 'kysely';

/** A kit row's status; a gallery without a row has none. */
export type KitStatus = 'building' | 'ready' | 'failed' | 'stale';

/** Every item a kit may hold, as stored: the three social images are an item each. */
export const KIT_ITEM_NAMES = [
  'mls_zip',
  'flyer',
  'social_square',
  'social_portrait',
  'social_story',
  'slideshow',
  'slideshow_unbranded',
  'reel',
  'teaser',
] as const;
export type KitItemName = (typeof KIT_ITEM_NAMES)[number];

export interface ListingKitsTable {
  listing_id: string;
  account_id: string;
  status: KitStatus;
  built_at: string | null;
  /** What the last build was made from: a hash of the gallery's facts, photos, order, captions, cover. */
  fingerprint: string | null;
  /** Why the last build failed (the log's words; never shown to clients). */
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ListingKitItemsTable {
  listing_id: string;
  name: KitItemName;
  account_id: string;
  /** Owns its bytes in media storage, as a variant's row does (media.cleanup.ts). */
  storage_key: string;
  content_type: string;
  /** PostgreSQL's bigint comes back as a string. */
  size: number | string;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  created_at: string;
}

export interface AccountKitColumns {
  /** docs/api.md §32: the flyer's paper; null: KIT_PAPER. */
  kit_paper: Generated<'letter' | 'a4' | null>;
}
