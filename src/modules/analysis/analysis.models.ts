// The model stage of a photo's analysis (docs/api.md §30, docs/analysis.md, decisions/0028): what
// models read in the photo, each from files its npm package ships (nothing is downloaded, no photo
// leaves the process):
// - faces and things (COCO objects, people among them): @vladmandic/human's BlazeFace and CenterNet
//   on TensorFlow.js's WASM backend, its model files read from node_modules by a small load router
//   (tfjs-core alone can only fetch over HTTP);
// - words: tesseract.js with the English data of @tesseract.js-data/eng, in one worker thread;
// - QR codes: jsqr on the raw pixels.
// Each model is loaded once, on first use, in one worker thread (analysis.models.thread.ts); one
// photo is read at a time (a queue), so the memory is the models' plus one photo's.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { AnalysisError, type PixelAnalysis } from './analysis.pixels.ts';

const require = createRequire(import.meta.url);

/** The copy the detectors see, long side in pixels (CenterNet reads 512x512, BlazeFace 256x256). */
const DETECT_EDGE = 1024;
/** The copy QR codes are read from: the `large` variant's own size, at most. */
const READ_EDGE = 2048;
/** The grey copy OCR reads, long side: larger copies cost seconds on busy photos, read no better. */
const OCR_EDGE = 1280;
/** Things seen with less confidence are left out (measured in docs/analysis.md). */
const OBJECT_MIN_CONFIDENCE = 0.45;
/** Faces found with less confidence are not counted. */
const FACE_MIN_CONFIDENCE = 0.6;
/** Words read with less confidence (0..1) are left out: at this level they are mostly noise. */
const WORD_MIN_CONFIDENCE = 0.8;
/** A photo's QR codes: at most this many are looked for. */
const MAX_QR_CODES = 8;

export interface Seen {
  label: string;
  confidence: number;
}

export interface ModelAnalysis {
  faces: number;
  people: number;
  objects: Seen[];
  /** Null when reading text is off (ANALYSIS_OCR=off): not read. */
  text: { text: string; confidence: number }[] | null;
  qrCodes: { data: string }[];
  /** Shares of the photo's pixels the room inference uses (analysis.rooms.ts). */
  scene: SceneStats;
  /** The process's CPU time each part took, in ms (for measuring: docs/analysis.md); not recorded. */
  cpuMs: { detect: number; ocr: number; qr: number };
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return Math.round((used.user + used.system) / 1000);
}

export interface SceneStats {
  /** Near-white, unsaturated pixels (paper, a floor plan's ground). */
  white: number;
  /** Dark pixels (a floor plan's lines). */
  dark: number;
  /** Mean saturation, 0..1. */
  saturation: number;
  /** Of the top third: sky-blue pixels (hue 195..235°, saturated, bright). */
  sky: number;
  /** Of the bottom half: pool-water pixels (hue 170..210°, saturated, bright). */
  water: number;
}

/** Reads a photo file with the models. */
export interface ModelReader {
  read(file: string): Promise<ModelAnalysis>;
  /**
   * The pixel stage (analysis.pixels.ts) where the models are read, when that is another thread:
   * its passes over the grey copy are JavaScript too. Without it the job runs it in its own thread.
   */
  pixels?(file: string): Promise<PixelAnalysis>;
  /** Ends the OCR worker thread, if one was started (the detectors hold nothing open). */
  close(): Promise<void>;
}

interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

