// Frozen: never import application code here, never edit once released.
// docs/api.md §32: a gallery's listing kit. One row per gallery whose kit was asked for (none: no
// row), and one row per item made (the MLS pack, the flyer, the social images, the videos), each
// owning its bytes in media storage as a variant's row does. The gallery's deletion takes both.
// The studio's paper for the flyer is an account setting (null: KIT_PAPER).
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const TABLES = ['listing_kits', 'listing_kit_items'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  await db.schema
    .createTable('listing_kits')
    .addColumn('listing_id', 'text', (c) => c.primaryKey().references('listings.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    // 'building' | 'ready' | 'failed' | 'stale'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('built_at', 'text')
    // What the last build was made from (a hash of the gallery's facts, photos, order, captions, cover).
    .addColumn('fingerprint', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('listing_kit_items')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    // 'mls_zip' | 'flyer' | 'social_square' | 'social_portrait' | 'social_story' | 'slideshow' | ...
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('duration_seconds', 'double precision')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_kit_items_pk', ['listing_id', 'name'])
    .execute();
  await db.schema.createIndex('listing_kit_items_account').on('listing_kit_items').column('account_id').execute();
  await db.schema.createIndex('listing_kits_account').on('listing_kits').column('account_id').execute();

  await db.schema.alterTable('accounts').addColumn('kit_paper', 'text').execute();

  // The kit is read by GET /v1/listings/:id/kit: both tables raise the account's version as every
  // other shown row does (2026-11-26-0014).
  for (const table of TABLES) {
    if (sqlite) {
      for (const [event, row] of [
        ['insert', 'new'],
        ['update', 'new'],
        ['delete', 'old'],
      ] as const) {
        await sql`
          create trigger ${sql.id(`${table}_version_${event}`)} after ${sql.raw(event)} on ${sql.id(table)}
          begin
            insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
              on conflict (account_id) do update set version = version + 1;
          end
        `.execute(db);
      }
    } else {
      await sql`
        create constraint trigger ${sql.id(`${table}_version`)}
        after insert or update or delete on ${sql.id(table)}
        deferrable initially deferred
        for each row execute function lightbox_raise_account_version()
      `.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('jobs').where('kind', '=', 'listing.kit').execute();
  await db.schema.alterTable('accounts').dropColumn('kit_paper').execute();
  await db.schema.dropTable('listing_kit_items').execute();
  await db.schema.dropTable('listing_kits').execute();
}
