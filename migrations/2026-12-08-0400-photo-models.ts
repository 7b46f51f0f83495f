// Frozen: never import application code here, never edit once released.
// docs/api.md §30, the model stage: what the models read in each photo, on the photo's own row
// beside the pixel stage's columns, so the one media serializer builds `analysis` and `alt_text`
// from the row it already reads. Null: not read (videos, documents, photos analysed before this
// stage, text while ANALYSIS_OCR=off); a zero or an empty list is what was read.
import type { Kysely } from 'kysely';

const COLUMNS = [
  ['analysis_faces', 'integer'],
  ['analysis_people', 'integer'],
  // JSON: [{label, confidence}], most confident first.
  ['analysis_objects', 'text'],
  // JSON: [{text, confidence}].
  ['analysis_text', 'text'],
  // JSON: [{data}].
  ['analysis_qr_codes', 'text'],
  // A RESO ImageOf value, and its confidence.
  ['analysis_room', 'text'],
  ['analysis_room_confidence', 'double precision'],
  // One sentence from the room and the objects.
  ['alt_text', 'text'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of COLUMNS) await db.schema.alterTable('media').addColumn(name, type).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('media').dropColumn(name).execute();
}
