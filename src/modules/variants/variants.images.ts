// The image work of photo variants (docs/api.md §13): from an original on local disk, the
// `thumb`, `medium`, `large` and `mls` files, upright, sRGB, stripped of every metadata block, never
// enlarged. Pure image work: the durable queue, the rows and the routes live elsewhere.
//
// How (measured by `npm run bench:variants`, 6000x4000 JPEGs, 2 cores):
// - One decode per photo. sharp runs one libvips pipeline per output, and each pipeline decodes
//   the original again; sharp's clone() shares options, not pixels. Shrink-on-load does not save
//   that here: libvips can decode a JPEG at 1/2, 1/4 or 1/8, but sharp halves the factor it would
//   use when the shrink is just above it (6000 -> 2048 is a shrink of 2.93, so `large` and `mls`
//   decode at full size), and only `thumb` decodes at 1/8. So the original is decoded once, upright
//   and sRGB, into raw pixels at the smallest size every box can be cut from (2048x1365 for a
//   3:2 photo, at most 2048x2048x4 bytes = 16 MiB with the default boxes, whatever the original's
//   size); each variant is resized from those. Outputs of the same format and size (`large` and
//   `mls` for any landscape photo of 4:3 or wider) are encoded once and stored under both names.
//   About 190 ms of CPU per 24-MP photo against about 400 ms for three plain sharp calls.
// - Work inside one call is sequential: at most one sharp pipeline runs per call, so one call
//   occupies one libuv worker thread and `configureSharp`'s threads. How many photos run at
//   once is the job runner's choice, in one place.
//
// Input is a file path on purpose. sharp does not stream an input stream through libvips: its
// writable side pushes every chunk into an array and, on 'finish', Buffer.concat()s them into one
// Buffer (briefly twice the file) before the pipeline starts (node_modules/sharp/dist/input.mjs
// `_write` and `_flattenBufferIn`, output.mjs `_pipeline`). An original read from S3 must therefore
// be streamed to a temporary file first (bounded by the upload limit, deleted afterwards) to keep
// "no original held whole in memory". From a file, libvips decodes a JPEG or PNG sequentially,
// in strips. (sharp's output stream is no better: it emits the finished file as one chunk, so
// variants are encoded to a Buffer, which the boxes bound, and streamed to `put` from there.)
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { LABELLED_VARIANTS, stagingLabelOverlay } from './variants.staging.ts';

/**
 * `medium` (a 1024 px WebP) is the public pages' own (issue 37 §5): what a phone's screen needs
 * of a cover or a photo, a fifth of the large JPEG's bytes. The API does not list it (docs/api.md
 * §13 names three); the pages' image routes serve it.
 */
export const VARIANT_NAMES = ['thumb', 'medium', 'large', 'mls'] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];
/**
 * The variants every ready photo has (docs/api.md §13). `medium` is not one: photos made before
 * it have none (the pages do without), so \`lightbox doctor\` does not call them stalled;
 * \`lightbox media variants --all\` makes it for them.
 */
export const REQUIRED_VARIANT_NAMES: readonly VariantName[] = ['thumb', 'large', 'mls'];

export interface Box {
  width: number;
  height: number;
}

export interface VariantSpec {
  name: VariantName;
  format: 'webp' | 'jpeg';
  box: Box;
  contentType: string;
  /**
   * docs/api.md §31 (a gallery's MLS profile, for its `mls` variant): the largest file, met by
   * encoding again at lower JPEG qualities, then smaller, but never below `minLongEdge` on the long
   * side (nor above the original's). A photo that cannot fit even so keeps the smallest made.
   */
  cap?: { maxBytes: number; minLongEdge: number };
}

export interface MadeVariant {
  name: VariantName;
  contentType: string;
  width: number;
  height: number;
  size: number;
  /** docs/api.md §31: drawn with the "Virtually staged" label (variants.staging.ts). */
  labelled: boolean;
}

export const THUMB_BOX: Box = { width: 480, height: 480 };
const MEDIUM_BOX: Box = { width: 1024, height: 1024 };
export const LARGE_BOX: Box = { width: 2048, height: 2048 };
/** `VARIANT_MLS_SIZE` when unset. */
export const DEFAULT_MLS_BOX: Box = { width: 2048, height: 1536 };

