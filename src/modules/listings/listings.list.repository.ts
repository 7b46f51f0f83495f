// GET /v1/listings with docs/api.md §19's filters, sorts and cursors. Each filter and sort has an index
// that serves it (migrations 0001 and 0016; plans in docs/query-plans.md): the account's galleries
// are never scanned nor sorted whole, and a page by cursor starts at its position in the index.
// The plain list (status or nothing, newest first, by page) keeps its prepared queries
// (listings.repository.ts), which also skip deep offsets on the index alone.
//
// What a filtered page costs does not grow with the account (docs/query-plans.md has the figures):
// - `total` counts at most COUNT_CAP + 1 matches (docs/api.md §19): an exact count is linear in
//   the matches, and these filters have no maintained count. A search's total counts through the
//   page (the service makes it from the page); the capped count still chooses its plan here.
// - Every shape of query is compiled once and prepared (src/db/prepared.ts), but for a search,
//   a range or an MLS number on PostgreSQL: building it with Kysely on each request cost as much
//   as running it.
// - `search` on SQLite: the FTS5 index drives (matches, then each one's keyed row), so a rare term
//   costs its few matches. A term more than COUNT_CAP galleries match is frequent: the page then
//   walks the order's index and keeps the rows whose address or MLS number contains it (about
//   limit / frequency rows read), instead of reading and sorting every match. A term under three
//   characters has no trigram: a LIKE over the account's galleries, as before.
// - `search` on PostgreSQL: pg_trgm GIN indexes on lower(address) and lower(mls_number) serve the
//   LIKE (migration 0016); the planner chooses between them and the order's index.
import { sql, type Compilable, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { keysetAfter } from '../../db/keyset.ts';
import { containsPattern } from '../../db/like.ts';
import { prepared, type PreparedQuery } from '../../db/prepared.ts';
import type { Database, ListingStatus } from '../../db/schema.ts';
import { ftsPhrase, MIN_INDEXED_TERM } from '../../db/search.ts';
import type { Total } from '../../lib/cursor-page.ts';
import { COUNT_CAP } from '../../lib/pagination.ts';
import type { Position } from '../../lib/cursor.ts';
import { LIST_ITEM_COLUMNS, type ListingItemRow } from './listings.repository.ts';

interface ListingSort {
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

interface PageWindow {
  fetch: number;
  offset: number;
  after: Position | undefined;
}

/**
 * How a search is answered: by the SQLite FTS index; by a LIKE on each row read; by `walk`, the
 * LIKE with the FTS index asked about the rows LIKE cannot judge (SQLite, an ASCII term); or none.
 */
type SearchWay = 'index' | 'like' | 'walk' | undefined;

/** What decides a query's SQL text (never its values). */
interface Shape {
  status: boolean;
  client: 'id' | 'none' | undefined;
  mls: boolean;
  search: SearchWay;
  createdSince: boolean;
  updatedSince: boolean;
  column: 'created_at' | 'updated_at';
  desc: boolean;
  after: boolean;
}

type Params = {
  accountId: string;
  status: string;
  clientId: string;
  mls: string;
  phrase: string;
  pattern: string;
  createdSince: string;
  updatedSince: string;
  afterValue: string;
  afterId: string;
  fetch: number;
  offset: number;
  /** How far a count goes: COUNT_CAP + 1, or all of a search's matches before an empty page. */
  cap: number;
};

type ListingsFrom = SelectQueryBuilder<Database & { l: Database['listings'] }, 'l', object>;

const characters = (term: string): number => (term.match(/./gsu) ?? []).length;

/** The galleries `l` of the account, driven by the FTS index's matches when the search uses it. */
function from(db: Executor, shape: Shape, p: Params): ListingsFrom {
  if (shape.search !== 'index') return db.selectFrom('listings as l').where('l.account_id', '=', p.accountId);
  // CROSS JOIN pins the join order: the FTS match drives, each match is one keyed lookup.
  const matches = db
    .selectFrom('listings_fts')
    .crossJoin('listings_search_keys as k')
    .whereRef('k.rowid', '=', 'listings_fts.rowid')
    .where('listings_fts.listings_fts', 'match', p.phrase)
    .where('k.account_id', '=', p.accountId)
    .select('k.listing_id');
  return db
    .selectFrom(matches.as('m'))
    .crossJoin('listings as l')
    .whereRef('l.id', '=', 'm.listing_id')
    .where('l.account_id', '=', p.accountId);
}

function filtered(db: Executor, dialect: Dialect, shape: Shape, p: Params): ListingsFrom {
  let query = from(db, shape, p);
  if (shape.status) query = query.where('l.status', '=', p.status as ListingStatus);
  if (shape.client === 'none') query = query.where('l.client_id', 'is', null);
  else if (shape.client === 'id') query = query.where('l.client_id', '=', p.clientId);
  if (shape.mls)
    query = query.where((eb) => eb(eb.fn('lower', ['l.mls_number']), '=', eb.fn('lower', [eb.val(p.mls)])));
  if (shape.createdSince) query = query.where('l.created_at', '>=', p.createdSince);
  if (shape.updatedSince) query = query.where('l.updated_at', '>=', p.updatedSince);
  if (shape.search === 'like' || shape.search === 'walk') {
    // SQLite's LIKE folds ASCII case itself; PostgreSQL compares lower-cased text.
    const [address, mls] =
      dialect === 'sqlite'
        ? [sql.ref('l.address'), sql.ref('l.mls_number')]
        : [sql`lower(l.address)`, sql`lower(l.mls_number)`];
    const like = sql<boolean>`${address} like ${p.pattern} escape '\\' or ${mls} like ${p.pattern} escape '\\'`;
    if (shape.search === 'like') query = query.where(sql<boolean>`(${like})`);
    else {
      // The FTS index folds case beyond ASCII (a long s matches "s", a Kelvin sign "k"): for an
      // ASCII term the LIKE agrees with it on every row of ASCII text, and the index itself
      // judges the few rows holding other characters. A text is ASCII when its UTF-8 bytes are
      // as many as its characters: two lengths, cheaper than a GLOB over every row the walk reads.
      const nonAscii = sql<boolean>`(octet_length(l.address) <> length(l.address) or octet_length(l.mls_number) <> length(l.mls_number))`;
      const indexed = db
        .selectFrom('listings_search_keys as k')
        .crossJoin('listings_fts')
        .where('k.account_id', '=', p.accountId)
        .where(sql<boolean>`${sql.ref('k.listing_id')} = ${sql.ref('l.id')}`)
        .whereRef('listings_fts.rowid', '=', 'k.rowid')
        .where('listings_fts.listings_fts', 'match', p.phrase)
        .select(sql<number>`1`.as('one'));
      query = query.where(sql<boolean>`(${like} or (${nonAscii} and exists ${indexed}))`);
    }
  }
  return query;
}

function pageQuery(db: Executor, dialect: Dialect, shape: Shape, p: Params) {
  const direction = shape.desc ? 'desc' : 'asc';
  const column = `l.${shape.column}` as const;
  let query = filtered(db, dialect, shape, p)
    .select(LIST_ITEM_COLUMNS.map((c) => `l.${c}` as const))
    .select('l.updated_at');
  if (shape.after) {
    query = query.where(keysetAfter(column, 'l.id', shape.desc, { value: p.afterValue, id: p.afterId }));
  }
  return query.orderBy(column, direction).orderBy('l.id', direction).limit(p.fetch).offset(p.offset);
}

/** How many match, counting no further than `cap`. */
function countQuery(db: Executor, dialect: Dialect, shape: Shape, p: Params) {
  const onlySearch =
    shape.search === 'index' &&
    !shape.status &&
    shape.client === undefined &&
    !shape.mls &&
    !shape.createdSince &&
    !shape.updatedSince;
  // A search alone is counted on the FTS index and its keys, without reading the galleries.
  const matches: SelectQueryBuilder<Database, keyof Database, { one: number }> = onlySearch
    ? (db
        .selectFrom('listings_fts')
        .crossJoin('listings_search_keys as k')
        .whereRef('k.rowid', '=', 'listings_fts.rowid')
        .where('listings_fts.listings_fts', 'match', p.phrase)
        .where('k.account_id', '=', p.accountId)
        .select(sql<number>`1`.as('one')) as unknown as SelectQueryBuilder<Database, keyof Database, { one: number }>)
    : (filtered(db, dialect, shape, p).select(sql<number>`1`.as('one')) as unknown as SelectQueryBuilder<
        Database,
        keyof Database,
        { one: number }
      >);
  return db
    .selectFrom(countedInOrder(matches, dialect, shape).limit(p.cap).as('c'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/**
 * On PostgreSQL, the capped count of a range or client filter reads the filter's index in order:
 * without an order, the planner takes the filter for most of the account and scans the table (at
 * 100k galleries an `updated_since` count read 1,112 rows from the heap, 0.9 ms, against 0.3 ms
 * from the index; `client_id=none` is the same).
 */
type OrderColumn = 'l.client_id' | 'l.created_at' | 'l.updated_at';

function countedInOrder<Q extends SelectQueryBuilder<Database, keyof Database, { one: number }>>(
  matches: Q,
  dialect: Dialect,
  shape: Shape,
): Q {
  if (dialect !== 'postgres' || shape.search !== undefined) return matches;
  const range: OrderColumn | undefined = shape.updatedSince
    ? 'l.updated_at'
    : shape.createdSince
      ? 'l.created_at'
      : undefined;
  // `client_id IS NULL` is not an equality the planner can drop from an order: name the column.
  const columns: OrderColumn[] = [
    ...(shape.client === undefined ? [] : ['l.client_id' as const]),
    ...(range === undefined ? [] : [range]),
  ];
  if (columns.length === 0) return matches;
  let ordered = (matches as unknown as ListingsFrom).orderBy('l.account_id');
  for (const column of columns) ordered = ordered.orderBy(column);
  return ordered as unknown as Q;
}

// One prepared query per shape (at most a few hundred shapes, a few in use).
const pages = new Map<string, PreparedQuery<Params, ListingListRow>>();
const counts = new Map<string, PreparedQuery<Params, { n: number | string }>>();

/**
 * The shape's query, run prepared where that cannot change its plan for the worse: always on
 * SQLite (its statements are reused by SQL text anyway), and on PostgreSQL unless a range or an
 * MLS number filters it or a term searches it, where a generic plan (a named statement's, after
 * five runs) could not see how many rows match and might walk the whole account for a handful.
 */
function preparedOf<R>(
  cache: Map<string, PreparedQuery<Params, R>>,
  shape: Shape,
  dialect: Dialect,
  build: (db: Executor, p: Params) => Compilable<R>,
): { all(db: Executor, p: Params): Promise<R[]>; first(db: Executor, p: Params): Promise<R | undefined> } {
  if (dialect === 'postgres' && (shape.createdSince || shape.updatedSince || shape.mls || shape.search)) {
    return {
      all: async (db, p) => (await db.executeQuery<R>(build(db, p).compile())).rows,
      first: async (db, p) => (await db.executeQuery<R>(build(db, p).compile())).rows[0],
    };
  }
  const key = `${dialect} ${JSON.stringify(shape)}`;
  let query = cache.get(key);
  if (query === undefined) {
    query = prepared<Params, R>(build);
    cache.set(key, query);
  }
  return query;
}

function shapeOf(q: ListingQuery, after: boolean, search: SearchWay): Shape {
  return {
    status: q.status !== undefined,
    client: q.clientId === null ? 'none' : q.clientId === undefined ? undefined : 'id',
    mls: q.mlsNumber !== undefined,
    search,
    createdSince: q.createdSince !== undefined,
    updatedSince: q.updatedSince !== undefined,
    column: q.sort.column,
    desc: q.sort.desc,
    after,
  };
}

function paramsOf(accountId: string, q: ListingQuery, page: PageWindow): Params {
  return {
    accountId,
    status: q.status ?? '',
    clientId: q.clientId ?? '',
    mls: q.mlsNumber ?? '',
    phrase: q.search === undefined ? '' : ftsPhrase(q.search),
    pattern: q.search === undefined ? '' : containsPattern(q.search),
    createdSince: q.createdSince ?? '',
    updatedSince: q.updatedSince ?? '',
    afterValue: page.after?.value ?? '',
    afterId: page.after?.id ?? '',
    fetch: page.fetch,
    offset: page.offset,
    cap: COUNT_CAP + 1,
  };
}

const totalOf = (n: number | string): Total => {
  const counted = Number(n);
  return counted > COUNT_CAP ? { n: COUNT_CAP, exact: false } : { n: counted, exact: true };
};

/** A page of the account's galleries matching `q`, which has no `search`, without a total. */
export async function listingRows(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  q: Omit<ListingQuery, 'search'>,
  page: PageWindow,
): Promise<ListingListRow[]> {
  const shape = shapeOf(q, page.after !== undefined, undefined);
  return preparedOf(pages, shape, dialect, (d, x) => pageQuery(d, dialect, shape, x)).all(
    db,
    paramsOf(accountId, q, page),
  );
}

/**
 * A page of the account's galleries matching `q` (one row more than its limit) and its total: a
 * search's total is the caller's to make from the page (docs/api.md §19: it counts through the
 * page), unless `count` asks for the capped count (the dashboard's), or a page by number lies
 * past the end (all the matches are then before it: they are counted, exactly).
 */
export async function queryListings(
  db: Executor,
  dialect: Dialect,
  accountId: string,
  q: ListingQuery,
  page: PageWindow,
  options: { count?: boolean } = {},
): Promise<{ rows: ListingListRow[]; total: Total | undefined }> {
  const p = paramsOf(accountId, q, page);
  const after = page.after !== undefined;
  if (q.search === undefined) {
    const shape = shapeOf(q, after, undefined);
    const rows = await preparedOf(pages, shape, dialect, (d, x) => pageQuery(d, dialect, shape, x)).all(db, p);
    // A page by number that holds the last match, and is not past the end, tells the total itself
    // (an incremental sync's usual answer): no count.
    if (!after && rows.length < page.fetch && (page.offset === 0 || rows.length > 0)) {
      return { rows, total: totalOf(page.offset + rows.length) };
    }
    const counted = await preparedOf(counts, shape, dialect, (d, x) => countQuery(d, dialect, shape, x)).first(db, p);
    return { rows, total: totalOf(counted?.n ?? 0) };
  }
  const indexed = dialect === 'sqlite' && characters(q.search) >= MIN_INDEXED_TERM;
  const counting = shapeOf(q, after, indexed ? 'index' : 'like');
  const counted = await preparedOf(counts, counting, dialect, (d, x) => countQuery(d, dialect, counting, x)).first(
    db,
    p,
  );
  const total = totalOf(counted?.n ?? 0);
  // A frequent ASCII term walks the order's index; a rare one (or one with other characters, which
  // only the index folds) reads its matches from the index and sorts them.
  // eslint-disable-next-line no-control-regex
  const walk = indexed && !total.exact && /^[\x00-\x7f]*$/.test(q.search);
  const shape = walk ? { ...counting, search: 'walk' as const } : counting;
  const rows = await preparedOf(pages, shape, dialect, (d, x) => pageQuery(d, dialect, shape, x)).all(db, p);
  if (options.count === true) return { rows, total };
  if (!after && page.offset > 0 && rows.length === 0) {
    // Past the end: every match lies before this page (at most `offset` of them).
    const all = { ...p, cap: page.offset + 1 };
    const before = await preparedOf(counts, counting, dialect, (d, x) => countQuery(d, dialect, counting, x)).first(
      db,
      all,
    );
    return { rows, total: { n: Math.min(Number(before?.n ?? 0), page.offset), exact: true } };
  }
  return { rows, total: undefined };
}
