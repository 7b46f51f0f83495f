// docs/api.md §33: the rows of the RESO media feed, every table scoped by the account. A photo is
// in the feed while it is shown (not hidden), its variants are ready, its mls variant is there and
// its gallery is not waiting for payment (§29: a locked gallery serves no public byte, so its
// records would only carry MediaURLs that answer 404; its photos' stamps move when it unlocks,
// migration 2026-12-09-0600, so a client syncing by timestamp meets them then);
// the feed is ordered by (media.modified_at, media.id) and walked by keyset through
// media_modified_idx (account_id, modified_at, id), or media_listing_modified_idx for one gallery.
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { Position } from '../../lib/cursor.ts';

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
}

/** What a page is asked for: its galleries (undefined: all of the account's), and its time bounds. */
export interface FeedScope {
  listingIds: string[] | undefined;
  after: string | undefined;
  atOrAfter: string | undefined;
}

/**
 * The galleries whose ResourceRecordKey is `key`: their mls_number, else (without one) their id.
 * Through listings_account_mls_idx and the primary key.
 */
export async function listingsOfRecordKey(db: Executor, accountId: string, key: string): Promise<string[]> {
  const rows = await db
    .selectFrom('listings')
    .select('id')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('mls_number', '=', key), eb.and([eb('mls_number', 'is', null), eb('id', '=', key)])]))
    .execute();
  return rows.map((r) => r.id);
}

/** The mls_number of each of these galleries (null: none), by id. */
export async function mlsNumbersOf(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('listings')
    .select(['id', 'mls_number'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.mls_number]));
}

/** The page's query (reso.plans.test.ts reads its plan on both dialects). */
export function feedQuery(
  db: Executor,
  accountId: string,
  scope: FeedScope,
  after: Position | undefined,
  fetch: number,
) {
  let query = db
    .selectFrom('media')
    .innerJoin('media_variants as v', (join) =>
      join.onRef('v.media_id', '=', 'media.id').on('v.account_id', '=', accountId).on('v.name', '=', 'mls'),
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
    ])
    .where('media.account_id', '=', accountId)
    .where('media.kind', '=', 'photo')
    .where('media.hidden', '=', 0)
    .where('media.variants_status', '=', 'ready')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('invoices as i')
            .select('i.id')
            .where('i.account_id', '=', accountId)
            .whereRef('i.listing_id', '=', 'media.listing_id')
            .where('i.status', '=', 'open')
            .where('i.pay_to_unlock', '=', 1),
        ),
      ),
    );
  if (scope.listingIds !== undefined) query = query.where('media.listing_id', 'in', scope.listingIds);
  if (scope.after !== undefined) query = query.where('media.modified_at', '>', scope.after);
  if (scope.atOrAfter !== undefined) query = query.where('media.modified_at', '>=', scope.atOrAfter);
  if (after !== undefined) {
    query = query.where(sql<boolean>`(media.modified_at, media.id) > (${after.value}, ${after.id})`);
  }
  return query.orderBy('media.modified_at').orderBy('media.id').limit(fetch);
}

export async function feedPage(
  db: Executor,
  accountId: string,
  scope: FeedScope,
  after: Position | undefined,
  fetch: number,
): Promise<FeedRow[]> {
  if (scope.listingIds?.length === 0) return [];
  const rows = await feedQuery(db, accountId, scope, after, fetch).execute();
  return rows.map((r) => ({ ...r, modified_at: r.modified_at ?? '' }));
}
