// The listing kit's videos (docs/api.md §32): the slideshow (branded and unbranded), the reel and
// the teaser, made from the gallery's photos (local files, in order) by the ffmpeg the project
// installs, run as variants.video.ts runs it (bounded in time and memory, killed on abort).
//
// The work, so ffmpeg never decodes a camera's 24 MP frame per output frame:
// - sharp scales every photo ONCE to the output's aspect, a fifth larger than the output (the room
//   the pan or zoom moves in), as a JPEG; the branded cards are drawn by sharp too (DejaVu, the
//   font the repository ships: variants.watermark.ts), over the cover blurred and darkened.
// - ffmpeg decodes each of those once: a pan is a moving `crop` of that one frame repeated (`loop`,
//   no copy, no scaling), a zoom is `zoompan` of it (one scale per output frame). Each clip is cut
//   in three by frame: its fade-in (the cross-fade with the clip before: the clip's head made
//   translucent over the other's tail, `fade` on its alpha then `overlay`), its hold, and its
//   fade-out; the pieces are joined by `concat`. (The installed ffmpeg is a 2018 build: no
//   `xfade`.) Only the 0.75 s of each cross-fade blends two pictures; the rest passes through.
// - ffmpeg holds frames for every input of a graph, so a video of more than KIT_CHUNK_SEGMENTS
//   segments is rendered in parts, each its own bounded run, joined by the concat demuxer without
//   encoding again (and the music added then): its memory no longer grows with the photos.
// - H.264 (x264 `veryfast`, CRF 23, High, yuv420p), 30 frames a second, index at the front
//   (`+faststart`), no tag. With music: AAC, the track looped or cut to the video's length and
//   faded out over its last 2 s; without, no audio stream at all.
//
// Lengths: every segment (card or photo) owns its seconds on the timeline, the cross-fade taken
// from the seconds where one ends and the next begins, so a slideshow of N photos lasts
// N x secondsPerPhoto plus its two cards. The reel keeps within 60 s (fewer seconds a photo, at
// least 2, then fewer photos); the teaser within 15 s (the first photos given: the cover and the
// best ones, at most 2.5 s each). The unbranded slideshow has no card and no text at all.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { runFfmpeg, type VideoLimits } from '../variants/variants.video.ts';

const require = createRequire(import.meta.url);
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');

export type KitVideoKind = 'slideshow' | 'slideshow_unbranded' | 'reel' | 'teaser';

interface KitCard {
  address: string;
  facts: string;
  studio: string;
}

export interface KitVideoOptions {
  kind: KitVideoKind;
  /** Local file paths of the photos, in order (the cover first). */
  photos: string[];
  /** The MP4 to write. */
  out: string;
  /** The branded card's text; ignored for `slideshow_unbranded`, which shows no text at all. */
  card: KitCard | null;
  /** A music file (MP3, M4A, AAC, WAV), or null for no audio stream. */
  music: string | null;
  /** KIT_SECONDS_PER_PHOTO (the slideshows'; the reel and the teaser may use fewer). */
  secondsPerPhoto: number;
  signal?: AbortSignal | undefined;
  /** Bounds of the ffmpeg run (defaults: 30 minutes, 2048 MiB, 1 thread). */
  limits?: VideoLimits | undefined;
  /** Where the temporary files go (default the system's). */
  tmpDir?: string | undefined;
  /** For tests only: a smaller output of the same orientation. */
  size?: { width: number; height: number } | undefined;
  /** At most this many segments (photos and cards) in one ffmpeg run (default KIT_CHUNK_SEGMENTS). */
  chunkSegments?: number | undefined;
}

export interface KitVideo {
  durationSeconds: number;
  width: number;
  height: number;
  size: number;
}

const KIT_FPS = 30;
/** The cross-fade between two segments. */
const CROSSFADE_SECONDS = 0.75;
/** The pre-scaled photo is this much larger than the output: the room the pan or zoom moves in. */
const MARGIN = 1.2;
/** A zoom goes from the whole pre-scaled photo to this much closer. */
const ZOOM = 1.15;
/**
 * ffmpeg holds a few decoded frames for every input of a graph from its start, so one run's memory
 * grows with the photos (about 1.2 GB for 25 at 1080p); a longer video is rendered in parts of this
 * many segments, each its own run, joined by the concat demuxer without encoding again.
 */
