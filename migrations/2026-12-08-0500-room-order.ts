// Frozen: never import application code here, never edit once released.
// docs/api.md §30: the studio's room order for the suggested photo order, a JSON list of the 14
// RESO ImageOf values, each once; null keeps the default order.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('room_order', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('room_order').execute();
}
