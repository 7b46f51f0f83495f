// The video work of media variants (docs/api.md §25): from an original on local disk, the
// `poster` (a JPEG frame within 1280x1280) and the `web` rendition (H.264/AAC MP4, index at the
// front, within 1920x1080), or no `web` when the original already is such a file, and then the
// `stripped` copy instead: the original's own streams, untouched, in a new MP4 with no tag. Pure
// video work, as variants.images.ts is for photos: the durable queue, the rows and the routes are
// the same ones (variants.job.ts runs both).
//
// Neither rendition keeps a tag of the original (issue 37 §3): a camera or an editing tool writes
// a title, an artist, a comment, a copyright, each stream's handler name and chapters, and the
// unbranded property page plays only these renditions, never the original. `stripped` is the
// pages' own, like a photo's `medium`: the API does not list it (docs/api.md §25 names two).
//
// ffmpeg is the one the project installs (@ffmpeg-installer/ffmpeg: a static build carried by a
// per-platform npm package, docs/decisions/0020). It has no ffprobe, so the original is probed
// with `ffmpeg -i` (its stream lines on stderr), and whether the index is at the front is read
// from the MP4's own top-level boxes (`moov` before `mdat`).
//
// Bounds per job, so one video cannot take the node down:
// - time: each ffmpeg run is killed (SIGKILL, its whole process) past `timeoutMs`
//   (VIDEO_VARIANT_TIMEOUT_SECONDS); the video then ends `failed`, not retried: a second try takes
//   as long again.
// - memory: ffmpeg runs under `ulimit -v` (VIDEO_VARIANT_MEMORY_MB of address space, set by the
//   shell that execs it), so an allocation past it fails inside ffmpeg and the video ends
//   `failed`; the service's own memory is never at stake.
// - CPU: `-threads` (VARIANT_THREADS) for the decoder, the filters and x264, so one job takes
//   about that many cores and the rest serve the API; how many jobs run at once is the runner's
//   (VARIANT_CONCURRENCY).
// Outputs go to a private temporary directory under DATA_DIR/tmp, removed whatever happens, and
// reach storage as streams.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { fitInside, VariantError, type Box } from './variants.images.ts';

export const VIDEO_VARIANT_NAMES = ['poster', 'web', 'stripped'] as const;
export type VideoVariantName = (typeof VIDEO_VARIANT_NAMES)[number];

const POSTER_BOX: Box = { width: 1280, height: 1280 };
const WEB_BOX: Box = { width: 1920, height: 1080 };

export interface MadeVideoVariant {
  name: VideoVariantName;
  contentType: 'image/jpeg' | 'video/mp4';
  width: number;
  height: number;
  size: number;
}

export interface VideoLimits {
  /** Each ffmpeg run is killed past this. */
  timeoutMs: number;
  /** Address space of each ffmpeg run, in bytes. */
  memoryBytes: number;
  /** ffmpeg's threads (decoder, filters, encoder). */
  threads: number;
  /** ffmpeg's nice value (0, the default: as the service's; higher gives way to the service's own threads). */
  niceness?: number | undefined;
}

