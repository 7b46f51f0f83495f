// The social images (docs/api.md §32): the cover at each size with the address and facts set over
// it; on the story (9:16) the text keeps out of the lowest 270 px, where the apps draw their bars.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { renderSocialImage, SOCIAL_SIZES } from './kit.social.ts';

/** The brightest grey value in rows `from`..`to` of a JPEG. */
async function brightest(jpeg: Buffer, from: number, to: number): Promise<number> {
  const { width } = await sharp(jpeg).metadata();
  const band = await sharp(jpeg).extract({ left: 0, top: from, width: width ?? 0, height: to - from }).greyscale().raw().toBuffer(); // prettier-ignore
  return band.reduce((max, v) => Math.max(max, v), 0);
}

test('each size carries white text near its foot; the story keeps it above the app bars', async () => {
  const cover = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 90, g: 90, b: 90 } } })
    .jpeg()
    .toBuffer();
  const text = {
    address: '12 Harbour Street, Portland',
    facts: '4 beds · 3 baths · 2,450 sqft',
    studio: 'Bright Rooms',
  };
  for (const size of SOCIAL_SIZES) {
    const jpeg = await renderSocialImage(cover, size, text);
    const meta = await sharp(jpeg).metadata();
    assert.deepEqual([meta.width, meta.height], [size.width, size.height]);
    const free = size.format === 'story' ? 270 : 40;
    assert.ok((await brightest(jpeg, size.height - free, size.height)) < 150, `${size.format}: no text in the lowest ${free} px`); // prettier-ignore
    assert.ok((await brightest(jpeg, size.height - free - 400, size.height - free)) > 230, `${size.format}: the text above`); // prettier-ignore
  }
});
