// One measurement of `npm run bench:variants`, run in a child process of its own so that its peak
// RSS (VmHWM) is its own: the same three variants of every photo in a folder, made either by the
// obvious bare sharp script or by Lightbox's makeVariants. Prints one JSON line (WorkResult).
//
//   node packages/bench/src/lib/variants-work.ts --child bare|lightbox PHOTOS_DIR OUT_DIR THREADS PARALLEL
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import {
  configureSharp,
  DEFAULT_MLS_BOX,
  makeVariants,
  variantSpecs,
} from '../../../../src/modules/variants/variants.images.ts';

export const WORK_KINDS = ['bare', 'lightbox'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

export interface WorkResult {
  kind: WorkKind;
  photos: number;
  seconds: number;
  /** User + system CPU of the whole process (every thread) during the work. */
  cpuSeconds: number;
  /** VmRSS once sharp is loaded, before the first photo. */
  startRssBytes: number;
  /** VmHWM at the end: the process's peak RSS. */
  peakRssBytes: number;
  outputBytes: number;
  outputFiles: number;
}

const SPECS = variantSpecs(DEFAULT_MLS_BOX);
// The same encoder settings as src/modules/variants/variants.images.ts, so only the method differs.
const JPEG = { quality: 82, progressive: true, chromaSubsampling: '4:2:0', mozjpeg: false } as const;
const WEBP = { quality: 80 } as const;

/** Makes one photo's variants into `out`; returns the bytes written. */
type PerPhoto = (file: string, out: string, index: number) => Promise<number>;

/**
 * The baseline: what anyone would write first with sharp. Three pipelines in sequence, each
 * decoding the file (with shrink-on-load where sharp applies it), to files.
 */
const bare: PerPhoto = async (file, out, index) => {
  let bytes = 0;
  for (const spec of SPECS) {
    const image = sharp(file).rotate().resize(spec.box.width, spec.box.height, { fit: 'inside', withoutEnlargement: true }); // prettier-ignore
    const target = path.join(out, `${index}-${spec.name}.${spec.format}`);
    const info = await (spec.format === 'jpeg' ? image.jpeg(JPEG) : image.webp(WEBP)).toFile(target);
    bytes += info.size;
  }
  return bytes;
};

/** Lightbox: makeVariants, each variant streamed through `put` to a file. */
const lightbox: PerPhoto = async (file, out, index) => {
  const made = await makeVariants(
    file,
    SPECS,
    (name, body) => pipeline(body, createWriteStream(path.join(out, `${index}-${name}`))),
    { maxPixels: 268_402_689 },
  );
  return made.reduce((sum, m) => sum + m.size, 0);
};

const PER_PHOTO: Record<WorkKind, PerPhoto> = { bare, lightbox };

function procStatusBytes(field: 'VmRSS' | 'VmHWM'): number {
  const text = readFileSync('/proc/self/status', 'latin1');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
}

/** Every photo of `photosDir`, `parallel` at a time, timed. */
export async function runWork(
  kind: WorkKind,
  photosDir: string,
  out: string,
  threads: number,
  parallel: number,
): Promise<WorkResult> {
  if (kind === 'lightbox') configureSharp({ threads });
  else sharp.concurrency(threads); // the naive script keeps sharp's other defaults (cache on)
  await mkdir(out, { recursive: true });
  const files = (await readdir(photosDir)).filter((f) => f.endsWith('.jpg')).sort().map((f) => path.join(photosDir, f)); // prettier-ignore
  const work = PER_PHOTO[kind];
  const startRssBytes = procStatusBytes('VmRSS');
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  let outputBytes = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < files.length; i = next++) {
        // Not `outputBytes += await ...`: that reads the total before the await and loses the
        // other worker's additions.
        const bytes = await work(files[i] ?? '', out, i);
        outputBytes += bytes;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    kind,
    photos: files.length,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    startRssBytes,
    peakRssBytes: procStatusBytes('VmHWM'),
    outputBytes,
    outputFiles: (await readdir(out)).length,
  };
}

if (process.argv[2] === '--child') {
  const [kind, photosDir, out, threads, parallel] = process.argv.slice(3);
  if (!WORK_KINDS.includes(kind as WorkKind) || photosDir === undefined || out === undefined) {
    throw new Error(`usage: --child ${WORK_KINDS.join('|')} PHOTOS_DIR OUT_DIR THREADS PARALLEL`);
  }
  const result = await runWork(kind as WorkKind, photosDir, out, Number(threads ?? 1), Number(parallel ?? 1));
  // Every output must be a real file: a benchmark that wrote nothing would look fast.
  if (result.outputFiles !== result.photos * SPECS.length || result.outputBytes === 0) {
    throw new Error(`${kind} wrote ${result.outputFiles} files for ${result.photos} photos`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
