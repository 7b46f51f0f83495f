#!/usr/bin/env node
// The `lightbox` command. Node 22.18+ runs the TypeScript sources directly (type stripping); an
// older Node is told so in one line before any `.ts` file is loaded, hence the dynamic import.
import { requireNode } from './require-node.js';

requireNode();
followParent();
const { main } = await import('../src/cli/main.ts');

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});

/**
 * Under npm (`npm start`, `npx lightbox serve`) this process is the child of a `sh -c` that npm
 * started: npm passes SIGTERM and SIGINT to that shell, and the shell dies without passing them
 * on, which would leave Lightbox running (and listening) with no parent. So, when npm started
 * us, the parent's end is taken as SIGTERM: the serve and worker commands then shut down as
 * they do on the signal itself (finish what is in flight, exit 0). A process started any other
 * way (systemd, a container, `node bin/lightbox.js`, nohup) is left alone.
 */
function followParent() {
  if (process.env.npm_lifecycle_event === undefined) return;
  // process.ppid is read once at start-up, so ask the kernel whether that process still exists.
  const parent = process.ppid;
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0);
      return;
    } catch (err) {
      if (err.code === 'EPERM') return; // it exists, under another user
    }
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 200);
  timer.unref();
}
