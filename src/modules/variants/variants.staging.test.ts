// docs/api.md §31: a virtually staged photo's `large` and `mls` variants carry a "Virtually staged"
// label that can be read: the OCR of §30 (analysis.models.ts modelReader) reads the words off the
// variants the one pipeline made (makeVariants), and finds none on the same photo unlabelled or on
// its thumbnail. stagingLabelWanted is the one rule deciding the label.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { DEFAULT_MLS_BOX, makeVariants, variantSpecs, type VariantName } from './variants.images.ts';
import { STAGING_LABEL, stagingLabelWanted } from './variants.staging.ts';
import type { ModelReader } from '../analysis/analysis.models.ts';
import { modelReader } from '../analysis/analysis.models.thread.ts';

let dir: string;
let reader: ModelReader;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-staging-'));
  reader = modelReader({ ocr: true, maxPixels: 100_000_000 });
});
after(async () => {
  await reader.close();
  await rm(dir, { recursive: true, force: true });
});

/** A room-like photo: a light wall over a darker floor, with noise, 3000x2000 (larger than every box). */
async function roomPhoto(): Promise<string> {
  const width = 3000;
  const height = 2000;
  const data = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (seed % 21) - 10;
      const base = y < height * 0.65 ? [214, 206, 190] : [120, 88, 60];
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) data[i + c] = Math.max(0, Math.min(255, (base[c] ?? 0) + noise));
    }
  }
  const file = path.join(dir, 'room.jpg');
  await writeFile(
    file,
    await sharp(data, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  return file;
}

async function variantsOf(source: string, label: boolean): Promise<Map<VariantName, string>> {
  const files = new Map<VariantName, string>();
  const made = await makeVariants(
    source,
    variantSpecs(DEFAULT_MLS_BOX),
    async (name, body) => {
      const file = path.join(dir, `${label ? 'staged' : 'plain'}-${name}`);
      await writeFile(file, await buffer(body));
      files.set(name, file);
    },
    { maxPixels: 100_000_000, label },
  );
  assert.deepEqual(
    made.map((m) => [m.name, m.labelled]),
    [
      ['thumb', false],
      ['medium', label],
      ['large', label],
      ['mls', label],
    ],
  );
  return files;
}

const words = async (file: string): Promise<string[]> =>
  ((await reader.read(file)).text ?? []).map((w) => w.text.toLowerCase().replace(/[^a-z]/g, ''));

describe('the "Virtually staged" label', () => {
  test('is read by the OCR on the large and mls variants of a staged photo, and on none of an unstaged one', async () => {
    const source = await roomPhoto();
    const staged = await variantsOf(source, true);
    const wanted = STAGING_LABEL.toLowerCase().split(' ');
    for (const name of ['large', 'mls'] as const) {
      const read = await words(staged.get(name) ?? '');
      for (const word of wanted) assert.ok(read.includes(word), `${name}: read ${JSON.stringify(read)}`);
    }
    const plain = await variantsOf(source, false);
    for (const name of ['large', 'mls'] as const) {
      const read = await words(plain.get(name) ?? '');
      assert.ok(!read.includes('staged'), `unstaged ${name}: read ${JSON.stringify(read)}`);
    }
    // The variants keep their sizes: the label is drawn into them, not added around them.
    const [large, plainLarge] = await Promise.all(
      [staged.get('large'), plain.get('large')].map((f) => sharp(f ?? '').metadata()),
    );
    assert.deepEqual([large?.width, large?.height], [plainLarge?.width, plainLarge?.height]);
  });
});

describe('stagingLabelWanted', () => {
  test('a staged photo is labelled without a profile, or with one that discloses staging; never otherwise', () => {
    const staged = { kind: 'photo' as const, virtually_staged: 1 };
    assert.equal(stagingLabelWanted(staged, null), true);
    assert.equal(stagingLabelWanted(staged, { disclose_staging: true }), true);
    assert.equal(stagingLabelWanted(staged, { disclose_staging: false }), false);
    assert.equal(stagingLabelWanted({ kind: 'photo', virtually_staged: 0 }, null), false);
    assert.equal(stagingLabelWanted({ kind: 'video', virtually_staged: 1 }, null), false);
  });
});
