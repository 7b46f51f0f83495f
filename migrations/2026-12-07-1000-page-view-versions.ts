// Frozen: never import application code here, never edit once released.
// A public page view (/g, /p) and a client's download change only a gallery's counters
// (`client_link.views`, `downloads`, `first_viewed_at`, `last_viewed_at`; `property_page.views`),
// which only GET /v1/listings/:id shows. They raised the account's version (2026-11-26-0014), so
// every page view made every cached /v1 ETag of the studio stale. Now they raise a second number,
// `views_version`, which only the tags of representations that show those counters are built on
// (src/http/conditional.ts). Any other change to these rows raises `version` as before.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** The counters of each table that public page activity changes. */
const COUNTERS = {
  client_links: ['views', 'downloads', 'first_viewed_at', 'last_viewed_at'],
  property_pages: ['views'],
} as const;

type Table = keyof typeof COUNTERS;
const TABLES = Object.keys(COUNTERS) as Table[];

/** True when the update left every counter of the table as it was. */
const countersKept = (table: Table, same: 'is' | 'is not distinct from') =>
  sql.raw(COUNTERS[table].map((c) => `new.${c} ${same} old.${c}`).join(' and '));

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .alterTable('account_versions')
    .addColumn('views_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  if (sqlite) {
    for (const table of TABLES) {
      await sql`drop trigger if exists ${sql.id(`${table}_version_update`)}`.execute(db);
      await sql`
        create trigger ${sql.id(`${table}_version_update`)} after update on ${sql.id(table)}
        when ${countersKept(table, 'is')}
        begin
          insert into account_versions (account_id, version) values (new.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
      await sql`
        create trigger ${sql.id(`${table}_views_version_update`)} after update on ${sql.id(table)}
        when not (${countersKept(table, 'is')})
        begin
          insert into account_versions (account_id, version, views_version) values (new.account_id, 0, 1)
            on conflict (account_id) do update set views_version = views_version + 1;
        end
      `.execute(db);
    }
    return;
  }

  // As lightbox_raise_account_version (2026-11-26-0014): deferred to the commit, once per account
  // and transaction.
  await sql`
    create function lightbox_raise_views_version() returns trigger language plpgsql as $$
    declare
      raised text;
    begin
      raised := coalesce(current_setting('lightbox.views_raised', true), '');
      if position(',' || new.account_id || ',' in raised) = 0 then
        insert into account_versions (account_id, version, views_version) values (new.account_id, 0, 1)
          on conflict (account_id) do update set views_version = account_versions.views_version + 1;
        if raised = '' or length(raised) > 8000 then raised := ','; end if;
        perform set_config('lightbox.views_raised', raised || new.account_id || ',', true);
      end if;
      return null;
    end
    $$
  `.execute(db);
  for (const table of TABLES) {
    await sql`drop trigger if exists ${sql.id(`${table}_version`)} on ${sql.id(table)}`.execute(db);
    // A trigger's WHEN may name OLD only on UPDATE: inserts and deletes keep a trigger of their own.
    // Every name ends in _version, as test/conditional-writes.test.ts looks for.
    await sql`
      create constraint trigger ${sql.id(`${table}_version`)}
      after insert or delete on ${sql.id(table)}
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
    await sql`
      create constraint trigger ${sql.id(`${table}_update_version`)}
      after update on ${sql.id(table)}
      deferrable initially deferred
      for each row when (${countersKept(table, 'is not distinct from')})
      execute function lightbox_raise_account_version()
    `.execute(db);
    await sql`
      create constraint trigger ${sql.id(`${table}_views_version`)}
      after update on ${sql.id(table)}
      deferrable initially deferred
      for each row when (not (${countersKept(table, 'is not distinct from')}))
      execute function lightbox_raise_views_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of TABLES) {
    if (sqlite) {
      await sql`drop trigger if exists ${sql.id(`${table}_views_version_update`)}`.execute(db);
      await sql`drop trigger if exists ${sql.id(`${table}_version_update`)}`.execute(db);
      await sql`
        create trigger ${sql.id(`${table}_version_update`)} after update on ${sql.id(table)}
        begin
          insert into account_versions (account_id, version) values (new.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    } else {
      await sql`drop trigger if exists ${sql.id(`${table}_views_version`)} on ${sql.id(table)}`.execute(db);
      await sql`drop trigger if exists ${sql.id(`${table}_update_version`)} on ${sql.id(table)}`.execute(db);
      await sql`drop trigger if exists ${sql.id(`${table}_version`)} on ${sql.id(table)}`.execute(db);
      await sql`
        create constraint trigger ${sql.id(`${table}_version`)}
        after insert or update or delete on ${sql.id(table)}
        deferrable initially deferred
        for each row execute function lightbox_raise_account_version()
      `.execute(db);
    }
  }
  if (!sqlite) await sql`drop function if exists lightbox_raise_views_version()`.execute(db);
  await db.schema.alterTable('account_versions').dropColumn('views_version').execute();
}
