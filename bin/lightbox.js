#!/usr/bin/env node
// The `lightbox` command. Node 22.18+ runs the TypeScript sources directly (type stripping).
import { main } from '../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
