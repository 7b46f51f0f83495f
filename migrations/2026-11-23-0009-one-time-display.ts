// Frozen: never import application code here, never edit once released.
// A value a session's next page shows once (a new API key, after the form's redirect), so the
// form can answer with a redirect and a reload never sends it again. It is stored encrypted with
// a key derived from the session's cookie token, which the database never holds.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('one_time', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('one_time').execute();
}
