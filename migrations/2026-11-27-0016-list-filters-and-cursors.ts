// Frozen: never import application code here, never edit once released.
// Lists for integrators (docs/api.md §19): an index for every new filter and sort, so that
// none of them scans or sorts an account's galleries or clients, and the secret that signs list
// cursors (one per deployment, shared by every node through the database).
import { randomBytes } from 'node:crypto';
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** [name, table, columns]: each one serves a filter and a sort in the order of its columns. */
const INDEXES: [string, string, string[]][] = [
  // sort=±updated_at, updated_since
  ['listings_account_updated_idx', 'listings', ['account_id', 'updated_at', 'id']],
  ['listings_account_status_updated_idx', 'listings', ['account_id', 'status', 'updated_at', 'id']],
  // client_id (none: IS NULL, which both dialects' b-trees serve) with either sort
  ['listings_account_client_order_idx', 'listings', ['account_id', 'client_id', 'created_at', 'id']],
  ['listings_account_client_updated_idx', 'listings', ['account_id', 'client_id', 'updated_at', 'id']],
  ['clients_account_updated_idx', 'clients', ['account_id', 'updated_at', 'id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  for (const [name, table, columns] of INDEXES) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }
  // mls_number: an exact match, case-insensitive (an expression index on both dialects).
  await sql`create index listings_account_mls_idx on listings (account_id, lower(mls_number))`.execute(db);

  // The cursor key: cursors are HMAC-signed with it, so a tampered one, or one of another list,
  // filter set, sort or account, is refused. Random per deployment, never shown.
  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('instance_secrets')
    .values({ name: 'list_cursor', value: randomBytes(32).toString('base64url') })
    .execute();

  // search over address and mls_number: a case-insensitive substring (as the clients' search).
  if (sqlite) {
    // As clients_search_keys (migration 0005): a stable integer key per gallery for FTS5, with
    // the account and the sort fields so a search filters without reading `listings`.
    await sql`
      create table listings_search_keys (
        rowid integer primary key,
        listing_id text not null unique,
        account_id text not null
      )
    `.execute(db);
    // Contentless trigram index; case_sensitive 0 folds case in FTS5 itself (addresses are
    // stored as written, not lower-cased).
    await sql`
      create virtual table listings_fts using fts5(
        address, mls_number, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 0'
      )
    `.execute(db);
    await sql`
      insert into listings_search_keys (listing_id, account_id)
      select id, account_id from listings order by created_at, id
    `.execute(db);
    await sql`
      insert into listings_fts (rowid, address, mls_number)
      select k.rowid, l.address, coalesce(l.mls_number, '')
      from listings_search_keys k join listings l on l.id = k.listing_id
    `.execute(db);
    await sql`
      create trigger listings_search_insert after insert on listings begin
        insert into listings_search_keys (listing_id, account_id) values (new.id, new.account_id);
        insert into listings_fts (rowid, address, mls_number)
          values ((select rowid from listings_search_keys where listing_id = new.id),
                  new.address, coalesce(new.mls_number, ''));
      end
    `.execute(db);
    await sql`
      create trigger listings_search_update after update of address, mls_number on listings begin
        delete from listings_fts where rowid = (select rowid from listings_search_keys where listing_id = old.id);
        insert into listings_fts (rowid, address, mls_number)
          values ((select rowid from listings_search_keys where listing_id = new.id),
                  new.address, coalesce(new.mls_number, ''));
      end
    `.execute(db);
    await sql`
      create trigger listings_search_delete after delete on listings begin
        delete from listings_fts where rowid = (select rowid from listings_search_keys where listing_id = old.id);
        delete from listings_search_keys where listing_id = old.id;
      end
    `.execute(db);
  } else {
    // pg_trgm (created by migration 0005) GIN indexes serve LIKE '%term%' on the lower-cased text.
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`
      create index listings_address_trgm_idx on listings
      using gin (lower(address) gin_trgm_ops) with (fastupdate = off)
    `.execute(db);
    await sql`
      create index listings_mls_trgm_idx on listings
      using gin (lower(mls_number) gin_trgm_ops) with (fastupdate = off)
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const trigger of ['listings_search_insert', 'listings_search_update', 'listings_search_delete']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table if exists listings_fts`.execute(db);
    await sql`drop table if exists listings_search_keys`.execute(db);
  } else {
    await sql`drop index if exists listings_address_trgm_idx`.execute(db);
    await sql`drop index if exists listings_mls_trgm_idx`.execute(db);
  }
  await db.schema.dropTable('instance_secrets').execute();
  await sql`drop index if exists listings_account_mls_idx`.execute(db);
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