async function decode(input: string, edge: number, channels: 3 | 4, maxPixels: number): Promise<Rgb> {
  try {
    let img = sharp(input, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .resize(edge, edge, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb');
    img = channels === 4 ? img.ensureAlpha(1) : img.removeAlpha();
    const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (err) {
    throw new AnalysisError(`cannot decode the photo: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The hue of a colour, in degrees. */
function hue(r: number, g: number, b: number, max: number, min: number): number {
  const d = max - min;
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

/** Plain counts over the detectors' copy (RGB): what a floor plan, a sky, a pool look like. */
function sceneStats({ data, width, height }: Rgb): SceneStats {
  let white = 0;
  let dark = 0;
  let saturation = 0;
  let sky = 0;
  let water = 0;
  const top = Math.floor(height / 3);
  const bottom = Math.floor(height / 2);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const r = data[i] ?? 0;
      const g = data[i + 1] ?? 0;
      const b = data[i + 2] ?? 0;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      const s = max === 0 ? 0 : (max - min) / max;
      saturation += s;
      if (min >= 225 && s < 0.08) white++;
      if (max <= 80) dark++;
      if (s >= 0.25 && max >= 115 && (y < top || y >= bottom)) {
        const h = hue(r, g, b, max, min);
        if (y < top && h >= 195 && h <= 235) sky++;
        if (y >= bottom && h >= 170 && h <= 210) water++;
      }
    }
  }
  const n = width * height;
  return {
    white: white / n,
    dark: dark / n,
    saturation: saturation / n,
    sky: sky / (width * top || 1),
    water: water / (width * (height - bottom) || 1),
  };
}

// --- @vladmandic/human (faces, objects) -------------------------------------------------------

type HumanModule = typeof import('@vladmandic/human');
type Human = InstanceType<HumanModule['Human']>;
/** human's `tf` is typed `any`: it is @tensorflow/tfjs-core's module. */
type Tf = typeof import('@tensorflow/tfjs-core');

let human: Promise<Human> | undefined;

/** Loads the detectors once per process: the WASM backend and two models, all from node_modules. */
function detectors(): Promise<Human> {
  human ??= (async () => {
    // The package's `node` entry would load tfjs-node (a native build): its WASM bundle is taken
    // from the same folder instead (its exports map names it without the leading `./`).
    const dist = path.dirname(require.resolve('@vladmandic/human'));
    const H = (require(path.join(dist, 'human.node-wasm.js')) as HumanModule).Human;
    const models = path.join(dist, '..', 'models');
    const wasm = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    const h = new H({
      backend: 'wasm',
      wasmPath: `${wasm}${path.sep}`,
      modelBasePath: `file://${models}/`,
      debug: false,
      async: false,
      warmup: 'none',
      cacheModels: false,
      // Each photo is new: never reuse a result for an input that looks alike (a video's frames).
      cacheSensitivity: 0,
      filter: { enabled: false },
      gesture: { enabled: false },
      body: { enabled: false },
      hand: { enabled: false },
      segmentation: { enabled: false },
      face: {
        enabled: true,
        detector: { rotation: false, maxDetected: 50, minConfidence: FACE_MIN_CONFIDENCE, return: false },
        mesh: { enabled: false },
        attention: { enabled: false },
        iris: { enabled: false },
        emotion: { enabled: false },
        description: { enabled: false },
        antispoof: { enabled: false },
        liveness: { enabled: false },
      },
      object: { enabled: true, maxDetected: 30, minConfidence: OBJECT_MIN_CONFIDENCE },
    });
    routeFileUrls(h.tf as Tf);
    await h.load();
    return h;
  })();
  // A failed load is tried again on the next photo, not remembered.
  human.catch(() => (human = undefined));
  return human;
}

interface ModelJson {
  modelTopology: unknown;
  format?: string;
  generatedBy?: string;
  convertedBy?: string;
  signature?: unknown;
  userDefinedMetadata?: Record<string, unknown>;
  modelInitializer?: unknown;
  weightsManifest: { paths: string[]; weights: unknown[] }[];
}

let routed = false;

/** tfjs-core loads models over HTTP only: `file://` URLs are read from the disk here instead. */
function routeFileUrls(tf: Tf): void {
  if (routed) return;
  routed = true;
  // A router answers null for the URLs it does not take (tfjs's own do), which its type leaves out.
  const router = (url: string | string[]) => {
    const first = Array.isArray(url) ? url[0] : url;
    if (typeof first !== 'string' || !first.startsWith('file://')) return null;
    const file = first.slice('file://'.length);
    return {
      load: async () => {
        const json = JSON.parse(await readFile(file, 'utf8')) as ModelJson;
        const dir = path.dirname(file);
        const parts: Buffer[] = [];
        const weightSpecs: unknown[] = [];
        for (const group of json.weightsManifest) {
          weightSpecs.push(...group.weights);
          for (const p of group.paths) parts.push(await readFile(path.join(dir, p)));
        }
        const all = Buffer.concat(parts);
        return {
          modelTopology: json.modelTopology,
          format: json.format,
          generatedBy: json.generatedBy,
          convertedBy: json.convertedBy,
          signature: json.signature,
          userDefinedMetadata: json.userDefinedMetadata,
          modelInitializer: json.modelInitializer,
          weightSpecs,
          weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.length),
        } as never;
      },
    };
  };
  tf.io.registerLoadRouter(router as unknown as Parameters<Tf['io']['registerLoadRouter']>[0]);
}

