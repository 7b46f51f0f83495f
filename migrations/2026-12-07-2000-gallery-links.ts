// Frozen: never import application code here, never edit once released.
// docs/api.md §28: a gallery's links. The client's link (§14, §25) and the share links (§28) are one
// kind of thing: a token that opens the gallery's page, with its own controls, counters, favorites,
// comments and password answers. `client_links` becomes the `client` rows of `gallery_links`, with
// their tokens (so their URLs), counters, controls and favorites unchanged; share links are the
// `share` rows. The tables keyed by a gallery's one link are now keyed by the link's id.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** The counters public page activity changes (2026-12-07-1000): they raise views_version only. */
const COUNTERS = ['views', 'downloads', 'first_viewed_at', 'last_viewed_at'];
const countersKept = (same: 'is' | 'is not distinct from') =>
  sql.raw(COUNTERS.map((c) => `new.${c} ${same} old.${c}`).join(' and '));

async function versionTriggers(db: Kysely<any>, sqlite: boolean, table: string): Promise<void> {
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
    return;
  }
  await sql`
    create constraint trigger ${sql.id(`${table}_version`)}
    after insert or update or delete on ${sql.id(table)}
    deferrable initially deferred
    for each row execute function lightbox_raise_account_version()
  `.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  await db.schema
    .createTable('gallery_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // 'client': the assigned client's link, at most one per gallery; 'share': up to 50 per gallery.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('listing_id', 'text', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    // The client of a 'client' link; null on a share link.
    .addColumn('client_id', 'text')
    // A share link's label and recipient; null on a client link.
    .addColumn('label', 'text')
    .addColumn('email', 'text')
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_viewed_at', 'text')
    .addColumn('last_viewed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('downloads_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('favorites_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('selection_min', 'integer')
    .addColumn('selection_max', 'integer')
    .addColumn('favorites_note', 'text')
    .addColumn('favorites_submitted_at', 'text')
    .addColumn('favorites_updated_at', 'text')
    .execute();
  // One client link per gallery.
  await sql`create unique index gallery_links_client_idx on gallery_links (listing_id) where kind = 'client'`.execute(
    db,
  );
  // The dashboard's latest assignments (client links, newest first) and a gallery's share links.
  await db.schema
    .createIndex('gallery_links_account_idx')
    .on('gallery_links')
    .columns(['account_id', 'kind', 'created_at'])
    .execute();
  await db.schema
    .createIndex('gallery_links_listing_idx')
    .on('gallery_links')
    .columns(['listing_id', 'kind', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('gallery_links_client_id_idx').on('gallery_links').column('client_id').execute();

  // The client links move with everything they hold. Their id is derived from their gallery (one each).
  await sql`
    insert into gallery_links (id, kind, listing_id, account_id, client_id, label, email, token, views, downloads,
      first_viewed_at, last_viewed_at, created_at, updated_at, expires_at, password_hash, downloads_enabled,
      favorites_enabled, selection_min, selection_max, favorites_note, favorites_submitted_at, favorites_updated_at)
    select 'gln_' || listing_id, 'client', listing_id, account_id, client_id, null, null, token, views, downloads,
      first_viewed_at, last_viewed_at, created_at, created_at, expires_at, password_hash, downloads_enabled,
      1, null, null, favorites_note, favorites_submitted_at, favorites_updated_at
    from client_links
  `.execute(db);

  await db.schema
    .createTable('gallery_link_favorites')
    .addColumn('link_id', 'text', (c) => c.notNull().references('gallery_links.id').onDelete('cascade'))
    .addColumn('media_id', 'text', (c) => c.notNull().references('media.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('gallery_link_favorites_pk', ['link_id', 'media_id'])
    .execute();
  await db.schema
    .createIndex('gallery_link_favorites_media_idx')
    .on('gallery_link_favorites')
    .column('media_id')
    .execute();
  await sql`
    insert into gallery_link_favorites (link_id, media_id, account_id, created_at)
    select 'gln_' || listing_id, media_id, account_id, created_at from client_link_favorites
  `.execute(db);

  // docs/api.md §28: a comment per photo and link (<= 1,000 characters).
  await db.schema
    .createTable('gallery_link_comments')
    .addColumn('link_id', 'text', (c) => c.notNull().references('gallery_links.id').onDelete('cascade'))
    .addColumn('media_id', 'text', (c) => c.notNull().references('media.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('gallery_link_comments_pk', ['link_id', 'media_id'])
    .execute();
  await db.schema
    .createIndex('gallery_link_comments_media_idx')
    .on('gallery_link_comments')
    .column('media_id')
    .execute();

  await db.schema
    .createTable('gallery_link_password_failures')
    .addColumn('link_id', 'text', (c) => c.notNull().references('gallery_links.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('gallery_link_password_failures_idx')
    .on('gallery_link_password_failures')
    .columns(['link_id', 'address', 'failed_at'])
    .execute();
  await sql`
    insert into gallery_link_password_failures (link_id, account_id, address, failed_at)
    select 'gln_' || listing_id, account_id, address, failed_at from client_link_password_failures
  `.execute(db);

  // The old tables go, their triggers with them (PostgreSQL drops a table's triggers; so does SQLite).
  await db.schema.dropTable('client_link_password_failures').execute();
  await db.schema.dropTable('client_link_favorites').execute();
  await db.schema.dropTable('client_links').execute();

  // Versions (decisions/0014): links, favorites and comments appear in /v1 reads. A link's counters
  // raise views_version only, as the client link's did (2026-12-07-1000).
  await versionTriggers(db, sqlite, 'gallery_link_favorites');
  await versionTriggers(db, sqlite, 'gallery_link_comments');
  if (sqlite) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`gallery_links_version_${event}`)} after ${sql.raw(event)} on gallery_links
        begin
          insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    }
    await sql`
      create trigger gallery_links_version_update after update on gallery_links
      when ${countersKept('is')}
      begin
        insert into account_versions (account_id, version) values (new.account_id, 1)
          on conflict (account_id) do update set version = version + 1;
      end
    `.execute(db);
    await sql`
      create trigger gallery_links_views_version_update after update on gallery_links
      when not (${countersKept('is')})
      begin
        insert into account_versions (account_id, version, views_version) values (new.account_id, 0, 1)
          on conflict (account_id) do update set views_version = views_version + 1;
      end
    `.execute(db);
  } else {
    await sql`
      create constraint trigger gallery_links_version
      after insert or delete on gallery_links
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
    await sql`
      create constraint trigger gallery_links_update_version
      after update on gallery_links
      deferrable initially deferred
      for each row when (${countersKept('is not distinct from')})
      execute function lightbox_raise_account_version()
    `.execute(db);
    await sql`
      create constraint trigger gallery_links_views_version
      after update on gallery_links
      deferrable initially deferred
      for each row when (not (${countersKept('is not distinct from')}))
      execute function lightbox_raise_views_version()
    `.execute(db);
  }

  await notificationsForShareLinks(db, sqlite);
}

/**
 * docs/api.md §28: a share link's email is a notification with `share_link_id` set and no client.
 * PostgreSQL drops the NOT NULL; SQLite cannot alter a column, so the table is made again from its
 * own definition without it, its rows copied, and its indexes and triggers made again as they were.
 */
async function notificationsForShareLinks(db: Kysely<any>, sqlite: boolean): Promise<void> {
  if (!sqlite) {
    await sql`alter table notifications alter column client_id drop not null`.execute(db);
  } else {
    const table = await sql<{ sql: string }>`
      select sql from sqlite_master where type = 'table' and name = 'notifications'`.execute(db);
    const definition = table.rows[0]?.sql ?? '';
    const relaxed = definition
      .replace(/^create table "?notifications"?/i, 'create table "notifications_new"')
      .replace(/"client_id" text not null/i, '"client_id" text');
    if (relaxed === definition || !/"notifications_new"/.test(relaxed) || /"client_id" text not null/i.test(relaxed)) {
      throw new Error(`unexpected definition of notifications: ${definition}`);
    }
    const extras = await sql<{ sql: string }>`
      select sql from sqlite_master
      where tbl_name = 'notifications' and type in ('index', 'trigger') and sql is not null`.execute(db);
    await sql.raw(relaxed).execute(db);
    await sql`insert into notifications_new select * from notifications`.execute(db);
    await sql`drop table notifications`.execute(db);
    await sql`alter table notifications_new rename to notifications`.execute(db);
    for (const extra of extras.rows) await sql.raw(extra.sql).execute(db);
  }
  await db.schema.alterTable('notifications').addColumn('share_link_id', 'text').execute();
}

export function down(): Promise<void> {
  // Share links, comments and share links' emails have no place in the old tables: not undone.
  return Promise.reject(new Error('2026-12-07-2000-gallery-links cannot be undone'));
}
