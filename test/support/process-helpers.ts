// Real `lightbox` processes for the multi-process suites: spawned with an environment of their
// own, their output kept, stopped (SIGKILL as a last resort) by whoever started them.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './test-app.ts';

const BIN = fileURLToPath(new URL('../../bin/lightbox.js', import.meta.url));

export interface LightboxProcess {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every process started here and still running; `killAll` ends them. */
const running = new Set<ChildProcessWithoutNullStreams>();

export function startLightbox(args: string[], env: Record<string, string>, input = ''): LightboxProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: 'pipe',
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  child.stdin.end(input);
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs a CLI command to the end and returns its stdout; any failure fails the test. */
export async function runLightbox(args: string[], env: Record<string, string>, input = ''): Promise<string> {
  const run = startLightbox(args, env, input);
  const { code } = await run.exited;
  assert.equal(code, 0, `lightbox ${args.join(' ')}: ${run.stderr()}`);
  return run.stdout();
}

export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** A port nothing listens on right now: the kernel picks one, and we let it go. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function waitForHealthy(base: string, server: LightboxProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void server.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    assert.ok(!exited, `serve exited early: ${server.stderr()}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  assert.fail(`no healthy /healthz within ${timeoutMs} ms: ${server.stderr()}`);
}

/** The JSON log lines a process wrote. */
export const logLines = (p: LightboxProcess): Record<string, unknown>[] =>
  p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A data directory and a test database (SQLite, or a fresh PostgreSQL one) for real processes. */
export interface ProcessSuite {
  dataDir: string;
  database: Awaited<ReturnType<typeof createTestDatabase>>;
  /** The processes' environment: PATH, DATA_DIR, LOG_LEVEL and `extra`, then the database's. */
  env: (extra?: Record<string, string>) => Record<string, string>;
  /** Kills every process still running, drops the database and removes the data directory. */
  stop: () => Promise<void>;
}

/** For a suite's `before`: a new data directory (`prefix` in the temporary folder) and database. */
export async function startProcessSuite(prefix: string, logLevel: string): Promise<ProcessSuite> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const database = await createTestDatabase();
  return {
    dataDir,
    database,
    env: (extra = {}) => ({
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      LOG_LEVEL: logLevel,
      ...extra,
      ...database.env,
    }),
    stop: async () => {
      killAll();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** `lightbox accounts create` (password "correct horse battery") and `keys create`: the new key. */
export async function createAccountKey(
  env: Record<string, string>,
  account: { email: string; name: string },
  keyName: string,
): Promise<string> {
  await runLightbox(
    ['accounts', 'create', '--name', account.name, '--email', account.email],
    env,
    'correct horse battery\n',
  );
  return (await runLightbox(['keys', 'create', '--account', account.email, '--name', keyName], env)).trim();
}

/** `lightbox serve` on 127.0.0.1:`port` with `env`, once its /healthz answers 200. */
export async function serveOn(
  port: number,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ server: LightboxProcess; base: string }> {
  const base = `http://127.0.0.1:${port}`;
  const server = startLightbox(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  await waitForHealthy(base, server, timeoutMs);
  return { server, base };
}
