// The options of `npm run bench:upload` (packages/bench/src/upload.ts): its help text and their parsing.
import { parseArgs } from 'node:util';

export const KiB = 1024;
const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
/** Throughput and memory are reported in decimal megabytes. */
export const MB = 1e6;

export const HELP = `Usage: node packages/bench/src/upload.ts [options]    (npm run bench:upload -- [options])

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

export interface Options {
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

export class UsageError extends Error {}

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

/** The options, or undefined for --help; a UsageError (or parseArgs' TypeError) for bad ones. */
export function parseOptions(argv: string[]): Options | undefined {
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
