// The benchmarks' one process manager: the real `lightbox serve` and `lightbox worker`, `lightbox`
// commands, the bare servers, the load generator, and cleaning up after them whatever happens.
// Lightbox is only ever driven from here as its users drive it: `node bin/lightbox.js ...` and HTTP.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, closeSync, constants, createWriteStream, openSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { HOST, send } from './http.ts';
import { runWrk, type LoadResult, type LoadSpec } from './load.ts';

export { HOST } from './http.ts';

export const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'lightbox.js');
const HERE = path.dirname(fileURLToPath(import.meta.url));

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;

export function onCleanup(work: () => Promise<unknown>): void {
  cleanups.push(work);
}

/** Runs every registered clean-up once, newest first, each bounded in time. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const work of cleanups.reverse()) {
      try {
        await Promise.race([work(), sleep(35_000, undefined, { ref: false })]);
      } catch (err) {
        console.error('clean-up step failed:', err);
      }
    }
  })();
  return cleaning;
}

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export function track(name: string, proc: ChildProcess): Child {
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`${name} did not start`);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let stopping: Promise<void> | undefined;
  const child: Child = {
    name,
    proc,
    pid,
    exited,
    stop(graceMs = 30_000) {
      stopping ??= (async () => {
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
  onCleanup(() => child.stop(5_000));
  return child;
}

/** A port nothing listens on right now: the kernel picks one and we let it go. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment of a benchmark's `lightbox` processes: production mode, a minimal PATH and HOME,
 * and the rate limiter and in-flight limits left on the path with limits no benchmark reaches
 * (defaults 600/min; 32 per key, 128 per address). `extra` adds or overrides variables.
 */
