// `npm run bench:kit`: the listing kit's slideshow (docs/api.md §32) rendered by Lightbox's
// renderKitVideo (src/modules/kit/kit.video.ts) beside a bare ffmpeg run of the same filter graph
// on the same pre-scaled inputs, in the same run.
//
// - render: renderKitVideo as a kit build calls it: every photo (camera-sized JPEGs) pre-scaled
//   by sharp, the cards drawn, the graph written, then the installed ffmpeg run through the
//   bounding shell (ulimit, watchdog) of variants.video.ts.
//   A video of more than 8 segments is rendered in parts (kit.video.ts KIT_CHUNK_SEGMENTS), each
//   its own ffmpeg run, joined without encoding again: what bounds ffmpeg's memory.
// - bare: the installed ffmpeg, run directly once on the whole graph with the same pre-scaled
//   images (made once, before the rounds): what the encode costs with nothing around it.
// The two alternate round by round (bare first in odd rounds); the figures are medians. Targets:
// render / bare within 1.1, and the render of the 25-photo 1080p slideshow (100 s of photos, 106 s
// with its two cards) within twice the video's length. Peak RSS is sampled while each runs (every
// 100 ms: this process's and its ffmpeg's high-water marks from /proc).
//
//   npm run bench:kit -- [--photos 25] [--seconds 4] [--rounds 3] [--threads 1] [--kind slideshow] [--size 1920x1080]
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { roomPhoto } from '../../../test/support/analysis-photos.ts';
import { kitFfmpegArgs, prepareKitVideo, renderKitVideo, type KitVideoKind, type KitVideoOptions } from '../../../src/modules/kit/kit.video.ts'; // prettier-ignore
import { cleanup, onCleanup, ROOT } from './lib/procs.ts';
import { fixed, machine, median, table } from './lib/report.ts';
import { parseOrExit, wholeNumber } from './lib/options.ts';

const run = promisify(execFile);
/** The ffmpeg the project installs, the one renderKitVideo runs. */
const FFMPEG = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

const HELP = `Usage: npm run bench:kit -- [options]    (node packages/bench/src/kit.ts [options])

Makes a set of camera-sized photos, then renders the listing kit's slideshow with renderKitVideo
and with a bare ffmpeg run of the same filter graph on the same pre-scaled inputs, alternating,
and reports the median seconds of each, the render's seconds per second of video and peak RSS.

Options:
  --photos N    photos in the set (default 25)
  --seconds N   KIT_SECONDS_PER_PHOTO (default 4)
  --rounds N    measured rounds per method (default 3)
  --threads N   ffmpeg threads for both (default 1)
  --kind K      slideshow (default), slideshow_unbranded, reel or teaser
  --size WxH    a smaller output for a smoke run (default: the kind's own)
  -h, --help    show this help

Results: a table on stdout, and results.json + results.md in bench-results/<time>-kit/.
`;

