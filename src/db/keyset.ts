// Keyset pagination (docs/api.md §19): the rows strictly after a position in a list ordered
// by (sort column, id), both ascending or both descending. A row-value comparison, which both
// dialects answer with a range scan of an index on (..., sort column, id): a page costs the same
// at any depth, and rows created or deleted elsewhere in the list never shift it.
import { sql, type RawBuilder } from 'kysely';
import { cursorCodec, type CursorCodec, type Position } from '../lib/cursor.ts';
import type { Db } from './database.ts';

export function keysetAfter(sortColumn: string, idColumn: string, desc: boolean, after: Position): RawBuilder<boolean> {
  const op = desc ? sql.raw('<') : sql.raw('>');
  return sql<boolean>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) ${op} (${after.value}, ${after.id})`;
}

/** The deployment's cursor codec, its secret (made by a migration) read once per database handle. */
const codecs = new WeakMap<object, Promise<CursorCodec>>();

export function listCursors(db: Db): Promise<CursorCodec> {
  let codec = codecs.get(db.kysely);
  if (codec === undefined) {
    codec = db.kysely
      .selectFrom('instance_secrets')
      .select('value')
      .where('name', '=', 'list_cursor')
      .executeTakeFirstOrThrow()
      .then((row) => cursorCodec(row.value));
    codec.catch(() => codecs.delete(db.kysely));
    codecs.set(db.kysely, codec);
  }
  return codec;
}
