// Frozen: never import application code here, never edit once released.
// docs/api.md §22: why an endpoint is disabled. `manual` (PATCH or the dashboard) or `gone`
// (a receiver answered 410); null while enabled. Endpoints disabled before this migration were
// disabled by hand.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('disabled_reason', 'text').execute();
  await sql`update webhook_endpoints set disabled_reason = 'manual' where enabled = 0`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('disabled_reason').execute();
}
