// Frozen: never import application code here, never edit once released.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // docs/api.md §13: captions, hidden media, and the variant state of each photo.
  await db.schema.alterTable('media').addColumn('caption', 'text').execute();
  await db.schema
    .alterTable('media')
    .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // 'pending' | 'ready' | 'failed' for photos; null for videos and documents.
  await db.schema.alterTable('media').addColumn('variants_status', 'text').execute();

  // The derived sizes of a photo, each an object in storage owned by its row (as the original is
  // owned by its media row), so the cleanup ledger and the sweep know every byte.
  await db.schema
    .createTable('media_variants')
    .addColumn('media_id', 'text', (c) => c.notNull().references('media.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('listing_id', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_variants_pk', ['media_id', 'name'])
    .execute();
  await db.schema.createIndex('media_variants_listing_idx').on('media_variants').columns(['listing_id']).execute();

  // The gallery's cover: one of its photos, or null (then the first visible photo stands in).
  // No foreign key (SQLite could not drop the column again in down()): the media service
  // clears it in the transaction that deletes that photo.
  await db.schema.alterTable('listings').addColumn('cover_media_id', 'text').execute();

  // Positions become 1..n without gaps (deletions used to leave them): renumber in order.
  await sql`
    update media set position = (
      select count(*) from media m2
      where m2.listing_id = media.listing_id
        and (m2.position < media.position or (m2.position = media.position and m2.id <= media.id))
    )
  `.execute(db);
  await db.schema.alterTable('listings').dropColumn('media_seq').execute();

  // Photos uploaded before variants existed: pending, with a job each, so a running service
  // catches up by itself.
  const now = new Date().toISOString();
  await sql`update media set variants_status = 'pending' where kind = 'photo'`.execute(db);
  await sql`
    insert into jobs (id, kind, account_id, subject_id, group_key, run_at, attempts, lease, last_error, created_at, updated_at)
    select 'job_v' || id, 'media.variants', account_id, id, null, ${now}, 0, null, null, ${now}, ${now}
    from media where kind = 'photo'
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from jobs where kind = 'media.variants'`.execute(db);
  // The variants' bytes are left to the sweep (no row owns them once the table is gone).
  await db.schema
    .alterTable('listings')
    .addColumn('media_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update listings set media_seq = coalesce((select max(position) from media where media.listing_id = listings.id), 0)`.execute(
    db,
  );
  await db.schema.alterTable('listings').dropColumn('cover_media_id').execute();
  await db.schema.dropTable('media_variants').execute();
  await db.schema.alterTable('media').dropColumn('variants_status').execute();
  await db.schema.alterTable('media').dropColumn('hidden').execute();
  await db.schema.alterTable('media').dropColumn('caption').execute();
}
