// The teaser's "best photos" (docs/api.md §32): what the analysis read decides, the cover first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { teaserOrder, type TeaserPhoto } from './kit.teaser.ts';

const photo = (id: string, over: Partial<TeaserPhoto> = {}): TeaserPhoto => ({
  id,
  analysis_status: 'ready',
  analysis_sharpness: 0.6,
  analysis_blurry: 0,
  analysis_clipped_highlights: 0,
  analysis_clipped_shadows: 0,
  analysis_tilt_degrees: 0,
  analysis_best_in_group: null,
  ...over,
});

test('the cover first, then sharp, well exposed, upright photos; blurry and non-best duplicates last', () => {
  const photos = [
    photo('blurry', { analysis_sharpness: 0.95, analysis_blurry: 1 }),
    photo('cover', { analysis_sharpness: 0.1 }),
    photo('dup', { analysis_sharpness: 0.9, analysis_best_in_group: 0 }),
    photo('best', { analysis_sharpness: 0.9, analysis_best_in_group: 1 }),
    photo('burnt', { analysis_sharpness: 0.9, analysis_clipped_highlights: 0.4 }),
    photo('tilted', { analysis_sharpness: 0.9, analysis_tilt_degrees: -4 }),
    photo('plain'),
  ];
  const ids = teaserOrder(photos[1]!, photos).map((p) => p.id);
  assert.deepEqual(ids, ['cover', 'best', 'tilted', 'burnt', 'plain', 'blurry', 'dup']);
});

test('photos not analysed keep the gallery order', () => {
  const photos = ['a', 'b', 'c', 'd'].map((id) => photo(id, { analysis_status: null, analysis_sharpness: null }));
  assert.deepEqual(
    teaserOrder(photos[2]!, photos).map((p) => p.id),
    ['c', 'a', 'b', 'd'],
  );
});