/** A gallery's MLS profile's ask of its `mls` variants (docs/api.md §31). */
export interface MlsFit {
  maxLongEdge: number;
  minLongEdge: number;
  maxBytes: number;
  /** A staged photo's variants carry the "Virtually staged" label (variants.staging.ts). */
  discloseStaging: boolean;
}

/** The variants of a photo: the `mls` one in the configured box, or fitting the gallery's MLS profile. */
export function variantSpecs(mlsBox: Box, fit?: MlsFit): VariantSpec[] {
  const mls: VariantSpec =
    fit === undefined
      ? { name: 'mls', format: 'jpeg', box: mlsBox, contentType: 'image/jpeg' }
      : {
          name: 'mls',
          format: 'jpeg',
          box: { width: fit.maxLongEdge, height: fit.maxLongEdge },
          contentType: 'image/jpeg',
          cap: { maxBytes: fit.maxBytes, minLongEdge: fit.minLongEdge },
        };
  return [
    { name: 'thumb', format: 'webp', box: THUMB_BOX, contentType: 'image/webp' },
    { name: 'medium', format: 'webp', box: MEDIUM_BOX, contentType: 'image/webp' },
    { name: 'large', format: 'jpeg', box: LARGE_BOX, contentType: 'image/jpeg' },
    mls,
  ];
}

/**
 * The photo itself cannot be made into variants (truncated, undecodable, over the pixel limit):
 * trying again will not help, so its variants end `failed`. `message` is a short reason for an
 * operator. Anything else thrown by makeVariants (the source missing, `put` failing) is not this.
 */
export class VariantError extends Error {
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = 'VariantError';
  }
}

/**
 * Bounds sharp's own thread pool and turns its cache off. libvips' operation cache only pays
 * when the same file is processed again, which never happens here (one decode per photo), and it
 * keeps up to 20 files open: temporary copies of S3 originals would stay on disk after deletion.
 * Each pipeline also takes one libuv worker thread (default pool: 4, shared with fs, scrypt and
 * zlib) for its whole run.
 */
export function configureSharp(options: { threads: number }): void {
  sharp.concurrency(options.threads);
  sharp.cache(false);
}

// JPEG: quality 82 with 4:2:0 chroma and optimised Huffman tables, progressive as the contract
// asks. mozjpeg's trellis quantisation makes files about a tenth smaller but took 4x the encode
// time of a 2048x1365 variant (190 ms against 45 ms), more than the decode. WebP: quality 80 at
// the default effort; a 480 px thumbnail encodes in a few milliseconds either way, a 1024 px
// medium in a few tens.
const JPEG_OPTIONS = { quality: 82, progressive: true, chromaSubsampling: '4:2:0', mozjpeg: false } as const;
const WEBP_OPTIONS = { quality: 80 } as const;
const WHITE = { r: 255, g: 255, b: 255 };

// libjpeg reports a truncated file, and damaged headers or tables, as errors, and damage inside
// the compressed data (a bad Huffman code, "invalid SOS parameters") as warnings. sharp's default
// 'warning' refuses the second kind too, which refuses photos every browser shows: some phones'
// firmware writes them (lovell/sharp#1578, #3488). 'error' refuses what cannot be decoded.
const FAIL_ON = 'error';

/** The largest size within `box` with `size`'s aspect ratio, never larger than `size`. */
export function fitInside(size: Box, box: Box): Box {
  const scale = Math.min(box.width / size.width, box.height / size.height, 1);
  return {
    width: Math.max(1, Math.min(box.width, Math.round(size.width * scale))),
    height: Math.max(1, Math.min(box.height, Math.round(size.height * scale))),
  };
}

/**
 * Reads the original at `source` (a local file), writes each variant through `put`, and returns
 * what it made, in the order of `specs`. Throws VariantError when the photo cannot be decoded.
 * Variants are written one by one: when `put` fails, the earlier ones are already stored.
 */
