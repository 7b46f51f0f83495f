// Frozen: never import application code here, never edit once released.
// Maintained counts (so a list's `total` is one row read at any size) and an indexed client
// search (trigrams: SQLite FTS5, PostgreSQL pg_trgm). Existing rows are backfilled, so an
// existing database upgrades in place. See docs/decisions/0005-maintained-counts-and-search.md.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  // One row per (account, counter): writers of different counters never wait on each other.
  await db.schema
    .createTable('account_counts')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('counter', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_counts_pk', ['account_id', 'counter'])
    .execute();
  await sql`
    insert into account_counts (account_id, counter, n)
    select account_id, 'listings', count(*) from listings group by account_id
    union all select account_id, 'listings:' || status, count(*) from listings group by account_id, status
    union all select account_id, 'clients', count(*) from clients group by account_id
    union all select account_id, 'media', count(*) from media group by account_id
    union all select account_id, 'notifications', count(*) from notifications group by account_id
    union all select account_id, 'notifications:' || status, count(*) from notifications group by account_id, status
  `.execute(db);

  // The notifications list filtered by status, newest first, without a sort.
  await db.schema
    .createIndex('notifications_account_status_order_idx')
    .on('notifications')
    .columns(['account_id', 'status', 'created_at', 'id'])
    .execute();
  // Assigning, unassigning or deleting a gallery cancels its unsent emails: found by gallery,
  // not by scanning the account's queued ones (which grow while SMTP is down).
  await db.schema
    .createIndex('notifications_listing_status_idx')
    .on('notifications')
    .columns(['listing_id', 'status'])
    .execute();

  if (sqlite) {
    // FTS5 rows need a stable integer key: the implicit rowid of `clients` may change on VACUUM,
    // so each client gets one here (INTEGER PRIMARY KEY is stable), with the account and the
    // creation time so a search pages and counts without reading the clients table.
    await sql`
      create table clients_search_keys (
        rowid integer primary key,
        client_id text not null unique,
        account_id text not null,
        created_at text not null
      )
    `.execute(db);
    // Contentless: the text lives in `clients`. case_sensitive 1 over the already lower-cased
    // columns keeps today's folding (JavaScript toLowerCase on both sides), not FTS5's own.
    await sql`
      create virtual table clients_fts using fts5(
        name, email, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
      )
    `.execute(db);
    await sql`
      insert into clients_search_keys (client_id, account_id, created_at)
      select id, account_id, created_at from clients order by created_at, id
    `.execute(db);
    await sql`
      insert into clients_fts (rowid, name, email)
      select k.rowid, c.name_normalized, c.email_normalized
      from clients_search_keys k join clients c on c.id = k.client_id
    `.execute(db);
    // Triggers, so every path that writes clients (the API, a bulk load, a cascade) keeps the
    // index in the same transaction.
    await sql`
      create trigger clients_search_insert after insert on clients begin
        insert into clients_search_keys (client_id, account_id, created_at)
          values (new.id, new.account_id, new.created_at);
        insert into clients_fts (rowid, name, email)
          values ((select rowid from clients_search_keys where client_id = new.id),
                  new.name_normalized, new.email_normalized);
      end
    `.execute(db);
    await sql`
      create trigger clients_search_update after update of name_normalized, email_normalized on clients begin
        delete from clients_fts where rowid = (select rowid from clients_search_keys where client_id = old.id);
        insert into clients_fts (rowid, name, email)
          values ((select rowid from clients_search_keys where client_id = new.id),
                  new.name_normalized, new.email_normalized);
      end
    `.execute(db);
    await sql`
      create trigger clients_search_delete after delete on clients begin
        delete from clients_fts where rowid = (select rowid from clients_search_keys where client_id = old.id);
        delete from clients_search_keys where client_id = old.id;
      end
    `.execute(db);
  } else {
    // pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: the database owner
    // may create it. Trigram GIN indexes serve LIKE '%term%' on the lower-cased columns.
    // fastupdate off: a write updates the index itself rather than a pending list that every
    // search would then read in full (and that makes the planner shun the index) until a vacuum.
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const column of ['name', 'email']) {
      await sql`
        create index ${sql.id(`clients_${column}_trgm_idx`)} on clients
        using gin (${sql.id(`${column}_normalized`)} gin_trgm_ops) with (fastupdate = off)
      `.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const trigger of ['clients_search_insert', 'clients_search_update', 'clients_search_delete']) {
      await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
    }
    await sql`drop table if exists clients_fts`.execute(db);
    await sql`drop table if exists clients_search_keys`.execute(db);
  } else {
    await sql`drop index if exists clients_name_trgm_idx`.execute(db);
    await sql`drop index if exists clients_email_trgm_idx`.execute(db);
  }
  await db.schema.dropIndex('notifications_listing_status_idx').execute();
  await db.schema.dropIndex('notifications_account_status_order_idx').execute();
  await db.schema.dropTable('account_counts').execute();
}