const KIT_CHUNK_SEGMENTS = 8;
const DEFAULT_LIMITS: VideoLimits = { timeoutMs: 30 * 60_000, memoryBytes: 2048 * 1024 ** 2, threads: 1 };

const SIZES: Record<KitVideoKind, { width: number; height: number }> = {
  slideshow: { width: 1920, height: 1080 },
  slideshow_unbranded: { width: 1920, height: 1080 },
  reel: { width: 1080, height: 1920 },
  teaser: { width: 1920, height: 1080 },
};

type Motion = 'zoom-in' | 'pan-right' | 'zoom-out' | 'pan-left' | 'still';

interface Segment {
  file: string;
  /** Frames of the timeline this segment owns. */
  frames: number;
  motion: Motion;
}

/** How long each piece is: the photos used and their seconds, and the cards' seconds. */
export interface KitPlan {
  photos: number;
  photoSeconds: number;
  cardSeconds: number;
  /** The whole video, in seconds. */
  seconds: number;
}

const frames = (seconds: number): number => Math.round(seconds * KIT_FPS);

/** The plan of a video of `kind` from `count` photos (pure arithmetic, for the render and the tests). */
export function planKitVideo(kind: KitVideoKind, count: number, secondsPerPhoto: number, branded: boolean): KitPlan {
  if (count < 1) throw new RangeError('a kit video needs at least one photo');
  const spp = Math.max(1, secondsPerPhoto);
  let cardSeconds = branded ? 3 : 0;
  let photos = count;
  let photoSeconds = spp;
  const within = (max: number, preferred: number, least: number) => {
    const room = max - 2 * cardSeconds;
    photoSeconds = Math.min(preferred, room / photos);
    if (photoSeconds < least) {
      photos = Math.max(1, Math.floor(room / least));
      photoSeconds = Math.min(preferred, room / photos);
    }
  };
  if (kind === 'reel') within(60, spp, Math.min(2, spp));
  if (kind === 'teaser') {
    cardSeconds = branded ? 2 : 0;
    within(15, Math.min(spp, 2.5), Math.min(2, spp));
  }
  // Whole frames, never past the bound: a photo's seconds are rounded down to a frame.
  photoSeconds = Math.floor(photoSeconds * KIT_FPS) / KIT_FPS;
  const seconds = (photos * frames(photoSeconds) + 2 * frames(cardSeconds)) / KIT_FPS;
  return { photos, photoSeconds, cardSeconds, seconds };
}

const MOTIONS: readonly Motion[] = ['zoom-in', 'pan-right', 'zoom-out', 'pan-left'];

const even = (n: number): number => Math.max(2, Math.round(n / 2) * 2);

/** Each photo once: upright, sRGB, the output's aspect, MARGIN larger than it, a quick JPEG. */
async function preScale(photo: string, file: string, width: number, height: number): Promise<void> {
  await sharp(photo, { failOn: 'error', limitInputPixels: 268_402_689 })
    .rotate()
    .resize(even(width * MARGIN), even(height * MARGIN), { fit: 'cover', position: 'centre' })
    .toColourspace('srgb')
    .jpeg({ quality: 92, chromaSubsampling: '4:2:0' })
    .toFile(file);
}

