import { sql, type RawBuilder } from 'kysely';

/** LIKE pattern for a literal substring: `%`, `_` and `\` in the term match themselves. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `column LIKE '%term%' ESCAPE '\'`, the same on SQLite and PostgreSQL (case-sensitive on
 * PostgreSQL, so callers compare against a lower-cased column with a lower-cased term). */
export function likeContains(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${containsPattern(term)} escape '\\'`;
}
