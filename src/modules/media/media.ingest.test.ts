// readDimensions on its own: the upright size (docs/api.md §13) for every EXIF orientation and
// the formats that carry one, from the kept head of an upload and from the whole stored file.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readDimensions } from './media.ingest.ts';

const limits = { maxPixels: 268_402_689, filename: 'photo' };
let dir: string;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-ingest-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A 40x20 image (stored pixels) tagged with an EXIF orientation. */
const oriented = (format: 'jpeg' | 'png' | 'webp' | 'tiff' | 'avif', orientation: number): Promise<Buffer> =>
  sharp({ create: { width: 40, height: 20, channels: 3, background: '#808080' } })
    .toFormat(format)
    .withMetadata({ orientation })
    .toBuffer();

describe('readDimensions: the upright size', () => {
  test('JPEG, orientations 1-8: 5-8 swap width and height, from the kept head and from the file', async () => {
    for (let orientation = 1; orientation <= 8; orientation++) {
      const data = await oriented('jpeg', orientation);
      assert.equal((await sharp(data).metadata()).orientation, orientation, 'the fixture carries it');
      const expected = orientation >= 5 ? { width: 20, height: 40 } : { width: 40, height: 20 };
      assert.deepEqual(await readDimensions(data, limits), expected, `head, orientation ${orientation}`);
      const file = path.join(dir, `o${orientation}.jpg`);
      await writeFile(file, data);
      assert.deepEqual(await readDimensions(file, limits), expected, `file, orientation ${orientation}`);
    }
  });

  test('PNG, WebP and TIFF with orientation 6 (read whole), and an AVIF that libheif turns itself', async () => {
    for (const format of ['png', 'webp', 'tiff', 'avif'] as const) {
      const file = path.join(dir, `o6.${format}`);
      await writeFile(file, await oriented(format, 6));
      assert.deepEqual(await readDimensions(file, limits), { width: 20, height: 40 }, format);
    }
  });

  test('the pixel limit counts the upright size too', async () => {
    const data = await oriented('jpeg', 6);
    await assert.rejects(readDimensions(data, { ...limits, maxPixels: 799 }), /20x40 pixels, over the limit of 799/);
    assert.deepEqual(await readDimensions(data, { ...limits, maxPixels: 800 }), { width: 20, height: 40 });
  });
});
