import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Rows a worker claims: on PostgreSQL, locked and skipping rows another worker holds, so
 * several processes share the work without waiting on each other. SQLite has one writer at a
 * time, so a single UPDATE ... WHERE id IN (SELECT ...) is already exclusive there.
 */
export function skipLocked<DB, TB extends keyof DB, O>(
  dialect: Dialect,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * A row read to be changed in this transaction: locked on PostgreSQL until it ends, so changes
 * that must not interleave (a gallery's media positions) run one after another. SQLite has one
 * writer at a time already.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  dialect: Dialect,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * Holds every writer of `table` off until the transaction ends (they wait, then carry on), so
 * a rewrite of the whole table from other tables' rows cannot interleave with their changes.
 * SQLite's one writer at a time already gives a write transaction this.
 */
export async function lockTableForRewrite(
  db: Kysely<Database>,
  dialect: Dialect,
  table: keyof Database,
): Promise<void> {
  if (dialect === 'postgres') await sql`lock table ${sql.table(table)} in exclusive mode`.execute(db);
}

/**
 * `column IN (locking subquery)` for a claim. On PostgreSQL `id IN (subquery)` may be planned as a
 * semi-join that re-runs the locking subquery for every outer row, claiming far past its LIMIT;
 * `= any(array(subquery))` runs it once.
 */
export function inClaimed(
  dialect: Dialect,
  column: Expression<string>,
  claimed: Expression<{ id: string }>,
): Expression<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`${column} = any(array(${claimed}))`
    : sql<SqlBool>`${column} in (${claimed})`;
}