export function benchEnv(
  work: string,
  dataDir: string,
  logLevel: string,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    NODE_ENV: 'production',
    LOG_LEVEL: logLevel,
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '100000000',
    HTTP_MAX_IN_FLIGHT_PER_KEY: '100000',
    HTTP_MAX_IN_FLIGHT_PER_ADDRESS: '100000',
    // `HTTP_RESPONSE_CACHE_MB=0 npm run bench` measures every read built afresh (decisions/0016).
    ...(process.env.HTTP_RESPONSE_CACHE_MB === undefined
      ? {}
      : { HTTP_RESPONSE_CACHE_MB: process.env.HTTP_RESPONSE_CACHE_MB }),
    ...extra,
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a `lightbox` command to the end (`bin`: another checkout's bin/lightbox.js). */
export async function lightboxCli(args: string[], env: NodeJS.ProcessEnv, input = '', bin = BIN): Promise<CliResult> {
  const proc = spawn(process.execPath, [bin, ...args], { env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  proc.stdin.end(input);
  const [code] = (await once(proc, 'close')) as [number | null];
  return { code, stdout, stderr };
}

export interface Reply {
  status: number;
  text: string;
}

/** A small request on its own connection, with `json` as its body if given. */
export async function call(
  port: number,
  method: string,
  pathname: string,
  key?: string,
  json?: unknown,
): Promise<Reply> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  const { status, text } = await send(port, method, pathname, { key, body, agent: false });
  return { status, text };
}

/**
 * JSON calls to a bench's server with its key; a refusal throws with the answer and the end of
 * the server's log.
 */
export function apiCaller(port: number, key: string, logFile: string) {
  return async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await fetch(`http://${HOST}:${port}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}\n${await tail(logFile)}`);
    return (await res.json()) as T;
  };
}

type ApiCaller = ReturnType<typeof apiCaller>;

/** A new active gallery assigned (no email) to a new client: its id and its client link's URL. */
export async function linkedGallery(
  api: ApiCaller,
  fields: { address: string; beds: number; baths: number; sqft: number; description: string },
): Promise<{ id: string; linkUrl: string }> {
  const { id } = await api<{ id: string }>('POST', '/v1/listings', { ...fields, status: 'active' });
  const client = await api<{ id: string }>('POST', '/v1/clients', {
    name: 'Bench Client',
    email: `client-${randomBytes(4).toString('hex')}@lightbox.invalid`,
  });
  const assigned = await api<{ client_link: { url: string } }>(
    'POST',
    `/v1/clients/${client.id}/listings/${id}?notify=false`,
  );
  return { id, linkUrl: assigned.client_link.url };
}

export async function tail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** CPU seconds (user + system, all threads) a process has used so far; NaN off Linux. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Waits until process `pid` is about idle: under 12% of a core over a quarter second, or
 * `maxMs` passed. After a burst of writes the server still has their background work to do
 * (emails, webhook fan-out, WAL checkpoints); the next measurement must not pay for it.
 * Resolves with how long it waited, in ms.
 */
export async function settle(pid: number, maxMs = 20_000): Promise<number> {
  const started = performance.now();
  let last = cpuSeconds(pid);
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = cpuSeconds(pid);
    if (!(now - last > 0.03)) break;
    last = now;
  }
  return performance.now() - started;
}

/** Waits for `GET /readyz` to answer 200 (the database answers), or the server to die. */
async function waitForReady(port: number, child: Child, log: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`lightbox serve exited early:\n${await tail(log)}`);
    try {
      if ((await call(port, 'GET', '/readyz')).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`lightbox serve was not ready within ${timeoutMs} ms:\n${await tail(log)}`);
}

export interface Serve {
  child: Child;
  port: number;
  logFile: string;
}

export interface ServeOptions {
  /** Node's own flags (--cpu-prof, say). */
  nodeFlags?: string[];
  /** Another checkout's bin/lightbox.js (bench:etag runs main's code beside this one). */
  bin?: string;
  /** PUBLIC_URL set to the server's own address (client links that can be followed). */
  publicUrl?: boolean;
}

/** Starts the real `lightbox serve` on a free port of 127.0.0.1 (output appended to `logFile`); resolves once ready. */
export async function startServe(
  env: NodeJS.ProcessEnv,
  logFile: string,
  options: ServeOptions | string[] = {},
): Promise<Serve> {
  const { nodeFlags = [], bin = BIN, publicUrl = false } = Array.isArray(options) ? { nodeFlags: options } : options;
  const port = await freePort();
  const fd = openSync(logFile, 'a');
  const child = track(
    `lightbox serve :${port}`,
    spawn(process.execPath, [...nodeFlags, bin, 'serve'], {
      env: { ...env, PORT: String(port), HOST, ...(publicUrl ? { PUBLIC_URL: `http://${HOST}:${port}` } : {}) },
      stdio: ['ignore', fd, fd],
    }),
  );
  closeSync(fd);
  await waitForReady(port, child, logFile);
  return { child, port, logFile };
}

/** Starts `lightbox worker` (the background jobs, no HTTP; output appended to `logFile`); resolves once it says it is ready. */
export async function startWorker(env: NodeJS.ProcessEnv, logFile: string, nodeFlags: string[] = []): Promise<Child> {
  const fd = openSync(logFile, 'a');
  const child = track('lightbox worker', spawn(process.execPath, [...nodeFlags, BIN, 'worker'], { env, stdio: ['ignore', fd, fd] })); // prettier-ignore
  closeSync(fd);
  let exited = false;
  void child.exited.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`lightbox worker exited early:\n${await tail(logFile)}`);
    if ((await tail(logFile, 200)).includes('worker ready')) return child;
    await sleep(100);
  }
  throw new Error(`lightbox worker was not ready within 60 s:\n${await tail(logFile)}`);
}

