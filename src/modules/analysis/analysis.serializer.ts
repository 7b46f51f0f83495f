// The media object's `analysis` (docs/api.md §30), from the photo's own row: the pixel stage's
// columns. What a later stage reads with models stays null (analysis.schemas.ts says why).
import type { Static } from '@sinclair/typebox';
import type { MediaRow } from '../media/media.repository.ts';
import type { Analysis } from './analysis.schemas.ts';

export type AnalysisType = Static<typeof Analysis>;

const bool = (v: number | null): boolean | null => (v === null ? null : v !== 0);

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
    faces: null,
    people: null,
    text: null,
    qr_codes: null,
    objects: null,
    room: null,
    similar_group: ready ? row.analysis_similar_group : null,
    best_in_group: ready ? bool(row.analysis_best_in_group) : null,
  };
}
