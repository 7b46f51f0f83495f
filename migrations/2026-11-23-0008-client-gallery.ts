// Frozen: never import application code here, never edit once released.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // docs/api.md §14: the link an assigned gallery's client opens, with what the client did with it.
  // One per gallery (the link of its current client); a new client gets a new row.
  await db.schema
    .createTable('client_links')
    .addColumn('listing_id', 'text', (c) => c.primaryKey().references('listings.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // At least 128 random bits, URL-safe: the capability the URL carries (decisions/0008).
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_viewed_at', 'text')
    .addColumn('last_viewed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('client_links_account_idx')
    .on('client_links')
    .columns(['account_id', 'created_at'])
    .execute();

  // Galleries assigned before links existed get theirs now.
  const now = new Date().toISOString();
  for (;;) {
    const rows = await sql<{ id: string; account_id: string; client_id: string }>`
      select l.id, l.account_id, l.client_id from listings l
      where l.client_id is not null and not exists (select 1 from client_links c where c.listing_id = l.id)
      limit 500
    `.execute(db);
    if (rows.rows.length === 0) break;
    await db
      .insertInto('client_links')
      .values(
        rows.rows.map((r) => ({
          listing_id: r.id,
          account_id: r.account_id,
          client_id: r.client_id,
          token: randomBytes(24).toString('base64url'),
          created_at: now,
        })),
      )
      .execute();
  }

  // The ZIP of a gallery names each entry's CRC-32 before its bytes: recorded at upload from now
  // on; media uploaded before are checksummed by a job each.
  await db.schema.alterTable('media').addColumn('crc32', 'bigint').execute();
  await sql`
    insert into jobs (id, kind, account_id, subject_id, group_key, run_at, attempts, lease, last_error, created_at, updated_at)
    select 'job_c' || id, 'media.checksum', account_id, id, null, ${now}, 0, null, null, ${now}, ${now}
    from media
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from jobs where kind = 'media.checksum'`.execute(db);
  await db.schema.alterTable('media').dropColumn('crc32').execute();
  await db.schema.dropTable('client_links').execute();
}
