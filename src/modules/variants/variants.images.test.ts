// The variant pipeline on real photos built by test/support/photos.ts, asserting on the bytes it
// produces: format, size, orientation, colour, and that no metadata block survives.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import fc from 'fast-check';
import sharp from 'sharp';
import {
  configureSharp,
  DEFAULT_MLS_BOX,
  fitInside,
  makeVariants,
  VariantError,
  variantSpecs,
  type Box,
  type MadeVariant,
  type VariantName,
  type VariantSpec,
} from './variants.images.ts';
import {
  ADOBE_GREEN_IN_GAMUT,
  ADOBE_GREEN_SATURATED,
  adobeRgbJpeg,
  adobeRgbProfile,
  adobeRgbToSrgb,
  animatedGif,
  BLUE,
  BODY_SERIAL_NUMBER,
  CAMERA_COMMENT,
  CAMERA_SERIAL,
  cameraJpeg,
  cmykJpeg,
  corruptJpeg,
  damagedScanJpeg,
  exifTags,
  GPS_LATITUDE,
  GREY,
  IPTC_CITY,
  jpegMarkers,
  LENS_SERIAL,
  photoLikeJpeg,
  RED,
  rgba16Png,
  smallPhoto,
  truncatedJpeg,
  webpChunks,
  withPngIcc,
  XMP_MARKER,
  type Rgb,
} from '../../../test/support/photos.ts';

const MAX_PIXELS = 268_402_689;
const SPECS = variantSpecs(DEFAULT_MLS_BOX);
let dir: string;

