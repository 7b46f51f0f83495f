// The media row's analysis columns (docs/api.md §30, src/modules/analysis/): null unless the photo
// is analysed; the rest null until its analysis is ready; the flags are 0 or 1.
import type { Generated } from 'kysely';

export interface MediaAnalysisColumns {
  /** 'pending' | 'ready' | 'failed'; null for videos, documents, photos not analysed. */
  analysis_status: Generated<'pending' | 'ready' | 'failed' | null>;
  analysis_phash: Generated<string | null>;
  analysis_sharpness: Generated<number | null>;
  analysis_blurry: Generated<number | null>;
  analysis_exposure_mean: Generated<number | null>;
  analysis_clipped_highlights: Generated<number | null>;
  analysis_clipped_shadows: Generated<number | null>;
  analysis_tilt_degrees: Generated<number | null>;
  analysis_similar_group: Generated<string | null>;
  analysis_best_in_group: Generated<number | null>;
  // The model stage (null: not read; the lists are JSON).
  analysis_faces: Generated<number | null>;
  analysis_people: Generated<number | null>;
  analysis_objects: Generated<string | null>;
  analysis_text: Generated<string | null>;
  analysis_qr_codes: Generated<string | null>;
  analysis_room: Generated<string | null>;
  analysis_room_confidence: Generated<number | null>;
  alt_text: Generated<string | null>;
}

/** The media row's column for the RESO feed (docs/api.md §33). */
export interface MediaFeedColumns {
  /**
   * MediaModificationTimestamp: moved by the database (triggers of 2026-12-09-0500) whenever
   * anything the photo's RESO record shows changes; strictly increasing per account.
   */
  modified_at: Generated<string | null>;
}
