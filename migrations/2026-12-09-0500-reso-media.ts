// Frozen: never import application code here, never edit once released.
// docs/api.md §33: the RESO media feed. A photo's record (caption, alt text, room, order, its mls
// variant's size, its gallery's mls_number, whether it is shown) changes through many writers (the
// API, the dashboard, the command line, the analysis and variant jobs), so its
// MediaModificationTimestamp (`media.modified_at`) is moved by the database itself, as the account
// versions are (decisions/0014): no write path can forget it. Each new value is the clock's now, or
// 1 ms after the account's latest one when that is not earlier: strictly increasing per account, so
// a feed walked by (modified_at, id) meets a photo changed behind its cursor again later, never skips it.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** The columns of the media row a RESO record shows (a photo is in the feed once its variants are ready). */
const SHOWN = ['caption', 'position', 'hidden', 'alt_text', 'analysis_room', 'width', 'height', 'variants_status'];

/** SQLite: the next stamp of an account (an SQL expression; `account` an SQL expression too). */
const sqliteStamp = (account: string) => `
  (select case when m is null or n > m then n else strftime('%Y-%m-%dT%H:%M:%fZ', m, '+0.001 seconds') end
   from (select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as n,
                (select max(modified_at) from media where account_id = ${account}) as m))`;

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema.alterTable('media').addColumn('modified_at', 'text').execute();
  // The feed's order (and the triggers' latest stamp of an account), and one gallery's photos.
  await db.schema.createIndex('media_modified_idx').on('media').columns(['account_id', 'modified_at', 'id']).execute();
  await db.schema
    .createIndex('media_listing_modified_idx')
    .on('media')
    .columns(['listing_id', 'modified_at', 'id'])
    .execute();

  if (sqlite) {
    const changed = SHOWN.map((c) => `old.${c} is not new.${c}`).join(' or ');
    await sql
      .raw(
        `create trigger media_modified_insert after insert on media
         begin
           update media set modified_at = ${sqliteStamp('new.account_id')} where id = new.id;
         end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger media_modified_update after update of ${SHOWN.join(', ')} on media
         when ${changed}
         begin
           update media set modified_at = ${sqliteStamp('new.account_id')} where id = new.id;
         end`,
      )
      .execute(db);
    for (const event of ['insert', 'update']) {
      await sql
        .raw(
          `create trigger media_variants_modified_${event} after ${event} on media_variants
           when new.name = 'mls'
           begin
             update media set modified_at = ${sqliteStamp('new.account_id')}
             where id = new.media_id and account_id = new.account_id;
           end`,
        )
        .execute(db);
    }
    await sql
      .raw(
        `create trigger listings_media_modified after update of mls_number on listings
         when old.mls_number is not new.mls_number
         begin
           update media set modified_at = ${sqliteStamp('new.account_id')}
           where listing_id = new.id and account_id = new.account_id;
         end`,
      )
      .execute(db);
    await backfill(db);
    return;
  }

  // PostgreSQL: clock_timestamp() (not the transaction's start), and a row-level BEFORE trigger's
  // query sees the rows its statement changed before it, so each row of a statement is later too.
  await sql`
    create function lightbox_media_stamp(account text) returns text language plpgsql volatile as $$
    declare
      n text := to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      m text;
    begin
      select max(modified_at) into m from media where account_id = account;
      if m is null or n > m then return n; end if;
      return to_char((m::timestamptz at time zone 'UTC') + interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
    end
    $$
  `.execute(db);
  await sql`
    create function lightbox_media_modified() returns trigger language plpgsql as $$
    begin
      new.modified_at := lightbox_media_stamp(new.account_id);
      return new;
    end
    $$
  `.execute(db);
  await sql`
    create trigger media_modified_insert before insert on media
    for each row execute function lightbox_media_modified()
  `.execute(db);
  await sql`
    create trigger media_modified_update before update on media
    for each row when (${sql.raw(SHOWN.map((c) => `old.${c} is distinct from new.${c}`).join(' or '))})
    execute function lightbox_media_modified()
  `.execute(db);
  await sql`
    create function lightbox_variant_media_modified() returns trigger language plpgsql as $$
    begin
      update media set modified_at = lightbox_media_stamp(new.account_id)
      where id = new.media_id and account_id = new.account_id;
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger media_variants_modified after insert or update on media_variants
    for each row when (new.name = 'mls') execute function lightbox_variant_media_modified()
  `.execute(db);
  await sql`
    create function lightbox_listing_media_modified() returns trigger language plpgsql as $$
    begin
      update media set modified_at = lightbox_media_stamp(new.account_id)
      where listing_id = new.id and account_id = new.account_id;
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger listings_media_modified after update on listings
    for each row when (old.mls_number is distinct from new.mls_number)
    execute function lightbox_listing_media_modified()
  `.execute(db);
  await backfill(db);
}

/**
 * Existing photos: their created_at. Last, after every DDL: on PostgreSQL the update queues the
 * account versions' deferred triggers, and a table with pending trigger events takes no more DDL.
 * None of the new triggers fires (modified_at is none of the columns they watch).
 */
async function backfill(db: Kysely<any>): Promise<void> {
  await sql`update media set modified_at = created_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    for (const name of [
      'media_modified_insert',
      'media_modified_update',
      'media_variants_modified_insert',
      'media_variants_modified_update',
      'listings_media_modified',
    ]) {
      await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
    }
  } else {
    await sql`drop trigger if exists media_modified_insert on media`.execute(db);
    await sql`drop trigger if exists media_modified_update on media`.execute(db);
    await sql`drop trigger if exists media_variants_modified on media_variants`.execute(db);
    await sql`drop trigger if exists listings_media_modified on listings`.execute(db);
    await sql`drop function if exists lightbox_listing_media_modified()`.execute(db);
    await sql`drop function if exists lightbox_variant_media_modified()`.execute(db);
    await sql`drop function if exists lightbox_media_modified()`.execute(db);
    await sql`drop function if exists lightbox_media_stamp(text)`.execute(db);
  }
  await db.schema.dropIndex('media_listing_modified_idx').execute();
  await db.schema.dropIndex('media_modified_idx').execute();
  await db.schema.alterTable('media').dropColumn('modified_at').execute();
}
