// Frozen: never import application code here, never edit once released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per (account, Idempotency-Key): the primary key is what makes the first of many
  // concurrent requests the only one to run. `token` names the request holding an in-flight
  // row, so a late finish can never overwrite a row another request has taken over.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').columns(['expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