async function detect(rgb: Rgb): Promise<{ faces: number; objects: Seen[] }> {
  const h = await detectors();
  const tf = h.tf as Tf;
  const input = tf.tensor3d(new Uint8Array(rgb.data.buffer, rgb.data.byteOffset, rgb.data.length), [rgb.height, rgb.width, 3], 'int32'); // prettier-ignore
  try {
    const result = await h.detect(input);
    if (result.error !== null && result.error !== undefined) throw new Error(`detection failed: ${result.error}`);
    return {
      faces: result.face.filter((f) => (f.boxScore ?? f.score) >= FACE_MIN_CONFIDENCE).length,
      objects: result.object
        .filter((o) => o.score >= OBJECT_MIN_CONFIDENCE)
        .map((o) => ({ label: o.label, confidence: round(o.score) }))
        .sort((a, b) => b.confidence - a.confidence),
    };
  } finally {
    tf.dispose(input);
  }
}

// --- tesseract.js (words) ---------------------------------------------------------------------

type Tesseract = typeof import('tesseract.js');
type OcrWorker = Awaited<ReturnType<Tesseract['createWorker']>>;

let ocr: Promise<OcrWorker> | undefined;

/** One OCR worker thread per process, its English data read from @tesseract.js-data/eng. */
function reader(): Promise<OcrWorker> {
  ocr ??= (async () => {
    const lib = ((await import('tesseract.js')) as unknown as { default: Tesseract }).default;
    const eng = require('@tesseract.js-data/eng') as { langPath: string };
    const worker = await lib.createWorker('eng', lib.OEM.LSTM_ONLY, {
      langPath: eng.langPath,
      gzip: true,
      // The data is read from the package, and no copy of it is written anywhere.
      cacheMethod: 'none',
      logger: () => undefined,
      errorHandler: () => undefined,
    });
    // A photo has no resolution tesseract could trust: naming one stops it guessing (and logging).
    await worker.setParameters({ user_defined_dpi: '150' });
    return worker;
  })();
  ocr.catch(() => (ocr = undefined));
  return ocr;
}

