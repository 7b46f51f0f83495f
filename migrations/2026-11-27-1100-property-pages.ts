// Frozen: never import application code here, never edit once released.
// docs/api.md §25: a gallery's property pages, one row per published gallery with its two tokens.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  // Unpublishing deletes the row; publishing again inserts one with new tokens. The gallery's
  // deletion takes it with it.
  await db.schema
    .createTable('property_pages')
    .addColumn('listing_id', 'text', (c) => c.primaryKey().references('listings.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('unbranded_token', 'text', (c) => c.notNull().unique())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // The page is a field of the gallery object: it raises the account's version as every other
  // shown row does (2026-11-26-0014).
  if (sqlite) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`property_pages_version_${event}`)} after ${sql.raw(event)} on property_pages
        begin
          insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    }
  } else {
    await sql`
      create constraint trigger property_pages_version
      after insert or update or delete on property_pages
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`drop trigger if exists ${sql.id(`property_pages_version_${event}`)}`.execute(db);
    }
  }
  await db.schema.dropTable('property_pages').execute();
}
