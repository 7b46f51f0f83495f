// `npm run bench:variants`: photo variants (thumb, large, mls) made by Lightbox's makeVariants
// against the obvious bare sharp script (three `sharp(file).rotate().resize(box, inside, without
// enlargement).<format>().toFile()` calls per photo, in sequence, the same encoder settings), on
// generated 24-megapixel camera-like JPEGs (6000x4000, about 7.7 MB each).
//
// Each measurement runs in a child process of its own (packages/bench/src/lib/variants-work.ts), so its
// peak RSS is its own; the two alternate round by round (bare first in odd rounds), and the
// figures are medians over rounds. The ratio is lightbox/bare photos per second within a round.
//
// Then the service itself (packages/bench/src/lib/variants-api.ts): the real `lightbox serve`, --api-photos
// uploaded photos, and the API's p99 for GET /v1/listings/:id/media while every photo's variants
// are made again, against the same requests with no variant work, round by round in one run;
// the server's RSS idle and at its peak; photos and variants made per second.
//
//   npm run bench:variants -- [--count 20] [--rounds 3] [--threads 1] [--parallel 1]
//   npm run bench:variants -- --only api [--api-photos 200] [--api-rounds 3]
//   npm run bench:variants -- --help
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { photoLikeJpeg } from '../../../test/support/photos.ts';
import { onCleanup, ROOT, runBench, track } from './lib/procs.ts';
import { fixed, machine, median, table } from './lib/report.ts';
import { WORK_KINDS, type WorkKind, type WorkResult } from './lib/variants-work.ts';
import { runApiBench, type ApiSummary } from './lib/variants-api.ts';
import { wholeNumber } from './lib/options.ts';

const WORKER = fileURLToPath(new URL('./lib/variants-work.ts', import.meta.url));
const TARGET_RATIO = 0.85;
const MB = 1e6;

const HELP = `Usage: npm run bench:variants -- [options]    (node packages/bench/src/variants.ts [options])

Generates --count distinct 6000x4000 JPEGs, then makes thumb (WebP 480x480), large (JPEG
2048x2048) and mls (JPEG 2048x1536) of every one, by the bare sharp script and by
makeVariants, alternating, and reports medians of photos/s, CPU per photo and peak RSS.

Options:
  --count N       photos (default 20)
  --rounds N      measured rounds per method (default 3)
  --threads N     sharp.concurrency for both (default 1, sharp's own default on glibc Linux)
  --parallel N    photos processed at once by both (default 1)
  --keep          keep the generated photos and outputs (printed)
  --only PART     run only 'pipeline' (makeVariants against bare sharp) or 'api' (the
                  service's API latency while it makes variants); both by default
  --api-photos N  photos uploaded to the service (default 200, 12-24 MP)
  --api-rounds N  idle/busy rounds (default 3)
  --api-seconds N length of each idle phase (default 20)
  --api-rate N    GET /v1/listings/:id/media per second in both phases (default 20)
  -h, --help      show this help

VARIANT_CONCURRENCY, VARIANT_THREADS and VARIANT_MLS_SIZE in the environment are passed to
the service of the api part; otherwise it runs with the shipped defaults.

Results: a table on stdout, and results.json + results.md in bench-results/<time>-variants/.
`;

interface Options {
  count: number;
  rounds: number;
  threads: number;
  parallel: number;
  keep: boolean;
  only: 'pipeline' | 'api' | undefined;
  apiPhotos: number;
  apiRounds: number;
  apiSeconds: number;
  apiRate: number;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      count: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      threads: { type: 'string', default: '1' },
      parallel: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      only: { type: 'string' },
      'api-photos': { type: 'string', default: '200' },
      'api-rounds': { type: 'string', default: '3' },
      'api-seconds': { type: 'string', default: '20' },
      'api-rate': { type: 'string', default: '20' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const int = wholeNumber;
  return {
    count: int(values.count, 'count', 1, 1000),
    rounds: int(values.rounds, 'rounds', 1, 50),
    threads: int(values.threads, 'threads', 1, 64),
    parallel: int(values.parallel, 'parallel', 1, 64),
    keep: values.keep,
    only: only(values.only),
    apiPhotos: int(values['api-photos'], 'api-photos', 1, 5000),
    apiRounds: int(values['api-rounds'], 'api-rounds', 1, 20),
    apiSeconds: int(values['api-seconds'], 'api-seconds', 1, 600),
    apiRate: int(values['api-rate'], 'api-rate', 1, 500),
  };
}

function only(raw: string | undefined): Options['only'] {
  if (raw === undefined || raw === 'pipeline' || raw === 'api') return raw;
  throw new Error("--only must be 'pipeline' or 'api'");
}

/** `count` distinct photo-like 24-MP JPEGs in `dir`, two at a time (about 1 s each). */
async function generatePhotos(dir: string, count: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const jpeg = await photoLikeJpeg(6000, 4000);
        await writeFile(path.join(dir, `photo-${String(i).padStart(4, '0')}.jpg`), jpeg);
        bytes += jpeg.length;
      }
    }),
  );
  return bytes;
}

