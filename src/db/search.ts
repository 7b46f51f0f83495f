// Client search by substring, indexed on both dialects (decisions/0005). The contract: a
// case-insensitive substring of the name or the email, `%` and `_` (and `\`) matching
// themselves. Both sides are lower-cased by JavaScript (name_normalized, email_normalized and
// the term), so matching here is exact substring matching of lower-cased text:
// - SQLite: an FTS5 trigram index (case_sensitive 1, so FTS5 folds nothing itself), queried as
//   a phrase: consecutive trigrams are exactly a substring. The FTS query language sees only a
//   quoted string, so `%`, `_` and `\` are plain characters.
// - PostgreSQL: pg_trgm GIN indexes serve `LIKE '%term%'`; the index finds candidates and
//   PostgreSQL rechecks the LIKE, so the answer is the LIKE's.
// Terms under three characters have no trigram: they are a LIKE over the account's clients
// (linear in that account's clients, never in the whole table).
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from './database.ts';
import type { Executor } from './executor.ts';
import { likeContains } from './like.ts';
import type { Database } from './schema.ts';

/** Trigrams are of characters (code points), not UTF-16 units. */
export const MIN_INDEXED_TERM = 3;
const characters = (term: string): number => (term.match(/./gsu) ?? []).length;

/** An FTS5 query that matches `term` as one literal phrase. */
export const ftsPhrase = (term: string): string => `"${term.replaceAll('"', '""')}"`;

interface Match {
  id: string;
  created_at: string;
}
export type ClientMatches = SelectQueryBuilder<Database & { m: Match }, 'm', Match>;

/**
 * The account's clients whose lower-cased name or email contains the lower-cased `term`, as
 * `{ id, created_at }`, for the caller to order, page and count. On SQLite with an indexed term,
 * the rows come from the search index alone (no read of `clients`).
 */
export function clientMatches(db: Executor, dialect: Dialect, accountId: string, term: string): ClientMatches {
  if (dialect === 'sqlite' && characters(term) >= MIN_INDEXED_TERM) {
    // CROSS JOIN pins the join order: the FTS match drives, each match is one keyed lookup.
    const indexed = db
      .selectFrom('clients_fts')
      .crossJoin('clients_search_keys as k')
      .whereRef('k.rowid', '=', 'clients_fts.rowid')
      .where('clients_fts.clients_fts', 'match', ftsPhrase(term))
      .where('k.account_id', '=', accountId)
      .select(['k.client_id as id', 'k.created_at as created_at']);
    return db.selectFrom(indexed.as('m')).select(['m.id', 'm.created_at']);
  }
  const scanned = db
    .selectFrom('clients')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([likeContains('name_normalized', term), likeContains('email_normalized', term)]))
    .select(['id', 'created_at']);
  // Both shapes are one subquery, so callers order, page and count either alike (it is flattened).
  return db.selectFrom(scanned.as('m')).select(['m.id', 'm.created_at']);
}

export interface SearchIndexProblem {
  problem: string;
  n: number;
}

/** What is wrong with the search index (SQLite; PostgreSQL's GIN indexes keep themselves). */
export async function checkClientSearchIndex(db: Executor, dialect: Dialect): Promise<SearchIndexProblem[]> {
  if (dialect !== 'sqlite') return [];
  const { missing, orphaned, stale, keys, indexed } = await sql<{
    missing: number;
    orphaned: number;
    stale: number;
    keys: number;
    indexed: number;
  }>`
    select
      (select count(*) from clients c where not exists
        (select 1 from clients_search_keys k where k.client_id = c.id)) as missing,
      (select count(*) from clients_search_keys k where not exists
        (select 1 from clients c where c.id = k.client_id)) as orphaned,
      (select count(*) from clients_search_keys k join clients c on c.id = k.client_id
        where k.account_id <> c.account_id or k.created_at <> c.created_at) as stale,
      (select count(*) from clients_search_keys) as keys,
      (select count(*) from clients_fts) as indexed
  `
    .execute(db)
    .then((r) => r.rows[0] ?? { missing: 0, orphaned: 0, stale: 0, keys: 0, indexed: 0 });
  const problems: SearchIndexProblem[] = [];
  if (missing > 0) problems.push({ problem: 'clients missing from the search index', n: missing });
  if (orphaned > 0) problems.push({ problem: 'search index keys of deleted clients', n: orphaned });
  if (stale > 0) problems.push({ problem: 'search index keys with a wrong account or time', n: stale });
  if (indexed !== keys) problems.push({ problem: 'search index rows not matching its keys', n: indexed - keys });
  return problems;
}

/**
 * FTS5's own check of its index structure. Run outside a read snapshot: it is an INSERT command
 * to SQLite, so it takes the write lock (waiting its turn like any writer).
 */
export async function verifyClientSearchIndex(db: Executor, dialect: Dialect): Promise<SearchIndexProblem[]> {
  if (dialect !== 'sqlite') return [];
  try {
    await sql`insert into clients_fts (clients_fts, rank) values ('integrity-check', 0)`.execute(db);
    return [];
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) {
      return [{ problem: 'search index failed its integrity check', n: 1 }];
    }
    throw err;
  }
}

/** Rebuilds the search index from `clients` (SQLite; nothing to do on PostgreSQL). */
export async function rebuildClientSearchIndex(db: Executor, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`insert into clients_fts (clients_fts) values ('delete-all')`.execute(db);
  await sql`delete from clients_search_keys`.execute(db);
  await sql`
    insert into clients_search_keys (client_id, account_id, created_at)
    select id, account_id, created_at from clients order by created_at, id
  `.execute(db);
  await sql`
    insert into clients_fts (rowid, name, email)
    select k.rowid, c.name_normalized, c.email_normalized
    from clients_search_keys k join clients c on c.id = k.client_id
  `.execute(db);
}

/**
 * Merges the search index into one segment, as a bulk load should end (SQLite: a search then
 * reads one b-tree per trigram instead of one per segment; PostgreSQL's GIN needs nothing).
 * Ordinary writes keep it merged incrementally (FTS5 automerge).
 */
export async function optimizeClientSearchIndex(db: Executor, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await sql`insert into clients_fts (clients_fts) values ('optimize')`.execute(db);
}
