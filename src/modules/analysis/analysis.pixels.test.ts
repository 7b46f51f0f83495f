// The labelled set (docs/analysis.md): rooms drawn from seeds, and copies whose truth is known by
// construction. Each test prints what it measured (`# measured ...`), the figures docs/analysis.md
// gives, and asserts the bounds docs/api.md §30's fields are held to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roomPhoto, reencoded, resized } from '../../../test/support/analysis-photos.ts';
import { analysePixels, AnalysisError, hammingDistance } from './analysis.pixels.ts';
import { groupSimilar, SIMILAR_BITS } from './analysis.groups.ts';

const SEEDS = [11, 12, 13, 14];
const MAX_PIXELS = 100_000_000;
const analyse = (jpeg: Buffer) => analysePixels(jpeg, MAX_PIXELS);

test('tilt: rooms rotated by known angles read within 0.5°, positive clockwise', async () => {
  const angles = [-5, -3, -1, 0, 1, 2.5, 4, 5];
  const errors: number[] = [];
  for (const seed of SEEDS) {
    for (const angle of angles) {
      const a = await analyse(await roomPhoto(seed, { tilt: angle }));
      assert.notEqual(a.tiltDegrees, null, `seed ${seed}, ${angle}°: verticals not found`);
      errors.push(Math.abs(a.tiltDegrees! - angle));
      assert.ok(Math.abs(a.tiltDegrees! - angle) <= 0.5, `seed ${seed}: ${angle}° read as ${a.tiltDegrees}°`);
    }
  }
  const mean = errors.reduce((s, e) => s + e, 0) / errors.length;
  console.log(
    `# measured tilt: ${errors.length} photos, mean error ${mean.toFixed(3)}°, max ${Math.max(...errors).toFixed(3)}°`,
  );
});

test('tilt: a photo without vertical lines has none', async () => {
  const sharp = (await import('sharp')).default;
  // A sky: a smooth gradient with a round sun, no edges that stand up.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3a6fd8"/><stop offset="1" stop-color="#f5d7a1"/></linearGradient></defs><rect width="1200" height="900" fill="url(#s)"/><circle cx="800" cy="300" r="90" fill="#fff6c0"/></svg>`;
  const a = await analyse(await sharp(Buffer.from(svg)).jpeg().toBuffer());
  assert.equal(a.tiltDegrees, null);
});

test('blur: sigma 2 and more is blurry, the sharp originals are not', async () => {
  const rows: string[] = [];
  let right = 0;
  let total = 0;
  for (const seed of SEEDS) {
    const sharpOne = await analyse(await roomPhoto(seed));
    assert.equal(
      sharpOne.blurry,
      false,
      `seed ${seed}: the sharp photo (sharpness ${sharpOne.sharpness}) is called blurry`,
    );
    let previous = sharpOne.sharpness;
    rows.push(`seed ${seed}: sigma 0 → ${sharpOne.sharpness}`);
    for (const sigma of [1, 2, 3, 5]) {
      const a = await analyse(await roomPhoto(seed, { blur: sigma }));
      rows.push(`sigma ${sigma} → ${a.sharpness}`);
      // More blur, less sharpness.
      assert.ok(a.sharpness < previous, `seed ${seed}: sigma ${sigma} is not less sharp than the one before`);
      previous = a.sharpness;
      if (sigma >= 2) {
        total++;
        if (a.blurry) right++;
        assert.equal(a.blurry, true, `seed ${seed}: sigma ${sigma} (sharpness ${a.sharpness}) is not called blurry`);
      }
    }
    total++;
    right++;
  }
  console.log(`# measured blur: ${right}/${total} right; ${rows.join(', ')}`);
});

