// `node packages/bench/src/zip.ts`: throughput of the gallery's "Download all" ZIP stream
// (src/gallery/zip.ts) against reading the same files raw with fs.createReadStream.
//
// Both read real (non-sparse) files of random bytes, one after another, with a 1 MiB
// highWaterMark, into a sink that discards the bytes, interleaved round by round; the
// figure is the median of the rounds, in MB/s of file data (1 MB = 1e6 bytes). The files
// are written once and then sit in the page cache for both, so this measures what the ZIP
// layer costs on top of reading (headers, range bookkeeping, one more stream hop), not the
// disk. The target is a ratio of at least 0.9. On a shared machine wall times swing from round
// to round, so the CPU seconds each spends per GB (the whole process, all threads) are shown too.
//
//   node packages/bench/src/zip.ts [--total 2048] [--files 200] [--rounds 3] [--dir DIR]
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { planZip } from '../../../src/gallery/zip.ts';
import { zipStream } from '../../../src/gallery/zip-stream.ts';
import { median } from './lib/report.ts';

const MiB = 1024 * 1024;
const MB = 1e6;
const READ_BUFFER = MiB;
const TARGET_RATIO = 0.9;

const { values } = parseArgs({
  options: {
    total: { type: 'string', default: '2048' },
    files: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    dir: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`Usage: node packages/bench/src/zip.ts [--total MiB] [--files N] [--rounds N] [--dir DIR]

  --total MiB   bytes of files in all, in MiB (default 2048)
  --files N     how many files share them (default 200: a gallery of ~10 MiB photos)
  --rounds N    measured rounds of each (default 3, after one warm-up round each)
  --dir DIR     where to write the files, left there afterwards (default: a new folder
                in the temp folder, removed at the end)`);
  process.exit(0);
}
const total = Number(values.total) * MiB;
const fileCount = Number(values.files);
const rounds = Number(values.rounds);
if (![total, fileCount, rounds].every((n) => Number.isSafeInteger(n) && n > 0)) {
  throw new Error('--total, --files and --rounds must be positive integers');
}

interface File {
  path: string;
  size: number;
  crc32: number;
}

/** Writes `size` random bytes and returns their CRC-32, as an upload would record it. */
async function writeRandomFile(file: string, size: number): Promise<number> {
  let crc = 0;
  const out = createWriteStream(file, { highWaterMark: READ_BUFFER });
  for (let written = 0; written < size;) {
    const chunk = randomBytes(Math.min(16 * MiB, size - written));
    crc = zlib.crc32(chunk, crc);
    written += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return crc;
}

/** Counts the bytes and drops them. */
function sink(): { stream: Writable; bytes: () => number } {
  let bytes = 0;
  const stream = new Writable({
    highWaterMark: READ_BUFFER,
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  return { stream, bytes: () => bytes };
}

async function readRaw(files: File[]): Promise<number> {
  let bytes = 0;
  for (const f of files) {
    const s = sink();
    await pipeline(createReadStream(f.path, { highWaterMark: READ_BUFFER }), s.stream);
    bytes += s.bytes();
  }
  return bytes;
}

async function readZip(files: File[]): Promise<number> {
  const plan = planZip(
    files.map((f, i) => ({
      name: `IMG_${i}.jpg`,
      size: f.size,
      crc32: f.crc32,
      modifiedAt: new Date(),
      identity: f.path,
    })),
  );
  const s = sink();
  const open = (index: number, start: number, end: number) => {
    const file = files[index];
    if (file === undefined) return Promise.reject(new Error(`no file ${index}`));
    return Promise.resolve(createReadStream(file.path, { start, end, highWaterMark: READ_BUFFER }));
  };
  await pipeline(zipStream(plan, open), s.stream);
  if (s.bytes() !== plan.size) throw new Error(`zip gave ${s.bytes()} bytes, planned ${plan.size}`);
  return s.bytes();
}

/** Wall time, and CPU time of the whole process (all threads): steadier on a shared machine. */
async function timed(work: () => Promise<number>): Promise<{ seconds: number; cpuSeconds: number; bytes: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const bytes = await work();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, bytes };
}

const dir = values.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'lightbox-bench-zip-')));
try {
  const files: File[] = [];
  const base = Math.floor(total / fileCount);
  console.log(`writing ${fileCount} files, ${(total / MiB).toFixed(0)} MiB in all, to ${dir}`);
  for (let i = 0; i < fileCount; i++) {
    const size = i === fileCount - 1 ? total - base * (fileCount - 1) : base;
    const file = path.join(dir, `f${i}`);
    files.push({ path: file, size, crc32: await writeRandomFile(file, size) });
  }
  const dataBytes = files.reduce((sum, f) => sum + f.size, 0);

  await readRaw(files); // warm-up: JIT, and the files into the page cache
  await readZip(files);
  const rate = { raw: [] as number[], zip: [] as number[] };
  const cpu = { raw: [] as number[], zip: [] as number[] };
  for (let round = 1; round <= rounds; round++) {
    const r = await timed(() => readRaw(files));
    const z = await timed(() => readZip(files));
    rate.raw.push(dataBytes / MB / r.seconds);
    rate.zip.push(dataBytes / MB / z.seconds);
    cpu.raw.push((r.cpuSeconds * 1e9) / dataBytes);
    cpu.zip.push((z.cpuSeconds * 1e9) / dataBytes);
    console.log(
      `round ${round}: raw ${(dataBytes / MB / r.seconds).toFixed(0)} MB/s, ` +
        `zip ${(dataBytes / MB / z.seconds).toFixed(0)} MB/s (+${z.bytes - dataBytes} header bytes); ` +
        `CPU s/GB raw ${((r.cpuSeconds * 1e9) / dataBytes).toFixed(3)}, zip ${((z.cpuSeconds * 1e9) / dataBytes).toFixed(3)}`,
    );
  }
  const ratio = median(rate.zip) / median(rate.raw);
  console.log(
    `median: raw ${median(rate.raw).toFixed(0)} MB/s, zip ${median(rate.zip).toFixed(0)} MB/s, ` +
      `ratio ${ratio.toFixed(2)}x (target >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}); ` +
      `CPU s/GB raw ${median(cpu.raw).toFixed(3)}, zip ${median(cpu.zip).toFixed(3)}`,
  );
} finally {
  if (values.dir === undefined) await rm(dir, { recursive: true, force: true });
}
