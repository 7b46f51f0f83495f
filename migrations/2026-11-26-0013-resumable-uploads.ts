// Frozen: never import application code here, never edit once released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // docs/api.md §16: one row per tus upload, from its creation until it expires. Its bytes are owned
  // by a media_cleanup row (due when it expires) until the row's media_id is set in the
  // transaction that makes it a media row. No foreign key to the gallery: deleting a gallery
  // hands its unfinished uploads to the expiry job, which needs the row to find the bytes.
  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('listing_id', 'text', (c) => c.notNull())
    // The MediaStorage key of the bytes: the media row's storage_key once complete.
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('length', 'bigint', (c) => c.notNull())
    // The tus server's record of the upload (JSON), kept here so that every node sees it.
    .addColumn('info', 'text')
    // On S3: the parts stored so far (JSON [{PartNumber, ETag, Size}]), so that no node needs
    // ListParts (which not every S3-compatible server has).
    .addColumn('parts', 'text')
    .addColumn('media_id', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // A lease lock shared by every node (one request writes an upload at a time).
    .addColumn('lock_token', 'text')
    .addColumn('lock_until', 'text')
    .addColumn('release_wanted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_listing_idx').on('uploads').columns(['account_id', 'listing_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('uploads').execute();
}
