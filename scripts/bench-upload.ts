// `npm run bench:upload`: upload throughput and server memory of POST /v1/listings/:id/media,
// against a bare node:http handler that only streams the request body to a file with SHA-256.
//
// Both servers run as child processes on 127.0.0.1 and are measured the same way: wall time
// from the first body byte sent to the response received (MB/s, decimal: 1 MB = 1e6 bytes), and
// VmRSS sampled from /proc/<pid>/status during the upload (plus VmHWM, reset before each upload
// through /proc/<pid>/clear_refs where the kernel allows it). The body is generated on the fly
// from two preallocated chunks (never materialised), sent with a fixed Content-Length, and its
// SHA-256 is computed beforehand from the same generator and compared with the server's answer.
//
//   node scripts/bench-upload.ts [--size 1GiB] [--rounds 3] [--storage local|s3] [--profile] ...
//   node scripts/bench-upload.ts --help
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BIN, HOST, ROOT, cleanup, freePort, onCleanup, tail, track, waitForReady, type Child } from './bench/procs.ts';
import { tusUpload } from './bench/upload-tus.ts';

const SELF = fileURLToPath(import.meta.url);
const RESULTS_DIR = path.join(ROOT, 'bench-results');
const S3_SERVER = path.join(ROOT, 'test', 'support', 's3-server.ts');
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
/** Throughput and memory are reported in decimal megabytes. */
const MB = 1e6;
const TARGET_RATIO = 0.7;
const TARGET_RSS_MB = 80;
const EMAIL = 'bench@lightbox.invalid';