/** The path of the ffmpeg binary the project installs. */
export function ffmpegPath(): string {
  const require = createRequire(import.meta.url);
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

/** What `ffmpeg -i` says about an original. */
export interface VideoProbe {
  /** The first video stream's codec (`h264`, `hevc`, `vp9`, ...). */
  videoCodec: string;
  pixelFormat: string;
  /** The first audio stream's codec, or null without audio. */
  audioCodec: string | null;
  /** The size shown: the coded size with the pixel aspect ratio and rotation applied. */
  width: number;
  height: number;
  /** Seconds, or null when the container does not say. */
  duration: number | null;
}

/** Parses `ffmpeg -i`'s stderr; undefined when it names no decodable video stream. */
export function parseProbe(stderr: string): VideoProbe | undefined {
  const video =
    /Stream #\d+:\d+[^:]*: Video: (\w+)[^,\n]*,\s*(\w+)[^\n]*?(\d{2,5})x(\d{2,5})(?: \[SAR (\d+):(\d+))?/.exec(stderr);
  if (video === null) return undefined;
  const [, codec, pixfmt, w, h, sarN, sarD] = video;
  let width = Number(w);
  let height = Number(h);
  if (sarN !== undefined && sarD !== undefined && Number(sarN) > 0 && Number(sarD) > 0 && sarN !== sarD) {
    width = Math.round((width * Number(sarN)) / Number(sarD));
  }
  const rotate = /rotate\s*:\s*(-?\d+)/.exec(stderr) ?? /rotation of (-?[\d.]+) degrees/.exec(stderr);
  if (rotate !== null && Math.abs(Math.round(Number(rotate[1]))) % 180 === 90) [width, height] = [height, width];
  const audio = /Stream #\d+:\d+[^:]*: Audio: (\w+)/.exec(stderr);
  const d = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  return {
    videoCodec: codec ?? '',
    pixelFormat: pixfmt ?? '',
    audioCodec: audio?.[1] ?? null,
    width,
    height,
    duration: d === null ? null : Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]),
  };
}

/**
 * Whether an MP4 file has its index (`moov`) before its media data (`mdat`): a browser can then
 * start playing before the whole file arrives. Reads only the top-level box headers.
 */
export async function isFastStart(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(16);
    let offset = 0;
    for (let boxes = 0; offset + 8 <= size && boxes < 1000; boxes++) {
      const { bytesRead } = await handle.read(header, 0, 16, offset);
      if (bytesRead < 8) return false;
      let length = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (type === 'moov') return true;
      if (type === 'mdat') return false;
      if (length === 1) {
        if (bytesRead < 16) return false;
        length = Number(header.readBigUInt64BE(8));
      } else if (length === 0) {
        return false; // the box runs to the end of the file
      }
      if (length < 8) return false;
      offset += length;
    }
    return false;
  } finally {
    await handle.close();
  }
}

/** Whether browsers play the original as it is: H.264 (8-bit 4:2:0) and AAC or no audio in MP4, index first, within the box. */
async function playsAsIs(file: string, contentType: string, probe: VideoProbe): Promise<boolean> {
  return (
    contentType === 'video/mp4' &&
    probe.videoCodec === 'h264' &&
    probe.pixelFormat === 'yuv420p' &&
    (probe.audioCodec === null || probe.audioCodec === 'aac') &&
    probe.width <= WEB_BOX.width &&
    probe.height <= WEB_BOX.height &&
    (await isFastStart(file))
  );
}

/**
 * The shell around each ffmpeg run. It limits its address space (inherited by ffmpeg), starts
 * ffmpeg, and watches its own stdin, a pipe from this process: at EOF, whether this process closed
 * it (the time limit) or died (a crash, SIGKILL: the kernel closes its end), it kills ffmpeg, so no
 * encode goes on for nobody. (A broken pipe alone would not stop ffmpeg: Node ignores SIGPIPE,
 * and children inherit that.) The shell exits with ffmpeg's status.
 */
