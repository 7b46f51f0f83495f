// Frozen: never import application code here, never edit once released.
// The admin dashboard's state: signed-in sessions, sign-in failures (throttling that holds
// across nodes) and the one-time setup marker. Portable to SQLite and PostgreSQL; timestamps
// are fixed-width ISO 8601 text like everywhere else.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Only the SHA-256 of a session token is stored: a copy of the database signs nobody in.
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account_idx').on('sessions').columns(['account_id']).execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').columns(['expires_at']).execute();

  // One row per failed sign-in, per subject: the client address and the email tried.
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_subject_idx')
    .on('sign_in_failures')
    .columns(['scope', 'subject', 'created_at'])
    .execute();
  await db.schema.createIndex('sign_in_failures_age_idx').on('sign_in_failures').columns(['created_at']).execute();

  // The dashboard's first-run setup inserts this single row in the same transaction as the
  // first account: its primary key makes two concurrent setups create exactly one account.
  await db.schema
    .createTable('setup_marker')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['setup_marker', 'sign_in_failures', 'sessions']) {
    await db.schema.dropTable(table).execute();
  }
}
