// docs/api.md §33: the rows of the RESO media feed, every table scoped by the account. A photo is
// in the feed while it is shown (not hidden), its variants are ready and its mls variant is there;
// the feed is ordered by (media.modified_at, media.id) and walked by keyset through
// media_modified_idx (account_id, modified_at, id), or media_listing_modified_idx for one gallery.
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Position } from '../../lib/cursor.ts';
import type { FeedFilter } from './reso.odata.ts';

export interface FeedRow {
  id: string;
  listing_id: string;
  position: number;
  caption: string | null;
  alt_text: string | null;
  analysis_room: string | null;
  modified_at: string;
  width: number;
  height: number;
  mls_number: string | null;
}

export async function feedPage(
  db: Executor,
  accountId: string,
  filter: FeedFilter,
  after: Position | undefined,
  fetch: number,
): Promise<FeedRow[]> {
  let query = db
    .selectFrom('media')
    .innerJoin('media_variants as v', (join) =>
      join.onRef('v.media_id', '=', 'media.id').on('v.account_id', '=', accountId).on('v.name', '=', 'mls'),
    )
    .innerJoin('listings as l', (join) =>
      join.onRef('l.id', '=', 'media.listing_id').on('l.account_id', '=', accountId),
    )
    .select([
      'media.id',
      'media.listing_id',
      'media.position',
      'media.caption',
      'media.alt_text',
      'media.analysis_room',
      'media.modified_at',
      'v.width',
      'v.height',
      'l.mls_number',
    ])
    .where('media.account_id', '=', accountId)
    .where('media.kind', '=', 'photo')
    .where('media.hidden', '=', 0)
    .where('media.variants_status', '=', 'ready');
  for (const id of filter.recordIds) query = query.where('media.listing_id', '=', id);
  for (const key of filter.recordKeys) {
    query = query.where((eb) =>
      eb.or([eb('l.mls_number', '=', key), eb.and([eb('l.mls_number', 'is', null), eb('l.id', '=', key)])]),
    );
  }
  if (filter.after !== undefined) query = query.where('media.modified_at', '>', filter.after);
  if (filter.atOrAfter !== undefined) query = query.where('media.modified_at', '>=', filter.atOrAfter);
  if (after !== undefined) {
    query = query.where(sql<boolean>`(media.modified_at, media.id) > (${after.value}, ${after.id})`);
  }
  const rows = await query.orderBy('media.modified_at').orderBy('media.id').limit(fetch).execute();
  return rows.map((r) => ({ ...r, modified_at: r.modified_at ?? '' }));
}
