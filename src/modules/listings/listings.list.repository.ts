// GET /v1/listings with docs/api.md §19's filters, sorts and cursors. Each filter and sort has an index
// that serves it (migrations 0001 and 0016; plans in docs/query-plans.md): the account's galleries
// are never scanned nor sorted whole, and a page by cursor starts at its position in the index.
// The plain list (status or nothing, newest first, by page) keeps its prepared queries
// (listings.repository.ts), which also skip deep offsets on the index alone.
//
// What a filtered page costs does not grow with the account (docs/query-plans.md has the figures):
// - `total` counts at most COUNT_CAP + 1 matches (docs/api.md §19): an exact count is linear in
//   the matches, and these filters have no maintained count.
// - Every shape of query is compiled once and prepared (src/db/prepared.ts), but for a search,
//   a range or an MLS number on PostgreSQL: building it with Kysely on each request cost as much
//   as running it.
// - `search` counts nothing (docs/api.md §19: its total is the matches through the page, which the
//   service makes from the page), so the plan is chosen without a count (decisions/0024): the page
//   first walks the order's index, keeping the rows whose address or MLS number contains the term,
//   but reads at most walkBound() rows; a frequent term fills its page well within that. When the
//   walk comes back short and had more rows to read, the term is rare: the page then reads every
//   match from the trigram index (FTS5 on SQLite, pg_trgm's GIN indexes on PostgreSQL) and sorts
//   them. A term under three characters has no trigram: a LIKE over the account's galleries, as
//   before. On SQLite a term with other than ASCII characters goes to the index at once (only the
//   index folds their case as the contract says).
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
import { readCount } from '../../mechanisms/counts/counts.repository.ts';
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
 * How a search is answered: by the SQLite FTS index; by the PostgreSQL trigram indexes (`trgm`);
 * by a LIKE on each row read; by `walk`, a LIKE on each row of a bounded walk of the order's index
 * (on SQLite, with the FTS index asked about the rows LIKE cannot judge); or none.
 */
type SearchWay = 'index' | 'trgm' | 'like' | 'walk' | undefined;

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
  /** How many rows of the order's index a search's walk reads at most. */
  bound: number;
};

type ListingsFrom = SelectQueryBuilder<Database & { l: Database['listings'] }, 'l', object>;

const characters = (term: string): number => (term.match(/./gsu) ?? []).length;

/** The galleries `l` of the account, driven by the FTS index's matches when the search uses it. */
function from(db: Executor, shape: Shape, p: Params): ListingsFrom {
  if (shape.search === 'trgm') {
    // The matches first, from the GIN indexes: `offset 0` keeps the subquery whole, so the planner
    // cannot fold it into the ordered page and walk the order's index for a rare term instead.
    const matches = db
      .selectFrom('listings as t')
      .where('t.account_id', '=', p.accountId)
      .where(
        sql<boolean>`(lower(t.address) like ${p.pattern} escape '\\' or lower(t.mls_number) like ${p.pattern} escape '\\')`,
      )
      .select('t.id')
      .offset(0);
    return db
      .selectFrom(matches.as('m'))
      .crossJoin('listings as l')
      .whereRef('l.id', '=', 'm.id')
      .where('l.account_id', '=', p.accountId);
  }
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
  if (shape.search === 'like') query = query.where(searched(db, dialect, shape, p));
  return query;
}

/** The search's condition on a gallery `l` (LIKE, and on SQLite's walk the FTS index for the rest). */
function searched(db: Executor, dialect: Dialect, shape: Shape, p: Params) {
  // SQLite's LIKE folds ASCII case itself; PostgreSQL compares lower-cased text.
  const [address, mls] =
    dialect === 'sqlite'
      ? [sql.ref('l.address'), sql.ref('l.mls_number')]
      : [sql`lower(l.address)`, sql`lower(l.mls_number)`];
  const like = sql<boolean>`${address} like ${p.pattern} escape '\\' or ${mls} like ${p.pattern} escape '\\'`;
  if (shape.search !== 'walk' || dialect !== 'sqlite') return sql<boolean>`(${like})`;
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
  return sql<boolean>`(${like} or (${nonAscii} and exists ${indexed}))`;
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
  query = query.orderBy(column, direction).orderBy('l.id', direction);
  if (shape.search !== 'walk') return query.limit(p.fetch).offset(p.offset);
  // The walk: at most `bound` rows of the order's index (a subquery in that order, read as a
  // co-routine on SQLite), of which the page keeps those the search finds, in the same order
  // (neither dialect sorts again: the subquery's order serves the outer one).
  const walked = query.select('l.mls_number').limit(p.bound);
  return db
    .selectFrom(walked.as('l'))
    .select(LIST_ITEM_COLUMNS.map((c) => `l.${c}` as const))
    .select('l.updated_at')
    .where(searched(db, dialect, shape, p))
    .orderBy(column, direction)
    .orderBy('l.id', direction)
    .limit(p.fetch)
    .offset(p.offset);
}

