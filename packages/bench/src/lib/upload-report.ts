// What `npm run bench:upload` prints and writes to bench-results/: the summary (one column per
// measured path), the verdicts against the issue's targets (lightbox's multipart upload against
// the bare baseline, on local disk), every round, the method, and the CPU profiles' top functions.
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './procs.ts';
import { profileTop, type ProfileLine } from './profile.ts';
import { fixed, gitCommit, table } from './report.ts';
import { pairedRatios, summarize, type Round, type Summary } from './upload-measure.ts';
import { MB, type Options } from './upload-options.ts';
import type { UploadPath } from './upload-paths.ts';

export const RESULTS_DIR = path.join(ROOT, 'bench-results');
const TARGET_RATIO = 0.7;
const TARGET_RSS_MB = 80;

export interface UploadRun {
  options: Options;
  /** The measured paths; the first ('bare') is the baseline, 'lightbox' the one with targets. */
  paths: UploadPath[];
  rounds: Round[];
  /** Each path's idle RSS after the warm-up, by side. */
  baseIdle: Record<string, number>;
  stamp: string;
  loadBefore: number[];
  profileDir: string | undefined;
  /** lightbox's log, and the bare server's (kept when --node-flags may have made it say something). */
  logFile: string;
  logLines: number;
  bareLog: string;
}

function roundsTable(rounds: Round[]): string[][] {
  return [
    [
      'round',
      'server',
      'MB/s',
      'seconds',
      'send s',
      'idle MB',
      'peak MB',
      'peak−idle MB',
      'HWM MB',
      'CPU s',
      'main s',
      'uv s',
      'v8 s',
      'sys s',
      'client CPU s',
      'samples',
      'max gap ms',
    ],
    ...rounds.map((r) => [
      String(r.round),
      r.side,
      fixed(r.mbPerSecond),
      fixed(r.seconds, 2),
      fixed(r.sendSeconds, 2),
      fixed(r.idleRssBytes / MB),
      fixed(r.peakRssBytes / MB),
      fixed((r.peakRssBytes - r.idleRssBytes) / MB),
      fixed(r.hwmBytes / MB) + (r.hwmReset ? '' : '*'),
      fixed(r.serverCpu.total, 2),
      fixed(r.serverCpu.main, 2),
      fixed(r.serverCpu.libuv, 2),
      fixed(r.serverCpu.v8, 2),
      fixed(r.serverCpu.sys, 2),
      fixed(r.clientCpuSeconds, 2),
      String(r.samples),
      fixed(r.maxSampleGapMs, 0),
    ]),
  ];
}

function summaryTable(options: Options, paths: UploadPath[], summaries: Summary[]): string[][] {
  const [baseline] = summaries;
  const row = (label: string, pick: (summary: Summary) => number, digits = 1): string[] => [
    label,
    ...summaries.map((summary) => fixed(pick(summary), digits)),
  ];
  return [
    [`median of ${options.rounds} rounds`, ...paths.map((p) => p.label)],
    row('throughput, MB/s (1 MB = 1e6 B)', (x) => x.mbPerSecond),
    row('wall time, s', (x) => x.seconds, 2),
    [
      'ratio lightbox / bare',
      ...summaries.map((x) => (x === baseline ? '1.00' : fixed(x.mbPerSecond / (baseline?.mbPerSecond ?? NaN), 2))),
    ],
    row('idle RSS after warm-up, MB', (x) => x.baseIdleRssMB),
    row('peak RSS during upload, MB', (x) => x.peakRssMB),
    row('peak RSS − idle RSS after warm-up, MB', (x) => x.peakAboveBaseIdleMB),
    row('  worst round, MB', (x) => x.maxPeakAboveBaseIdleMB),
    row('idle RSS just before each upload, MB', (x) => x.idleRssMB),
    row('peak RSS − idle RSS just before, MB', (x) => x.peakAboveIdleMB),
    row('VmHWM − idle RSS just before, MB', (x) => x.hwmAboveIdleMB),
    row('server CPU, % of one core', (x) => x.serverCpuPercent, 0),
    row('  JS main thread, %', (x) => x.mainThreadPercent, 0),
    row('  libuv pool (fs), %', (x) => x.libuvPercent, 0),
    row('  V8 helpers (GC…), %', (x) => x.v8HelpersPercent, 0),
    row('  of which kernel (sys), %', (x) => x.sysPercent, 0),
    row('server CPU s per GB', (x) => x.cpuSecondsPerGB, 2),
    ...(options.storage === 's3' ? [row('s3rver CPU, % of one core', (x) => x.s3rverCpuPercent, 0)] : []),
  ];
}

