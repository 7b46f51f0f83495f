// What a benchmark reads about a server process from Linux's /proc: resident memory (VmRSS,
// VmHWM and its reset), CPU seconds per thread kind, and the processes this one started.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './report.ts';

interface ProcMemory {
  /** Bytes. */
  rss: number;
  hwm: number;
}

export function procMemory(pid: number): ProcMemory | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** CPU seconds of a process by thread kind: the JS thread, libuv's pool (fs), V8's helpers (GC, compiler). */
export interface CpuTimes {
  total: number;
  user: number;
  sys: number;
  main: number;
  libuv: number;
  v8: number;
  other: number;
}

type Threads = Map<string, { kind: keyof CpuTimes; user: number; sys: number }>;

/** Per-thread user and system CPU seconds (USER_HZ is 100 on Linux), keyed by thread id. */
export function procThreads(pid: number): Threads {
  const threads: Threads = new Map();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const kind =
        comm === 'MainThread' ? 'main' : comm === 'libuv-worker' ? 'libuv' : comm === 'V8Worker' ? 'v8' : 'other';
      threads.set(tid, { kind, user: Number(fields[11]) / 100, sys: Number(fields[12]) / 100 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

export function cpuBetween(before: Threads, after: Threads): CpuTimes {
  const times: CpuTimes = { total: 0, user: 0, sys: 0, main: 0, libuv: 0, v8: 0, other: 0 };
  for (const [tid, thread] of after) {
    const user = thread.user - (before.get(tid)?.user ?? 0);
    const sys = thread.sys - (before.get(tid)?.sys ?? 0);
    times.user += user;
    times.sys += sys;
    times.total += user + sys;
    times[thread.kind] += user + sys;
  }
  return times;
}

/** Resets VmHWM to the current RSS (Linux 4.0+, own processes). */
export function resetHwm(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** This process's children (from /proc/<pid>/stat's ppid field). */
export function childPids(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** This process's descendants (children, theirs, ...), from /proc. */
export function descendantPids(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
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

/** The high-water mark of resident memory (VmHWM) of a process, in bytes, or 0 once it is gone. */
export function hwmBytes(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

export function procCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The median of `count` VmRSS samples `everyMs` apart: the server's idle RSS. */
export async function idleRss(pid: number, count = 10, everyMs = 50): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const memory = procMemory(pid);
    if (memory !== undefined) samples.push(memory.rss);
    await sleep(everyMs);
  }
  return median(samples);
}

/** The peak VmRSS of a process, sampled every `everyMs` between start() and stop(). */
export class RssSampler {
  peak = 0;
  samples = 0;
  maxGapMs = 0;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #pid: number;
  readonly #everyMs: number;

  constructor(pid: number, everyMs: number) {
    this.#pid = pid;
    this.#everyMs = everyMs;
  }

  start(): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), this.#everyMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#sample();
  }

  #sample(): void {
    const now = performance.now();
    if (this.#last !== 0) this.maxGapMs = Math.max(this.maxGapMs, now - this.#last);
    this.#last = now;
    const memory = procMemory(this.#pid);
    if (memory === undefined) return;
    this.samples++;
    this.peak = Math.max(this.peak, memory.rss);
  }
}