const WATCHED = [
  'ulimit -v "$LIGHTBOX_FFMPEG_KIB" || exit 125',
  // A background job's stdin is /dev/null unless redirected: the pipe is kept as fd 3 for the watchdog.
  'exec 3<&0',
  // nice execs ffmpeg: the pid watched is ffmpeg's.
  'nice -n "$LIGHTBOX_FFMPEG_NICE" "$0" "$@" </dev/null 3<&- &',
  'child=$!',
  '( read -r _ <&3 || true; kill -9 "$child" 2>/dev/null ) &',
  'watchdog=$!',
  'wait "$child"',
  'status=$?',
  'kill "$watchdog" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** One ffmpeg run, bounded in time and memory; resolves to its stderr's tail, rejects with VariantError when ffmpeg fails. */
export function runFfmpeg(
  args: readonly string[],
  limits: VideoLimits,
  options: { binary?: string; okCodes?: readonly number[]; signal?: AbortSignal | undefined } = {},
): Promise<string> {
  const signal = options.signal;
  if (signal?.aborted === true) return Promise.reject(abortReason(signal));
  const binary = options.binary ?? ffmpegPath();
  const kib = Math.max(1, Math.floor(limits.memoryBytes / 1024));
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', WATCHED, binary, '-nostdin', '-hide_banner', ...args], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: {
        ...process.env,
        LIGHTBOX_FFMPEG_KIB: String(kib),
        LIGHTBOX_FFMPEG_NICE: String(Math.min(19, Math.max(0, Math.trunc(limits.niceness ?? 0)))),
      },
    });
    // Errors on the pipe (the shell gone already) change nothing: 'close' reports the outcome.
    child.stdin.on('error', () => undefined);
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-16_384);
    });
    let timedOut = false;
    let aborted = false;
    const stop = () => {
      child.stdin.end(); // the watchdog kills ffmpeg
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, limits.timeoutMs);
    // The caller gave up (a kit build cancelled, the node shutting down): ffmpeg is killed the same way.
    const onAbort = () => {
      aborted = true;
      stop();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(err); // ffmpeg could not start: the installation's problem, retried
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (aborted && options.signal !== undefined) {
        reject(abortReason(options.signal));
      } else if (timedOut) {
        reject(new VariantError(`ffmpeg took longer than ${Math.round(limits.timeoutMs / 1000)} s and was stopped`));
      } else if (code !== null && (code === 0 || (options.okCodes ?? []).includes(code))) {
        resolve(tail);
      } else if (code === 125) {
        reject(new Error('could not set the memory limit for ffmpeg')); // the host's problem: retried
      } else if (/Cannot allocate memory|out of memory|bad_alloc/i.test(tail) || (code !== null && code > 128)) {
        // Past its address space an allocation fails: ffmpeg says so, or a library crashes on it.
        const mib = Math.round(limits.memoryBytes / 1024 ** 2);
        reject(
          new VariantError(
            `ffmpeg failed within its memory limit of ${mib} MiB: ${lastLine(tail) || `status ${code}`}`,
          ),
        );
      } else {
        reject(
          new VariantError(`the video cannot be decoded: ${lastLine(tail) || `ffmpeg ended with ${signal ?? code}`}`),
        );
      }
    });
  });
}

/** Probes an original; VariantError when ffmpeg finds no video stream in it. */
async function probeVideo(file: string, limits: VideoLimits, binary?: string): Promise<VideoProbe> {
  // With no output named, ffmpeg prints the input's streams and exits 1.
  let stderr: string;
  try {
    stderr = await runFfmpeg(['-i', file], limits, { binary, okCodes: [1] });
  } catch (err) {
    if (err instanceof VariantError)
      throw new VariantError(`the video cannot be decoded: ${err.message}`, { cause: err });
    throw err;
  }
  const probe = parseProbe(stderr);
  if (probe === undefined) {
    throw new VariantError(`the video cannot be decoded: ${lastLine(stderr) || 'no video stream'}`);
  }
  return probe;
}

/**
 * The output options that leave no tag of the original in an MP4: none of its file's tags
 * (title, artist, comment, copyright, ...) nor its streams' (handler names, titles), no chapter
 * (a chapter is a track with its titles in it), no subtitle or data stream, and, with `bitexact`,
 * not even the muxer's own `encoder` tag. What is left names nothing but the codecs.
 */
const NO_TAGS = ['-sn', '-dn', '-map_metadata', '-1', '-map_chapters', '-1', '-fflags', '+bitexact'] as const;

/** Even sizes (4:2:0 chroma needs them) within `box`, never enlarged. */
function evenFit(size: Box, box: Box): Box {
  const fit = fitInside(size, box);
  return { width: Math.max(2, fit.width - (fit.width % 2)), height: Math.max(2, fit.height - (fit.height % 2)) };
}

