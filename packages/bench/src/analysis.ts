// `npm run bench:analysis`: what a photo's analysis (docs/api.md §30, src/modules/analysis) costs,
// on generated 24-megapixel photos (6000x4000) that give every model something to find: a room
// drawn in code with a sign (words for OCR) or a QR code on it, a real portrait from
// @vladmandic/human's assets (a face, a person), camera-like grain; made at the start, not kept.
//
// 1. stages (a component benchmark, in this process): CPU per photo of each stage on what the
//    `media.analyze` job reads, the photo's `large` copy (2048 px, made here once by sharp): the
//    pixel stage; the detectors (faces, objects, with the scene counts); OCR; QR; the room and alt
//    text; and their total; beside a bare sharp decode-and-resize of the same 24-MP photo to
//    2048 px (raw pixels), measured in the same rounds. Medians over --rounds of each round's mean
//    per photo; the ratio is total / bare within a round. The models are loaded (and timed) first.
// 2. shoot (packages/bench/src/lib/analysis-shoot.ts): the real `lightbox serve`, --photos photos
//    uploaded into one gallery and analysed through its job queue; seconds from the upload's end
//    to the last `media.analyzed`; GET /v1/listings p99 while that runs against the same requests
//    before any upload; the server's peak RSS (VmHWM) with every model loaded.
//
// Targets (issue 40): the shoot of 40 photos analysed within 3 minutes on a 2-core machine; the
// p99 while analysing within 2x the idle p99; the server's peak RSS under 1 GiB.
//
//   npm run bench:analysis                                   # 40 photos of 24 MP, 3 rounds
//   npm run bench:analysis -- --photos 2 --rounds 1 --megapixels 2 --idle-seconds 3   # the quickest
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { peoplePhotos, qrPhoto, signPhoto, type PeoplePhoto } from '../../../test/support/analysis-photos.ts';
import { analysePixels } from '../../../src/modules/analysis/analysis.pixels.ts';
import { modelReader } from '../../../src/modules/analysis/analysis.models.thread.ts';
import { altText, inferRoom } from '../../../src/modules/analysis/analysis.rooms.ts';
import { onCleanup, ROOT, runBench } from './lib/procs.ts';
import { fixed, machine, median, table } from './lib/report.ts';
import { wholeNumber } from './lib/options.ts';
import { runShoot, statusMiB, type ShootResult } from './lib/analysis-shoot.ts';

const TARGET_SHOOT_SECONDS = 180;
const TARGET_SHOOT_PHOTOS = 40;
const TARGET_MEGAPIXELS = 24;
const TARGET_P99_RATIO = 2;
const TARGET_RSS_MIB = 1024;
/** The `large` variant's box: what the analysis job reads. */
const LARGE_EDGE = 2048;
/** Photos of more pixels than this are refused by the service's default (MEDIA_MAX_IMAGE_PIXELS). */
const MAX_PIXELS = 268_402_689;
/** At most this many distinct photos are generated; a larger shoot sends them again. */
const MAX_DISTINCT = 8;
const MB = 1e6;

const HELP = `Usage: npm run bench:analysis -- [options]    (node packages/bench/src/analysis.ts [options])

Generates distinct photo-like JPEGs (a room with a sign or a QR code, a portrait, grain), then
  stages: CPU per photo of each analysis stage, and a bare sharp decode-and-resize beside it;
  shoot:  the real \`lightbox serve\` analyses --photos uploaded photos through its job queue,
          with GET /v1/listings p99 (idle vs. analysing) and the server's peak RSS.

Options:
  --photos N        photos in the shoot (default 40; at most ${MAX_DISTINCT} distinct, sent again in turn)
  --rounds N        rounds of the stages part, medians (default 3)
  --megapixels N    size of the photos, 3:2 (default 24: 6000x4000)
  --idle-seconds N  length of the idle latency phase before the upload (default 15)
  --rate N          GET /v1/listings per second in both phases (default 20)
  --only PART       'stages' or 'shoot'; both by default
  --keep            keep the generated photos and the server's data (printed)
  -h, --help        show this help

Results: a table and the verdicts on stdout, and results.json + results.md in
bench-results/<time>-analysis/.
`;

