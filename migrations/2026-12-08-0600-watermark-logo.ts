// Frozen: never import application code here, never edit once released.
// docs/api.md §29: the studio's watermark logo (Settings), the storage key of its image; null
// marks previews with the studio's name. The bytes live in media storage, owned by this column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('watermark_logo_key', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('watermark_logo_key').execute();
}