const options = parseOrExit(HELP, {
  photos: { type: 'string', default: '25' },
  seconds: { type: 'string', default: '4' },
  rounds: { type: 'string', default: '3' },
  threads: { type: 'string', default: '1' },
  kind: { type: 'string', default: 'slideshow' },
  size: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
const count = wholeNumber(options.photos, 'photos', 1, 200);
const secondsPerPhoto = wholeNumber(options.seconds, 'seconds', 1, 30);
const rounds = wholeNumber(options.rounds, 'rounds', 1, 20);
const threads = wholeNumber(options.threads, 'threads', 1, 64);
const KINDS: readonly KitVideoKind[] = ['slideshow', 'slideshow_unbranded', 'reel', 'teaser'];
const kind = KINDS.find((k) => k === options.kind);
if (kind === undefined) throw new Error(`--kind must be one of ${KINDS.join(', ')}`);
let size: { width: number; height: number } | undefined;
if (options.size !== undefined) {
  const m = /^(\d{2,4})x(\d{2,4})$/.exec(options.size);
  if (m === null) throw new Error('--size must be WIDTHxHEIGHT');
  size = { width: Number(m[1]), height: Number(m[2]) };
}
const LIMITS = { timeoutMs: 3_600_000, memoryBytes: 4096 * 1024 ** 2, threads };

/** The high-water mark of resident memory (VmHWM) of a process, in bytes, or 0 once it is gone. */
async function hwm(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** This process's descendants, from /proc (the bounding shell, then ffmpeg). */
async function descendants(): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const wanted = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (wanted.has(ppid) && !wanted.has(pid)) {
        wanted.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

/** Runs `work`, sampling peak RSS of this process and (separately) of its largest child. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; nodeMb: number; ffmpegMb: number }> {
  let ffmpegPeak = 0;
  let nodePeak = process.memoryUsage().rss;
  let running = true;
  const sampler = (async () => {
    while (running) {
      nodePeak = Math.max(nodePeak, process.memoryUsage().rss);
      for (const pid of await descendants()) ffmpegPeak = Math.max(ffmpegPeak, await hwm(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const started = process.hrtime.bigint();
  try {
    const value = await work();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { value, seconds, nodeMb: nodePeak / 1024 ** 2, ffmpegMb: ffmpegPeak / 1024 ** 2 };
  } finally {
    running = false;
    await sampler;
  }
}

const loadBefore = os.loadavg();
const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-kit-'));
onCleanup(() => rm(work, { recursive: true, force: true }));
try {
  console.log(`making ${count} photos of 6000x4000 ...`);
  const photos: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(work, `photo-${String(i).padStart(2, '0')}.jpg`);
    const drawn = await roomPhoto(100 + i);
    await sharp(drawn).resize(6000, 4000, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(file);
    photos.push(file);
  }
  const base: KitVideoOptions = {
    kind,
    photos,
    out: '',
    card: { address: '12 Harbour Street, Portland', facts: '4 beds · 3 baths · 2,450 sqft', studio: 'Bench Studio' },
    music: null,
    secondsPerPhoto,
    limits: LIMITS,
    tmpDir: work,
    size,
  };

  // The bare run's inputs: pre-scaled once, the same graph.
  const bareDir = path.join(work, 'bare-inputs');
  await mkdir(bareDir, { recursive: true });
  const prepared = await prepareKitVideo(base, bareDir);
  const ffmpeg = FFMPEG;
  console.log(`${kind}: ${prepared.width}x${prepared.height}, ${prepared.seconds} s of video, ${threads} thread(s)`);

  const results: { round: number; bare: number; render: number; bareMb: number; renderMb: number; nodeMb: number; bytes: number }[] = []; // prettier-ignore
  for (let round = 1; round <= rounds; round++) {
    const out = path.join(work, `round-${round}`);
    await mkdir(out, { recursive: true });
    const got = new Map<'bare' | 'render', { seconds: number; ffmpegMb: number; nodeMb: number; bytes: number }>();
    for (const method of round % 2 === 1 ? (['bare', 'render'] as const) : (['render', 'bare'] as const)) {
      const file = path.join(out, `${method}.mp4`);
      const m =
        method === 'bare'
          ? await measured(() => run(ffmpeg, ['-nostdin', '-hide_banner', '-loglevel', 'error', ...kitFfmpegArgs(prepared.images, null, prepared.script, file, threads, prepared.seconds)])) // prettier-ignore
          : await measured(() => renderKitVideo({ ...base, out: file }));
      const bytes = (await stat(file)).size;
      got.set(method, { seconds: m.seconds, ffmpegMb: m.ffmpegMb, nodeMb: m.nodeMb, bytes });
      console.log(`  round ${round} ${method.padEnd(6)} ${fixed(m.seconds, 2)} s, ffmpeg peak RSS ${fixed(m.ffmpegMb, 0)} MB`); // prettier-ignore
    }
    const b = got.get('bare');
    const r = got.get('render');
    if (b === undefined || r === undefined) throw new Error('a measurement is missing');
    results.push({ round, bare: b.seconds, render: r.seconds, bareMb: b.ffmpegMb, renderMb: r.ffmpegMb, nodeMb: r.nodeMb, bytes: r.bytes }); // prettier-ignore
    await rm(out, { recursive: true, force: true });
  }
  const bareS = median(results.map((r) => r.bare));
  const renderS = median(results.map((r) => r.render));
  const rows = [
    ['method', 'seconds (median)', 's per s of video', 'ffmpeg peak RSS MB', 'output MB'],
    ['bare ffmpeg (same graph, same inputs)', fixed(bareS, 2), fixed(bareS / prepared.seconds, 3), fixed(median(results.map((r) => r.bareMb)), 0), ''], // prettier-ignore
    ['renderKitVideo (pre-scale + cards + ffmpeg)', fixed(renderS, 2), fixed(renderS / prepared.seconds, 3), fixed(median(results.map((r) => r.renderMb)), 0), fixed(median(results.map((r) => r.bytes)) / 1e6, 1)], // prettier-ignore
  ];
  const ratio = renderS / bareS;
  const lines = [
    `render / bare: ${fixed(ratio, 3)} (target within 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'})`,
    `render / video length: ${fixed(renderS / prepared.seconds, 3)} (target within 2: ${renderS <= 2 * prepared.seconds ? 'met' : 'NOT met'})`, // prettier-ignore
    `node peak RSS while rendering: ${fixed(median(results.map((r) => r.nodeMb)), 0)} MB`,
  ];
  console.log(`\n${table(rows)}\n${lines.join('\n')}`);

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(ROOT, 'bench-results', `${stamp}-kit`);
  await mkdir(outDir, { recursive: true });
  const environment = machine(loadBefore);
  const result = {
    kind,
    photos: count,
    secondsPerPhoto,
    video: { width: prepared.width, height: prepared.height, seconds: prepared.seconds },
    threads,
    rounds: results,
    medianSeconds: { bare: bareS, render: renderS },
    ratio,
    environment,
  };
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(
    path.join(outDir, 'results.md'),
    [
      `# Listing kit ${kind}: ${count} photos x ${secondsPerPhoto} s, ${prepared.width}x${prepared.height}, ${threads} thread(s)`,
      '',
      table(rows),
      '',
      ...lines,
      `${environment.cpus}; load before ${environment.loadAverageBefore.join(' ')}`,
      '',
    ].join('\n'),
  );
  console.log(`wrote ${path.relative(ROOT, outDir)}/results.json and results.md`);
} finally {
  await cleanup();
}
