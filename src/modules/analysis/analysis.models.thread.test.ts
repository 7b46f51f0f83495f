// The model stage's thread (analysis.models.thread.ts): a photo that cannot be read fails as the
// job expects (an AnalysisError, so the photo ends failed rather than retried), the thread is
// started again after close(). That the API stays fast meanwhile is measured by
// `npm run bench:analysis` (its shoot's p99), not asserted here.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { analysePixels, AnalysisError } from './analysis.pixels.ts';
import { modelReader } from './analysis.models.thread.ts';

test('a photo the thread cannot decode fails with an AnalysisError; close() ends the thread and a read starts one', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-thread-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'not-a-photo.jpg');
  await writeFile(file, 'these are not the bytes of a photo');
  const reader = modelReader({ ocr: false, maxPixels: 100_000_000 });
  t.after(() => reader.close());

  const first = await reader.read(file).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(first instanceof AnalysisError, String(first));
  assert.match(first.message, /cannot decode the photo/);

  await reader.close();
  await reader.close(); // twice is harmless
  await assert.rejects(reader.read(path.join(dir, 'missing.jpg')), AnalysisError);
});

test('the pixel stage in the thread gives what it gives in this one', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-thread-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'photo.jpg');
  const { default: sharp } = await import('sharp');
  await sharp({
    create: {
      width: 800,
      height: 600,
      channels: 3,
      background: '#888',
      noise: { type: 'gaussian', mean: 120, sigma: 30 },
    },
  })
    .jpeg()
    .toFile(file);
  const reader = modelReader({ ocr: false, maxPixels: 100_000_000 });
  t.after(() => reader.close());
  const here = await analysePixels(file, 100_000_000);
  assert.ok(reader.pixels !== undefined);
  assert.deepEqual(await reader.pixels(file), here);
  await assert.rejects(reader.pixels(path.join(dir, 'missing.jpg')), AnalysisError);
});