before(async () => {
  configureSharp({ threads: 1 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-variants-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Stored {
  made: MadeVariant[];
  files: Map<VariantName, { data: Buffer; contentType: string }>;
}

let counter = 0;
async function run(original: Buffer, specs: VariantSpec[] = SPECS, maxPixels = MAX_PIXELS): Promise<Stored> {
  const file = path.join(dir, `original-${++counter}`);
  await writeFile(file, original);
  const files: Stored['files'] = new Map();
  const made = await makeVariants(
    file,
    specs,
    async (name, body, contentType) => {
      assert.equal(files.has(name), false, `${name} written twice`);
      files.set(name, { data: await buffer(body), contentType });
    },
    { maxPixels },
  );
  return { made, files };
}

function file(stored: Stored, name: VariantName): Buffer {
  const found = stored.files.get(name);
  assert.ok(found, `${name} was not written`);
  return found.data;
}

async function pixelAt(image: Buffer, fx: number, fy: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const x = Math.min(info.width - 1, Math.floor(fx * info.width));
  const y = Math.min(info.height - 1, Math.floor(fy * info.height));
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + info.channels)];
}

function assertColour(actual: number[], expected: Rgb, tolerance: number, label: string): void {
  for (let i = 0; i < 3; i++) {
    assert.ok(Math.abs(actual[i]! - expected[i]!) <= tolerance, `${label}: got ${actual.join(',')}, expected ${expected.join(',')} ±${tolerance}`); // prettier-ignore
  }
}

/** Width and height inside the box, one side on it (or the original size), aspect kept ±1 px. */
function assertFits(made: { width: number; height: number }, original: Box, box: Box, label: string): void {
  assert.ok(made.width <= box.width && made.height <= box.height, `${label}: ${made.width}x${made.height} exceeds ${box.width}x${box.height}`); // prettier-ignore
  assert.ok(made.width <= original.width && made.height <= original.height, `${label}: enlarged`);
  const scale = Math.min(box.width / original.width, box.height / original.height, 1);
  assert.ok(Math.abs(made.width - original.width * scale) <= 1, `${label}: width ${made.width}`);
  assert.ok(Math.abs(made.height - original.height * scale) <= 1, `${label}: height ${made.height}`);
}

/** Every variant: the declared format and type, sRGB 8-bit, progressive JPEG, what `made` says. */
async function assertWellFormed(stored: Stored, original: Box, specs: VariantSpec[] = SPECS): Promise<void> {
  assert.deepEqual(stored.made.map((m) => m.name), specs.map((s) => s.name)); // prettier-ignore
  for (const spec of specs) {
    const data = file(stored, spec.name);
    const made = stored.made.find((m) => m.name === spec.name)!;
    const meta = await sharp(data).metadata();
    assert.equal(meta.format, spec.format, spec.name);
    assert.equal(stored.files.get(spec.name)?.contentType, spec.contentType);
    assert.equal(made.contentType, spec.contentType);
    assert.deepEqual([made.width, made.height, made.size], [meta.width, meta.height, data.length], spec.name);
    assert.equal(meta.space, 'srgb', spec.name);
    assert.equal(meta.depth, 'uchar', spec.name);
    if (spec.format === 'jpeg') assert.equal(meta.isProgressive, true, `${spec.name} is progressive`);
    assertFits(made, original, spec.box, spec.name);
  }
}

describe('sizes', () => {
  test('the four variants and their boxes; VARIANT_MLS_SIZE parsing', () => {
    assert.deepEqual(
      variantSpecs({ width: 1600, height: 1200 }).map((s) => [
        s.name,
        s.format,
        s.box.width,
        s.box.height,
        s.contentType,
      ]),
      [['thumb', 'webp', 480, 480, 'image/webp'], ['medium', 'webp', 1024, 1024, 'image/webp'], ['large', 'jpeg', 2048, 2048, 'image/jpeg'], ['mls', 'jpeg', 1600, 1200, 'image/jpeg']], // prettier-ignore
    );
  });

  test('fitInside: within the box and the original, aspect kept, as large as the box allows', () => {
    const side = fc.integer({ min: 1, max: 30_000 });
    fc.assert(
      fc.property(side, side, side, side, (width, height, bw, bh) => {
        const out = fitInside({ width, height }, { width: bw, height: bh });
        assertFits(out, { width, height }, { width: bw, height: bh }, `${width}x${height} in ${bw}x${bh}`);
        // As large as allowed: one side reaches the box, or the photo already fits.
        assert.ok(out.width === bw || out.height === bh || (out.width === width && out.height === height));
      }),
    );
    assert.deepEqual(fitInside({ width: 6000, height: 4000 }, { width: 2048, height: 2048 }), { width: 2048, height: 1365 }); // prettier-ignore
    assert.deepEqual(fitInside({ width: 300, height: 200 }, { width: 480, height: 480 }), { width: 300, height: 200 }); // prettier-ignore
  });
});

describe('a 24-megapixel camera JPEG (orientation 6, GPS, serials, XMP, IPTC, comment)', () => {
  let original: Buffer;
  let stored: Stored;

  before(async () => {
    original = await cameraJpeg();
    stored = await run(original);
  });

  test('the fixture really carries what must be removed', async () => {
    const meta = await sharp(original).metadata();
    assert.deepEqual([meta.width, meta.height, meta.orientation], [6000, 4000, 6]);
    const tags = exifTags(meta.exif!);
    assert.ok(tags.gps.includes(GPS_LATITUDE), 'GPS latitude in the GPS IFD');
    assert.ok(tags.exif.includes(BODY_SERIAL_NUMBER), 'camera serial in the Exif IFD');
    assert.ok(meta.xmp !== undefined && meta.iptc !== undefined);
    for (const text of [CAMERA_SERIAL, LENS_SERIAL, CAMERA_COMMENT, IPTC_CITY, XMP_MARKER, 'GPSLatitude']) {
      assert.ok(original.includes(text), `the fixture holds ${text}`);
    }
  });

  test('upright (portrait) sizes within each box, WebP thumb, progressive sRGB JPEGs', async () => {
    await assertWellFormed(stored, { width: 4000, height: 6000 });
    assert.deepEqual(stored.made.map((m) => `${m.name} ${m.width}x${m.height}`), ['thumb 320x480', 'medium 683x1024', 'large 1365x2048', 'mls 1024x1536']); // prettier-ignore
  });

  test('orientation is applied: the stored top-left red ends top-right, the top-right blue bottom-right', async () => {
    for (const name of ['thumb', 'medium', 'large', 'mls'] as const) {
      const data = file(stored, name);
      assertColour(await pixelAt(data, 0.97, 0.03), RED, 12, `${name} top-right`);
      assertColour(await pixelAt(data, 0.97, 0.97), BLUE, 12, `${name} bottom-right`);
      assertColour(await pixelAt(data, 0.03, 0.03), GREY, 12, `${name} top-left`);
      assertColour(await pixelAt(data, 0.03, 0.97), GREY, 12, `${name} bottom-left`);
    }
  });

  test('no EXIF, XMP, IPTC, comment or profile is left, by metadata and by bytes', async () => {
    for (const name of ['thumb', 'medium', 'large', 'mls'] as const) {
      const data = file(stored, name);
      const meta = await sharp(data).metadata();
      for (const key of ['exif', 'xmp', 'iptc', 'icc', 'orientation', 'comments'] as const) {
        assert.equal(meta[key], undefined, `${name} has ${key}`);
      }
      // Long markers only: a 3-byte "GPS" would turn up by chance in compressed data.
      for (const text of [
        CAMERA_SERIAL,
        LENS_SERIAL,
        CAMERA_COMMENT,
        IPTC_CITY,
        XMP_MARKER,
        'GPSLatitude',
        'Exif\0\0',
        'ns.adobe.com/xap',
        'Photoshop 3.0',
        'ICC_PROFILE',
        'Canon',
        'EOS R5',
      ]) {
        // prettier-ignore
        assert.equal(data.includes(text), false, `${name} holds ${JSON.stringify(text)}`);
      }
      if (name === 'thumb' || name === 'medium') {
        assert.deepEqual(webpChunks(data), ['VP8 '], 'a plain lossy WebP, no EXIF/XMP/ICCP chunk');
      } else {
        // Only JFIF APP0 (0xE0), tables, frame and scan headers: no APP1 (EXIF/XMP), APP2 (ICC),
        // APP13 (IPTC) or COM.
        const markers = jpegMarkers(data).map((s) => s.marker);
        for (const marker of markers) assert.ok([0xe0, 0xdb, 0xc4, 0xc2, 0xdd, 0xda].includes(marker), `${name} has marker 0x${marker.toString(16)}`); // prettier-ignore
      }
    }
  });
});

describe('colour', () => {
  test('Adobe RGB (1998), 8-bit JPEG and 16-bit PNG: greens converted to their sRGB values', async () => {
    const expectedInGamut = adobeRgbToSrgb(ADOBE_GREEN_IN_GAMUT);
    const expectedSaturated = adobeRgbToSrgb(ADOBE_GREEN_SATURATED);
    // Were the profile ignored, red would stay 120 and 40: far outside the tolerance.
    assert.ok(ADOBE_GREEN_IN_GAMUT[0] - expectedInGamut[0] > 60 && ADOBE_GREEN_SATURATED[0] - expectedSaturated[0] > 30); // prettier-ignore

    const jpeg = await adobeRgbJpeg();
    const pixels16 = new Uint16Array(400 * 200 * 3);
    for (let i = 0; i < 400 * 200; i++) pixels16.set((i % 400 < 200 ? ADOBE_GREEN_IN_GAMUT : ADOBE_GREEN_SATURATED).map((c) => c * 257), i * 3); // prettier-ignore
    const png16 = withPngIcc(await sharp(pixels16, { raw: { width: 400, height: 200, channels: 3 } }).toColourspace('rgb16').png().toBuffer(), adobeRgbProfile()); // prettier-ignore
    assert.deepEqual(
      await sharp(png16)
        .metadata()
        .then((m) => [m.space, m.hasProfile]),
      ['rgb16', true],
    );

    for (const [label, original, size] of [
      ['JPEG', jpeg, { width: 1200, height: 800 }],
      ['16-bit PNG', png16, { width: 400, height: 200 }],
    ] as const) {
      // prettier-ignore
      const stored = await run(original);
      await assertWellFormed(stored, size);
      for (const name of ['thumb', 'medium', 'large', 'mls'] as const) {
        assertColour(await pixelAt(file(stored, name), 0.25, 0.5), expectedInGamut, 4, `${label} ${name} in-gamut green`); // prettier-ignore
        assertColour(await pixelAt(file(stored, name), 0.75, 0.5), expectedSaturated, 4, `${label} ${name} saturated green`); // prettier-ignore
      }
    }
  });

  test('an untagged 16-bit PNG with alpha: 8-bit sRGB, alpha kept in WebP, flattened onto white in JPEG', async () => {
    const original = await rgba16Png();
    assert.deepEqual(await sharp(original).metadata().then((m) => [m.depth, m.channels, m.hasProfile]), ['ushort', 4, false]); // prettier-ignore
    const stored = await run(original);
    await assertWellFormed(stored, { width: 900, height: 600 });
    const red: Rgb = [234, 19, 19]; // 60000/65535 and 5000/65535 of 255
    const thumb = file(stored, 'thumb');
    assert.equal((await sharp(thumb).metadata()).hasAlpha, true);
    assertColour(await pixelAt(thumb, 0.25, 0.5), red, 6, 'thumb opaque half');
    assert.equal((await pixelAt(thumb, 0.75, 0.5))[3], 0, 'thumb transparent half');
    for (const name of ['large', 'mls'] as const) {
      assert.equal((await sharp(file(stored, name)).metadata()).channels, 3);
      assertColour(await pixelAt(file(stored, name), 0.25, 0.5), red, 6, `${name} opaque half`);
      assertColour(await pixelAt(file(stored, name), 0.75, 0.5), [255, 255, 255], 3, `${name} transparent half`);
    }
  });

  test('a CMYK JPEG becomes RGB: red stays red', async () => {
    const original = await cmykJpeg();
    assert.equal((await sharp(original).metadata()).space, 'cmyk');
    const stored = await run(original);
    await assertWellFormed(stored, { width: 800, height: 600 });
    for (const name of ['thumb', 'medium', 'large', 'mls'] as const) {
      assert.equal((await sharp(file(stored, name)).metadata()).channels, 3);
      assertColour(await pixelAt(file(stored, name), 0.5, 0.5), RED, 20, name);
    }
  });
});

describe('other originals', () => {
  test('an animated GIF: the first frame, not animated', async () => {
    const original = await animatedGif();
    assert.equal((await sharp(original).metadata()).pages, 3);
    const stored = await run(original);
    await assertWellFormed(stored, { width: 600, height: 400 });
    for (const name of ['thumb', 'medium', 'large', 'mls'] as const) {
      assert.ok(((await sharp(file(stored, name)).metadata()).pages ?? 1) === 1, `${name} has one frame`);
      assertColour(await pixelAt(file(stored, name), 0.5, 0.5), RED, 20, name);
    }
  });

  test('a 300x200 photo is never enlarged', async () => {
    const stored = await run(await smallPhoto());
    await assertWellFormed(stored, { width: 300, height: 200 });
    for (const made of stored.made) assert.deepEqual([made.width, made.height], [300, 200], made.name);
  });

  test('a landscape photo: large and mls are the same size, encoded once, stored under both names', async () => {
    const stored = await run(await photoLikeJpeg(3000, 2000));
    await assertWellFormed(stored, { width: 3000, height: 2000 });
    assert.deepEqual(
      stored.made.map((m) => `${m.width}x${m.height}`),
      ['480x320', '1024x683', '2048x1365', '2048x1365'],
    );
    assert.deepEqual(file(stored, 'mls'), file(stored, 'large'));
  });

  test('an mls box larger than large: every variant is cut from one decode at the largest size', async () => {
    const specs = variantSpecs({ width: 3000, height: 3000 });
    const stored = await run(await photoLikeJpeg(3200, 2400), specs);
    await assertWellFormed(stored, { width: 3200, height: 2400 }, specs);
    assert.deepEqual(
      stored.made.map((m) => `${m.width}x${m.height}`),
      ['480x360', '1024x768', '2048x1536', '3000x2250'],
    );
  });
});

describe('photos that cannot be made into variants', () => {
  async function refused(original: Buffer, reason: RegExp, maxPixels = MAX_PIXELS): Promise<void> {
    const file = path.join(dir, `refused-${++counter}`);
    await writeFile(file, original);
    let puts = 0;
    await assert.rejects(
      makeVariants(
        file,
        SPECS,
        () => {
          puts++;
          return Promise.resolve();
        },
        { maxPixels },
      ),
      (error: unknown) => error instanceof VariantError && reason.test(error.message),
    );
    assert.equal(puts, 0, 'nothing is written');
  }

  test('a truncated JPEG, a broken JPEG header, a GIF header alone, junk, a photo over the pixel limit', async () => {
    await refused(await truncatedJpeg(), /truncated/);
    await refused(await corruptJpeg(), /cannot be decoded: .*Huffman/);
    await refused(Buffer.from('GIF89a and then no image at all'), /cannot be decoded: .*GIF/);
    await refused(Buffer.from('not an image in any format'), /not in an image format/);
    await refused(await smallPhoto(), /over the limit of 59999 pixels/, 59_999);
  });

  test('damage inside the compressed data (a libjpeg warning) is decoded, as browsers show it', async () => {
    const stored = await run(await damagedScanJpeg());
    await assertWellFormed(stored, { width: 1200, height: 800 });
  });

  test("a missing original or a failing put is not the photo's fault: not a VariantError", async () => {
    await assert.rejects(
      makeVariants(path.join(dir, 'missing.jpg'), SPECS, () => Promise.resolve(), { maxPixels: MAX_PIXELS }),
      (error: unknown) => !(error instanceof VariantError) && (error as NodeJS.ErrnoException).code === 'ENOENT',
    );
    const file = path.join(dir, 'put-fails.jpg');
    await writeFile(file, await smallPhoto());
    const failure = new Error('storage is down');
    await assert.rejects(
      makeVariants(file, SPECS, () => Promise.reject(failure), { maxPixels: MAX_PIXELS }),
      (error: unknown) => error === failure,
    );
  });
});
