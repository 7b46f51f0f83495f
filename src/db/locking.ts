import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
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