async function greyJpeg(file: string, maxPixels: number): Promise<Buffer> {
  try {
    return await sharp(file, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .resize(OCR_EDGE, OCR_EDGE, { fit: 'inside', withoutEnlargement: true })
      .greyscale()
      .jpeg({ quality: 92 })
      .toBuffer();
  } catch (err) {
    throw new AnalysisError(`cannot decode the photo: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function readWords(image: Buffer): Promise<{ text: string; confidence: number }[]> {
  const worker = await reader();
  const { data } = await worker.recognize(image, {}, { blocks: true, text: false });
  const words: { text: string; confidence: number }[] = [];
  for (const block of data.blocks ?? [])
    for (const para of block.paragraphs)
      for (const line of para.lines)
        for (const word of line.words) {
          const text = word.text.trim();
          const confidence = word.confidence / 100;
          // A word has a letter or a digit; a lone character must be a digit (texture reads as `l`, `i`).
          if (confidence < WORD_MIN_CONFIDENCE || !/[\p{L}\p{N}]/u.test(text)) continue;
          if (/^\p{L}$/u.test(text)) continue;
          words.push({ text: text.slice(0, 1000), confidence: round(confidence) });
        }
  return words.slice(0, 1000);
}

// --- jsqr (QR codes) --------------------------------------------------------------------------

type JsQr = typeof import('jsqr').default;
let jsqr: JsQr | undefined;

/** Every QR code jsqr finds, each blanked out in turn so the next can be found. */
async function readQrCodes(rgba: Rgb): Promise<{ data: string }[]> {
  jsqr ??= ((await import('jsqr')) as unknown as { default: JsQr }).default;
  const pixels = new Uint8ClampedArray(rgba.data.buffer, rgba.data.byteOffset, rgba.data.length);
  const found: { data: string }[] = [];
  for (let i = 0; i < MAX_QR_CODES; i++) {
    const code = jsqr(pixels, rgba.width, rgba.height, { inversionAttempts: 'dontInvert' });
    if (code === null) break;
    found.push({ data: code.data.slice(0, 4096) });
    const { topLeftCorner: a, topRightCorner: b, bottomLeftCorner: c, bottomRightCorner: d } = code.location;
    const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x, c.x, d.x)) - 4);
    const x1 = Math.min(rgba.width, Math.ceil(Math.max(a.x, b.x, c.x, d.x)) + 4);
    const y0 = Math.max(0, Math.floor(Math.min(a.y, b.y, c.y, d.y)) - 4);
    const y1 = Math.min(rgba.height, Math.ceil(Math.max(a.y, b.y, c.y, d.y)) + 4);
    for (let y = y0; y < y1; y++) pixels.fill(255, (y * rgba.width + x0) * 4, (y * rgba.width + x1) * 4);
  }
  return found;
}

// --- the stage --------------------------------------------------------------------------------

const round = (v: number): number => Math.round(v * 1000) / 1000;

export interface ModelOptions {
  /** ANALYSIS_OCR: read words (on by default). */
  ocr: boolean;
  maxPixels: number;
}

/**
 * A model reader in the calling thread: one photo at a time, each model loaded on first use. The
 * service reads through `modelReader` (analysis.models.thread.ts), which runs this in a thread of
 * its own so the detectors' synchronous WASM never holds up the API's event loop.
 */
export function localModelReader(options: ModelOptions): ModelReader {
  let queue: Promise<unknown> = Promise.resolve();
  async function readOne(file: string): Promise<ModelAnalysis> {
    let start = process.cpuUsage();
    const small = await decode(file, DETECT_EDGE, 3, options.maxPixels);
    const { faces, objects } = await detect(small);
    const scene = sceneStats(small);
    const detectMs = cpuSince(start);
    start = process.cpuUsage();
    const text = options.ocr ? await readWords(await greyJpeg(file, options.maxPixels)) : null;
    const ocrMs = cpuSince(start);
    start = process.cpuUsage();
    const qrCodes = await readQrCodes(await decode(file, READ_EDGE, 4, options.maxPixels));
    return {
      faces,
      people: objects.filter((o) => o.label === 'person').length,
      objects,
      text,
      qrCodes,
      scene,
      cpuMs: { detect: detectMs, ocr: ocrMs, qr: cpuSince(start) },
    };
  }
  return {
    read(file) {
      const run = queue.then(() => readOne(file));
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      await queue;
      const worker = ocr;
      ocr = undefined;
      if (worker !== undefined) await (await worker.catch(() => undefined))?.terminate();
    },
  };
}