const HELP = `Usage: node scripts/bench-upload.ts [options]    (npm run bench:upload -- [options])

Uploads one generated MP4 of --size bytes per round to a real \`lightbox serve\`
(POST /v1/listings/:id/media) and to a bare node:http handler that streams the body to
a file with SHA-256, interleaved, and reports medians: MB/s (1 MB = 1e6 bytes), the
lightbox/bare throughput ratio, and each server's peak RSS above its idle RSS.

Options:
  --size SIZE        file bytes per upload; suffixes K/M/G or KiB/MiB/GiB (binary),
                     KB/MB/GB (decimal). Default 1GiB
  --rounds N         measured rounds per server (default 3)
  --storage KIND     local (default) or s3 (lightbox against s3rver from
                     test/support/s3-server.ts; the bare baseline stays on disk)
  --chunk SIZE       client write size (default 1MiB)
  --warmup SIZE      one unmeasured upload per server first (default 16MiB; 0: none)
  --sample-ms N      RSS sampling period (default 25)
  --timeout SECONDS  abort everything after this long (default 600)
  --profile          run both servers with --cpu-prof; profiles and a summary of the
                     top self-time functions go to bench-results/
  --node-flags S     extra node command-line flags for both servers, space-separated
                     (e.g. "--trace-gc" or "--max-semi-space-size=32")
  -h, --help         show this help

Results: a table on stdout, and JSON + markdown in bench-results/.
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  size: number;
  rounds: number;
  storage: 'local' | 's3';
  chunkSize: number;
  warmup: number;
  sampleMs: number;
  timeoutMs: number;
  profile: boolean;
  nodeFlags: string[];
}

class UsageError extends Error {}

function parseSize(raw: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(i?b?)$/i.exec(raw.trim());
  if (match === null) throw new UsageError(`--${name}: cannot read ${JSON.stringify(raw)} as a size`);
  const [, number = '', prefix = '', suffix = ''] = match;
  const power = { '': 0, k: 1, m: 2, g: 3 }[prefix.toLowerCase() as '' | 'k' | 'm' | 'g'];
  // "MB" is decimal; "M" and "MiB" are binary.
  const base = suffix.toLowerCase() === 'b' && prefix !== '' ? 1000 : 1024;
  const bytes = Math.round(Number(number) * base ** power);
  if (!Number.isSafeInteger(bytes)) throw new UsageError(`--${name}: ${raw} is out of range`);
  return bytes;
}

function parseIntOption(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      size: { type: 'string', default: '1GiB' },
      rounds: { type: 'string', default: '3' },
      storage: { type: 'string', default: 'local' },
      chunk: { type: 'string', default: '1MiB' },
      warmup: { type: 'string', default: '16MiB' },
      'sample-ms': { type: 'string', default: '25' },
      timeout: { type: 'string', default: '600' },
      profile: { type: 'boolean', default: false },
      'node-flags': { type: 'string', default: '' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const storage = values.storage;
  if (storage !== 'local' && storage !== 's3') throw new UsageError('--storage must be local or s3');
  const options: Options = {
    size: parseSize(values.size, 'size'),
    rounds: parseIntOption(values.rounds, 'rounds', 1, 100),
    storage,
    chunkSize: parseSize(values.chunk, 'chunk'),
    warmup: parseSize(values.warmup, 'warmup'),
    sampleMs: parseIntOption(values['sample-ms'], 'sample-ms', 5, 1000),
    timeoutMs: parseIntOption(values.timeout, 'timeout', 10, 24 * 3600) * 1000,
    profile: values.profile,
    nodeFlags: values['node-flags'].split(/\s+/).filter((flag) => flag !== ''),
  };
  if (options.size < 64 * KiB) throw new UsageError('--size must be at least 64KiB');
  if (options.chunkSize < 4 * KiB || options.chunkSize > 64 * MiB) {
    throw new UsageError('--chunk must be from 4KiB to 64MiB');
  }
  if (options.warmup !== 0 && options.warmup < 64 * KiB) throw new UsageError('--warmup must be 0 or at least 64KiB');
  return options;
}

// ---------------------------------------------------------------------------------------------
// The upload body: multipart/form-data around an MP4 of `size` bytes, generated on the fly.

interface Filler {
  /** The first chunk of the file: the MP4 header over the filler. */
  first: Buffer;
  /** Every later chunk (the last one is a prefix of it). */
  rest: Buffer;
}

interface Body {
  boundary: string;
  preamble: Buffer;
  epilogue: Buffer;
  fileSize: number;
  /** Content-Length. */
  length: number;
  filler: Filler;
}

/** Deterministic, incompressible-looking bytes (xorshift32), so that every run sends the same file. */
function makeFiller(chunkSize: number): Buffer {
  const buffer = Buffer.allocUnsafe(chunkSize);
  let x = 0x9e3779b9;
  for (let i = 0; i < chunkSize; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer[i] = x & 0xff;
  }
  return buffer;
}

/**
 * An `ftyp` box (major brand isom: file-type calls it video/mp4) and an `mdat` box with a 64-bit
 * size holding the rest of the file, so the whole file is a well-formed box sequence.
 */
function mp4Header(fileSize: number): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 24]),
    Buffer.from('ftypisom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isommp41', 'latin1'),
  ]);
  const mdat = Buffer.alloc(16);
  mdat.writeUInt32BE(1, 0);
  mdat.write('mdat', 4, 'latin1');
  mdat.writeBigUInt64BE(BigInt(fileSize - ftyp.length), 8);
  return Buffer.concat([ftyp, mdat]);
}

function makeBody(fileSize: number, fillerBytes: Buffer, boundary: string): Body {
  const first = Buffer.from(fillerBytes);
  mp4Header(fileSize).copy(first, 0);
  const preamble = Buffer.from(
    `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="files"; filename="bench.mp4"\r\n' +
      'Content-Type: video/mp4\r\n\r\n',
    'latin1',
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  // The delimiter must never occur inside the file, nor across two chunks of it.
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  for (const joined of [Buffer.concat([first, fillerBytes]), Buffer.concat([fillerBytes, fillerBytes])]) {
    if (joined.includes(delimiter)) throw new Error('the filler contains the multipart boundary; run again');
  }
  return {
    boundary,
    preamble,
    epilogue,
    fileSize,
    length: preamble.length + fileSize + epilogue.length,
    filler: { first, rest: fillerBytes },
  };
}

function* fileChunks(body: Body): Generator<Buffer> {
  let offset = 0;
  let source = body.filler.first;
  while (offset < body.fileSize) {
    const n = Math.min(source.length, body.fileSize - offset);
    yield n === source.length ? source : source.subarray(0, n);
    offset += n;
    source = body.filler.rest;
  }
}

function* bodyChunks(body: Body): Generator<Buffer> {
  yield body.preamble;
  yield* fileChunks(body);
  yield body.epilogue;
}

