// One measured upload of `npm run bench:upload` (wall time, the server's RSS and CPU by thread
// from /proc), and the medians over rounds each path is reported with.
import { cpuBetween, idleRss, procMemory, procThreads, resetHwm, RssSampler, type CpuTimes } from './proc-stats.ts';
import { fixed, median } from './report.ts';
import type { Body, Digests } from './upload-body.ts';
import { MB } from './upload-options.ts';
import type { UploadPath, UploadTiming } from './upload-paths.ts';

export interface Round {
  side: string;
  round: number;
  bodyBytes: number;
  seconds: number;
  sendSeconds: number;
  mbPerSecond: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** VmHWM after the upload; reset to the current RSS before it when hwmReset. */
  hwmBytes: number;
  hwmReset: boolean;
  samples: number;
  maxSampleGapMs: number;
  /** Server CPU seconds by thread kind and user/system. */
  serverCpu: CpuTimes;
  clientCpuSeconds: number;
  /** CPU seconds of s3rver during the upload (--storage s3, lightbox rounds). */
  s3rverCpuSeconds?: number;
}

export async function measure(
  target: UploadPath,
  round: number,
  body: Body,
  digests: Digests,
  sampleMs: number,
): Promise<Round> {
  const idle = await idleRss(target.pid);
  const hwmReset = resetHwm(target.pid);
  const sampler = new RssSampler(target.pid, sampleMs);
  const cpuBefore = procThreads(target.pid);
  const helperBefore = target.helperPid === undefined ? undefined : procThreads(target.helperPid);
  sampler.start();
  let timing: UploadTiming;
  try {
    timing = await target.send(body);
  } finally {
    sampler.stop();
  }
  const serverCpu = cpuBetween(cpuBefore, procThreads(target.pid));
  const helperCpu =
    target.helperPid === undefined || helperBefore === undefined
      ? undefined
      : cpuBetween(helperBefore, procThreads(target.helperPid)).total;
  const hwm = procMemory(target.pid)?.hwm ?? NaN;
  await target.verify(timing, body, digests);
  return {
    side: target.side,
    round,
    bodyBytes: body.length,
    seconds: timing.seconds,
    sendSeconds: timing.sendSeconds,
    mbPerSecond: body.length / timing.seconds / MB,
    idleRssBytes: idle,
    peakRssBytes: sampler.peak,
    hwmBytes: hwm,
    hwmReset,
    samples: sampler.samples,
    maxSampleGapMs: sampler.maxGapMs,
    serverCpu,
    clientCpuSeconds: timing.clientCpuSeconds,
    ...(helperCpu === undefined ? {} : { s3rverCpuSeconds: helperCpu }),
  };
}

export interface Summary {
  rounds: number;
  mbPerSecond: number;
  seconds: number;
  /** Idle RSS after the warm-up, before the first measured upload: the server's resting size. */
  baseIdleRssMB: number;
  /** Idle RSS just before each upload (it can creep up as the server keeps memory from earlier rounds). */
  idleRssMB: number;
  peakRssMB: number;
  /** Peak RSS during an upload above the resting size (the target's figure). */
  peakAboveBaseIdleMB: number;
  maxPeakAboveBaseIdleMB: number;
  /** Peak RSS during an upload above the idle RSS just before it. */
  peakAboveIdleMB: number;
  hwmAboveIdleMB: number;
  serverCpuPercent: number;
  mainThreadPercent: number;
  libuvPercent: number;
  v8HelpersPercent: number;
  sysPercent: number;
  /** Server CPU seconds (all threads) per GB of body. */
  cpuSecondsPerGB: number;
  /** s3rver's CPU during lightbox uploads (--storage s3), % of one core. */
  s3rverCpuPercent: number;
}

export function summarize(rounds: Round[], baseIdleRss: number): Summary {
  const mb = (bytes: number): number => bytes / MB;
  const percent = (pick: (r: Round) => number): number => median(rounds.map((r) => (100 * pick(r)) / r.seconds));
  return {
    rounds: rounds.length,
    mbPerSecond: median(rounds.map((r) => r.mbPerSecond)),
    seconds: median(rounds.map((r) => r.seconds)),
    baseIdleRssMB: mb(baseIdleRss),
    idleRssMB: median(rounds.map((r) => mb(r.idleRssBytes))),
    peakRssMB: median(rounds.map((r) => mb(r.peakRssBytes))),
    peakAboveBaseIdleMB: median(rounds.map((r) => mb(r.peakRssBytes - baseIdleRss))),
    maxPeakAboveBaseIdleMB: Math.max(...rounds.map((r) => mb(r.peakRssBytes - baseIdleRss))),
    peakAboveIdleMB: median(rounds.map((r) => mb(r.peakRssBytes - r.idleRssBytes))),
    hwmAboveIdleMB: median(rounds.map((r) => mb(r.hwmBytes - r.idleRssBytes))),
    serverCpuPercent: percent((r) => r.serverCpu.total),
    mainThreadPercent: percent((r) => r.serverCpu.main),
    libuvPercent: percent((r) => r.serverCpu.libuv),
    v8HelpersPercent: percent((r) => r.serverCpu.v8),
    sysPercent: percent((r) => r.serverCpu.sys),
    cpuSecondsPerGB: median(rounds.map((r) => r.serverCpu.total / (r.bodyBytes / 1e9))),
    s3rverCpuPercent: median(rounds.map((r) => (100 * (r.s3rverCpuSeconds ?? NaN)) / r.seconds)),
  };
}

/** `side`'s MB/s over `baseline`'s in each round (NaN where either is missing). */
export function pairedRatios(rounds: Round[], count: number, side: string, baseline: string): number[] {
  return Array.from({ length: count }, (_, i) => {
    const l = rounds.find((r) => r.side === side && r.round === i + 1);
    const b = rounds.find((r) => r.side === baseline && r.round === i + 1);
    return l === undefined || b === undefined ? NaN : l.mbPerSecond / b.mbPerSecond;
  });
}

/** The line printed after each measured upload. */
export function roundLine(result: Round): string {
  return (
    `round ${result.round} ${result.side.padEnd(8)} ${fixed(result.mbPerSecond).padStart(7)} MB/s  ${fixed(result.seconds, 2)} s  ` +
    `idle ${fixed(result.idleRssBytes / MB)} MB  peak ${fixed(result.peakRssBytes / MB)} MB ` +
    `(+${fixed((result.peakRssBytes - result.idleRssBytes) / MB)})  HWM ${fixed(result.hwmBytes / MB)} MB  ` +
    `server CPU ${fixed((100 * result.serverCpu.total) / result.seconds, 0)}% (main ${fixed((100 * result.serverCpu.main) / result.seconds, 0)}%)` +
    (result.s3rverCpuSeconds === undefined
      ? ''
      : `  s3rver CPU ${fixed((100 * result.s3rverCpuSeconds) / result.seconds, 0)}%`) +
    '  sha256 ok'
  );
}
