// Small videos for tests, made by the ffmpeg the project installs (docs/api.md §25): no binary
// fixture in the repository. Each is a moving test pattern (and a tone) of a few seconds.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ffmpegPath } from '../../src/modules/variants/variants.video.ts';

const run = promisify(execFile);

export interface VideoOptions {
  width?: number;
  height?: number;
  seconds?: number;
  /** With a tone (AAC in MP4, Opus in WebM, as each needs). */
  audio?: boolean;
  /**
   * Tags a camera or an editing tool writes, in every place a container keeps them: the file's own
   * (`title`, `artist`, `comment`, ...), each stream's (`handler_name`, `title`, ...), and a chapter
   * named `chapter`.
   */
  metadata?: { tags: Record<string, string>; streamTags?: Record<string, string>; chapter?: string };
}

/**
 * A video made by ffmpeg. `h264-faststart`: what browsers play as it is (web is null);
 * `h264-tail`: the same with its index at the end; `mpeg4`: MPEG-4 Part 2 in MP4 (quick to make,
 * needs a web rendition); `hevc`: H.265 in MP4; `vp8`: WebM.
 */
export async function makeVideo(
  kind: 'h264-faststart' | 'h264-tail' | 'mpeg4' | 'hevc' | 'vp8',
  { width = 320, height = 180, seconds = 2, audio = true, metadata }: VideoOptions = {},
): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-video-'));
  const out = path.join(dir, kind === 'vp8' ? 'v.webm' : 'v.mp4');
  const input = ['-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=25:duration=${seconds}`];
  if (audio) input.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`);
  const tagging: string[] = [];
  if (metadata !== undefined) {
    // An ffmetadata file carries the file's tags and its chapter; the streams' come as options.
    const escape = (v: string): string => v.replace(/[=;#\\\n]/g, (c) => `\\${c}`);
    const lines = [';FFMETADATA1', ...Object.entries(metadata.tags).map(([k, v]) => `${k}=${escape(v)}`)];
    if (metadata.chapter !== undefined) {
      lines.push(
        '[CHAPTER]',
        'TIMEBASE=1/1000',
        'START=0',
        `END=${seconds * 500}`,
        `title=${escape(metadata.chapter)}`,
      );
    }
    const file = path.join(dir, 'metadata.txt');
    await writeFile(file, `${lines.join('\n')}\n`);
    input.push('-i', file);
    const index = String(audio ? 2 : 1);
    tagging.push('-map', '0:v', ...(audio ? ['-map', '1:a'] : []), '-map_metadata', index, '-map_chapters', index);
    for (const [k, v] of Object.entries(metadata.streamTags ?? {})) tagging.push('-metadata:s', `${k}=${v}`);
  }
  const codec: Record<typeof kind, string[]> = {
    'h264-faststart': ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart'], // prettier-ignore
    'h264-tail': ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
    mpeg4: ['-c:v', 'mpeg4', '-q:v', '5', '-c:a', 'aac'],
    hevc: ['-c:v', 'libx265', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-x265-params', 'log-level=error', '-c:a', 'aac'], // prettier-ignore
    vp8: ['-c:v', 'libvpx', '-deadline', 'realtime', '-b:v', '300k', '-c:a', 'libopus'],
  };
  try {
    await run(ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', ...input, ...tagging, ...codec[kind], '-y', out]); // prettier-ignore
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What a probe of the file reads of its tags (what ffprobe's `-show_format -show_streams
 * -show_chapters` reports, from the same demuxer): the `Metadata:` blocks of the file, its
 * streams and chapters as `ffmpeg -i` prints them, and the chapters it counts.
 */
export async function videoTags(data: Buffer): Promise<{ tags: Map<string, string>[]; chapters: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-video-tags-'));
  try {
    const file = path.join(dir, 'v.mp4');
    await writeFile(file, data);
    // With no output named, ffmpeg prints what it read of the input and exits 1.
    const stderr = await run(ffmpegPath(), ['-nostdin', '-hide_banner', '-i', file]).then(
      () => '',
      (err: unknown) => String((err as { stderr?: string }).stderr),
    );
    const tags: Map<string, string>[] = [];
    let current: Map<string, string> | undefined;
    let indent = 0;
    for (const line of stderr.split('\n')) {
      const at = line.length - line.trimStart().length;
      if (line.trim() === 'Metadata:') {
        current = new Map();
        tags.push(current);
        indent = at;
      } else if (current !== undefined && at > indent && line.includes(':')) {
        const [key = '', ...value] = line.split(':');
        current.set(key.trim(), value.join(':').trim());
      } else {
        current = undefined;
      }
    }
    return { tags, chapters: (stderr.match(/^\s*Chapter #/gm) ?? []).length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bytes that sniff as an MP4 (an `ftyp` box) and decode as nothing. */
export function undecodableMp4(): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isommp41', 16, 'latin1');
  const junk = Buffer.alloc(4096);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919) % 251;
  return Buffer.concat([ftyp, junk]);
}
