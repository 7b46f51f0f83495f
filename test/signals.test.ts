// SIGTERM and SIGINT reach the server however it was started: `./run start` (the README's
// command), `npm start`, `npx lightbox serve` or the bin. npm puts itself and a shell between
// whoever stops the service (a terminal, systemd, a container runtime) and Lightbox; the shell
// does not pass signals on. Each case here signals
// the OUTERMOST process, then checks that Lightbox shut down gracefully (its "stopped" line),
// that the outer process ended, and that the port is free again.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { freePort, startProcessSuite, type ProcessSuite } from './support/process-helpers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE_BIN = path.dirname(process.execPath);

let suite: ProcessSuite;
/** A folder whose `npm` fails loudly (first on ./run's PATH). */
let noNpm = '';
before(async () => {
  suite = await startProcessSuite('lightbox-signals-', 'info');
  noNpm = await mkdtemp(path.join(tmpdir(), 'lightbox-no-npm-'));
  await writeFile(path.join(noNpm, 'npm'), '#!/bin/sh\necho "npm $* was not expected here" >&2\nexit 97\n', {
    mode: 0o755,
  });
});
after(async () => {
  await suite.stop();
  await rm(noNpm, { recursive: true, force: true });
});

/** True when something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const ways: Record<string, string[]> = {
  // The README's start command: it checks the Node and the dependencies, then execs the server.
  './run start': ['bash', 'run', 'start'],
  'npm start': ['npm', 'start'],
  'npx lightbox serve': ['npx', 'lightbox', 'serve'],
  'node bin/lightbox.js serve': [process.execPath, 'bin/lightbox.js', 'serve'],
};

for (const [way, [command, ...args]] of Object.entries(ways)) {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    void test(`${way}: ${signal} to the outermost process stops Lightbox gracefully`, { timeout: 60_000 }, async () => {
      const port = await freePort();
      // The test's own Node first on PATH, so npm and npx run on it (not the machine's).
      // ./run must find the dependencies in place: an npm that refuses to run stops it from reinstalling them.
      const bin = way === './run start' ? `${noNpm}:` : '';
      const env = suite.env({
        PATH: `${bin}${NODE_BIN}:${process.env.PATH ?? ''}`,
        PORT: String(port),
        HOST: '127.0.0.1',
      });
      const outer = spawn(command!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      outer.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
      outer.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
      const exited = new Promise<number | null>((resolve) => outer.on('close', (code) => resolve(code)));
      try {
        const deadline = Date.now() + 30_000;
        while (!(await listening(port))) {
          assert.ok(Date.now() < deadline, `${way} never listened on ${port}: ${output}`);
          assert.equal(outer.exitCode, null, `${way} exited early: ${output}`);
          await sleep(100);
        }
        assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);

        outer.kill(signal);
        const code = await Promise.race([exited, sleep(20_000).then(() => 'timeout' as const)]);
        assert.notEqual(code, 'timeout', `${way} still running 20 s after ${signal}: ${output}`);
        // The port is free: nothing is left listening behind the process that was signalled.
        for (let i = 0; i < 50 && (await listening(port)); i++) await sleep(100);
        assert.equal(await listening(port), false, `port ${port} still taken after ${way} ended: ${output}`);
        const lines = output
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { msg?: string; signal?: string });
        assert.ok(
          lines.some((l) => l.msg === 'shutting down: finishing in-flight requests'),
          `no graceful shutdown: ${output}`,
        );
        assert.ok(
          lines.some((l) => l.msg === 'stopped'),
          `Lightbox did not finish its shutdown: ${output}`,
        );
        assert.equal(code, 0, `${way} exited ${String(code)} after ${signal}: ${output}`);
      } finally {
        if (outer.exitCode === null) outer.kill('SIGKILL');
      }
    });
  }
}
