// Frozen: never import application code here, never edit once released.
// A client's view or download on their gallery (/g) records an event (client_link.viewed,
// client_link.downloaded) and counts it in `account_counts`; the event is then fanned out and
// delivered (webhook_deliveries). Each of these raised the account's version (2026-11-26-0014), so
// every gallery view made every cached /v1 ETag of the studio stale, although only the event log
// (GET /v1/events, /v1/events/:id) and the deliveries (GET /v1/webhook_endpoints/:id/deliveries)
// show these rows. Now the event log's rows, its counts (`events`, `events:<type>`) and the
// deliveries raise a third number, `events_version`, which only the tags of those reads are built
// on (src/http/conditional.ts). Every event reports a change made in the same transaction to a
// table that raises `version` (or, for a gallery's counters, `views_version`), so the reads that
// show that change still move with it.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** Tables whose every row only the event log and the deliveries show. */
const EVENT_LOG = ['events', 'webhook_deliveries'] as const;
const OPS = [
  ['insert', 'new'],
  ['update', 'new'],
  ['delete', 'old'],
] as const;

/** A row of account_counts that counts the event log (the list's `total` of GET /v1/events). */
const eventCounter = (row: 'new' | 'old') => sql.raw(`(${row}.counter = 'events' or ${row}.counter like 'events:%')`);

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .alterTable('account_versions')
    .addColumn('events_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  if (sqlite) {
    const raiseEvents = (row: 'new' | 'old') => sql`
      insert into account_versions (account_id, version, events_version) values (${sql.raw(row)}.account_id, 0, 1)
        on conflict (account_id) do update set events_version = events_version + 1`;
    const raiseVersion = (row: 'new' | 'old') => sql`
      insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
        on conflict (account_id) do update set version = version + 1`;
    for (const table of EVENT_LOG) {
      for (const [op, row] of OPS) {
        await sql`drop trigger if exists ${sql.id(`${table}_version_${op}`)}`.execute(db);
        await sql`
          create trigger ${sql.id(`${table}_events_version_${op}`)} after ${sql.raw(op)} on ${sql.id(table)}
          begin ${raiseEvents(row)}; end
        `.execute(db);
      }
    }
    // An update never renames a counter; both sides are looked at all the same.
    for (const [op, row] of OPS) {
      const counts = op === 'update' ? sql`(${eventCounter('new')} or ${eventCounter('old')})` : eventCounter(row);
      const other =
        op === 'update' ? sql`(not ${eventCounter('new')} or not ${eventCounter('old')})` : sql`not ${counts}`;
      await sql`drop trigger if exists ${sql.id(`account_counts_version_${op}`)}`.execute(db);
      await sql`
        create trigger ${sql.id(`account_counts_version_${op}`)} after ${sql.raw(op)} on account_counts
        when ${other}
        begin ${raiseVersion(row)}; end
      `.execute(db);
      await sql`
        create trigger ${sql.id(`account_counts_events_version_${op}`)} after ${sql.raw(op)} on account_counts
        when ${counts}
        begin ${raiseEvents(row)}; end
      `.execute(db);
    }
    return;
  }

  // As lightbox_raise_account_version (2026-11-26-0014): deferred to the commit, once per account
  // and transaction.
  await sql`
    create function lightbox_raise_events_version() returns trigger language plpgsql as $$
    declare
      account text;
      raised text;
    begin
      if tg_op = 'DELETE' then account := old.account_id; else account := new.account_id; end if;
      raised := coalesce(current_setting('lightbox.events_raised', true), '');
      if position(',' || account || ',' in raised) = 0 then
        insert into account_versions (account_id, version, events_version) values (account, 0, 1)
          on conflict (account_id) do update set events_version = account_versions.events_version + 1;
        if raised = '' or length(raised) > 8000 then raised := ','; end if;
        perform set_config('lightbox.events_raised', raised || account || ',', true);
      end if;
      return null;
    end
    $$
  `.execute(db);
  // Every name ends in _version, as test/conditional-writes.test.ts looks for.
  for (const table of EVENT_LOG) {
    await sql`drop trigger if exists ${sql.id(`${table}_version`)} on ${sql.id(table)}`.execute(db);
    await sql`
      create constraint trigger ${sql.id(`${table}_events_version`)}
      after insert or update or delete on ${sql.id(table)}
      deferrable initially deferred
      for each row execute function lightbox_raise_events_version()
    `.execute(db);
  }
  // A trigger's WHEN may name NEW only on insert and update, OLD only on update and delete: one
  // trigger per operation and version.
  await sql`drop trigger if exists account_counts_version on account_counts`.execute(db);
  for (const [op, row] of OPS) {
    const counts = op === 'update' ? sql`(${eventCounter('new')} or ${eventCounter('old')})` : eventCounter(row);
    const other =
      op === 'update' ? sql`(not ${eventCounter('new')} or not ${eventCounter('old')})` : sql`not ${counts}`;
    await sql`
      create constraint trigger ${sql.id(`account_counts_${op}_version`)}
      after ${sql.raw(op)} on account_counts
      deferrable initially deferred
      for each row when (${other})
      execute function lightbox_raise_account_version()
    `.execute(db);
    await sql`
      create constraint trigger ${sql.id(`account_counts_${op}_events_version`)}
      after ${sql.raw(op)} on account_counts
      deferrable initially deferred
      for each row when (${counts})
      execute function lightbox_raise_events_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of [...EVENT_LOG, 'account_counts']) {
    if (sqlite) {
      for (const [op, row] of OPS) {
        await sql`drop trigger if exists ${sql.id(`${table}_events_version_${op}`)}`.execute(db);
        await sql`drop trigger if exists ${sql.id(`${table}_version_${op}`)}`.execute(db);
        await sql`
          create trigger ${sql.id(`${table}_version_${op}`)} after ${sql.raw(op)} on ${sql.id(table)}
          begin
            insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
              on conflict (account_id) do update set version = version + 1;
          end
        `.execute(db);
      }
    } else {
      await sql`drop trigger if exists ${sql.id(`${table}_events_version`)} on ${sql.id(table)}`.execute(db);
      for (const [op] of OPS) {
        await sql`drop trigger if exists ${sql.id(`${table}_${op}_version`)} on ${sql.id(table)}`.execute(db);
        await sql`drop trigger if exists ${sql.id(`${table}_${op}_events_version`)} on ${sql.id(table)}`.execute(db);
      }
      await sql`
        create constraint trigger ${sql.id(`${table}_version`)}
        after insert or update or delete on ${sql.id(table)}
        deferrable initially deferred
        for each row execute function lightbox_raise_account_version()
      `.execute(db);
    }
  }
  if (!sqlite) await sql`drop function if exists lightbox_raise_events_version()`.execute(db);
  await db.schema.alterTable('account_versions').dropColumn('events_version').execute();
}
