// Frozen: never import application code here, never edit once released.
// docs/api.md §20: test mode. Each account's test data belongs to a second, "shadow" account row
// (`live_account_id` names the studio it belongs to), so every query scoped by account is scoped
// by mode too (docs/decisions/0020-test-mode.md). A key stays on the live account, marked `test`.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('live_account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .execute();
  // At most one test account per studio (a unique index allows many nulls on both dialects).
  await db.schema.createIndex('accounts_live_account_idx').on('accounts').column('live_account_id').unique().execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('test').execute();
  await db.schema.dropIndex('accounts_live_account_idx').execute();
  await db.schema.alterTable('accounts').dropColumn('live_account_id').execute();
}
