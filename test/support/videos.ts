// Small videos for tests, made by the ffmpeg the project installs (docs/api.md §25): no binary
// fixture in the repository. Each is a moving test pattern (and a tone) of a few seconds.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
}

/**
 * A video made by ffmpeg. `h264-faststart`: what browsers play as it is (web is null);
 * `h264-tail`: the same with its index at the end; `mpeg4`: MPEG-4 Part 2 in MP4 (quick to make,
 * needs a web rendition); `hevc`: H.265 in MP4; `vp8`: WebM.
 */
export async function makeVideo(
  kind: 'h264-faststart' | 'h264-tail' | 'mpeg4' | 'hevc' | 'vp8',
  { width = 320, height = 180, seconds = 2, audio = true }: VideoOptions = {},
): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-video-'));
  const out = path.join(dir, kind === 'vp8' ? 'v.webm' : 'v.mp4');
  const input = ['-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=25:duration=${seconds}`];
  if (audio) input.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`);
  const codec: Record<typeof kind, string[]> = {
    'h264-faststart': ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart'], // prettier-ignore
    'h264-tail': ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
    mpeg4: ['-c:v', 'mpeg4', '-q:v', '5', '-c:a', 'aac'],
    hevc: ['-c:v', 'libx265', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-x265-params', 'log-level=error', '-c:a', 'aac'], // prettier-ignore
    vp8: ['-c:v', 'libvpx', '-deadline', 'realtime', '-b:v', '300k', '-c:a', 'libopus'],
  };
  try {
    await run(ffmpegPath(), ['-nostdin', '-hide_banner', '-loglevel', 'error', ...input, ...codec[kind], '-y', out]);
    return await readFile(out);
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