function methodNotes(options: Options, logLines: number): string[] {
  return [
    'MB = 1e6 bytes. Throughput = Content-Length (multipart body) / wall time from the first body byte written to the response fully read; one connection per upload, keep-alive off.',
    `RSS sampled from /proc/<pid>/status every ${options.sampleMs} ms; idle RSS = median of 10 samples over 0.5 s, once after the warm-up (the figure the memory target uses: memory kept after an upload counts against it) and again just before each upload; VmHWM reset before each upload via /proc/<pid>/clear_refs (* = reset refused: lifetime peak).`,
    `The bare baseline is a node:http child process piping the raw body (multipart framing included) to a file with flush (fsync) while hashing; lightbox local storage also fsyncs before answering.`,
    `${options.warmup === 0 ? 'No warm-up.' : `One unmeasured ${fixed(options.warmup / MB)} MB warm-up upload per server first.`} Rounds alternate which server goes first. Stored files are deleted after each round (untimed).`,
    'Server CPU from /proc/<pid>/task/*/stat over the upload, by thread: MainThread (JS), libuv-worker (fs writes), V8Worker (GC, compiler); sys = kernel time of all threads.',
    `lightbox ran with LOG_LEVEL=info, logging to a file (${logLines} lines).`,
  ];
}

/** Prints the results and writes them as JSON and markdown (with lightbox's log) to bench-results/. */
export async function report(run: UploadRun): Promise<void> {
  const { options, paths, rounds, profileDir } = run;
  const summaries = paths.map((p) =>
    summarize(
      rounds.filter((r) => r.side === p.side),
      run.baseIdle[p.side] ?? NaN,
    ),
  );
  const bySide = Object.fromEntries(paths.map((p, i) => [p.side, summaries[i] as Summary]));
  const bareSummary = bySide.bare as Summary;
  const lightboxSummary = bySide.lightbox as Summary;
  const ratio = lightboxSummary.mbPerSecond / bareSummary.mbPerSecond;
  const throughputMet = ratio >= TARGET_RATIO;
  const memoryMet = lightboxSummary.peakAboveBaseIdleMB <= TARGET_RSS_MB;
  const summaryRows = summaryTable(options, paths, summaries);
  const roundRows = roundsTable(rounds);
  const scope = options.storage === 'local' ? '' : ' (the targets are for local disk; shown for information)';
  const verdicts = [
    `throughput: lightbox/bare = ${fixed(ratio, 2)} (target ≥ ${TARGET_RATIO}): ${throughputMet ? 'MET' : 'NOT MET'}${scope}`,
    `memory: lightbox peak RSS − idle RSS after warm-up = ${fixed(lightboxSummary.peakAboveBaseIdleMB)} MB median, ` +
      `${fixed(lightboxSummary.maxPeakAboveBaseIdleMB)} MB worst (target ≤ ${TARGET_RSS_MB} MB): ${memoryMet ? 'MET' : 'NOT MET'}${scope}`,
    ...tusVerdict(bySide.tus, bareSummary, scope),
  ];

  let profiles: Record<string, ProfileLine[]> | undefined;
  if (profileDir !== undefined) {
    profiles = {};
    for (const file of (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'))) {
      profiles[file] = (await profileTop(path.join(profileDir, file), ROOT, 15)).functions;
    }
  }

  const loadAfter = os.loadavg();
  const commit = gitCommit();
  const environment = {
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGB: Number(fixed(os.totalmem() / 1e9)),
    loadAverageBefore: run.loadBefore.map((l) => Number(fixed(l, 2))),
    loadAverageAfter: loadAfter.map((l) => Number(fixed(l, 2))),
    commit,
  };
  const notes = methodNotes(options, run.logLines);

  const output = [
    '',
    table(summaryRows),
    '',
    ...verdicts,
    '',
    table(roundRows),
    '',
    ...(profiles === undefined
      ? []
      : Object.entries(profiles).flatMap(([file, top]) => [
          `CPU profile ${file} (whole process life), top self time:`,
          ...top.map((p) => `  ${fixed(p.percent).padStart(5)}%  ${fixed(p.selfMs, 0).padStart(7)} ms  ${p.fn}`),
          '',
        ])),
  ];
  console.log(output.join('\n'));

  const base = path.join(RESULTS_DIR, `upload-${options.storage}-${run.stamp}`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const result = {
    benchmark: 'upload',
    date: new Date().toISOString(),
    options: { ...options, timeoutMs: undefined, timeoutSeconds: options.timeoutMs / 1000 },
    environment,
    summary: {
      ...bySide,
      ratio,
      pairedRatios: pairedRatios(rounds, options.rounds, 'lightbox', 'bare'),
      targets: {
        appliesTo: 'local',
        throughputRatio: { target: TARGET_RATIO, value: ratio, met: throughputMet },
        peakAboveIdleMB: { target: TARGET_RSS_MB, value: lightboxSummary.peakAboveBaseIdleMB, met: memoryMet },
      },
    },
    rounds,
    notes,
    ...(profiles === undefined ? {} : { profiles, profileDir: path.relative(ROOT, profileDir ?? '') }),
  };
  await writeFile(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  const markdown = [
    `# Upload benchmark: ${options.storage} storage, ${fixed(options.size / MB)} MB × ${options.rounds} rounds`,
    '',
    `${result.date} · Node ${environment.node} · ${environment.cpus} · load ${environment.loadAverageBefore.join(' ')} → ${environment.loadAverageAfter.join(' ')} · commit ${commit}`,
    '',
    table(summaryRows),
    '',
    ...verdicts.map((v) => `- ${v}`),
    '',
    '## Rounds',
    '',
    table(roundRows),
    '',
    '## Method',
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ];
  await writeFile(`${base}.md`, markdown.join('\n'));
  await copyFile(run.logFile, `${base}.lightbox.log`);
  if (options.nodeFlags.length > 0) await copyFile(run.bareLog, `${base}.bare.log`);
  console.log(
    `wrote ${path.relative(ROOT, base)}.json, .md and .lightbox.log${profileDir === undefined ? '' : ` (profiles in ${path.relative(ROOT, profileDir)})`}`,
  );
}

/** The tus path's line, against the same targets as the multipart upload (issue 15). */
function tusVerdict(tus: Summary | undefined, bare: Summary, scope: string): string[] {
  if (tus === undefined) return [];
  const ratio = tus.mbPerSecond / bare.mbPerSecond;
  return [
    `tus (8 MiB PATCHes): ${fixed(tus.mbPerSecond)} MB/s, tus/bare = ${fixed(ratio, 2)} (target ≥ ${TARGET_RATIO}): ` +
      `${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}; peak RSS − idle RSS after warm-up ${fixed(tus.peakAboveBaseIdleMB)} MB ` +
      `median, ${fixed(tus.maxPeakAboveBaseIdleMB)} MB worst (target ≤ ${TARGET_RSS_MB} MB): ` +
      `${tus.maxPeakAboveBaseIdleMB <= TARGET_RSS_MB ? 'MET' : 'NOT MET'}${scope}`,
  ];
}