/** An account made with `lightbox accounts create`, and an API key for it (`lightbox keys create`). */
export async function accountWithKey(env: NodeJS.ProcessEnv, name: string, bin = BIN): Promise<string> {
  const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}@bench.invalid`;
  const made = await lightboxCli(
    ['accounts', 'create', '--name', name, '--email', email],
    env,
    'a long bench password\n',
    bin,
  );
  if (made.code !== 0) throw new Error(`lightbox accounts create: ${made.stderr}`);
  const key = await lightboxCli(['keys', 'create', '--account', email, '--name', 'bench'], env, '', bin);
  if (key.code !== 0) throw new Error(`lightbox keys create: ${key.stderr}`);
  return key.stdout.trim();
}

/** Starts the bare node:http server (packages/bench/src/lib/bare.ts) as a child process. */
export async function startBare(): Promise<{ child: Child; port: number; bytes: number }> {
  const proc = spawn(process.execPath, [path.join(HERE, 'bare.ts'), '--child'], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const child = track('bare server', proc);
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  return Promise.race([
    new Promise<{ child: Child; port: number; bytes: number }>((resolve) => {
      lines.once('line', (text) => {
        const { port, bytes } = JSON.parse(text) as { port: number; bytes: number };
        resolve({ child, port, bytes });
      });
    }),
    sleep(15_000, undefined, { ref: false }).then(() => {
      throw new Error('the bare server did not start within 15 s');
    }),
  ]);
}

/** Starts the bare upload server (packages/bench/src/lib/upload-bare.ts) with `flags` (node's); whatever else it prints goes to `log`. */
export async function startUploadBare(
  dir: string,
  flags: string[],
  log: string,
): Promise<{ child: Child; port: number }> {
  const proc = spawn(process.execPath, [...flags, path.join(HERE, 'upload-bare.ts'), '--child', dir], {
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

export type LoadTool = 'wrk' | 'autocannon';

/** wrk when it is installed (the anchors were measured with it), else autocannon. */
export function defaultTool(): LoadTool {
  const found = (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, 'wrk'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? 'wrk' : 'autocannon';
}

/** One load run in its own process: wrk, or autocannon in packages/bench/src/lib/load.ts. */
export async function runLoadChild(spec: LoadSpec, tool: LoadTool, scratch: string): Promise<LoadResult> {
  if (tool === 'wrk') return runWrk(spec, path.join(scratch, 'wrk-script.lua'));
  const proc = spawn(process.execPath, [path.join(HERE, 'load.ts'), '--child'], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const child = track('load generator', proc);
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  proc.stdin?.end(JSON.stringify(spec));
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`the load generator exited with ${String(code)}`);
  return JSON.parse(out) as LoadResult;
}

/** The PostgreSQL backends serving database `name` (their process titles name it); [] off Linux. */
export function pgBackends(name: string): number[] {
  const pids: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
        if (title.startsWith('postgres: ') && title.includes(` ${name} `)) pids.push(Number(entry));
      } catch {
        // Gone since the listing.
      }
    }
  } catch {
    // Not Linux.
  }
  return pids;
}

/** CPU seconds used so far by each PostgreSQL backend serving database `name`, by pid. */
export function pgBackendCpu(name: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of pgBackends(name)) cpu.set(pid, cpuSeconds(pid) || 0);
  return cpu;
}

/**
 * CPU seconds the backends of database `name` used since `before` (pgBackendCpu): the database's
 * own share of the requests, which runs outside the server's process. Each backend counts its own
 * increase (a new one all of its time), so a backend the pool closed in between takes only its
 * last moments with it, and the sum can never go below zero.
 */
export function pgBackendCpuSince(name: string, before: Map<number, number>): number {
  let used = 0;
  for (const [pid, now] of pgBackendCpu(name)) used += Math.max(0, now - (before.get(pid) ?? 0));
  return used;
}

/**
 * A benchmark's command line: its options parsed (undefined: --help, the usage printed), Ctrl-C
 * and SIGTERM cleaning up, the run, and the exit code (2 bad options, 1 a failed run). What the
 * run itself set as the exit code (a failed check) stands.
 */
export async function runBench<O>(
  name: string,
  help: string,
  parse: (argv: string[]) => O | undefined,
  run: (options: O) => Promise<void>,
): Promise<void> {
  let options: O | undefined;
  try {
    options = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n\n${help}`);
    process.exitCode = 2;
    return;
  }
  if (options === undefined) {
    process.stdout.write(help);
    return;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`${name}: ${signal}; cleaning up\n`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  try {
    await run(options);
  } catch (err) {
    process.stderr.write(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}