export async function makeVariants(
  source: string,
  specs: VariantSpec[],
  put: (name: VariantName, body: Readable, contentType: string) => Promise<void>,
  options: { maxPixels: number; /** docs/api.md §31: label the large, mls and medium variants. */ label?: boolean },
): Promise<MadeVariant[]> {
  if (specs.length === 0) return [];
  await stat(source); // a missing original is the storage's problem, not the photo's
  const meta = await readHeader(source, options.maxPixels);
  const upright = meta.autoOrient;
  const union = {
    width: Math.max(...specs.map((s) => s.box.width)),
    height: Math.max(...specs.map((s) => s.box.height)),
  };
  const pixels = await decodeUpright(source, meta, fitInside(upright, union), options.maxPixels);

  const made: MadeVariant[] = [];
  const encoded = new Map<string, { data: Buffer; width: number; height: number }>();
  for (const spec of specs) {
    const size = fitInside(upright, spec.box);
    const labelled = options.label === true && LABELLED_VARIANTS.includes(spec.name);
    const key = `${spec.format} ${size.width}x${size.height}${labelled ? ' labelled' : ''}`;
    let out = encoded.get(key);
    if (out === undefined) {
      out = await encode(pixels, size, spec.format, { labelled });
      encoded.set(key, out);
    }
    if (spec.cap !== undefined && out.data.length > spec.cap.maxBytes)
      out = await withinCap(pixels, size, spec.cap, labelled);
    await put(spec.name, Readable.from(out.data, { objectMode: false }), spec.contentType);
    made.push({ name: spec.name, contentType: spec.contentType, width: out.width, height: out.height, size: out.data.length, labelled }); // prettier-ignore
  }
  return made;
}

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

async function readHeader(source: string, maxPixels: number): Promise<Metadata> {
  let meta: Metadata;
  try {
    meta = await sharp(source, { failOn: FAIL_ON }).metadata();
  } catch (error) {
    throw decodeError(error, maxPixels);
  }
  // Checked here too: the pipeline's own check comes after the header, and says less.
  if (meta.width * meta.height > maxPixels) {
    throw new VariantError(`the photo is ${meta.width}x${meta.height}, over the limit of ${maxPixels} pixels`);
  }
  return meta;
}

/**
 * The original, decoded once: upright (EXIF orientation applied, rotated after the resize, on
 * the small image), first frame only (sharp reads one page unless told otherwise), 8-bit sRGB
 * with alpha kept, at `size`.
 *
 * sRGB: sharp converts an embedded profile (Adobe RGB, Display P3, ...) to sRGB, and CMYK through
 * its bundled CMYK profile, except that a 16-bit RGB image with a profile goes to Display P3
 * (sharp 0.35 picks P3 as the working space for 16-bit input) and is then cast to 8 bits as it
 * is: P3 numbers in an untagged, so sRGB, file. withIccProfile('srgb') converts those from P3;
 * it must not be asked for otherwise, as it would read untagged 16-bit numbers as P3 too.
 */
async function decodeUpright(source: string, meta: Metadata, size: Box, maxPixels: number): Promise<Pixels> {
  let image: Sharp = sharp(source, { failOn: FAIL_ON, limitInputPixels: maxPixels })
    .autoOrient()
    .resize(size.width, size.height, { fit: 'fill' });
  if (meta.space === 'rgb16' && meta.hasProfile) image = image.withIccProfile('srgb', { attach: false });
  try {
    const { data, info } = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  } catch (error) {
    throw decodeError(error, maxPixels);
  }
}

/**
 * One variant from the decoded pixels. Nothing but pixels reaches the encoder (raw input carries
 * no EXIF, XMP, IPTC, comment or profile, and sharp keeps none unless asked), so the file holds
 * no metadata at all. No ICC profile either: the contract allows an sRGB one, but an untagged
 * image is sRGB to every browser (CSS Color 4), and attaching it costs an identity colour
 * transform of every pixel (10-30 ms per 2048 px JPEG here) for 480 bytes that change nothing.
 */
