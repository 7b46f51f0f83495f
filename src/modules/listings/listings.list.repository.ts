// GET /v1/listings with docs/api.md §19's filters, sorts and cursors. Each filter and sort has an index
// that serves it (migrations 0001 and 0016; plans in docs/query-plans.md): the account's galleries
// are never scanned nor sorted whole, and a page by cursor starts at its position in the index.
// The plain list (status or nothing, newest first, by page) keeps its prepared queries
// (listings.repository.ts), which also skip deep offsets on the index alone.
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import { listingSearch } from '../../db/listing-search.ts';
import type { ListingStatus } from '../../db/schema.ts';
import type { Position } from '../../lib/cursor.ts';
import { LIST_ITEM_COLUMNS, type ListingItemRow } from './listings.repository.ts';

export interface ListingSort {
  column: 'created_at' | 'updated_at';
  desc: boolean;
}

export interface ListingQuery {
  status?: ListingStatus | undefined;
  /** A client's id, or null for unassigned galleries. */
  clientId?: string | null | undefined;
  /** Compared case-insensitively (lower() on both sides). */
  mlsNumber?: string | undefined;
  /** Lower-cased by the caller. */
  search?: string | undefined;
  createdSince?: string | undefined;
  updatedSince?: string | undefined;
  sort: ListingSort;
}

export type ListingListRow = ListingItemRow & { updated_at: string };

function filtered(db: Executor, dialect: Dialect, accountId: string, q: ListingQuery) {
  let query = db.selectFrom('listings').where('account_id', '=', accountId);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.clientId === null) query = query.where('client_id', 'is', null);
  else if (q.clientId !== undefined) query = query.where('client_id', '=', q.clientId);
  if (q.mlsNumber !== undefined) {
    const mls = q.mlsNumber;
    query = query.where((eb) => eb(eb.fn('lower', ['mls_number']), '=', eb.fn('lower', [eb.val(mls)])));
  }
  if (q.createdSince !== undefined) query = query.where('created_at', '>=', q.createdSince);
  if (q.updatedSince !== undefined) query = query.where('updated_at', '>=', q.updatedSince);
  if (q.search !== undefined) query = query.where(listingSearch(db, dialect, accountId, q.search));
  return query;
}

export async function queryListings(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  q: ListingQuery,
  page: { fetch: number; offset: number; after: Position | undefined },
): Promise<ListingListRow[]> {
  const { column, desc } = q.sort;
  const direction = desc ? 'desc' : 'asc';
  let query = filtered(db, dialect, accountId, q).select([...LIST_ITEM_COLUMNS, 'updated_at']);
  if (page.after !== undefined) query = query.where(keysetAfter(column, 'id', desc, page.after));
  return query.orderBy(column, direction).orderBy('id', direction).limit(page.fetch).offset(page.offset).execute();
}

export async function countListings(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  q: ListingQuery,
): Promise<number> {
  const row = await filtered(db, dialect, accountId, q)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
