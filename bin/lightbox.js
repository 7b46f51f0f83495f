#!/usr/bin/env node
// The `lightbox` command. Node 22.18+ runs the TypeScript sources directly (type stripping); an
// older Node is told so in one line before any `.ts` file is loaded, hence the dynamic import.
import { requireNode } from './require-node.js';

requireNode();
const { main } = await import('../src/cli/main.ts');

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