test('exposure: over- and under-exposed copies read as such', async () => {
  for (const seed of SEEDS) {
    const normal = await analyse(await roomPhoto(seed));
    const over = await analyse(await roomPhoto(seed, { gain: 1.8, offset: 40 }));
    const under = await analyse(await roomPhoto(seed, { gain: 0.35, offset: -10 }));
    console.log(
      `# measured exposure seed ${seed}: normal ${JSON.stringify(normal.exposure)} over ${JSON.stringify(over.exposure)} under ${JSON.stringify(under.exposure)}`,
    );
    assert.ok(over.exposure.mean > normal.exposure.mean + 0.15);
    assert.ok(under.exposure.mean < normal.exposure.mean - 0.15);
    assert.ok(over.exposure.clippedHighlights > 0.2, 'the over-exposed copy clips its highlights');
    assert.ok(normal.exposure.clippedHighlights < 0.05 && normal.exposure.clippedShadows < 0.05);
    assert.ok(under.exposure.clippedShadows > normal.exposure.clippedShadows);
    for (const e of [normal, over, under]) {
      for (const v of Object.values(e.exposure)) assert.ok(v >= 0 && v <= 1);
    }
  }
});

test('duplicates: re-encoded and resized copies share a group with the original; distinct rooms do not', async () => {
  const photos: { id: string; phash: string; sharpness: number; pixels: number; room: number }[] = [];
  for (const seed of SEEDS) {
    const original = await roomPhoto(seed);
    const copies: [string, Buffer, number][] = [
      ['a-original', original, 1200 * 900],
      ['b-q40', await reencoded(original, 40), 1200 * 900],
      ['c-half', await resized(original, 0.5), 600 * 450],
      ['d-blurred', await roomPhoto(seed, { blur: 3 }), 1200 * 900],
    ];
    for (const [name, jpeg, pixels] of copies) {
      const a = await analyse(jpeg);
      photos.push({ id: `med_${seed}-${name}`, phash: a.phash, sharpness: a.sharpness, pixels, room: seed });
    }
  }
  let within = 0;
  let across = Infinity;
  for (const p of photos) {
    for (const q of photos) {
      if (p === q) continue;
      const d = hammingDistance(p.phash, q.phash);
      if (p.room === q.room) within = Math.max(within, d);
      else across = Math.min(across, d);
    }
  }
  console.log(
    `# measured phash: largest distance within a room's copies ${within} bits, smallest between rooms ${across} bits (threshold ${SIMILAR_BITS})`,
  );
  const groups = groupSimilar(photos);
  for (const seed of SEEDS) {
    const mine = photos.filter((p) => p.room === seed).map((p) => groups.get(p.id)!);
    assert.ok(mine[0]!.similarGroup !== null);
    for (const g of mine) assert.equal(g.similarGroup, mine[0]!.similarGroup, `room ${seed}: a copy is left out`);
    // The best is a sharp one, never the blurred copy.
    assert.equal(mine.filter((g) => g.bestInGroup).length, 1);
    assert.equal(mine[3]!.bestInGroup, false);
  }
  assert.equal(
    new Set(photos.map((p) => groups.get(p.id)!.similarGroup)).size,
    SEEDS.length,
    'distinct rooms share a group',
  );
});

test('groups: a photo near no other has no group and is its own best; ties go to the larger', () => {
  const g = groupSimilar([
    { id: 'med_a', phash: '0000000000000000', sharpness: 0.8, pixels: 100 },
    { id: 'med_b', phash: '00000000000003ff', sharpness: 0.8, pixels: 200 },
    { id: 'med_c', phash: 'ffffffffffffffff', sharpness: 0.1, pixels: 100 },
  ]);
  assert.deepEqual(g.get('med_a'), { similarGroup: 'sim_a', bestInGroup: false });
  assert.deepEqual(g.get('med_b'), { similarGroup: 'sim_a', bestInGroup: true });
  assert.deepEqual(g.get('med_c'), { similarGroup: null, bestInGroup: true });
  // 11 bits apart: not similar.
  const h = groupSimilar([
    { id: 'med_a', phash: '0000000000000000', sharpness: 0.8, pixels: 100 },
    { id: 'med_b', phash: '00000000000007ff', sharpness: 0.8, pixels: 200 },
  ]);
  assert.equal(h.get('med_a')!.similarGroup, null);
});

test('a file that is not a photo cannot be analysed', async () => {
  await assert.rejects(analyse(Buffer.from('not a photo at all')), AnalysisError);
});
