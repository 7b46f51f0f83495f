// The one serializer of the MLS profile object (docs/api.md §31), from its stored row.
import type { MlsProfileRow } from './mls.repository.ts';
import type { MlsProfileType } from './mls.schemas.ts';

export const toProfile = (row: MlsProfileRow): MlsProfileType => ({
  id: row.id,
  name: row.name,
  max_long_edge: row.max_long_edge,
  min_long_edge: row.min_long_edge,
  max_bytes: Number(row.max_bytes),
  max_photos: row.max_photos,
  forbid_text: row.forbid_text === 1,
  forbid_qr_codes: row.forbid_qr_codes === 1,
  forbid_people: row.forbid_people === 1,
  first_photo_exterior: row.first_photo_exterior === 1,
  disclose_staging: row.disclose_staging === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
