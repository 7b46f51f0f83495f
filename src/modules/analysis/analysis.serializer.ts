// The media object's `analysis` (docs/api.md §30), from the photo's own row: the pixel stage's
// columns and the model stage's. What was not read stays null (analysis.schemas.ts says why).
import type { Static } from '@sinclair/typebox';
import type { MediaRow } from '../media/media.repository.ts';
import type { Analysis } from './analysis.schemas.ts';

export type AnalysisType = Static<typeof Analysis>;

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);
const parsed = (v: string | null): unknown => (v === null ? null : JSON.parse(v));

export function analysisOfRow(row: MediaRow): AnalysisType | null {
  if (row.analysis_status === null) return null;
  const ready = row.analysis_status === 'ready';
  const exposure =
    ready &&
    row.analysis_exposure_mean !== null &&
    row.analysis_clipped_highlights !== null &&
    row.analysis_clipped_shadows !== null
      ? {
          mean: row.analysis_exposure_mean,
          clipped_highlights: row.analysis_clipped_highlights,
          clipped_shadows: row.analysis_clipped_shadows,
        }
      : null;
  return {
    status: row.analysis_status,
    phash: ready ? row.analysis_phash : null,
    sharpness: ready ? row.analysis_sharpness : null,
    blurry: ready ? bool(row.analysis_blurry) : null,
    exposure,
    tilt_degrees: ready ? row.analysis_tilt_degrees : null,
    faces: ready ? row.analysis_faces : null,
    people: ready ? row.analysis_people : null,
    text: ready ? (parsed(row.analysis_text) as AnalysisType['text']) : null,
    qr_codes: ready ? (parsed(row.analysis_qr_codes) as AnalysisType['qr_codes']) : null,
    objects: ready ? (parsed(row.analysis_objects) as AnalysisType['objects']) : null,
    room:
      ready && row.analysis_room !== null && row.analysis_room_confidence !== null
        ? { label: row.analysis_room, confidence: row.analysis_room_confidence }
        : null,
    similar_group: ready ? row.analysis_similar_group : null,
    best_in_group: ready ? bool(row.analysis_best_in_group) : null,
  };
}
