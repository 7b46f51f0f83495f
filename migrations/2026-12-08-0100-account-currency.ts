// Frozen: never import application code here, never edit once released.
// docs/api.md §29: each account has one currency (ISO 4217), USD unless the studio says otherwise.
// Every amount of the account is an integer in that currency's minor unit.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('currency').execute();
}