/** One measurement in a fresh child process; its outputs are removed afterwards unless kept. */
async function measure(kind: WorkKind, photos: string, out: string, options: Options): Promise<WorkResult> {
  const args = [WORKER, '--child', kind, photos, out, String(options.threads), String(options.parallel)];
  const child = track(`variants ${kind}`, spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child.proc, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${kind} exited with ${String(code)}: ${stderr.trim()}`);
  if (!options.keep) await rm(out, { recursive: true, force: true });
  return JSON.parse(stdout.trim()) as WorkResult;
}

interface Summary {
  kind: WorkKind;
  photosPerSecond: number;
  cpuMsPerPhoto: number;
  peakRssMB: number;
  peakAboveStartMB: number;
  outputKBPerPhoto: number;
}

function summarize(kind: WorkKind, results: WorkResult[]): Summary {
  return {
    kind,
    photosPerSecond: median(results.map((r) => r.photos / r.seconds)),
    cpuMsPerPhoto: median(results.map((r) => (r.cpuSeconds * 1000) / r.photos)),
    peakRssMB: median(results.map((r) => r.peakRssBytes / MB)),
    peakAboveStartMB: median(results.map((r) => (r.peakRssBytes - r.startRssBytes) / MB)),
    outputKBPerPhoto: median(results.map((r) => r.outputBytes / r.photos / 1000)),
  };
}

interface PipelineResult {
  json: Record<string, unknown>;
  markdown: string[];
}

async function runPipeline(options: Options, work: string): Promise<PipelineResult> {
  const photos = path.join(work, 'photos');
  console.log(`generating ${options.count} photos of 6000x4000 in ${photos} ...`);
  const photoBytes = await generatePhotos(photos, options.count);
  console.log(`  ${fixed(photoBytes / options.count / MB, 2)} MB per photo on average`);

  const rounds: { round: number; bare: WorkResult; lightbox: WorkResult; ratio: number }[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const order: WorkKind[] = round % 2 === 1 ? [...WORK_KINDS] : [...WORK_KINDS].reverse();
    const results = new Map<WorkKind, WorkResult>();
    for (const kind of order) {
      const result = await measure(kind, photos, path.join(work, `out-${round}-${kind}`), options);
      results.set(kind, result);
      console.log(`  round ${round} ${kind.padEnd(8)} ${fixed(result.photos / result.seconds, 2)} photos/s, ${fixed((result.cpuSeconds * 1000) / result.photos, 0)} ms CPU/photo, peak RSS ${fixed(result.peakRssBytes / MB, 0)} MB`); // prettier-ignore
    }
    const bare = results.get('bare');
    const lightbox = results.get('lightbox');
    if (bare === undefined || lightbox === undefined) throw new Error('a measurement is missing');
    rounds.push({ round, bare, lightbox, ratio: lightbox.photos / lightbox.seconds / (bare.photos / bare.seconds) });
  }

  const bare = summarize('bare', rounds.map((r) => r.bare)); // prettier-ignore
  const lightbox = summarize('lightbox', rounds.map((r) => r.lightbox)); // prettier-ignore
  const summaries = [bare, lightbox];
  const ratio = median(rounds.map((r) => r.ratio));
  const cpuRatio = bare.cpuMsPerPhoto / lightbox.cpuMsPerPhoto;
  const summary = table([
    ['method', 'photos/s', 'CPU ms/photo', 'peak RSS MB', 'peak − start MB', 'output KB/photo'],
    ...summaries.map((s) => [
      s.kind === 'bare' ? 'bare sharp script (3 pipelines)' : 'makeVariants',
      fixed(s.photosPerSecond, 2),
      fixed(s.cpuMsPerPhoto, 0),
      fixed(s.peakRssMB, 0),
      fixed(s.peakAboveStartMB, 0),
      fixed(s.outputKBPerPhoto, 0),
    ]),
  ]);
  const verdict = `${ratio >= TARGET_RATIO ? 'MET    ' : 'NOT MET'}  makeVariants/bare photos/s ≥ ${TARGET_RATIO}: ${fixed(ratio, 2)}x (CPU per photo: bare/makeVariants ${fixed(cpuRatio, 2)}x)`; // prettier-ignore
  console.log(`\n${summary}\n\n${verdict}\n`);
  const photoMB = Number(fixed(photoBytes / options.count / MB, 2));
  return {
    json: { photoMB, summaries, ratio, cpuRatio, target: TARGET_RATIO, met: ratio >= TARGET_RATIO, rounds },
    markdown: [
      `${options.count} generated 6000x4000 JPEGs (${photoMB} MB each on average); thumb, large and mls of each; sharp.concurrency ${options.threads}, ${options.parallel} photo(s) at a time; ${options.rounds} rounds, alternating, medians; each measurement in its own process.`, // prettier-ignore
      '',
      summary,
      '',
      `- ${verdict}`,
      '',
    ],
  };
}

function apiMarkdown(api: ApiSummary, options: Options): string[] {
  const m = api.medians;
  const rows = table([
    ['phase', 'p50 ms', 'p99 ms', 'server RSS MB'],
    ['no variant work', fixed(m.idleP50, 1), fixed(m.idleP99, 1), `${fixed(m.idleRssMB, 0)} (median)`],
    ['variants being made', fixed(m.busyP50, 1), fixed(m.busyP99, 1), `${fixed(m.busyPeakRssMB, 0)} (peak)`],
  ]);
  const perRound = api.rounds
    .map(
      (r) =>
        `round ${r.round}: p99 ${fixed(r.idle.p99, 1)} → ${fixed(r.busy.p99, 1)} ms (${fixed(r.p99Ratio, 2)}x), ${fixed(r.busy.photosPerSecond, 2)} photos/s`,
    ) // prettier-ignore
    .join('; ');
  return [
    `The service: ${api.photos} photos of ${api.megapixels.join('/')} MP (${fixed(api.uploadMB / api.photos, 1)} MB each on average) in one gallery; GET /v1/listings/:id/media at ${options.apiRate}/s, ${options.apiSeconds} s with no variant work, then while \`lightbox media variants --all\` is worked through; ${api.rounds.length} rounds, medians.`, // prettier-ignore
    '',
    rows,
    '',
    `- p99 with variants being made / without: ${fixed(m.p99Ratio, 2)}x; server RSS at start, before any upload: ${fixed(api.startRssMB, 0)} MB`, // prettier-ignore
    `- ${fixed(m.photosPerSecond, 2)} photos/s, ${fixed(m.variantsPerSecond, 2)} variants/s (first pass, during uploads: ${fixed(api.firstPass.photosPerSecond, 2)} photos/s)`, // prettier-ignore
    `- ${perRound}`,
    '',
  ];
}