const escapeMarkup = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A line of text set in DejaVu, wrapped within `width`, centred, white: a PNG with alpha. */
async function textBlock(text: string, px: number, bold: boolean, width: number, alpha = 100) {
  return sharp({
    text: {
      text: `<span foreground="white" alpha="${alpha}%">${escapeMarkup(text)}</span>`,
      fontfile: bold ? FONT_BOLD : FONT,
      font: `DejaVu Sans${bold ? ' Bold' : ''} ${px}`,
      width,
      align: 'centre',
      dpi: 72,
      rgba: true,
      wrap: 'word',
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
}

/**
 * The branded card: the cover, blurred and darkened, with the address large, the facts under it
 * and the studio's name small at the foot. A JPEG of the output's size.
 */
async function drawCard(card: KitCard, cover: string, file: string, width: number, height: number): Promise<void> {
  const unit = Math.min(width, height);
  const textWidth = Math.round(width * 0.84);
  // A gallery without beds, baths or square feet has no facts line (and Pango refuses empty text).
  const factsText = card.facts.trim().slice(0, 300);
  const studioText = card.studio.trim().slice(0, 120);
  const [address, facts, studio] = await Promise.all([
    textBlock(card.address.trim().slice(0, 200), Math.round(unit * 0.075), true, textWidth),
    factsText === '' ? undefined : textBlock(factsText, Math.round(unit * 0.04), false, textWidth),
    studioText === '' ? undefined : textBlock(studioText, Math.round(unit * 0.03), false, textWidth, 85),
  ]);
  const gap = Math.round(unit * 0.035);
  const blockHeight = address.info.height + (facts === undefined ? 0 : gap + facts.info.height);
  const top = Math.max(0, Math.round((height - blockHeight) / 2 - unit * 0.03));
  const layers: OverlayOptions[] = [{ input: address.data, top, left: Math.round((width - address.info.width) / 2) }];
  if (facts !== undefined) {
    layers.push({
      input: facts.data,
      top: top + address.info.height + gap,
      left: Math.round((width - facts.info.width) / 2),
    });
  }
  if (studio !== undefined) {
    layers.push({
      input: studio.data,
      top: Math.max(0, height - Math.round(unit * 0.08) - studio.info.height),
      left: Math.round((width - studio.info.width) / 2),
    });
  }
  const background = await sharp(cover)
    .resize(width, height, { fit: 'cover' })
    .blur(Math.max(1, unit / 40))
    .modulate({ brightness: 0.45 })
    .toBuffer();
  await sharp(background).composite(layers).jpeg({ quality: 92 }).toFile(file);
}

/** A number for an expression: at most 6 decimals, no exponent. */
const num = (v: number): string => String(Math.round(v * 1e6) / 1e6);

/**
 * The chain that makes frames `from`..`from + count - 1` of a clip of `clipFrames` frames from
 * input `i` (its one still image), numbered from 0 on the kit's time base.
 */
function pieceFilter(
  i: number,
  motion: Motion,
  from: number,
  count: number,
  clipFrames: number,
  width: number,
  height: number,
): string {
  const last = Math.max(1, clipFrames - 1);
  const repeat = `loop=loop=${count - 1}:size=1:start=0`;
  const timed = `settb=1/${KIT_FPS},setpts=N`;
  // How far through the clip a frame is, 0..1 (`n` is the frame's number within this piece).
  const at = (n: string) => `(${n}+${from})/${last}`;
  switch (motion) {
    case 'still':
      return `[${i}:v]format=yuv420p,scale=${width}:${height},setsar=1,${repeat},${timed}`;
    case 'pan-right':
    case 'pan-left': {
      // Across the whole width to spare, at the height's middle; x is rounded to chroma by crop.
      const x = motion === 'pan-right' ? `(iw-ow)*${at('n')}` : `(iw-ow)*(1-${at('n')})`;
      return `[${i}:v]format=yuv420p,${repeat},${timed},crop=w=${width}:h=${height}:x='${x}':y='(ih-oh)/2',setsar=1`;
    }
    case 'zoom-in':
    case 'zoom-out': {
      // zoompan of the looped frame, one output frame per input frame (d=1): given the whole clip
      // from one frame it would make all of its frames at once and queue them.
      const z = motion === 'zoom-in' ? `1+${num(ZOOM - 1)}*${at('in')}` : `${num(ZOOM)}-${num(ZOOM - 1)}*${at('in')}`;
      return `[${i}:v]format=yuv420p,${repeat},zoompan=z='${z}':x='(iw-iw/zoom)/2':y='(ih-ih/zoom)/2':d=1:s=${width}x${height}:fps=${KIT_FPS},setsar=1,${timed}`;
    }
  }
}

/** The segments one ffmpeg run renders: `first` to `last` (inclusive) of the whole video's. */
interface SegmentRange {
  first: number;
  last: number;
}

/**
 * The filter graph, with `[v]` its video out, and `[a]` from the last input when `music` (looped
 * by the input option). Each clip is made in two pieces, each from an input of its own (the same
 * small image read again): its start and hold, and its last 0.75 s (its fade-out, made
 * translucent on its alpha and overlaid on the next clip's start). Pieces made from one input
 * through `split` would queue one piece's frames while ffmpeg runs ahead to fill the other.
 * `inputs` lists the image of each input, in order.
 *
 * With `range`, the graph of a part of the video: its segments' pieces, the fade-out of the
 * segment before it (under its first one's start), not its last one's own fade-out (the next
 * part's); the parts, joined end to end, are the whole video frame for frame.
 */
function kitFilterGraph(
  segments: readonly Segment[],
  width: number,
  height: number,
  music: boolean,
  range: SegmentRange = { first: 0, last: segments.length - 1 },
): { graph: string; inputs: string[]; frames: number } {
  const fade = frames(CROSSFADE_SECONDS);
  const lines: string[] = [];
  const pieces: string[] = [];
  const inputs: string[] = [];
  const n = segments.length;
  let total = 0;
  const piece = (seg: Segment, from: number, count: number, clipFrames: number): string => {
    inputs.push(seg.file);
    return pieceFilter(inputs.length - 1, seg.motion, from, count, clipFrames, width, height);
  };
  segments.forEach((seg, k) => {
    if (k < range.first - 1 || k > range.last) return;
    const head = k > 0 ? fade : 0;
    const tail = k < n - 1 ? fade : 0;
    const body = seg.frames - tail;
    if (body < 1) throw new RangeError('a segment is shorter than its cross-fade');
    const clipFrames = head + body + tail;
    if (k === range.first - 1) {
      // The part before ends where this segment's fade-out begins: that fade-out is this part's.
      lines.push(`${piece(seg, head + body, tail, clipFrames)},format=yuva420p,fade=t=out:s=0:n=${tail}:alpha=1[t${k}]`); // prettier-ignore
      return;
    }
    // This part's frames of the segment: its start (under the fade-out before it) and its hold.
    total += head + body;
    if (head > 0) {
      // The cross-fade: the last clip's tail, fading out on its alpha, over this clip's start;
      // past the tail's end this clip's frames pass through the overlay untouched.
      lines.push(`${piece(seg, 0, head + body, clipFrames)}[m${k}]`);
      lines.push(`[m${k}][t${k - 1}]overlay=eof_action=pass:format=yuv420[x${k}]`);
      pieces.push(`[x${k}]`);
    } else {
      lines.push(`${piece(seg, 0, body, clipFrames)}[x${k}]`);
      pieces.push(`[x${k}]`);
    }
    if (tail > 0 && k < range.last) {
      lines.push(
        `${piece(seg, head + body, tail, clipFrames)},format=yuva420p,fade=t=out:s=0:n=${tail}:alpha=1[t${k}]`,
      );
    }
  });
  lines.push(`${pieces.join('')}concat=n=${pieces.length}:v=1:a=0,format=yuv420p[v]`);
  if (music) lines.push(musicFilter(inputs.length, total / KIT_FPS));
  return { graph: lines.join(';\n'), inputs, frames: total };
}

/** The music of input `input`, `[a]`: resampled, cut to the video's `seconds`, faded out over its last 2 s. */
function musicFilter(input: number, seconds: number): string {
  const fadeOut = Math.min(2, seconds / 2);
  return `[${input}:a]aresample=48000,atrim=0:${num(seconds)},asetpts=N/SR/TB,afade=t=out:st=${num(seconds - fadeOut)}:d=${num(fadeOut)}[a]`; // prettier-ignore
}

/** The bitexact, index-first MP4 output every run writes. */
const MP4_OUT = ['-map_metadata', '-1', '-map_chapters', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact', '-movflags', '+faststart', '-f', 'mp4', '-y']; // prettier-ignore

/**
 * ffmpeg's arguments joining the parts (listed in `list`, for the concat demuxer) into `out`
 * without encoding the video again, and adding the music (AAC) when there is a track.
 */
function kitJoinArgs(list: string, music: string | null, out: string, threads: number, seconds: number): string[] {
  const args = ['-threads', String(threads), '-f', 'concat', '-safe', '0', '-i', list];
  if (music !== null) args.push('-stream_loop', '-1', '-i', music, '-filter_complex', musicFilter(1, seconds));
  args.push('-map', '0:v', '-c:v', 'copy');
  if (music !== null) args.push('-map', '[a]', '-c:a', 'aac', '-b:a', '128k', '-ac', '2');
  args.push('-t', seconds.toFixed(3), ...MP4_OUT, out);
  return args;
}

/** ffmpeg's arguments for a graph written to `script`: the images, the music, the encoder. */
export function kitFfmpegArgs(
  images: readonly string[],
  music: string | null,
  script: string,
  out: string,
  threads: number,
  seconds: number,
): string[] {
  const t = String(threads);
  const args: string[] = ['-threads', t];
  for (const image of images) args.push('-framerate', String(KIT_FPS), '-i', image);
  if (music !== null) args.push('-stream_loop', '-1', '-i', music);
  args.push('-filter_complex_threads', t, '-filter_complex_script', script, '-map', '[v]');
  if (music !== null) args.push('-map', '[a]', '-c:a', 'aac', '-b:a', '128k', '-ac', '2');
  args.push(
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high', '-pix_fmt', 'yuv420p',
    '-r', String(KIT_FPS), '-threads', t, '-t', seconds.toFixed(3), ...MP4_OUT, out,
  ); // prettier-ignore
  return args;
}

/** What renderKitVideo prepares before ffmpeg runs: the pre-scaled images and the whole graph. */
export interface PreparedKitVideo {
  images: string[];
  script: string;
  width: number;
  height: number;
  seconds: number;
  segments: Segment[];
}

/** Pre-scales the photos, draws the cards and writes the filter graph into `dir`. */
export async function prepareKitVideo(o: KitVideoOptions, dir: string): Promise<PreparedKitVideo> {
  const { width, height } = o.size ?? SIZES[o.kind];
  const card = o.kind === 'slideshow_unbranded' ? null : o.card;
  const plan = planKitVideo(o.kind, o.photos.length, o.secondsPerPhoto, card !== null);
  const chosen = o.photos.slice(0, plan.photos);
  const images: string[] = [];
  const segments: Segment[] = [];
  // One photo at a time: each decode of a large photo takes its own memory.
  for (const [i, photo] of chosen.entries()) {
    o.signal?.throwIfAborted();
    const file = path.join(dir, `p${String(i).padStart(3, '0')}.jpg`);
    await preScale(photo, file, width, height);
    images.push(file);
    segments.push({ file, frames: frames(plan.photoSeconds), motion: MOTIONS[i % MOTIONS.length] ?? 'zoom-in' });
  }
  if (card !== null) {
    const cardFile = path.join(dir, 'card.jpg');
    await drawCard(card, images[0] ?? '', cardFile, width, height);
    const cardSegment: Segment = { file: cardFile, frames: frames(plan.cardSeconds), motion: 'still' };
    segments.unshift(cardSegment);
    segments.push(cardSegment);
  }
  const { graph, inputs, frames: total } = kitFilterGraph(segments, width, height, o.music !== null);
  const script = path.join(dir, 'graph.txt');
  await writeFile(script, graph);
  return { images: inputs, script, width, height, seconds: total / KIT_FPS, segments };
}

/** Renders one of the kit's videos to `o.out`. Throws VariantError when ffmpeg fails or a bound is passed. */
export async function renderKitVideo(o: KitVideoOptions): Promise<KitVideo> {
  const limits = o.limits ?? DEFAULT_LIMITS;
  const dir = await mkdtemp(path.join(o.tmpDir ?? os.tmpdir(), 'kit-video-'));
  try {
    const prepared = await prepareKitVideo(o, dir);
    o.signal?.throwIfAborted();
    const { segments, width, height, seconds } = prepared;
    const per = Math.max(1, o.chunkSegments ?? KIT_CHUNK_SEGMENTS);
    if (segments.length <= per) {
      const args = kitFfmpegArgs(prepared.images, o.music, prepared.script, o.out, limits.threads, seconds);
      await runFfmpeg(args, limits, { signal: o.signal });
    } else {
      // In parts of at most `per` segments, each its own bounded run, then joined without encoding again.
      const parts: string[] = [];
      for (let first = 0; first < segments.length; first += per) {
        o.signal?.throwIfAborted();
        const range = { first, last: Math.min(segments.length, first + per) - 1 };
        const part = kitFilterGraph(segments, width, height, false, range);
        const script = path.join(dir, `part-${parts.length}.txt`);
        const file = path.join(dir, `part-${parts.length}.mp4`);
        await writeFile(script, part.graph);
        const args = kitFfmpegArgs(part.inputs, null, script, file, limits.threads, part.frames / KIT_FPS);
        await runFfmpeg(args, limits, { signal: o.signal });
        parts.push(file);
      }
      const list = path.join(dir, 'parts.txt');
      await writeFile(list, parts.map((file) => `file '${file.replaceAll("'", "'\\''")}'\n`).join(''));
      await runFfmpeg(kitJoinArgs(list, o.music, o.out, limits.threads, seconds), limits, { signal: o.signal });
    }
    return {
      durationSeconds: prepared.seconds,
      width: prepared.width,
      height: prepared.height,
      size: (await stat(o.out)).size,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
