// Frozen: never import application code here, never edit once released.
// docs/api.md §31: the studio's MLS profiles (what a listing service accepts), the gallery's
// profile, and the last compliance status of each gallery against each profile, so
// `listing.compliance_changed` is announced only when the status changes. A profile a gallery
// uses is taken off the gallery when it is deleted (the service does it, with the gallery's
// event). No foreign key on listings.mls_profile_id: SQLite cannot drop such a column in down().
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('mls_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('max_long_edge', 'integer', (c) => c.notNull())
    .addColumn('min_long_edge', 'integer', (c) => c.notNull())
    .addColumn('max_bytes', 'bigint', (c) => c.notNull())
    .addColumn('max_photos', 'integer', (c) => c.notNull())
    // 0 or 1 each.
    .addColumn('forbid_text', 'integer', (c) => c.notNull())
    .addColumn('forbid_qr_codes', 'integer', (c) => c.notNull())
    .addColumn('forbid_people', 'integer', (c) => c.notNull())
    .addColumn('first_photo_exterior', 'integer', (c) => c.notNull())
    .addColumn('disclose_staging', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mls_profiles_account_created')
    .on('mls_profiles')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema.alterTable('listings').addColumn('mls_profile_id', 'text').execute();
  await db.schema.createIndex('listings_mls_profile').on('listings').columns(['mls_profile_id']).execute();

  // Not shown by any /v1 read (the report is computed when asked): the last status announced.
  await db.schema
    .createTable('listing_compliance')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    .addColumn('profile_id', 'text', (c) => c.notNull().references('mls_profiles.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    // 'pass' | 'warn' | 'fail' | 'pending'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_compliance_pk', ['listing_id', 'profile_id'])
    .execute();
  await db.schema.createIndex('listing_compliance_profile').on('listing_compliance').columns(['profile_id']).execute();

  // Profiles are shown rows: they raise the account's version, as every other shown row does
  // (2026-11-26-0014).
  if (sqlite) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`mls_profiles_version_${event}`)} after ${sql.raw(event)} on mls_profiles
        begin
          insert into account_versions (account_id, version) values (${sql.raw(row)}.account_id, 1)
            on conflict (account_id) do update set version = version + 1;
        end
      `.execute(db);
    }
  } else {
    await sql`
      create constraint trigger mls_profiles_version
      after insert or update or delete on mls_profiles
      deferrable initially deferred
      for each row execute function lightbox_raise_account_version()
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('listing_compliance').execute();
  await db.schema.dropIndex('listings_mls_profile').execute();
  await db.schema.alterTable('listings').dropColumn('mls_profile_id').execute();
  await db.schema.dropTable('mls_profiles').execute();
}
