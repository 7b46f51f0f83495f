// docs/api.md §33: a feed row as a RESO Data Dictionary Media record.
import type { FeedRow } from './reso.repository.ts';
import type { ResoMediaType } from './reso.schemas.ts';

/** The record; `mlsNumber` its gallery's, `mediaUrl` the photo's mls variant at its gallery's feed link. */
export const toResoMedia = (row: FeedRow, mlsNumber: string | null, mediaUrl: string): ResoMediaType => ({
  MediaKey: row.id,
  ResourceName: 'Property',
  ResourceRecordKey: mlsNumber ?? row.listing_id,
  ResourceRecordID: row.listing_id,
  Order: row.position,
  MediaURL: mediaUrl,
  MediaCategory: 'Photo',
  ImageOf: row.analysis_room,
  ShortDescription: row.caption ?? row.alt_text,
  ImageWidth: row.width,
  ImageHeight: row.height,
  ImageSizeDescription: 'Large',
  MediaModificationTimestamp: row.modified_at,
  Permission: ['Public'],
});
