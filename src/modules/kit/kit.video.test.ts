// The listing kit's videos (docs/api.md §32), rendered small (a test-only size, 2-3 photos of a
// second or two) and read back with the installed ffmpeg (it ships no ffprobe: `ffmpeg -i` and a
// decode to count frames) and the MP4's own top-level boxes: H.264 yuv420p, 30 frames a second,
// the length planned, index at the front, AAC only with music, none without; the branded card
// reads the address (the OCR of §30), the unbranded video shows no words at all; an abort stops it.
// node:test's describe() and test() return promises that the runner itself awaits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { roomPhoto } from '../../../test/support/analysis-photos.ts';
import type { ModelReader } from '../analysis/analysis.models.ts';
import { modelReader } from '../analysis/analysis.models.thread.ts';
import { ffmpegPath, isFastStart, parseProbe, type VideoProbe } from '../variants/variants.video.ts';
import { planKitVideo, renderKitVideo, type KitVideoOptions } from './kit.video.ts';

const run = promisify(execFile);
const CARD = { address: '12 Harbour Street', facts: '3 beds, 2 baths, 1850 sqft', studio: 'Bright Rooms' };

let dir: string;
let photos: string[];
let music: string;
let reader: ModelReader | undefined;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-kit-video-'));
  photos = [];
  for (const seed of [71, 72, 73]) {
    const file = path.join(dir, `photo-${seed}.jpg`);
    await writeFile(file, await roomPhoto(seed));
    photos.push(file);
  }
  // A 3 s tone as MP3: shorter than the videos, so it is looped to their length.
  music = path.join(dir, 'music.mp3');
  await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-c:a', 'libmp3lame', '-y', music]); // prettier-ignore
});

after(async () => {
  await reader?.close();
  await rm(dir, { recursive: true, force: true });
});

/** What `ffmpeg -i` says of a file, and its frames counted by decoding it. */
async function probe(file: string): Promise<VideoProbe & { fps: number; frames: number; audioSeconds: number | null }> {
  let stderr = '';
  try {
    await run(ffmpegPath(), ['-hide_banner', '-i', file]);
  } catch (err) {
    stderr = String((err as { stderr?: string }).stderr);
  }
  const probed = parseProbe(stderr);
  assert.ok(probed, stderr);
  const fps = Number(/, ([\d.]+) fps,/.exec(stderr)?.[1]);
  const decoded = await run(ffmpegPath(), ['-hide_banner', '-i', file, '-map', '0:v:0', '-f', 'null', '-']);
  const frames = Number([...decoded.stderr.matchAll(/frame=\s*(\d+)/g)].pop()?.[1]);
  let audioSeconds: number | null = null;
  if (probed.audioCodec !== null) {
    const audio = await run(ffmpegPath(), ['-hide_banner', '-i', file, '-map', '0:a:0', '-f', 'null', '-']);
    const t = [...audio.stderr.matchAll(/time=(\d+):(\d+):([\d.]+)/g)].pop();
    audioSeconds = t === undefined ? null : Number(t[1]) * 3600 + Number(t[2]) * 60 + Number(t[3]);
  }
  return { ...probed, fps, frames, audioSeconds };
}

/** The MP4's top-level boxes, in order. */
async function topBoxes(file: string): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const boxes: string[] = [];
    const header = Buffer.alloc(16);
    for (let offset = 0; offset + 8 <= size;) {
      await handle.read(header, 0, 16, offset);
      let length = header.readUInt32BE(0);
      if (length === 1) length = Number(header.readBigUInt64BE(8));
      boxes.push(header.toString('latin1', 4, 8));
      if (length < 8) break;
      offset += length;
    }
    return boxes;
  } finally {
    await handle.close();
  }
}

/** Frames at `seconds`, as PNG files (kept beside the video, to look at). */
async function frameAt(file: string, seconds: number): Promise<string> {
  const png = `${file}-${seconds.toFixed(2)}.png`;
  await run(ffmpegPath(), ['-v', 'error', '-ss', String(seconds), '-i', file, '-frames:v', '1', '-y', png]);
  return png;
}

async function words(png: string): Promise<string> {
  reader ??= modelReader({ ocr: true, maxPixels: 50_000_000 });
  const read = await reader.read(png);
  return (read.text ?? []).map((w) => w.text).join(' ');
}