/** SHA-256 of the file (what lightbox stores) and of the whole body (what the bare handler stores). */
function expectedDigests(body: Body): { file: string; body: string } {
  const file = createHash('sha256');
  const whole = createHash('sha256');
  whole.update(body.preamble);
  for (const chunk of fileChunks(body)) {
    file.update(chunk);
    whole.update(chunk);
  }
  whole.update(body.epilogue);
  return { file: file.digest('hex'), body: whole.digest('hex') };
}

// ---------------------------------------------------------------------------------------------
// /proc

interface ProcMemory {
  /** Bytes. */
  rss: number;
  hwm: number;
}

function procMemory(pid: number): ProcMemory | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * KiB;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** CPU seconds of a process by thread kind: the JS thread, libuv's pool (fs), V8's helpers (GC, compiler). */
interface CpuTimes {
  total: number;
  user: number;
  sys: number;
  main: number;
  libuv: number;
  v8: number;
  other: number;
}

/** Per-thread user and system CPU seconds (USER_HZ is 100 on Linux), keyed by thread id. */
function procThreads(pid: number): Map<string, { kind: keyof CpuTimes; user: number; sys: number }> {
  const threads = new Map<string, { kind: keyof CpuTimes; user: number; sys: number }>();
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

function cpuBetween(before: ReturnType<typeof procThreads>, after: ReturnType<typeof procThreads>): CpuTimes {
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
function resetHwm(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** This process's children (from /proc/<pid>/stat's ppid field). */
function childPids(): number[] {
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

function procCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The median of `count` VmRSS samples `everyMs` apart: the server's idle RSS. */
async function idleRss(pid: number, count = 10, everyMs = 50): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const memory = procMemory(pid);
    if (memory !== undefined) samples.push(memory.rss);
    await sleep(everyMs);
  }
  return median(samples);
}

class RssSampler {
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

// ---------------------------------------------------------------------------------------------
// HTTP client

interface Reply {
  status: number;
  text: string;
}

/** A small JSON request on its own connection. */
async function call(port: number, method: string, pathname: string, key?: string, json?: unknown): Promise<Reply> {
  const payload = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
  const headers: http.OutgoingHttpHeaders = { connection: 'close' };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  return new Promise<Reply>((resolve, reject) => {
    const req = http.request({ host: HOST, port, method, path: pathname, agent: false, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${pathname}: no answer within 30 s`)));
    req.end(payload);
  });
}

interface UploadTiming extends Reply {
  /** First body byte written to the response fully received. */
  seconds: number;
  /** First body byte written to the last one handed to the kernel. */
  sendSeconds: number;
  clientCpuSeconds: number;
}

async function upload(
  port: number,
  pathname: string,
  headers: http.OutgoingHttpHeaders,
  body: Body,
): Promise<UploadTiming> {
  const req = http.request({
    host: HOST,
    port,
    method: 'POST',
    path: pathname,
    agent: false,
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${body.boundary}`,
      'content-length': body.length,
      connection: 'close',
    },
  });
  let failure: Error | undefined;
  let answered = false;
  const responded = new Promise<Reply & { at: number }>((resolve, reject) => {
    req.once('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8'), at: performance.now() }),
      );
      res.once('error', reject);
    });
    req.on('error', (err) => {
      failure ??= err;
      reject(err);
    });
  });
  // Observed below; an early error must not count as unhandled while the body is being written.
  responded.catch(() => undefined);

  const [socket] = (await once(req, 'socket')) as [net.Socket];
  if (socket.connecting) await once(socket, 'connect');
  const cpu = process.cpuUsage();
  const start = performance.now();
  let sentAt = NaN;
  for (const chunk of bodyChunks(body)) {
    // A server that answers early (a refusal) stops reading: stop writing and report its answer.
    if (answered || failure !== undefined) break;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), responded]).catch(() => undefined);
  }
  if (!answered && failure === undefined) {
    req.end();
    await Promise.race([once(req, 'finish'), responded]).catch(() => undefined);
    sentAt = performance.now();
  }
  const reply = await responded;
  const used = process.cpuUsage(cpu);
  return {
    status: reply.status,
    text: reply.text,
    seconds: (reply.at - start) / 1000,
    sendSeconds: (sentAt - start) / 1000,
    clientCpuSeconds: (used.user + used.system) / 1e6,
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes, temporary folders, and cleaning up whatever happens

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a lightbox CLI command to the end; returns its stdout. */
async function lightboxCli(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<string> {
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  proc.stdin.end(input);
  const [code] = (await once(proc, 'close')) as [number | null];
  if (code !== 0) throw new Error(`lightbox ${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  return stdout;
}

// ---------------------------------------------------------------------------------------------
// The bare baseline: `node scripts/bench-upload.ts --bare-server DIR` (a child of the benchmark)

async function bareServer(dir: string): Promise<void> {
  let count = 0;
  const server = http.createServer((req, res) => {
    const answer = (status: number, json?: unknown): void => {
      const text = json === undefined ? '' : JSON.stringify(json);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const name = (req.url ?? '/').slice(1);
    if (req.method === 'DELETE' && /^upload-\d+$/.test(name)) {
      rm(path.join(dir, name), { force: true }).then(
        () => answer(204),
        (err: unknown) => answer(500, { error: String(err) }),
      );
      return;
    }
    if (req.method !== 'POST') {
      answer(405);
      return;
    }
    const file = `upload-${++count}`;
    const hash = createHash('sha256');
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
    });
    // Durable before answering, like the local storage (flush: fsync before close).
    pipeline(req, createWriteStream(path.join(dir, file), { flush: true })).then(
      () => answer(201, { file, size, sha256: hash.digest('hex') }),
      (err: unknown) => answer(500, { error: String(err) }),
    );
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as net.AddressInfo).port })}\n`);
  // Never outlive the benchmark: its end of our stdin closes when it goes.
  process.stdin.resume();
  process.stdin.once('close', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
  process.once('SIGTERM', () => process.exit(0));
}

async function startBare(dir: string, flags: string[], log: string): Promise<{ child: Child; port: number }> {
  const proc = spawn(process.execPath, [...flags, SELF, '--bare-server', dir], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const child = track('bare server', proc);
  // It announces its port as a JSON line; anything else it prints (--trace-gc, say) is kept in `log`.
  const output = createWriteStream(log);
  void child.exited.then(() => output.end());
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const port = await Promise.race([
    new Promise<number>((resolve) => {
      lines.on('line', (text) => {
        const announced = /^\{"port":(\d+)\}$/.exec(text)?.[1];
        if (announced === undefined) output.write(`${text}\n`);
        else resolve(Number(announced));
      });
    }),
    child.exited.then(() => {
      throw new Error('the bare server exited before listening');
    }),
    sleep(15_000, undefined, { ref: false }).then(() => {
      throw new Error('the bare server did not start within 15 s');
    }),
  ]);
  return { child, port };
}

// ---------------------------------------------------------------------------------------------
// Measuring

// tus: the same file through resumable uploads (section 16) in 8 MiB PATCHes (scripts/bench/upload-tus.ts).
type Side = 'bare' | 'lightbox' | 'tus';

interface Round {
  side: Side;
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

interface Target {
  name: string;
  pid: number;
  /** Another process doing this upload's work (s3rver), whose CPU is reported too. */
  helperPid?: number;
  send(body: Body): Promise<UploadTiming>;
  /** Checks the answer against what was sent and removes what was stored (not timed). */
  verify(timing: UploadTiming, body: Body, digests: { file: string; body: string }): Promise<void>;
}

async function measure(
  target: Target,
  side: Side,
  round: number,
  body: Body,
  digests: { file: string; body: string },
  options: Options,
): Promise<Round> {
  const idle = await idleRss(target.pid);
  const hwmReset = resetHwm(target.pid);
  const sampler = new RssSampler(target.pid, options.sampleMs);
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
    side,
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

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

interface Summary {
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

function summarize(rounds: Round[], baseIdleRss: number): Summary {
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

// ---------------------------------------------------------------------------------------------
// Reporting

const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  const line = (row: string[]): string => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [head, ...rest] = rows;
  return [line(head ?? []), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rest.map(line)].join('\n');
}

interface ProfileLine {
  selfMs: number;
  percent: number;
  fn: string;
}

/** The functions with the most self time in a .cpuprofile. */
async function profileTop(file: string, count = 15): Promise<ProfileLine[]> {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const profile = JSON.parse(await readFile(file, 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    const url = frame?.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '') ?? '';
    const fn =
      `${frame?.functionName || '(anonymous)'} ${url === '' ? '' : `${url}:${(frame?.lineNumber ?? 0) + 1}`}`.trim();
    self.set(fn, (self.get(fn) ?? 0) + delta);
    total += delta;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([fn, us]) => ({ selfMs: us / 1000, percent: (100 * us) / total, fn }));
}

// ---------------------------------------------------------------------------------------------
// The benchmark

async function run(options: Options): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const work = await tempDir('lightbox-bench-');
  const profileDir = options.profile ? path.join(RESULTS_DIR, `upload-profile-${stamp}`) : undefined;
  if (profileDir !== undefined) await mkdir(profileDir, { recursive: true });
  const loadBefore = os.loadavg();

  const nodeFlags = (name: string): string[] => [
    ...options.nodeFlags,
    ...(profileDir === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`]),
  ];

  // The bodies, and what their digests must be.
  const fillerBytes = makeFiller(options.chunkSize);
  const boundary = `lightbox-bench-${randomBytes(16).toString('hex')}`;
  const body = makeBody(options.size, fillerBytes, boundary);
  const warmup = options.warmup === 0 ? undefined : makeBody(options.warmup, fillerBytes, boundary);
  let t = performance.now();
  const digests = expectedDigests(body);
  const warmupDigests = warmup === undefined ? undefined : expectedDigests(warmup);
  console.log(
    `body: ${options.size} file bytes (${fixed(options.size / MB)} MB) in ${fixed(options.chunkSize / KiB, 0)} KiB chunks; ` +
      `file sha256 ${digests.file.slice(0, 16)}… (hashed in ${fixed((performance.now() - t) / 1000, 2)} s, untimed)`,
  );

  // Storage.
  let storageEnv: Record<string, string> = {};
  let s3rverPid: number | undefined;
  if (options.storage === 's3') {
    if (!existsSync(S3_SERVER))
      throw new Error(`--storage s3 needs ${path.relative(ROOT, S3_SERVER)}, which is missing`);
    const { startS3Server } = (await import(
      pathToFileURL(S3_SERVER).href
    )) as typeof import('../test/support/s3-server.ts');
    const s3 = await startS3Server({ prefix: 'bench' });
    onCleanup(() => s3.stop());
    storageEnv = s3.env;
    s3rverPid = childPids().find((pid) => procCmdline(pid).includes(path.basename(S3_SERVER)));
    console.log(`s3rver (pid ${s3rverPid ?? 'not found'}) at ${s3.endpoint}, bucket ${s3.bucket}`);
  }

  // lightbox: account and key from the CLI, then `serve` with its log in a file.
  const dataDir = path.join(work, 'data');
  await mkdir(dataDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...storageEnv,
    ...(options.size > 2 * GiB ? { MEDIA_MAX_FILE_BYTES: String(options.size) } : {}),
  };
  t = performance.now();
  await lightboxCli(
    ['accounts', 'create', '--name', 'Bench Studio', '--email', EMAIL],
    'a long benchmark password\n',
    env,
  );
  const key = (await lightboxCli(['keys', 'create', '--account', EMAIL, '--name', 'bench'], '', env)).trim();
  const port = await freePort();
  const logFile = path.join(work, 'lightbox.log');
  const logFd = openSync(logFile, 'a');
  const proc = spawn(process.execPath, [...nodeFlags('lightbox'), BIN, 'serve'], {
    env: {
      ...env,
      PORT: String(port),
      HOST,
    },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const lightbox = track('lightbox serve', proc);
  await waitForReady(port, lightbox, logFile);
  const gallery = await call(port, 'POST', '/v1/listings', key, { address: '1 Benchmark Road' });
  if (gallery.status !== 201) throw new Error(`creating the gallery: ${gallery.status} ${gallery.text}`);
  const galleryId = (JSON.parse(gallery.text) as { id: string }).id;
  console.log(
    `lightbox serve (pid ${lightbox.pid}, ${options.storage} storage) ready on port ${port} in ${fixed((performance.now() - t) / 1000, 2)} s`,
  );

  const bareDir = path.join(work, 'bare');
  await mkdir(bareDir);
  const bareLog = path.join(work, 'bare.log');
  const bare = await startBare(bareDir, nodeFlags('bare'), bareLog);
  console.log(`bare server (pid ${bare.child.pid}) ready on port ${bare.port}`);

  const targets: Record<Side, Target> = {
    bare: {
      name: 'bare',
      pid: bare.child.pid,
      send: (b) => upload(bare.port, '/', {}, b),
      async verify(timing, b, expected) {
        if (timing.status !== 201) throw new Error(`bare: ${timing.status} ${timing.text}`);
        const answer = JSON.parse(timing.text) as { file: string; size: number; sha256: string };
        if (answer.size !== b.length || answer.sha256 !== expected.body) {
          throw new Error(
            `bare stored ${answer.size} bytes with sha256 ${answer.sha256}; sent ${b.length}, ${expected.body}`,
          );
        }
        const removed = await call(bare.port, 'DELETE', `/${answer.file}`);
        if (removed.status !== 204) throw new Error(`bare: deleting ${answer.file}: ${removed.status} ${removed.text}`);
      },
    },
    lightbox: {
      name: 'lightbox',
      pid: lightbox.pid,
      ...(s3rverPid === undefined ? {} : { helperPid: s3rverPid }),
      send: (b) => upload(port, `/v1/listings/${galleryId}/media`, { authorization: `Bearer ${key}` }, b),
      async verify(timing, b, expected) {
        if (timing.status !== 201) throw new Error(`lightbox: ${timing.status} ${timing.text}\n${await tail(logFile)}`);
        const { data } = JSON.parse(timing.text) as {
          data: { id: string; size: number; sha256: string; kind: string; content_type: string }[];
        };
        const media = data[0];
        if (data.length !== 1 || media === undefined) throw new Error(`lightbox stored ${data.length} files, not 1`);
        if (media.size !== b.fileSize || media.sha256 !== expected.file || media.kind !== 'video') {
          throw new Error(
            `lightbox stored a ${media.kind} (${media.content_type}) of ${media.size} bytes with sha256 ${media.sha256}; ` +
              `sent a video of ${b.fileSize} bytes, ${expected.file}`,
          );
        }
        const removed = await call(port, 'DELETE', `/v1/listings/${galleryId}/media/${media.id}`, key);
        if (removed.status !== 204)
          throw new Error(`lightbox: deleting ${media.id}: ${removed.status} ${removed.text}`);
      },
    },
    tus: {
      name: 'tus',
      pid: lightbox.pid,
      ...(s3rverPid === undefined ? {} : { helperPid: s3rverPid }),
      send: (b) => tusUpload({ host: HOST, port, key, galleryId }, b.fileSize, () => fileChunks(b)),
      async verify(timing, b, expected) {
        if (timing.status !== 201) throw new Error(`tus: ${timing.status} ${timing.text}\n${await tail(logFile)}`);
        const { media_id: mediaId } = JSON.parse(timing.text) as { media_id: string };
        const got = await call(port, 'GET', `/v1/listings/${galleryId}/media/${mediaId}`, key);
        const media = JSON.parse(got.text) as { size: number; sha256: string; kind: string };
        if (media.size !== b.fileSize || media.sha256 !== expected.file || media.kind !== 'video') {
          throw new Error(`tus stored ${got.text}; sent a video of ${b.fileSize} bytes, ${expected.file}`);
        }
        const removed = await call(port, 'DELETE', `/v1/listings/${galleryId}/media/${mediaId}`, key);
        if (removed.status !== 204) throw new Error(`tus: deleting ${mediaId}: ${removed.status} ${removed.text}`);
      },
    },
  };

  // Unmeasured warm-up: JIT, lazily loaded modules, first-use allocations.
  if (warmup !== undefined && warmupDigests !== undefined) {
    for (const side of ['bare', 'lightbox', 'tus'] as const) {
      const target = targets[side];
      await target.verify(await target.send(warmup), warmup, warmupDigests);
    }
    console.log(`warm-up: one ${fixed(options.warmup / MB)} MB upload to each server`);
  }
  const startIdle = {
    bare: await idleRss(bare.child.pid),
    lightbox: await idleRss(lightbox.pid),
  };

  const rounds: Round[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    // Interleaved, alternating which goes first, so slow drift on the machine hits both alike.
    const order: Side[] = round % 2 === 1 ? ['bare', 'lightbox', 'tus'] : ['tus', 'lightbox', 'bare'];
    for (const side of order) {
      const result = await measure(targets[side], side, round, body, digests, options);
      rounds.push(result);
      console.log(
        `round ${round} ${side.padEnd(8)} ${fixed(result.mbPerSecond).padStart(7)} MB/s  ${fixed(result.seconds, 2)} s  ` +
          `idle ${fixed(result.idleRssBytes / MB)} MB  peak ${fixed(result.peakRssBytes / MB)} MB ` +
          `(+${fixed((result.peakRssBytes - result.idleRssBytes) / MB)})  HWM ${fixed(result.hwmBytes / MB)} MB  ` +
          `server CPU ${fixed((100 * result.serverCpu.total) / result.seconds, 0)}% (main ${fixed((100 * result.serverCpu.main) / result.seconds, 0)}%)` +
          (result.s3rverCpuSeconds === undefined
            ? ''
            : `  s3rver CPU ${fixed((100 * result.s3rverCpuSeconds) / result.seconds, 0)}%`) +
          '  sha256 ok',
      );
    }
  }

  await lightbox.stop();
  await bare.child.stop();
  const logLines = (await readFile(logFile, 'utf8')).split('\n').filter((l) => l !== '').length;

  // Summary.
  const bareSummary = summarize(
    rounds.filter((r) => r.side === 'bare'),
    startIdle.bare,
  );
  const lightboxSummary = summarize(
    rounds.filter((r) => r.side === 'lightbox'),
    startIdle.lightbox,
  );
  const ratio = lightboxSummary.mbPerSecond / bareSummary.mbPerSecond;
  const pairedRatios = Array.from({ length: options.rounds }, (_, i) => {
    const l = rounds.find((r) => r.side === 'lightbox' && r.round === i + 1);
    const b = rounds.find((r) => r.side === 'bare' && r.round === i + 1);
    return l === undefined || b === undefined ? NaN : l.mbPerSecond / b.mbPerSecond;
  });
  const throughputMet = ratio >= TARGET_RATIO;
  const tusSummary = summarize(
    rounds.filter((r) => r.side === 'tus'),
    startIdle.lightbox,
  );
  const tusRatio = tusSummary.mbPerSecond / bareSummary.mbPerSecond;
  const memoryMet = lightboxSummary.peakAboveBaseIdleMB <= TARGET_RSS_MB;
  const lightboxLabel = `lightbox (${options.storage === 's3' ? 's3rver' : 'local disk'})`;
  const row = (label: string, pick: (summary: Summary) => number, digits = 1): string[] => [
    label,
    fixed(pick(bareSummary), digits),
    fixed(pick(lightboxSummary), digits),
  ];
  const summaryRows = [
    [`median of ${options.rounds} rounds`, 'bare (disk)', lightboxLabel],
    row('throughput, MB/s (1 MB = 1e6 B)', (x) => x.mbPerSecond),
    row('wall time, s', (x) => x.seconds, 2),
    ['ratio lightbox / bare', '1.00', fixed(ratio, 2)],
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
  const roundRows = [
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
  const scope = options.storage === 'local' ? '' : ' (the targets are for local disk; shown for information)';
  const verdicts = [
    `throughput: lightbox/bare = ${fixed(ratio, 2)} (target ≥ ${TARGET_RATIO}): ${throughputMet ? 'MET' : 'NOT MET'}${scope}`,
    `memory: lightbox peak RSS − idle RSS after warm-up = ${fixed(lightboxSummary.peakAboveBaseIdleMB)} MB median, ` +
      `${fixed(lightboxSummary.maxPeakAboveBaseIdleMB)} MB worst (target ≤ ${TARGET_RSS_MB} MB): ${memoryMet ? 'MET' : 'NOT MET'}${scope}`,
    `tus (8 MiB PATCHes): ${fixed(tusSummary.mbPerSecond)} MB/s, tus/bare = ${fixed(tusRatio, 2)} (target ≥ ${TARGET_RATIO}): ` +
      `${tusRatio >= TARGET_RATIO ? 'MET' : 'NOT MET'}; peak RSS − idle RSS after warm-up ${fixed(tusSummary.peakAboveBaseIdleMB)} MB ` +
      `median, ${fixed(tusSummary.maxPeakAboveBaseIdleMB)} MB worst (target ≤ ${TARGET_RSS_MB} MB): ` +
      `${tusSummary.maxPeakAboveBaseIdleMB <= TARGET_RSS_MB ? 'MET' : 'NOT MET'}${scope}`,
  ];

  let profiles: Record<string, ProfileLine[]> | undefined;
  if (profileDir !== undefined) {
    profiles = {};
    for (const file of (await readdir(profileDir)).filter((f) => f.endsWith('.cpuprofile'))) {
      profiles[file] = await profileTop(path.join(profileDir, file));
    }
  }

  const loadAfter = os.loadavg();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // Not a checkout.
  }
  const environment = {
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGB: Number(fixed(os.totalmem() / 1e9)),
    loadAverageBefore: loadBefore.map((l) => Number(fixed(l, 2))),
    loadAverageAfter: loadAfter.map((l) => Number(fixed(l, 2))),
    commit,
  };
  const notes = [
    'MB = 1e6 bytes. Throughput = Content-Length (multipart body) / wall time from the first body byte written to the response fully read; one connection per upload, keep-alive off.',
    `RSS sampled from /proc/<pid>/status every ${options.sampleMs} ms; idle RSS = median of 10 samples over 0.5 s, once after the warm-up (the figure the memory target uses: memory kept after an upload counts against it) and again just before each upload; VmHWM reset before each upload via /proc/<pid>/clear_refs (* = reset refused: lifetime peak).`,
    `The bare baseline is a node:http child process piping the raw body (multipart framing included) to a file with flush (fsync) while hashing; lightbox local storage also fsyncs before answering.`,
    `${options.warmup === 0 ? 'No warm-up.' : `One unmeasured ${fixed(options.warmup / MB)} MB warm-up upload per server first.`} Rounds alternate which server goes first. Stored files are deleted after each round (untimed).`,
    'Server CPU from /proc/<pid>/task/*/stat over the upload, by thread: MainThread (JS), libuv-worker (fs writes), V8Worker (GC, compiler); sys = kernel time of all threads.',
    `lightbox ran with LOG_LEVEL=info, logging to a file (${logLines} lines).`,
  ];

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

  const base = path.join(RESULTS_DIR, `upload-${options.storage}-${stamp}`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const result = {
    benchmark: 'upload',
    date: new Date().toISOString(),
    options: { ...options, timeoutMs: undefined, timeoutSeconds: options.timeoutMs / 1000 },
    environment,
    summary: {
      bare: bareSummary,
      lightbox: lightboxSummary,
      tus: tusSummary,
      ratio,
      pairedRatios,
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
  await copyFile(logFile, `${base}.lightbox.log`);
  if (options.nodeFlags.length > 0) await copyFile(bareLog, `${base}.bare.log`);
  console.log(
    `wrote ${path.relative(ROOT, base)}.json, .md and .lightbox.log${profileDir === undefined ? '' : ` (profiles in ${path.relative(ROOT, profileDir)})`}`,
  );
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--bare-server') {
    const dir = argv[1];
    if (dir === undefined) throw new UsageError('--bare-server DIR');
    await bareServer(dir);
    return 0;
  }
  let options: Options | undefined;
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (!(err instanceof UsageError) && !(err instanceof TypeError)) throw err;
    process.stderr.write(`bench-upload: ${err.message}\n\n${HELP}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(HELP);
    return 0;
  }
  if (process.platform !== 'linux') {
    process.stderr.write('bench-upload: needs Linux (/proc) to measure memory\n');
    return 2;
  }

  const deadline = setTimeout(() => {
    process.stderr.write(`bench-upload: aborted after ${options.timeoutMs / 1000} s; cleaning up\n`);
    void cleanup().finally(() => process.exit(3));
  }, options.timeoutMs);
  deadline.unref();
  const crash = (err: unknown): void => {
    process.stderr.write(`bench-upload crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    void cleanup().finally(() => process.exit(1));
  };
  process.once('uncaughtException', crash);
  process.once('unhandledRejection', crash);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench-upload: ${signal}; cleaning up\n`);
      void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  try {
    await run(options);
    return 0;
  } catch (err) {
    process.stderr.write(`bench-upload failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
}

process.exitCode = await main(process.argv.slice(2));
