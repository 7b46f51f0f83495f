// The one serializer of the media object (docs/api.md §6 and §13): the API, webhook events and pages
// all build it here, from the stored row and its variant rows.
import type { MediaType } from './media.schemas.ts';
import type { MediaRow, VariantRow } from './media.repository.ts';
import { analysisOfRow } from '../analysis/analysis.serializer.ts';

export type MediaSerializer = (row: MediaRow, variants: readonly VariantRow[]) => MediaType;

export function mediaSerializer(publicUrl: string): MediaSerializer {
  return (row, variants) => {
    const base = `${publicUrl}/v1/listings/${row.listing_id}/media/${row.id}`;
    const variant = (name: VariantRow['name']) => {
      // Each is null until the media's variants are ready (docs/api.md §13, §25).
      const v = row.variants_status === 'ready' ? variants.find((x) => x.name === name) : undefined;
      return v === undefined
        ? null
        : {
            url: `${base}/variants/${name}`,
            content_type: v.content_type as 'image/webp' | 'image/jpeg' | 'video/mp4',
            width: v.width,
            height: v.height,
            size: v.size,
          };
    };
    return {
      id: row.id,
      listing_id: row.listing_id,
      kind: row.kind,
      filename: row.filename,
      content_type: row.content_type,
      size: row.size,
      sha256: row.sha256,
      width: row.width,
      height: row.height,
      position: row.position,
      caption: row.caption,
      hidden: row.hidden !== 0,
      virtually_staged: row.virtually_staged !== 0,
      original_media_id: row.original_media_id,
      variants:
        row.variants_status === null
          ? null
          : row.kind === 'video'
            ? // `web` stays null when ready if the original plays as it is (docs/api.md §25).
              { status: row.variants_status, poster: variant('poster'), web: variant('web') }
            : {
                status: row.variants_status,
                thumb: variant('thumb'),
                large: variant('large'),
                mls: variant('mls'),
              },
      analysis: analysisOfRow(row),
      // docs/api.md §30: written by the model stage from the room and the objects.
      alt_text: row.alt_text,
      created_at: row.created_at,
      content_url: `${base}/content`,
    };
  };
}

/** Groups variant rows by their media id. */
export function variantsByMedia(rows: readonly VariantRow[]): Map<string, VariantRow[]> {
  const map = new Map<string, VariantRow[]>();
  for (const row of rows) {
    const list = map.get(row.media_id);
    if (list === undefined) map.set(row.media_id, [row]);
    else list.push(row);
  }
  return map;
}
