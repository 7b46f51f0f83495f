// Frozen: never import application code here, never edit once released.
// docs/api.md §33 with §29: a gallery waiting for payment serves no public byte, so its photos
// leave the RESO feed while it is locked (reso.repository.ts). When the invoice that locked it is
// paid or voided, its photos come back, and a syncing client that asks only for records changed
// since its last walk must meet them again: their MediaModificationTimestamp moves, by the database
// as every other change of a record does (2026-12-09-0500), whoever closed the invoice (the API,
// the dashboard, Stripe's webhook, the command line).
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** An invoice that could lock its gallery leaves `open`. */
const UNLOCKS = `new.pay_to_unlock = 1 and old.status = 'open' and new.status <> 'open' and new.listing_id is not null`;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // The stamp as in 2026-12-09-0500: now, or 1 ms after the account's latest when that is not earlier.
    await sql
      .raw(
        `create trigger invoices_media_modified after update of status on invoices
         when ${UNLOCKS}
         begin
           update media set modified_at = (
             select case when m is null or n > m then n else strftime('%Y-%m-%dT%H:%M:%fZ', m, '+0.001 seconds') end
             from (select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as n,
                          (select max(modified_at) from media where account_id = new.account_id) as m))
           where listing_id = new.listing_id and account_id = new.account_id;
         end`,
      )
      .execute(db);
    return;
  }
  await sql`
    create function lightbox_invoice_media_modified() returns trigger language plpgsql as $$
    begin
      update media set modified_at = lightbox_media_stamp(new.account_id)
      where listing_id = new.listing_id and account_id = new.account_id;
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger invoices_media_modified after update on invoices
    for each row when (${sql.raw(UNLOCKS)})
    execute function lightbox_invoice_media_modified()
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`drop trigger if exists invoices_media_modified`.execute(db);
    return;
  }
  await sql`drop trigger if exists invoices_media_modified on invoices`.execute(db);
  await sql`drop function if exists lightbox_invoice_media_modified()`.execute(db);
}
