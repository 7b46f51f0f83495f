import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { prepared, preparedShapes } from '../../db/prepared.ts';
import type { ListingStatus, ListingsTable } from '../../db/schema.ts';

export type ListingRow = Selectable<ListingsTable>;

export const LIST_ITEM_COLUMNS = [
  'id',
  'address',
  'beds',
  'baths',
  'sqft',
  'status',
  'client_id',
  'created_at',
] as const;
export type ListingItemRow = Pick<ListingRow, (typeof LIST_ITEM_COLUMNS)[number]>;

/**
 * Every column, named: a prepared statement runs as a named statement on PostgreSQL, whose
 * result type is fixed when a connection first prepares it, so `*` would break a running node's
 * pooled connections the moment another node's migration added a column. `satisfies` fails to
 * compile when a column is added to the table and not here.
 */
const LISTING_COLUMNS = Object.keys({
  id: true,
  account_id: true,
  client_id: true,
  address: true,
  beds: true,
  baths: true,
  sqft: true,
  status: true,
  description: true,
  mls_number: true,
  media_count: true,
  cover_media_id: true,
  tours: true,
  mls_profile_id: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof ListingsTable, true>) as (keyof ListingsTable)[];

type NewListing = Required<
  Pick<
    Insertable<ListingsTable>,
    | 'id'
    | 'account_id'
    | 'client_id'
    | 'address'
    | 'beds'
    | 'baths'
    | 'sqft'
    | 'status'
    | 'description'
    | 'mls_number'
    | 'created_at'
    | 'updated_at'
  >
>;

// The hot paths' queries are compiled once (src/db/prepared.ts); their shape never changes.
// Every column is named, so the compiled statement takes each value from the call's row.
const insertQuery = prepared((db, row: NewListing) =>
  db
    .insertInto('listings')
    .values({
      id: row.id,
      account_id: row.account_id,
      client_id: row.client_id,
      address: row.address,
      beds: row.beds,
      baths: row.baths,
      sqft: row.sqft,
      status: row.status,
      description: row.description,
      mls_number: row.mls_number,
      created_at: row.created_at,
      updated_at: row.updated_at,
    })
    .returning(LISTING_COLUMNS),
);

export async function insertListing(db: Executor, row: NewListing): Promise<ListingRow> {
  const inserted = await insertQuery.first(db, row);
  if (inserted === undefined) throw new Error('insert into listings returned no row');
  return inserted;
}

const findQuery = prepared((db, p: { accountId: string; id: string }) =>
  db.selectFrom('listings').select(LISTING_COLUMNS).where('account_id', '=', p.accountId).where('id', '=', p.id),
);

export async function findListing(db: Executor, accountId: string, id: string): Promise<ListingRow | undefined> {
  return findQuery.first(db, { accountId, id });
}

// A gallery read to be changed, locked until the transaction ends on PostgreSQL (SQLite has one
// writer at a time): one compiled statement per dialect. Registered as the unit of work's
// `lock: { listing }` (src/services.ts), which takes it in its canonical lock order; no body takes it.
const lockQueries = {
  postgres: prepared((db, p: { accountId: string; id: string }) =>
    db
      .selectFrom('listings')
      .select(LISTING_COLUMNS)
      .where('account_id', '=', p.accountId)
      .where('id', '=', p.id)
      .forUpdate(),
  ),
  sqlite: findQuery,
};

export function lockListing(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  id: string,
): Promise<ListingRow | undefined> {
  return lockQueries[dialect].first(db, { accountId, id });
}

export interface ListingFilter {
  status?: ListingStatus | undefined;
}

/** From this offset on, a page reads its ids from the index first (see listListings). */
const DEEP_OFFSET = 1000;

type PageParams = {
  accountId: string;
  status: ListingStatus;
  limit: number;
  offset: number;
};

// The order is that of the (account_id, [status,] created_at, id) indexes, so no sort.
const inOrder = <T extends 'id' | (typeof LIST_ITEM_COLUMNS)[number]>(
  db: Executor,
  columns: readonly T[],
  p: PageParams,
  byStatus: boolean,
) => {
  let q = db.selectFrom('listings').select(columns).where('account_id', '=', p.accountId);
  if (byStatus) q = q.where('status', '=', p.status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(p.limit).offset(p.offset);
};

// A deep page skips its offset on the index alone (PostgreSQL: an index-only scan, instead of
// reading every skipped row from the table), then reads just its own rows.
const deepPage = (db: Executor, p: PageParams, byStatus: boolean) =>
  db
    .selectFrom(inOrder(db, ['id'], p, byStatus).as('p'))
    .innerJoin('listings as l', 'l.id', 'p.id')
    .select(LIST_ITEM_COLUMNS.map((column) => `l.${column}` as const))
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc');

// One compiled query per shape: with or without a status, shallow or deep.
const pageQueries = {
  all: prepared((db, p: PageParams) => inOrder(db, LIST_ITEM_COLUMNS, p, false)),
  byStatus: prepared((db, p: PageParams) => inOrder(db, LIST_ITEM_COLUMNS, p, true)),
  deepAll: prepared((db, p: PageParams) => deepPage(db, p, false)),
  deepByStatus: prepared((db, p: PageParams) => deepPage(db, p, true)),
};

export async function listListings(
  db: Executor,
  accountId: string,
  filter: ListingFilter,
  page: { limit: number; offset: number },
): Promise<ListingItemRow[]> {
  const deep = page.offset >= DEEP_OFFSET;
  const byStatus = filter.status !== undefined;
  const query = deep
    ? byStatus
      ? pageQueries.deepByStatus
      : pageQueries.deepAll
    : byStatus
      ? pageQueries.byStatus
      : pageQueries.all;
  // Without a filter, `status` is a placeholder the query does not use.
  return query.all(db, { accountId, status: filter.status ?? 'active', limit: page.limit, offset: page.offset });
}

const ofClientQuery = prepared((db, p: { accountId: string; clientId: string }) =>
  db
    .selectFrom('listings')
    .select(LIST_ITEM_COLUMNS)
    .where('account_id', '=', p.accountId)
    .where('client_id', '=', p.clientId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc'),
);

export async function listListingsOfClient(
  db: Executor,
  accountId: string,
  clientId: string,
): Promise<ListingItemRow[]> {
  return ofClientQuery.all(db, { accountId, clientId });
}

type ListingPatch = Updateable<ListingsTable>;
type PatchParams = Record<string, string | number | null>;

// One compiled update per set of columns it changes, with or without the status it expects.
const updateQueries = preparedShapes((shape: string) => (db, p: PatchParams) => {
  const [set = '', expect] = shape.split('|');
  const columns = set.split(',') as (keyof ListingsTable)[];
  let q = db
    .updateTable('listings')
    .set(Object.fromEntries(columns.map((column) => [column, p[column]])) as ListingPatch)
    .where('account_id', '=', p['__account'] as string)
    .where('id', '=', p['__id'] as string);
  if (expect !== undefined) q = q.where('status', '=', p['__status'] as ListingStatus);
  return q.returning(LISTING_COLUMNS);
});

/** How many galleries the client has (exact: docs/api.md §19 caps only GET /v1/listings' totals). */
export async function countListingsOfClient(db: Executor, accountId: string, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('listings')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Updates the gallery; with `expectStatus`, only while its status is still that one (undefined
 * otherwise), so a status change knows exactly which count it moves from.
 */
export async function updateListing(
  db: Executor,
  accountId: string,
  id: string,
  patch: Updateable<ListingsTable>,
  expectStatus?: ListingStatus,
): Promise<ListingRow | undefined> {
  const params: PatchParams = { __account: accountId, __id: id };
  for (const [column, value] of Object.entries(patch)) if (value !== undefined) params[column] = value; // prettier-ignore
  const columns = Object.keys(params)
    .filter((column) => !column.startsWith('__'))
    .sort();
  if (expectStatus !== undefined) params['__status'] = expectStatus;
  return updateQueries(`${columns.join(',')}${expectStatus === undefined ? '' : '|status'}`).first(db, params);
}

/** The gallery object changed through another table (its client link): its updated_at moves. */
export async function touchListing(db: Executor, accountId: string, id: string, now: string): Promise<void> {
  await db
    .updateTable('listings')
    .set({ updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** Deletes the gallery (its media rows go by cascade); what it held, for the counts. */
export async function deleteListing(
  db: Executor,
  accountId: string,
  id: string,
): Promise<Pick<ListingRow, 'status' | 'media_count'> | undefined> {
  return db
    .deleteFrom('listings')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(['status', 'media_count'])
    .executeTakeFirst();
}

/** Unassigns every gallery of a client (used when the client is deleted). */
export async function unassignListingsOfClient(
  db: Executor,
  accountId: string,
  clientId: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('listings')
    .set({ client_id: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .execute();
}

/**
 * Sets the gallery's client unless it already has that one. Returns false when nothing changed,
 * so two concurrent identical assignments record one notification between them.
 */
export async function assignListing(
  db: Executor,
  accountId: string,
  id: string,
  clientId: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('listings')
    .set({ client_id: clientId, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('client_id', 'is', null), eb('client_id', '<>', clientId)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Clears the gallery's client if it is `clientId`; false when it was not assigned to them. */
export async function unassignListing(
  db: Executor,
  accountId: string,
  id: string,
  clientId: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('listings')
    .set({ client_id: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
