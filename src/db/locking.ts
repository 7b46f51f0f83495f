import type { SelectQueryBuilder } from 'kysely';
import type { Dialect } from './database.ts';

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