async function run(options: Options): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(ROOT, 'bench-results', `${stamp}-variants`);
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-variants-'));
  if (!options.keep) onCleanup(() => rm(work, { recursive: true, force: true }));
  const loadBefore = os.loadavg();
  const started = performance.now();

  const pipeline = options.only === 'api' ? undefined : await runPipeline(options, work);
  let api: ApiSummary | undefined;
  if (options.only !== 'pipeline') {
    const serviceDir = path.join(work, 'service');
    await mkdir(serviceDir, { recursive: true });
    api = await runApiBench({
      photos: options.apiPhotos,
      rounds: options.apiRounds,
      seconds: options.apiSeconds,
      rate: options.apiRate,
      work: serviceDir,
      log: (line) => console.log(line),
    });
    console.log(`\n${apiMarkdown(api, options).join('\n')}`);
  }

  const environment = {
    ...machine(loadBefore),
    minutes: Number(fixed((performance.now() - started) / 60_000, 1)),
  };
  const date = new Date().toISOString();
  const result = { benchmark: 'variants', date, options, environment, ...pipeline?.json, api };
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  const markdown = [
    '# Lightbox photo variants benchmark',
    '',
    `${date} · Node ${environment.node} · ${environment.cpus} · load ${environment.loadAverageBefore.join(' ')} → ${environment.loadAverageAfter.join(' ')} · commit ${environment.commit} · ${environment.minutes} min`, // prettier-ignore
    '',
    ...(pipeline?.markdown ?? []),
    ...(api === undefined ? [] : apiMarkdown(api, options)),
  ];
  await writeFile(path.join(outDir, 'results.md'), markdown.join('\n'));
  if (options.keep) console.log(`kept: ${work}`);
  console.log(`wrote ${path.relative(ROOT, outDir)}/results.json and results.md (${environment.minutes} min)`);
}

await runBench('bench:variants', HELP, parseOptions, run);
