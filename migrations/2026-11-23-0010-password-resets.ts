// Frozen: never import application code here, never edit once released.
// "Forgot password?": one row per reset link emailed, holding only the SHA-256 of its token, so
// a copy of the database resets nobody's password. A link works once, until expires_at.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_account_idx').on('password_resets').columns(['account_id']).execute();
  await db.schema.createIndex('password_resets_expires_idx').on('password_resets').columns(['expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('password_resets').execute();
}