/**
 * Makes `poster` and either `web` or, when the original plays as it is, `stripped`, writing each
 * through `put`. Throws VariantError when the video cannot be decoded or a bound is passed.
 */
export async function makeVideoVariants(
  source: string,
  contentType: string,
  tmpDir: string,
  put: (name: VideoVariantName, body: Readable, contentType: string) => Promise<void>,
  limits: VideoLimits,
  binary?: string,
): Promise<MadeVideoVariant[]> {
  await stat(source); // a missing original is the storage's problem, not the video's
  const probe = await probeVideo(source, limits, binary);
  const dir = await mkdtemp(path.join(tmpDir, 'video-'));
  const threads = String(limits.threads);
  try {
    const made: MadeVideoVariant[] = [];

    // The poster: a frame a second in (the first is often black), or the first of a shorter video.
    const posterFile = path.join(dir, 'poster.jpg');
    const poster = fitInside(probe, POSTER_BOX);
    const at = probe.duration !== null && probe.duration >= 2 ? '1' : '0';
    await runFfmpeg(
      ['-threads', threads, '-ss', at, '-i', source, '-map', '0:v:0', '-frames:v', '1', '-vf',
        `scale=${poster.width}:${poster.height},setsar=1`, '-q:v', '3', '-f', 'image2', '-y', posterFile], // prettier-ignore
      limits,
      { binary },
    );
    const posterMeta = await sharp(posterFile)
      .metadata()
      .catch((error: unknown) => {
        throw new VariantError('the video gave no frame for a poster', { cause: error });
      });
    await put('poster', createReadStream(posterFile), 'image/jpeg');
    made.push({ name: 'poster', contentType: 'image/jpeg', width: posterMeta.width, height: posterMeta.height, size: (await stat(posterFile)).size }); // prettier-ignore

    if (await playsAsIs(source, contentType, probe)) {
      // The original's first video and audio streams as they are (no new encode: seconds, not
      // minutes, and the same pictures), in a new MP4 with none of its tags. A rotation is no tag
      // (the track's display matrix): it stays.
      const strippedFile = path.join(dir, 'stripped.mp4');
      await runFfmpeg(
        ['-i', source, '-map', '0:v:0', '-map', '0:a:0?', '-c', 'copy', ...NO_TAGS,
          '-movflags', '+faststart', '-f', 'mp4', '-y', strippedFile], // prettier-ignore
        limits,
        { binary },
      );
      await put('stripped', createReadStream(strippedFile), 'video/mp4');
      made.push({ name: 'stripped', contentType: 'video/mp4', width: probe.width, height: probe.height, size: (await stat(strippedFile)).size }); // prettier-ignore
      return made;
    }

    const web = evenFit(probe, WEB_BOX);
    const webFile = path.join(dir, 'web.mp4');
    // x264 `veryfast` at CRF 23: about 4x the speed of `medium` for a few percent more bytes;
    // High profile, 8-bit 4:2:0, which every browser plays. AAC stereo at 128 kb/s. faststart
    // moves the index to the front once the file is written.
    await runFfmpeg(
      ['-threads', threads, '-i', source, '-map', '0:v:0', '-map', '0:a:0?',
        '-vf', `scale=${web.width}:${web.height},setsar=1`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23',
        '-profile:v', 'high', '-pix_fmt', 'yuv420p', '-threads', threads,
        '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-max_muxing_queue_size', '1024',
        '-flags:v', '+bitexact', '-flags:a', '+bitexact', ...NO_TAGS,
        '-movflags', '+faststart', '-f', 'mp4', '-y', webFile], // prettier-ignore
      limits,
      { binary },
    );
    await put('web', createReadStream(webFile), 'video/mp4');
    made.push({ name: 'web', contentType: 'video/mp4', width: web.width, height: web.height, size: (await stat(webFile)).size }); // prettier-ignore
    return made;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What an aborted run rejects with: the signal's reason, or an AbortError. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

const lastLine = (text: string): string =>
  (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('x26'))
      .pop() ?? ''
  ).slice(0, 200);
