// Frozen: never import application code here, never edit once released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Media positions come from a per-gallery counter bumped atomically with each upload, so
  // concurrent uploads to one gallery never share a position.
  await db.schema
    .alterTable('listings')
    .addColumn('media_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('media')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('listing_id', 'text', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_listing_position_idx').on('media').columns(['listing_id', 'position']).execute();
  await db.schema.createIndex('media_account_idx').on('media').columns(['account_id', 'listing_id']).execute();

  // Stored objects that must be deleted once `delete_after` passes unless the row is removed
  // first: an upload in flight (removed when its media rows commit) or the bytes of deleted
  // media (due at once). The sweep acts on due rows, so a crash at any point leaves nothing.
  await db.schema
    .createTable('media_cleanup')
    .addColumn('storage_key', 'text', (c) => c.primaryKey())
    .addColumn('delete_after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_cleanup_due_idx').on('media_cleanup').columns(['delete_after']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_cleanup').execute();
  await db.schema.dropTable('media').execute();
  await db.schema.alterTable('listings').dropColumn('media_seq').execute();
}