const render = (name: string, o: Partial<KitVideoOptions> & Pick<KitVideoOptions, 'kind'>) =>
  renderKitVideo({
    photos: photos.slice(0, 2),
    out: path.join(dir, name),
    card: CARD,
    music: null,
    secondsPerPhoto: 1,
    size: o.kind === 'reel' ? { width: 180, height: 320 } : { width: 320, height: 180 },
    tmpDir: dir,
    ...o,
  });

describe('the plan of each video', () => {
  test('the slideshow: every photo for secondsPerPhoto, a 3 s card at each end when branded', () => {
    assert.deepEqual(planKitVideo('slideshow', 25, 4, true), { photos: 25, photoSeconds: 4, cardSeconds: 3, seconds: 106 }); // prettier-ignore
    assert.deepEqual(planKitVideo('slideshow_unbranded', 25, 4, false), { photos: 25, photoSeconds: 4, cardSeconds: 0, seconds: 100 }); // prettier-ignore
  });
  test('the reel keeps within 60 s: fewer seconds a photo, then fewer photos', () => {
    const few = planKitVideo('reel', 10, 4, true);
    assert.equal(few.seconds, 46);
    const many = planKitVideo('reel', 25, 4, true);
    assert.ok(many.seconds <= 60, String(many.seconds));
    assert.equal(many.photos, 25);
    assert.ok(many.photoSeconds >= 2 && many.photoSeconds < 4);
    const more = planKitVideo('reel', 40, 4, true);
    assert.ok(more.seconds <= 60 && more.photos < 40 && more.photoSeconds >= 2, JSON.stringify(more));
  });
  test('the teaser keeps within 15 s: the first photos given', () => {
    for (const count of [1, 3, 5, 25]) {
      const plan = planKitVideo('teaser', count, 4, true);
      assert.ok(plan.seconds <= 15, JSON.stringify(plan));
      assert.ok(plan.photos <= count && plan.photos >= 1);
    }
    assert.equal(planKitVideo('teaser', 25, 4, true).photos, 5);
  });
});