async function encode(
  pixels: Pixels,
  size: Box,
  format: VariantSpec['format'],
  { quality = JPEG_OPTIONS.quality, labelled = false }: { quality?: number; labelled?: boolean } = {},
): Promise<{ data: Buffer; width: number; height: number }> {
  let image = sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
    limitInputPixels: false,
  });
  if (size.width !== pixels.width || size.height !== pixels.height) {
    image = image.resize(size.width, size.height, { fit: 'fill' });
  }
  if (labelled) {
    // docs/api.md §31: the label over the resized pixels (sharp composites after its resize).
    const resized = await image.raw().toBuffer({ resolveWithObject: true });
    image = sharp(resized.data, {
      raw: { width: resized.info.width, height: resized.info.height, channels: resized.info.channels },
      limitInputPixels: false,
    }).composite([{ input: await stagingLabelOverlay(resized.info.width, resized.info.height) }]);
    const drawn = await image.raw().toBuffer({ resolveWithObject: true });
    image = sharp(drawn.data, {
      raw: { width: drawn.info.width, height: drawn.info.height, channels: drawn.info.channels },
      limitInputPixels: false,
    });
  }
  // JPEG has no alpha: transparent parts become white, as on a page, not black as dropping it would.
  image =
    format === 'jpeg'
      ? image.flatten({ background: WHITE }).jpeg({ ...JPEG_OPTIONS, quality })
      : image.webp(WEBP_OPTIONS);
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** docs/api.md §31: the JPEG qualities tried, in turn, for a file over its profile's cap. */
const CAP_QUALITIES = [72, 62, 52, 42, 32] as const;
/** Then at the lowest, smaller this many times at most (each step aimed at the cap from the last size). */
const CAP_SHRINKS = 8;

/**
 * The JPEG of `size` within `cap.maxBytes`: encoded again at lower qualities, then (at the lowest)
 * made smaller, its long side never below `cap.minLongEdge` (nor `size`'s own). The last one made
 * when none fits.
 */
async function withinCap(
  pixels: Pixels,
  size: Box,
  cap: NonNullable<VariantSpec['cap']>,
  labelled: boolean,
): Promise<{ data: Buffer; width: number; height: number }> {
  let out = await encode(pixels, size, 'jpeg', { labelled });
  for (const quality of CAP_QUALITIES) {
    if (out.data.length <= cap.maxBytes) return out;
    out = await encode(pixels, size, 'jpeg', { quality, labelled });
  }
  const longEdge = Math.max(size.width, size.height);
  const floor = Math.min(longEdge, cap.minLongEdge);
  let current = size;
  for (let i = 0; i < CAP_SHRINKS && out.data.length > cap.maxBytes; i += 1) {
    const edge = Math.max(current.width, current.height);
    if (edge <= floor) break;
    // Bytes go roughly with the area: aim just under the cap, and at least a step smaller.
    const scale = Math.min(0.95, Math.sqrt(cap.maxBytes / out.data.length) * 0.95);
    const target = Math.max(floor, Math.floor(edge * scale));
    current = fitInside(size, { width: target, height: target });
    out = await encode(pixels, current, 'jpeg', { quality: CAP_QUALITIES.at(-1), labelled });
  }
  return out;
}

/** A short reason for an operator, from what libvips said. */
function decodeError(error: unknown, maxPixels: number): VariantError {
  const message = error instanceof Error ? error.message : String(error);
  const reason = /premature end|truncated/i.test(message)
    ? 'the file is truncated: its image data ends early'
    : /exceeds pixel limit/i.test(message)
      ? `the photo is over the limit of ${maxPixels} pixels`
      : /unsupported image format/i.test(message)
        ? 'the file is not in an image format this server can decode'
        : /HEVC/.test(message)
          ? 'HEIC photos coded in HEVC cannot be decoded by this build of libvips (no HEVC decoder)'
          : `the photo cannot be decoded: ${lastLine(message)}`;
  return new VariantError(reason, { cause: error });
}

const lastLine = (message: string): string =>
  (
    message
      .split('\n')
      .filter((line) => line.trim() !== '')
      .pop() ?? message
  )
    .trim()
    .slice(0, 200);
