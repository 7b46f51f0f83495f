// Frozen: never import application code here, never edit once released.
// Conditional requests (docs/api.md §17): one version number per account, raised by the
// database itself in the same transaction as every change to a row that any /v1 JSON read shows,
// so an ETag built on it can never stay the same after a write, whoever made the write (the API,
// the dashboard, the command line, a background job, a bulk load, a cascade). See
// docs/decisions/0014-account-versions.md.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** Every table whose rows appear in some /v1 JSON representation (all carry account_id). */
const VERSIONED = [
  'listings',
  'media',
  'media_variants',
  'clients',
  'client_links',
  'notifications',
  'webhook_endpoints',
  'webhook_deliveries',
  'events',
  // Lists' totals; `lightbox doctor --fix` rewrites them without touching the rows they count.
  'account_counts',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  // No foreign key: a deleted account's cascaded deletes still raise its (orphaned) version.
  await db.schema
    .createTable('account_versions')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();

  if (sqlite) {
    // SQLite writers hold the one database lock from their first write to commit anyway, so the
    // upsert per changed row adds no waiting; it costs about a microsecond.
    for (const table of VERSIONED) {
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
    }
    return;
  }

  // PostgreSQL: a constraint trigger deferred to commit, so the version row is locked last (like
  // the maintained counts, decisions/0005) and never held while the transaction still waits for
  // other locks: writers of one account cannot deadlock on it. A transaction-local setting lists
  // the accounts already raised, so each is raised once per transaction, however many rows it
  // wrote (a bulk insert of many accounts' rows included).
  await sql`
    create function lightbox_raise_account_version() returns trigger language plpgsql as $$
    declare
      account text;
      raised text;
    begin
      if tg_op = 'DELETE' then account := old.account_id; else account := new.account_id; end if;
      raised := coalesce(current_setting('lightbox.versions_raised', true), '');
      if position(',' || account || ',' in raised) = 0 then
        insert into account_versions (account_id, version) values (account, 1)
          on conflict (account_id) do update set version = account_versions.version + 1;
        -- Bounded: past a few hundred accounts, start the list again (a second raise is harmless).
        if raised = '' or length(raised) > 8000 then raised := ','; end if;
        perform set_config('lightbox.versions_raised', raised || account || ',', true);
      end if;
      return null;
    end
    $$
  `.execute(db);
  for (const table of VERSIONED) {
    await sql`
      create constraint trigger ${sql.id(`${table}_version`)}
      after insert or update or delete on ${sql.id(table)}
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of VERSIONED) {
    if (sqlite) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`drop trigger if exists ${sql.id(`${table}_version_${event}`)}`.execute(db);
      }
    } else {
      await sql`drop trigger if exists ${sql.id(`${table}_version`)} on ${sql.id(table)}`.execute(db);
    }
  }
  if (!sqlite) await sql`drop function if exists lightbox_raise_account_version()`.execute(db);
  await db.schema.dropTable('account_versions').execute();
}