interface Options {
  photos: number;
  rounds: number;
  megapixels: number;
  idleSeconds: number;
  rate: number;
  only: 'stages' | 'shoot' | undefined;
  keep: boolean;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      photos: { type: 'string', default: String(TARGET_SHOOT_PHOTOS) },
      rounds: { type: 'string', default: '3' },
      megapixels: { type: 'string', default: String(TARGET_MEGAPIXELS) },
      'idle-seconds': { type: 'string', default: '15' },
      rate: { type: 'string', default: '20' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const only = values.only;
  if (only !== undefined && only !== 'stages' && only !== 'shoot')
    throw new Error("--only must be 'stages' or 'shoot'");
  return {
    photos: wholeNumber(values.photos, 'photos', 1, 1000),
    rounds: wholeNumber(values.rounds, 'rounds', 1, 50),
    megapixels: wholeNumber(values.megapixels, 'megapixels', 1, 100),
    idleSeconds: wholeNumber(values['idle-seconds'], 'idle-seconds', 1, 600),
    rate: wholeNumber(values.rate, 'rate', 1, 500),
    only,
    keep: values.keep,
  };
}

// --- the photos ---------------------------------------------------------------------------------

const SIGNS = [
  ['FOR SALE', 'OPEN HOUSE SUNDAY', '12 OAK STREET'],
  ['SOLD', 'CALL 555 0147'],
  ['WELCOME HOME', 'KITCHEN RENOVATED 2024'],
];

/** Photo `i`: a room with a sign (even) or a QR code (odd), a portrait, grain; `width`x`height` JPEG. */
async function benchPhoto(i: number, width: number, height: number, people: PeoplePhoto[]): Promise<Buffer> {
  const seed = 4000 + i;
  const room =
    i % 2 === 0
      ? await signPhoto(seed, SIGNS[(i / 2) % SIGNS.length] ?? ['FOR SALE'])
      : await qrPhoto(seed, `https://lightbox.invalid/l/${seed}`, 240);
  const portrait = people[i % people.length]?.jpeg;
  const side = Math.round(height * 0.3);
  const layers =
    portrait === undefined
      ? []
      : [
          {
            input: await sharp(portrait).resize(side, side, { fit: 'inside' }).toBuffer(),
            left: Math.round(width * 0.06),
            top: Math.round(height * 0.5),
          },
        ];
  const { data, info } = await sharp(room)
    .resize(width, height, { fit: 'cover', kernel: 'cubic' })
    .composite(layers)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Camera-like grain, so the photo decodes (and compresses) like a camera's rather than a drawing;
  // finer on a photo the 2048-px copy hardly shrinks (--megapixels 2), where jsqr would miss the code.
  const grain = randomBytes(data.length);
  const mask = width * height >= 12e6 ? 31 : 7;
  for (let k = 0; k < data.length; k++) {
    const v = (data[k] ?? 0) + ((grain[k] ?? 0) & mask) - (mask + 1) / 2;
    data[k] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

interface Photo {
  original: string;
  large: string;
  bytes: number;
}

async function generatePhotos(dir: string, count: number, megapixels: number): Promise<Photo[]> {
  await mkdir(dir, { recursive: true });
  const width = Math.round(Math.sqrt(megapixels * 1e6 * 1.5));
  const height = Math.round(width / 1.5);
  const people = await peoplePhotos();
  const photos: Photo[] = [];
  for (let i = 0; i < count; i++) {
    const jpeg = await benchPhoto(i, width, height, people);
    const original = path.join(dir, `photo-${i}.jpg`);
    const large = path.join(dir, `photo-${i}-large.jpg`);
    await writeFile(original, jpeg);
    await sharp(jpeg)
      .rotate()
      .resize(LARGE_EDGE, LARGE_EDGE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toFile(large);
    photos.push({ original, large, bytes: jpeg.length });
  }
  console.log(`  ${count} photos of ${width}x${height}, ${fixed(photos.reduce((s, p) => s + p.bytes, 0) / count / MB, 2)} MB each on average`); // prettier-ignore
  return photos;
}

// --- 1. the stages ------------------------------------------------------------------------------

const STAGES = ['bare', 'pixel', 'detect', 'ocr', 'qr', 'rooms', 'total'] as const;
type Stage = (typeof STAGES)[number];
const STAGE_NAMES: Record<Stage, string> = {
  bare: 'bare sharp decode + resize to 2048 (baseline)',
  pixel: 'pixel stage (hash, sharpness, exposure, tilt)',
  detect: 'faces + objects detectors (and scene counts)',
  ocr: 'OCR (tesseract.js)',
  qr: 'QR (jsqr)',
  rooms: 'room and alt text',
  total: 'analysis in total (pixel + models + rooms)',
};

/** The process's CPU time so far (every thread: sharp's, the OCR worker's), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

interface StagesResult {
  load: { cpuMs: number; seconds: number; rssMiB: number };
  /** Per stage: the median over rounds of the round's mean CPU ms per photo. */
  cpuMsPerPhoto: Record<Stage, number>;
  ratio: number;
  secondsPerPhoto: number;
  /** What the models found in the last round, in total over the photos: they had work to do. */
  found: { faces: number; people: number; objects: number; words: number; qrCodes: number };
  rounds: { round: number; cpuMsPerPhoto: Record<Stage, number>; ratio: number }[];
}

async function runStages(photos: Photo[], rounds: number): Promise<StagesResult> {
  const reader = modelReader({ ocr: true, maxPixels: MAX_PIXELS });
  onCleanup(() => reader.close());
  const first = photos[0];
  if (first === undefined) throw new Error('no photos');
  console.log('loading the models (one photo read) ...');
  let start = cpuMs();
  let wall = performance.now();
  await reader.read(first.large);
  const load = { cpuMs: cpuMs() - start, seconds: (performance.now() - wall) / 1000, rssMiB: statusMiB(process.pid, 'VmRSS') }; // prettier-ignore

  const perRound: StagesResult['rounds'] = [];
  const walls: number[] = [];
  const found = { faces: 0, people: 0, objects: 0, words: 0, qrCodes: 0 };
  for (let round = 1; round <= rounds; round++) {
    const sums = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
    wall = performance.now();
    for (const key of Object.keys(found) as (keyof typeof found)[]) found[key] = 0;
    for (const photo of photos) {
      start = cpuMs();
      await sharp(photo.original, { limitInputPixels: MAX_PIXELS })
        .rotate()
        .resize(LARGE_EDGE, LARGE_EDGE, { fit: 'inside', withoutEnlargement: true })
        .raw()
        .toBuffer();
      sums.bare += cpuMs() - start;

      start = cpuMs();
      await analysePixels(photo.large, MAX_PIXELS);
      const pixel = cpuMs() - start;
      start = cpuMs();
      const m = await reader.read(photo.large);
      const models = cpuMs() - start;
      // The room and alt text take microseconds: timed over many calls.
      const repeat = 200;
      start = cpuMs();
      for (let k = 0; k < repeat; k++) altText(inferRoom(m.objects, m.scene), m.objects);
      const rooms = (cpuMs() - start) / repeat;
      found.faces += m.faces;
      found.people += m.people;
      found.objects += m.objects.length;
      found.words += m.text?.length ?? 0;
      found.qrCodes += m.qrCodes.length;
      sums.pixel += pixel;
      sums.detect += m.cpuMs.detect;
      sums.ocr += m.cpuMs.ocr;
      sums.qr += m.cpuMs.qr;
      sums.rooms += rooms;
      sums.total += pixel + models + rooms;
    }
    walls.push((performance.now() - wall) / 1000 / photos.length);
    const mean = Object.fromEntries(STAGES.map((s) => [s, sums[s] / photos.length])) as Record<Stage, number>;
    perRound.push({ round, cpuMsPerPhoto: mean, ratio: mean.total / mean.bare });
    console.log(`  round ${round}: bare ${fixed(mean.bare, 0)} ms, analysis ${fixed(mean.total, 0)} ms CPU per photo (${fixed(mean.total / mean.bare, 2)}x)`); // prettier-ignore
  }
  await reader.close();
  return {
    load,
    cpuMsPerPhoto: Object.fromEntries(STAGES.map((s) => [s, median(perRound.map((r) => r.cpuMsPerPhoto[s]))])) as Record<Stage, number>, // prettier-ignore
    ratio: median(perRound.map((r) => r.ratio)),
    secondsPerPhoto: median(walls),
    found,
    rounds: perRound,
  };
}

/** CPU ms with enough digits for the room inference's microseconds. */
const ms = (v: number): string => fixed(v, v < 1 ? 3 : 1);

function stagesReport(s: StagesResult, photos: number, megapixels: number, rounds: number): string[] {
  const bare = s.cpuMsPerPhoto.bare;
  const rows = table([
    ['stage', 'CPU ms/photo', '× bare'],
    ...STAGES.map((stage) => [STAGE_NAMES[stage], ms(s.cpuMsPerPhoto[stage]), fixed(s.cpuMsPerPhoto[stage] / bare, stage === 'rooms' ? 4 : 2)]), // prettier-ignore
  ]);
  return [
    `Stages: ${photos} distinct photos of ${megapixels} MP, each stage on the photo's 2048-px \`large\` copy (what the job reads); ${rounds} round(s), medians of each round's mean; CPU of every thread.`, // prettier-ignore
    '',
    rows,
    '',
    `- analysis / bare decode-and-resize, median of the rounds: ${fixed(s.ratio, 2)}x; ${fixed(s.secondsPerPhoto, 2)} s wall per photo for all of it`, // prettier-ignore
    `- found in ${photos} photos: ${s.found.faces} faces, ${s.found.people} people, ${s.found.objects} objects, ${s.found.words} words, ${s.found.qrCodes} QR codes`, // prettier-ignore
    `- loading the models (and reading one photo): ${fixed(s.load.cpuMs, 0)} ms CPU, ${fixed(s.load.seconds, 1)} s; this process's RSS then ${fixed(s.load.rssMiB, 0)} MiB`, // prettier-ignore
    '',
  ];
}

// --- 2 and 3. the shoot -------------------------------------------------------------------------

interface Verdict {
  met: boolean;
  line: string;
}

function shootVerdicts(r: ShootResult, o: Options): Verdict[] {
  const atTarget = o.photos === TARGET_SHOOT_PHOTOS && o.megapixels === TARGET_MEGAPIXELS;
  const scaled = atTarget ? '' : ` (the target is for ${TARGET_SHOOT_PHOTOS} photos of ${TARGET_MEGAPIXELS} MP)`;
  const complete = r.failed === 0 && r.analysed >= r.photos;
  const list: Verdict[] = [
    {
      met: complete && r.analysedSeconds <= TARGET_SHOOT_SECONDS,
      line: `shoot analysed within ${TARGET_SHOOT_SECONDS} s of the upload's end: ${fixed(r.analysedSeconds, 1)} s, ${r.analysed} analysed, ${r.failed} failed${scaled}`, // prettier-ignore
    },
    {
      met: r.p99Ratio <= TARGET_P99_RATIO && r.idle.errors + r.busy.errors === 0,
      line: `GET /v1/listings p99 while analysing ≤ ${TARGET_P99_RATIO}x idle: ${fixed(r.busy.p99, 1)} / ${fixed(r.idle.p99, 1)} ms = ${fixed(r.p99Ratio, 2)}x, ${r.idle.errors + r.busy.errors} failed requests`, // prettier-ignore
    },
    {
      met: r.peakRssMiB < TARGET_RSS_MIB,
      line: `server peak RSS (VmHWM) with every model loaded < ${TARGET_RSS_MIB} MiB: ${fixed(r.peakRssMiB, 0)} MiB`,
    },
  ];
  return list;
}

function shootReport(r: ShootResult, o: Options, verdicts: Verdict[]): string[] {
  const rows = table([
    ['phase', 'requests', 'failed', 'p50 ms', 'p99 ms'],
    ['idle (before the upload)', String(r.idle.requests), String(r.idle.errors), fixed(r.idle.p50, 1), fixed(r.idle.p99, 1)], // prettier-ignore
    ['analysing (upload end → last media.analyzed)', String(r.busy.requests), String(r.busy.errors), fixed(r.busy.p50, 1), fixed(r.busy.p99, 1)], // prettier-ignore
  ]);
  return [
    `Shoot: the real \`lightbox serve\` (SQLite, shipped defaults), ${r.photos} photos of ${o.megapixels} MP (${fixed(r.uploadMB / r.photos, 1)} MB each) uploaded in ${fixed(r.uploadSeconds, 1)} s, then variants and analysis by its job queue; GET /v1/listings at ${o.rate}/s.`, // prettier-ignore
    '',
    rows,
    '',
    `- upload end → last media.analyzed: ${fixed(r.analysedSeconds, 1)} s (${fixed(r.analysedSeconds / r.photos, 2)} s per photo)`, // prettier-ignore
    ...[...r.idle.firstErrors, ...r.busy.firstErrors].map((e) => `- a failed request: ${e}`),
    `- requests sent again after a kept-alive connection was reset: ${r.resets} (timed from the first try)`,
    `- server RSS once ready ${fixed(r.startRssMiB, 0)} MiB, peak (VmHWM) ${fixed(r.peakRssMiB, 0)} MiB`,
    '',
    ...verdicts.map((v) => `- ${v.met ? 'MET    ' : 'NOT MET'}  ${v.line}`),
    '',
  ];
}

// --- the run ------------------------------------------------------------------------------------

async function run(options: Options): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(ROOT, 'bench-results', `${stamp}-analysis`);
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-analysis-'));
  if (!options.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const loadBefore = os.loadavg();
  const started = performance.now();

  const distinct = Math.min(options.photos, MAX_DISTINCT);
  console.log(`generating ${distinct} photos of ${options.megapixels} MP in ${work} ...`);
  const photos = await generatePhotos(path.join(work, 'photos'), distinct, options.megapixels);

  let stages: StagesResult | undefined;
  const markdown: string[] = [];
  if (options.only !== 'shoot') {
    stages = await runStages(photos, options.rounds);
    const lines = stagesReport(stages, distinct, options.megapixels, options.rounds);
    console.log(`\n${lines.join('\n')}`);
    markdown.push(...lines);
  }
  let shoot: ShootResult | undefined;
  let verdicts: Verdict[] = [];
  if (options.only !== 'stages') {
    const serviceDir = path.join(work, 'service');
    await mkdir(serviceDir, { recursive: true });
    shoot = await runShoot({
      files: photos.map((p) => p.original),
      photos: options.photos,
      idleSeconds: options.idleSeconds,
      rate: options.rate,
      galleries: 20,
      work: serviceDir,
      log: (line) => console.log(line),
    });
    verdicts = shootVerdicts(shoot, options);
    const lines = shootReport(shoot, options, verdicts);
    console.log(`\n${lines.join('\n')}`);
    markdown.push(...lines);
  }

  const environment = { ...machine(loadBefore), minutes: Number(fixed((performance.now() - started) / 60_000, 1)) };
  const date = new Date().toISOString();
  const result = { benchmark: 'analysis', date, options, environment, stages, shoot, verdicts };
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(
    path.join(outDir, 'results.md'),
    [
      '# Lightbox photo analysis benchmark',
      '',
      `${date} · Node ${environment.node} · ${environment.cpus} · load ${environment.loadAverageBefore.join(' ')} → ${environment.loadAverageAfter.join(' ')} · commit ${environment.commit} · ${environment.minutes} min`, // prettier-ignore
      '',
      ...markdown,
    ].join('\n'),
  );
  if (options.keep) console.log(`kept: ${work}`);
  console.log(`wrote ${path.relative(ROOT, outDir)}/results.json and results.md (${environment.minutes} min)`);
}

await runBench('bench:analysis', HELP, parseOptions, run);