describe('a rendered video', () => {
  test('branded slideshow: H.264 yuv420p, 30 fps, the planned length, index first, no audio; the card reads the address', async () => {
    const made = await render('slideshow.mp4', { kind: 'slideshow' });
    const file = path.join(dir, 'slideshow.mp4');
    // 3 s card + 2 photos x 1 s + 3 s card.
    assert.deepEqual(made, { durationSeconds: 8, width: 320, height: 180, size: made.size });
    const p = await probe(file);
    assert.equal(p.videoCodec, 'h264');
    assert.equal(p.pixelFormat, 'yuv420p');
    assert.equal(p.fps, 30);
    assert.equal(p.frames, 8 * 30);
    assert.equal(p.duration, 8);
    assert.deepEqual([p.width, p.height], [320, 180]);
    assert.equal(p.audioCodec, null, 'no audio stream without music');
    const boxes = await topBoxes(file);
    assert.ok(boxes.indexOf('moov') >= 0 && boxes.indexOf('moov') < boxes.indexOf('mdat'), boxes.join(','));
    assert.equal(await isFastStart(file), true);
    // The opening card, enlarged for the OCR (the test size is small), reads the address.
    assert.match(await words(await bigFrame(file, 1)), /Harbour/i);
    assert.match(await words(await bigFrame(file, 7)), /Harbour/i, 'it closes on the card too');
  });

  test('unbranded slideshow: no card, no text in any frame', async () => {
    const made = await render('unbranded.mp4', { kind: 'slideshow_unbranded', photos, secondsPerPhoto: 2 });
    assert.equal(made.durationSeconds, 6);
    const file = path.join(dir, 'unbranded.mp4');
    const p = await probe(file);
    assert.equal(p.frames, 6 * 30);
    assert.equal(p.audioCodec, null);
    for (const at of [0.2, 1.7, 2.5, 4, 5.8]) {
      assert.equal(await words(await bigFrame(file, at)), '', `no words at ${at} s`);
    }
  });

  test('with music: AAC, as long as the video (the track looped)', async () => {
    const made = await render('music.mp4', { kind: 'slideshow_unbranded', music });
    assert.equal(made.durationSeconds, 2);
    const p = await probe(path.join(dir, 'music.mp4'));
    assert.equal(p.audioCodec, 'aac');
    assert.ok(p.audioSeconds !== null && Math.abs(p.audioSeconds - 2) < 0.1, String(p.audioSeconds));
    const longer = await render('music-long.mp4', { kind: 'slideshow', music, photos, secondsPerPhoto: 1 });
    assert.equal(longer.durationSeconds, 9);
    const q = await probe(path.join(dir, 'music-long.mp4'));
    assert.equal(q.audioCodec, 'aac');
    assert.ok(q.audioSeconds !== null && Math.abs(q.audioSeconds - 9) < 0.1, String(q.audioSeconds));
  });

  test('reel: portrait; teaser: landscape within 15 s', async () => {
    const reel = await render('reel.mp4', { kind: 'reel', music });
    assert.deepEqual([reel.width, reel.height], [180, 320]);
    const r = await probe(path.join(dir, 'reel.mp4'));
    assert.deepEqual([r.width, r.height], [180, 320]);
    assert.equal(r.frames, reel.durationSeconds * 30);
    const teaser = await render('teaser.mp4', { kind: 'teaser', photos, secondsPerPhoto: 4 });
    assert.ok(teaser.durationSeconds <= 15);
    const t = await probe(path.join(dir, 'teaser.mp4'));
    assert.equal(t.frames, Math.round(teaser.durationSeconds * 30));
  });

  test('a long video is rendered in parts joined without encoding again: the same frames, the music over all', async () => {
    // 2 cards + 3 photos = 5 segments; parts of 2 put two joins inside cross-fades' neighbours.
    const o = { kind: 'slideshow', photos, secondsPerPhoto: 2, music } as const;
    const whole = await render('whole.mp4', o);
    const parted = await render('parted.mp4', { ...o, chunkSegments: 2 });
    assert.deepEqual({ ...parted, size: 0 }, { ...whole, size: 0 });
    const p = await probe(path.join(dir, 'parted.mp4'));
    assert.equal(p.frames, 12 * 30);
    assert.equal(p.videoCodec, 'h264');
    assert.equal(p.audioCodec, 'aac');
    assert.ok(p.audioSeconds !== null && Math.abs(p.audioSeconds - 12) < 0.1, String(p.audioSeconds));
    assert.equal(await isFastStart(path.join(dir, 'parted.mp4')), true);
    // Frame for frame the picture of the whole render (each encoded on its own: near, not equal).
    const compared = await run(ffmpegPath(), ['-hide_banner', '-i', path.join(dir, 'parted.mp4'), '-i', path.join(dir, 'whole.mp4'), '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-']); // prettier-ignore
    const psnr = Number(/PSNR .*min:([\d.]+|inf)/.exec(compared.stderr)?.[1]?.replace('inf', '99'));
    assert.ok(psnr > 30, `the worst frame's PSNR is ${psnr} dB`);
  });

  test('a card with no facts (no beds, baths or sqft) and no studio name: the address alone', async () => {
    const out = await render('bare.mp4', {
      kind: 'teaser',
      card: { address: '1 Harbour Road', facts: '', studio: ' ' },
    });
    assert.ok(out.durationSeconds > 0);
    const p = await probe(path.join(dir, 'bare.mp4'));
    assert.equal(p.frames, Math.round(out.durationSeconds * 30));
  });

  test('an aborted render rejects and leaves no temporary file', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(render('aborted.mp4', { kind: 'slideshow', signal: controller.signal }), {
      name: 'AbortError',
    });
    const left = (await readdir(dir)).filter((f) => f.startsWith('kit-video-'));
    assert.deepEqual(left, []);
  });

  test('aborted while ffmpeg runs: ffmpeg is killed, the render rejects', async () => {
    const out = path.join(dir, 'aborted-late.mp4');
    const controller = new AbortController();
    // Aborted as soon as ffmpeg has opened its output, i.e. while it encodes.
    const watcher = watch(dir, (_event, name) => {
      if (name === 'aborted-late.mp4') controller.abort();
    });
    try {
      await assert.rejects(
        render('aborted-late.mp4', { kind: 'slideshow', photos, secondsPerPhoto: 3, size: { width: 640, height: 360 }, signal: controller.signal }), // prettier-ignore
        { name: 'AbortError' },
      );
    } finally {
      watcher.close();
    }
    assert.equal(controller.signal.aborted, true);
    // No process is left writing the file.
    const writers: string[] = [];
    for (const pid of (await readdir('/proc')).filter((e) => /^\d+$/.test(e))) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(out)) writers.push(pid);
    }
    assert.deepEqual(writers, []);
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.startsWith('kit-video-')),
      [],
    );
  });
});

/** The frame at `seconds`, enlarged for the OCR. */
async function bigFrame(file: string, seconds: number): Promise<string> {
  const png = await frameAt(file, seconds);
  const big = `${png}.big.png`;
  await sharp(png).resize(1280).toFile(big);
  return big;
}
