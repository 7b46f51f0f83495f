// Frozen: never import application code here, never edit once released.
// docs/api.md §28: the client's portal and a gallery's tours.
// - clients.portal_token: the capability of the client's portal page (PUBLIC_URL/c/<token>), kept
//   as the client links keep theirs (the object shows its URL, so the token is kept as issued; at
//   least 128 random bits). Every existing client gets one now. The portal's list is served by
//   listings_account_client_order_idx (account_id, client_id, created_at, id), already there.
// - listings.tours: the gallery's tours, a JSON array of {url, label, unbranded}; null reads as [].
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Columns and index first: on PostgreSQL the backfill's updates leave deferred trigger events
  // (the account versions), after which the table cannot be altered in this transaction.
  await db.schema.alterTable('listings').addColumn('tours', 'text').execute();
  await db.schema.alterTable('clients').addColumn('portal_token', 'text').execute();
  await db.schema.createIndex('clients_portal_token_idx').on('clients').column('portal_token').unique().execute();
  for (;;) {
    const rows = await sql<{ id: string }>`select id from clients where portal_token is null limit 500`.execute(db);
    if (rows.rows.length === 0) break;
    for (const row of rows.rows) {
      const token = randomBytes(24).toString('base64url');
      await sql`update clients set portal_token = ${token} where id = ${row.id}`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('listings').dropColumn('tours').execute();
  await db.schema.dropIndex('clients_portal_token_idx').execute();
  await db.schema.alterTable('clients').dropColumn('portal_token').execute();
}
