// Gallery search (docs/api.md §19): a case-insensitive literal substring of the address or
// the MLS number, indexed on both dialects as the clients' search is (src/db/search.ts,
// decisions/0005): an FTS5 trigram index on SQLite (case folded by FTS5), pg_trgm GIN indexes
// over lower() on PostgreSQL. Terms under three characters have no trigram: a LIKE over the
// account's galleries (linear in that account's galleries, never in the whole table).
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Dialect } from './database.ts';
import type { Executor } from './executor.ts';
import { containsPattern } from './like.ts';
import { ftsPhrase, MIN_INDEXED_TERM } from './search.ts';

const characters = (term: string): number => (term.match(/./gsu) ?? []).length;

/** A condition on `listings` (unqualified columns): its row matches the lower-cased `term`. */
export function listingSearch(db: Executor, dialect: Dialect, accountId: string, term: string): Expression<SqlBool> {
  const pattern = containsPattern(term);
  if (dialect === 'sqlite') {
    if (characters(term) >= MIN_INDEXED_TERM) {
      const matches = db
        .selectFrom('listings_fts')
        .crossJoin('listings_search_keys as k')
        .whereRef('k.rowid', '=', 'listings_fts.rowid')
        .where('listings_fts.listings_fts', 'match', ftsPhrase(term))
        .where('k.account_id', '=', accountId)
        .select('k.listing_id');
      return sql<SqlBool>`${sql.ref('listings.id')} in (${matches})`;
    }
    // SQLite's LIKE folds ASCII case itself.
    return sql<SqlBool>`(${sql.ref('address')} like ${pattern} escape '\\' or ${sql.ref('mls_number')} like ${pattern} escape '\\')`;
  }
  return sql<SqlBool>`(lower(${sql.ref('address')}) like ${pattern} escape '\\' or lower(${sql.ref('mls_number')}) like ${pattern} escape '\\')`;
}
