// `npm run bench:kit`: the listing kit (docs/api.md §32), in two parts.
//
// 1. render: the slideshow rendered by Lightbox's renderKitVideo (src/modules/kit/kit.video.ts)
//    beside a bare ffmpeg run of the same filter graph on the same pre-scaled inputs, in the same
//    run. renderKitVideo is given what a kit build gives it, the photos' `large` variants (2048 px
//    JPEGs); it pre-scales them with sharp, draws the cards, writes the graph and runs the
//    installed ffmpeg through the bounding shell (ulimit, watchdog) of variants.video.ts. A video
//    of more than 8 segments is rendered in parts (KIT_CHUNK_SEGMENTS), each its own ffmpeg run,
//    joined without encoding again: what bounds ffmpeg's memory. The bare run is the installed
//    ffmpeg run directly, once, on the whole graph with the same pre-scaled images (made once,
//    before the rounds): what the encode costs with nothing around it. The two alternate round by
//    round (bare first in odd rounds); the figures are medians. Peak RSS is sampled while each
//    runs (every 100 ms: this process's and its ffmpeg's high-water marks from /proc).
// 2. build (lib/kit-build.ts): the real `lightbox serve` builds a whole kit (the MLS pack, flyer,
//    social images and the four videos) of --photos uploaded 24-MP photos while GET
//    /v1/listings runs at a steady pace; its p99 against the same requests before the build, the
//    build's seconds, and the server's and ffmpeg's peak RSS.
//
// Targets (issue 42): render / bare within 1.1; the 25-photo 1080p slideshow (100 s of photos,
// 106 s with its two cards) rendered within twice its length; RSS bounded while rendering; API
// p99 within 2x of idle while a kit builds.
//
//   npm run bench:kit -- [--photos 25] [--seconds 4] [--rounds 3] [--threads 1] [--kind slideshow] [--size 1920x1080]
//   npm run bench:kit -- --only build --photos 25 --idle-seconds 15 --rate 20
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { roomPhoto } from '../../../test/support/analysis-photos.ts';
import { kitFfmpegArgs, prepareKitVideo, renderKitVideo, type KitVideoKind, type KitVideoOptions } from '../../../src/modules/kit/kit.video.ts'; // prettier-ignore
import { cleanup, onCleanup, ROOT } from './lib/procs.ts';
import { descendantPids, hwmBytes } from './lib/proc-stats.ts';
import { fixed, machine, median, table } from './lib/report.ts';
import { parseOrExit, wholeNumber } from './lib/options.ts';
import { runKitBuild } from './lib/kit-build.ts';

const run = promisify(execFile);
/** The ffmpeg the project installs, the one renderKitVideo runs. */
const FFMPEG = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