/** How many rows the walk had to read, up to `bound` (fewer: it read all there are). */
function walkedQuery(db: Executor, dialect: Dialect, shape: Shape, p: Params) {
  let query = filtered(db, dialect, shape, p).select(sql<number>`1`.as('one'));
  if (shape.after) {
    const column = `l.${shape.column}` as const;
    query = query.where(keysetAfter(column, 'l.id', shape.desc, { value: p.afterValue, id: p.afterId }));
  }
  return db.selectFrom(query.limit(p.bound).as('w')).select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/**
 * Rows a search's first walk reads before it judges the term. Walking costs the rows read, about
 * (offset + fetch) / f for a term that one gallery in 1/f holds; the index costs the matches. At
 * 1M galleries a first page of 20 reads at most 2,050 rows (about 1-2 ms): a term of one gallery
 * in 100 or more fills it. Deeper pages need more rows, but grow the bound as a square root
 * only: the index's cost does not grow with the page.
 */
const WALK_SCALE = 200_000;
/**
 * What a plan costs, in microseconds, as measured on the bench's 1M SQLite database (issue 36;
 * docs/performance.md): a row the walk reads (0.5-1.6), and the index's fixed cost (the FTS5
 * phrase reads the doclists of the term's trigrams whole: 2-3 ms for any term holding "harbor")
 * and each match's (its key, its gallery row by id and the sort: 10-15).
 */
const WALK_ROW_US = 1;
const INDEX_US = 2_500;
const INDEX_MATCH_US = 12;
export const walkBound = (page: { offset: number; fetch: number }): number =>
  Math.ceil(Math.sqrt((page.offset + page.fetch) * WALK_SCALE));

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
const walks = new Map<string, PreparedQuery<Params, { n: number | string }>>();

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
    bound: walkBound(page),
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
  options: {
    count?: boolean;
    /** Tests: the first walk's bound, and the account's size the plan is judged with (none: no judging). */
    walkBound?: number;
    galleries?: number;
  } = {},
): Promise<{ rows: ListingListRow[]; total: Total | undefined; plan?: SearchPlan }> {
  const p = paramsOf(accountId, q, page);
  if (options.walkBound !== undefined) p.bound = options.walkBound;
  const estimate = { fixed: options.walkBound !== undefined, galleries: options.galleries };
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
  const { rows, plan } = await searchRows(db, dialect, q.search, shapeOf(q, after, undefined), p, estimate);
  // The capped count (SQLite: the FTS index alone when only the term filters).
  const long = characters(q.search) >= MIN_INDEXED_TERM;
  const counting = shapeOf(q, after, dialect === 'sqlite' && long ? 'index' : 'like');
  const count = (cap: number) =>
    preparedOf(counts, counting, dialect, (d, x) => countQuery(d, dialect, counting, x)).first(db, { ...p, cap });
  if (options.count === true) return { rows, total: totalOf((await count(COUNT_CAP + 1))?.n ?? 0), plan };
  if (!after && page.offset > 0 && rows.length === 0) {
    // Past the end: every match lies before this page (at most `offset` of them).
    const before = await count(page.offset + 1);
    return { rows, total: { n: Math.min(Number(before?.n ?? 0), page.offset), exact: true }, plan };
  }
  return { rows, total: undefined, plan };
}

/** Which plan answered a search: the bounded walk, the trigram index, or a LIKE (a short term). */
export type SearchPlan = 'walk' | 'index' | 'like';

/** A search's page: the bounded walk, else the trigram index (see the top of this file). */
async function searchRows(
  db: Executor,
  dialect: Dialect,
  term: string,
  base: Shape,
  p: Params,
  estimate: { fixed: boolean; galleries?: number | undefined },
): Promise<{ rows: ListingListRow[]; plan: SearchPlan }> {
  const run = (shape: Shape, x: Params = p) =>
    preparedOf(pages, shape, dialect, (d, y) => pageQuery(d, dialect, shape, y)).all(db, x);
  const index: Shape = { ...base, search: dialect === 'sqlite' ? 'index' : 'trgm' };
  if (characters(term) < MIN_INDEXED_TERM) return { rows: await run({ ...base, search: 'like' }), plan: 'like' };
  // eslint-disable-next-line no-control-regex
  if (dialect === 'sqlite' && !/^[\x00-\x7f]*$/.test(term)) return { rows: await run(index), plan: 'index' };
  const walk: Shape = { ...base, search: 'walk' };
  /** The walk's page, and whether it is the answer (full, or short having read every row there is). */
  const walked = async (x: Params): Promise<{ rows: ListingListRow[]; answer: boolean }> => {
    const rows = await run(walk, x);
    if (rows.length >= x.fetch) return { rows, answer: true };
    const read = await preparedOf(walks, walk, dialect, (d, y) => walkedQuery(d, dialect, walk, y)).first(db, x);
    return { rows, answer: Number(read?.n ?? 0) < x.bound };
  };
  const first = await walked(p);
  if (first.answer) return { rows: first.rows, plan: 'walk' };
  // The walk came back short: the term is rarer than one row in bound / fetch. What it found (its
  // matches, and those the page skipped) says how rare, so which plan costs less: walking on
  // (again from the start, to twice the rows the page should need), or the index.
  const found = first.rows.length;
  const galleries = estimate.galleries ?? (estimate.fixed ? 0 : await readCount(db, p.accountId, 'listings'));
  if (found > 0 && galleries > 0) {
    const density = (p.offset + found) / p.bound;
    const walkRows = (p.offset + p.fetch) / density;
    if (walkRows * WALK_ROW_US < INDEX_US + INDEX_MATCH_US * density * galleries) {
      const further = await walked({ ...p, bound: Math.ceil(2 * walkRows) });
      if (further.answer) return { rows: further.rows, plan: 'walk' };
    }
  }
  return { rows: await run(index), plan: 'index' };
}
