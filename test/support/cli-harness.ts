// The `lightbox` command as a user runs it, for the CLI suites: a real process with real
// stdin/stdout/stderr on a temporary data folder and database of its own (a SQLite file, or a
// fresh PostgreSQL database when DATABASE_URL says so), and a stand-in terminal for prompts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './test-app.ts';

const BIN = fileURLToPath(new URL('../../bin/lightbox.js', import.meta.url));
export const PASSWORD = 'correct horse battery';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type CliHarness = Awaited<ReturnType<typeof createCliHarness>>;

export async function createCliHarness() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lightbox-cli-'));
  const database = await createTestDatabase();

  /** Only what the command needs: never the DATABASE_URL of the test runner itself. */
  const env = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...database.env,
  });

  function run(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { ...env(), ...options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(options.input ?? '');
    });
  }

  /** A usage error: exit 2, nothing on stdout, exactly one line on stderr. */
  async function assertUsageError(args: readonly string[], pattern: RegExp): Promise<void> {
    const result = await run(args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, pattern);
  }

  return {
    dataDir,
    env,
    run,

    /** Runs the cases side by side: each is a process start, and they share nothing. */
    async usageErrors(cases: readonly (readonly [readonly string[], RegExp])[]): Promise<void> {
      await Promise.all(cases.map(([args, pattern]) => assertUsageError(args, pattern)));
    },

    /** A stand-in terminal for `main` in-process: what the test writes is what the user types. */
    terminal(typed: string) {
      const stdin = Object.assign(new PassThrough(), {
        isTTY: true,
        rawMode: [] as boolean[],
        setRawMode(mode: boolean) {
          stdin.rawMode.push(mode);
          return stdin;
        },
      });
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      stdin.write(typed);
      return { io: { stdin, stdout, stderr, env: env() }, stdin, out: () => out, err: () => err };
    },

    async close(): Promise<void> {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
