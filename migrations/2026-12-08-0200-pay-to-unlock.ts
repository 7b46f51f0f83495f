// Frozen: never import application code here, never edit once released.
// docs/api.md §29: while a gallery waits for payment its public pages show `thumb_wm` and
// `large_wm`, the photo's thumb and large carrying the studio's mark, made once per photo by the
// `media.watermark` job and stored as any variant. `mark` names what was drawn on them (a hash of
// the studio's name), so a renamed studio's previews are made again; null on every other variant.
// Every public request of a gallery asks whether an open invoice locks it: an index answers that.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('media_variants').addColumn('mark', 'text').execute();
  await db.schema
    .createIndex('invoices_account_listing_status')
    .on('invoices')
    .columns(['account_id', 'listing_id', 'status'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_account_listing_status').execute();
  // The previews go, their bytes through the cleanup ledger (due now), and so do their jobs.
  const now = new Date().toISOString();
  await sql`
    insert into media_cleanup (storage_key, delete_after, created_at)
    select storage_key, ${now}, ${now} from media_variants where name in ('thumb_wm', 'large_wm')
    on conflict (storage_key) do nothing
  `.execute(db);
  await sql`delete from media_variants where name in ('thumb_wm', 'large_wm')`.execute(db);
  await sql`delete from jobs where kind = 'media.watermark'`.execute(db);
  // PostgreSQL: the deletions' deferred account-version triggers run now, before the table is altered.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) await sql`set constraints all immediate`.execute(db);
  await db.schema.alterTable('media_variants').dropColumn('mark').execute();
}
