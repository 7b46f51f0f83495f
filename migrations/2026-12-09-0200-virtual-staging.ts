// Frozen: never import application code here, never edit once released.
// docs/api.md §31: a photo can be marked as virtually staged (0 or 1, default 0) and point at the
// unstaged photo of the same gallery it was made from (null when none, or once that photo is
// deleted: the service clears it in the deletion's transaction, so no foreign key here). A variant
// row's `mark` records `staged` on a large or mls variant that carries the "Virtually staged" label.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('media')
    .addColumn('virtually_staged', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('media').addColumn('original_media_id', 'text').execute();
  await db.schema.createIndex('media_original_media_id').on('media').column('original_media_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('media_original_media_id').execute();
  await db.schema.alterTable('media').dropColumn('original_media_id').execute();
  await db.schema.alterTable('media').dropColumn('virtually_staged').execute();
}