const HELP = `Usage: npm run bench:kit -- [options]    (node packages/bench/src/kit.ts [options])

Makes a set of photos, then
  render: the listing kit's slideshow with renderKitVideo (from 2048-px photos, as a kit build
          gives it) and with a bare ffmpeg run of the same filter graph on the same pre-scaled
          inputs, alternating: median seconds of each, seconds per second of video, peak RSS;
  build:  the real \`lightbox serve\` builds a whole kit of --photos uploaded 24-MP photos, with
          GET /v1/listings p99 (idle vs. building) and the server's and ffmpeg's peak RSS.

Options:
  --photos N    photos in the set (default 25)
  --seconds N   KIT_SECONDS_PER_PHOTO (default 4)
  --rounds N    measured rounds per method (default 3)
  --threads N   ffmpeg threads for both (default 1)
  --kind K      slideshow (default), slideshow_unbranded, reel or teaser
  --size WxH    a smaller output for a smoke run (default: the kind's own)
  --only PART   'render' or 'build'; both by default
  --idle-seconds N  length of the build part's idle latency phase (default 15)
  --rate N      GET /v1/listings per second in the build part (default 20)
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
  only: { type: 'string' },
  'idle-seconds': { type: 'string', default: '15' },
  rate: { type: 'string', default: '20' },
  help: { type: 'boolean', short: 'h', default: false },
});
const count = wholeNumber(options.photos, 'photos', 1, 200);
const secondsPerPhoto = wholeNumber(options.seconds, 'seconds', 1, 30);
const rounds = wholeNumber(options.rounds, 'rounds', 1, 20);
const threads = wholeNumber(options.threads, 'threads', 1, 64);
const idleSeconds = wholeNumber(options['idle-seconds'], 'idle-seconds', 1, 600);
const rate = wholeNumber(options.rate, 'rate', 1, 500);
if (options.only !== undefined && options.only !== 'render' && options.only !== 'build') {
  throw new Error('--only must be render or build');
}
const parts = { render: options.only !== 'build', build: options.only !== 'render' };
const KINDS: readonly KitVideoKind[] = ['slideshow', 'slideshow_unbranded', 'reel', 'teaser'];
const kind: KitVideoKind =
  KINDS.find((k) => k === options.kind) ??
  ((): never => {
    throw new Error(`--kind must be one of ${KINDS.join(', ')}`);
  })();
let size: { width: number; height: number } | undefined;
if (options.size !== undefined) {
  const m = /^(\d{2,4})x(\d{2,4})$/.exec(options.size);
  if (m === null) throw new Error('--size must be WIDTHxHEIGHT');
  size = { width: Number(m[1]), height: Number(m[2]) };
}
/** The `large` variant's box: what a kit build gives renderKitVideo. */
const LARGE_EDGE = 2048;
const LIMITS = { timeoutMs: 3_600_000, memoryBytes: 4096 * 1024 ** 2, threads };

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
      for (const pid of descendantPids()) ffmpegPeak = Math.max(ffmpegPeak, hwmBytes(pid));
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
  console.log(`making ${count} photos of 6000x4000 and their 2048-px copies ...`);
  const originals: string[] = [];
  const photos: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `photo-${String(i).padStart(2, '0')}`;
    const drawn = await sharp(await roomPhoto(100 + i)).resize(6000, 4000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer(); // prettier-ignore
    originals.push(path.join(work, `${name}.jpg`));
    await writeFile(originals[i] ?? '', drawn);
    photos.push(path.join(work, `${name}-large.jpg`));
    await sharp(drawn)
      .resize(LARGE_EDGE, LARGE_EDGE, { fit: 'inside' })
      .jpeg({ quality: 85 })
      .toFile(photos[i] ?? '');
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(ROOT, 'bench-results', `${stamp}-kit`);
  await mkdir(outDir, { recursive: true });
  const environment = machine(loadBefore);
  const sections: string[] = [];
  const result: { [part: string]: unknown } = { photos: count, secondsPerPhoto, threads, environment };

  if (parts.render) {
    const rendered = await renderPart(photos);
    sections.push(rendered.markdown);
    result.render = rendered.json;
  }
  if (parts.build) {
    console.log(`\nbuild: the real lightbox serve builds a kit of ${count} photos ...`);
    const serveWork = path.join(work, 'serve');
    await mkdir(serveWork, { recursive: true });
    const b = await runKitBuild({ files: originals, photos: count, idleSeconds, rate, galleries: 10, work: serveWork, log: (line) => console.log(line) }); // prettier-ignore
    const rows = [
      ['phase', 'requests', 'errors', 'p50 ms', 'p99 ms'],
      ['idle', String(b.idle.requests), String(b.idle.errors), fixed(b.idle.p50, 1), fixed(b.idle.p99, 1)],
      ['while the kit builds', String(b.busy.requests), String(b.busy.errors), fixed(b.busy.p50, 1), fixed(b.busy.p99, 1)], // prettier-ignore
    ];
    const lines = [
      `kit ${b.status} in ${fixed(b.buildSeconds, 1)} s (${count} photos: MLS pack, flyer, social images, 4 videos)`,
      `GET /v1/listings p99 building / idle: ${fixed(b.p99Ratio, 2)} (target within 2: ${b.p99Ratio <= 2 ? 'met' : 'NOT met'})`, // prettier-ignore
      `server peak RSS ${fixed(b.serverPeakMiB, 0)} MiB; its largest child's (ffmpeg) ${fixed(b.childPeakMiB, 0)} MiB; ${b.resets} reset connection(s) sent again`, // prettier-ignore
      ...(b.busy.firstErrors.length > 0 ? [`first errors: ${b.busy.firstErrors.join(' | ')}`] : []),
    ];
    console.log(`\n${table(rows)}\n${lines.join('\n')}`);
    sections.push(['## build', '', table(rows), '', ...lines].join('\n'));
    result.build = b;
  }

  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(
    path.join(outDir, 'results.md'),
    [
      `# Listing kit: ${count} photos x ${secondsPerPhoto} s, ${threads} thread(s)`,
      '',
      ...sections,
      '',
      `${environment.cpus}; load before ${environment.loadAverageBefore.join(' ')}`,
      '',
    ].join('\n'),
  );
  console.log(`wrote ${path.relative(ROOT, outDir)}/results.json and results.md`);
} finally {
  await cleanup();
}

/** The render part: renderKitVideo beside the bare ffmpeg run, alternating round by round. */
async function renderPart(photos: string[]): Promise<{ markdown: string; json: unknown }> {
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
          ? await measured(() => run(FFMPEG, ['-nostdin', '-hide_banner', '-loglevel', 'error', ...kitFfmpegArgs(prepared.images, null, prepared.script, file, threads, prepared.seconds)])) // prettier-ignore
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
    ['bare ffmpeg (whole graph, same inputs)', fixed(bareS, 2), fixed(bareS / prepared.seconds, 3), fixed(median(results.map((r) => r.bareMb)), 0), ''], // prettier-ignore
    ['renderKitVideo (pre-scale + cards + ffmpeg in parts)', fixed(renderS, 2), fixed(renderS / prepared.seconds, 3), fixed(median(results.map((r) => r.renderMb)), 0), fixed(median(results.map((r) => r.bytes)) / 1e6, 1)], // prettier-ignore
  ];
  const ratio = renderS / bareS;
  const lines = [
    `render / bare: ${fixed(ratio, 3)} (target within 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'})`,
    `render / video length: ${fixed(renderS / prepared.seconds, 3)} (target within 2: ${renderS <= 2 * prepared.seconds ? 'met' : 'NOT met'})`, // prettier-ignore
    `node peak RSS while rendering: ${fixed(median(results.map((r) => r.nodeMb)), 0)} MB`,
  ];
  console.log(`\n${table(rows)}\n${lines.join('\n')}`);
  return {
    markdown: [`## render: ${kind}, ${prepared.width}x${prepared.height}, ${prepared.seconds} s`, '', table(rows), '', ...lines].join('\n'), // prettier-ignore
    json: {
      kind,
      video: { width: prepared.width, height: prepared.height, seconds: prepared.seconds },
      rounds: results,
      medianSeconds: { bare: bareS, render: renderS },
      ratio,
    },
  };
}
