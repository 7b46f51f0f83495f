// Frozen: never import application code here, never edit once released.
// docs/api.md §30: what the pixels of each photo say, on the photo's own row, so the one media
// serializer builds `analysis` from the row it already reads (no extra query per list). Null
// everywhere for videos, documents, photos from before (`lightbox media analyze` fills them in)
// and while ANALYSIS=off.
import type { Kysely } from 'kysely';

const COLUMNS = [
  // 'pending' | 'ready' | 'failed'; null: not analysed (videos, documents, ANALYSIS=off).
  ['analysis_status', 'text'],
  // 16 hex digits: the 64-bit DCT perceptual hash.
  ['analysis_phash', 'text'],
  ['analysis_sharpness', 'double precision'],
  // 0 or 1.
  ['analysis_blurry', 'integer'],
  ['analysis_exposure_mean', 'double precision'],
  ['analysis_clipped_highlights', 'double precision'],
  ['analysis_clipped_shadows', 'double precision'],
  // Degrees, positive clockwise; null when the photo has too few vertical lines.
  ['analysis_tilt_degrees', 'double precision'],
  // Shared by the photos of one gallery whose hashes are near; null when none is near.
  ['analysis_similar_group', 'text'],
  // 0 or 1.
  ['analysis_best_in_group', 'integer'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of COLUMNS) await db.schema.alterTable('media').addColumn(name, type).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('jobs').where('kind', '=', 'media.analyze').execute();
  for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('media').dropColumn(name).execute();
}
