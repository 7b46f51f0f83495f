// Frozen: never import application code here, never edit once released.
// docs/api.md §32: the studio's music track for the listing kit's videos (Settings), the storage
// key of its audio file; null makes the videos silent (no audio stream). The bytes live in media
// storage, owned by this column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('kit_music_key', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('kit_music_key').execute();
}
