// docs/api.md §32: the teaser is "the cover and the best photos". The best, from what the
// analysis (§30) read of each photo: never a similar photo that is not its group's best, nor one
// read as blurry, while another is left; then the sharper, the better exposed (less clipped), the
// more upright first, a photo not analysed counted as middling. Ties, and every photo of a gallery
// not analysed at all, keep the gallery's order, so the teaser is then the first photos.

export interface TeaserPhoto {
  id: string;
  analysis_status: string | null;
  analysis_sharpness: number | null;
  analysis_blurry: number | null;
  analysis_clipped_highlights: number | null;
  analysis_clipped_shadows: number | null;
  analysis_tilt_degrees: number | null;
  analysis_best_in_group: number | null;
}

/** 0..1, higher better; 0.5 for a photo not analysed. */
function teaserScore(p: TeaserPhoto): number {
  if (p.analysis_status !== 'ready') return 0.5;
  const sharp = p.analysis_sharpness ?? 0.5;
  const clipped = Math.min(1, (p.analysis_clipped_highlights ?? 0) + (p.analysis_clipped_shadows ?? 0));
  const tilt = Math.min(1, Math.abs(p.analysis_tilt_degrees ?? 0) / 5);
  return Math.max(0, sharp - 0.5 * clipped - 0.2 * tilt);
}

/** Left for last: a duplicate that is not its group's best, or a blurry photo. */
const setAside = (p: TeaserPhoto): boolean =>
  p.analysis_status === 'ready' && (p.analysis_best_in_group === 0 || p.analysis_blurry === 1);

/** The photos for the teaser, best first: the cover, then the others by the rules above. */
export function teaserOrder<P extends TeaserPhoto>(cover: P, photos: readonly P[]): P[] {
  const others = photos
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.id !== cover.id)
    .sort((a, b) => Number(setAside(a.p)) - Number(setAside(b.p)) || teaserScore(b.p) - teaserScore(a.p) || a.i - b.i)
    .map(({ p }) => p);
  return [cover, ...others];
}
