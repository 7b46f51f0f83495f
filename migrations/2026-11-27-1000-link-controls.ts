// Frozen: never import application code here, never edit once released.
// docs/api.md §25: a client link's controls (expiry, password, downloads) and the client's favorites.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  await db.schema.alterTable('client_links').addColumn('expires_at', 'text').execute();
  // scrypt, as account passwords; a new hash (new salt) on every change, which is what makes the
  // browsers that remembered the old one forget it (their cookie is signed with it).
  await db.schema.alterTable('client_links').addColumn('password_hash', 'text').execute();
  await db.schema
    .alterTable('client_links')
    .addColumn('downloads_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('client_links').addColumn('favorites_note', 'text').execute();
  await db.schema.alterTable('client_links').addColumn('favorites_submitted_at', 'text').execute();
  await db.schema.alterTable('client_links').addColumn('favorites_updated_at', 'text').execute();

  // The photos the client marked: they go with the link (a new client starts afresh) and with the media.
  await db.schema
    .createTable('client_link_favorites')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('client_links.listing_id').onDelete('cascade'))
    .addColumn('media_id', 'text', (c) => c.notNull().references('media.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('client_link_favorites_pk', ['listing_id', 'media_id'])
    .execute();
  await db.schema
    .createIndex('client_link_favorites_media_idx')
    .on('client_link_favorites')
    .column('media_id')
    .execute();

  // Wrong passwords, per link and client address, for the limit of 10 in 15 minutes (every node sees them).
  await db.schema
    .createTable('client_link_password_failures')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('client_links.listing_id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('client_link_password_failures_idx')
    .on('client_link_password_failures')
    .columns(['listing_id', 'address', 'failed_at'])
    .execute();

  // Favorites appear in GET /v1/listings/:id/favorites and the gallery object: they raise the
  // account's version as every other shown row does (2026-11-26-0014).
  if (sqlite) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`client_link_favorites_version_${event}`)} after ${sql.raw(event)} on client_link_favorites
        begin
          insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    }
  } else {
    await sql`
      create constraint trigger client_link_favorites_version
      after insert or update or delete on client_link_favorites
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`drop trigger if exists ${sql.id(`client_link_favorites_version_${event}`)}`.execute(db);
    }
  }
  await db.schema.dropTable('client_link_password_failures').execute();
  await db.schema.dropTable('client_link_favorites').execute();
  for (const column of [
    'favorites_updated_at',
    'favorites_submitted_at',
    'favorites_note',
    'downloads_enabled',
    'password_hash',
    'expires_at',
  ]) {
    await db.schema.alterTable('client_links').dropColumn(column).execute();
  }
}
