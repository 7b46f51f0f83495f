// One pass over an uploaded file's bytes on their way to storage: sniff the type from the
// first bytes, hash, count, refuse past the size limit, and keep a bounded head for reading
// image dimensions. Nothing is ever held whole in memory.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata } from 'sharp';
import { AppError } from '../../errors.ts';
import type { MediaKind } from '../../db/schema.ts';

/** The sniffed MIME types we accept, and the kind each one is. */
const ACCEPTED: ReadonlyMap<string, MediaKind> = new Map<string, MediaKind>([
  ['image/jpeg', 'photo'],
  ['image/png', 'photo'],
  ['image/webp', 'photo'],
  ['image/gif', 'photo'],
  ['image/tiff', 'photo'],
  ['image/heic', 'photo'],
  ['image/heif', 'photo'],
  ['image/avif', 'photo'],
  ['video/mp4', 'video'],
  ['video/quicktime', 'video'],
  ['video/webm', 'video'],
  ['application/pdf', 'document'],
]);

export const ACCEPTED_TYPES = [...ACCEPTED.keys()];

/** Enough for file-type to tell every accepted format apart. */
const SNIFF_BYTES = 4100;
/** Kept for sharp to read a photo's header from; most formats need far less. */
export const HEAD_BYTES = 1024 * 1024;

export interface Sniffed {
  kind: MediaKind;
  contentType: string;
}

export class IngestStream extends Transform {
  readonly #hash: Hash = createHash('sha256');
  #crc = 0;
  readonly #maxBytes: number;
  readonly #filename: string;
  #size = 0;
  #head: Buffer[] = [];
  #headLength = 0;
  #pending: Buffer[] = [];
  #sniffed: Sniffed | undefined;

  constructor(options: { maxBytes: number; filename: string }) {
    super({ highWaterMark: 1024 * 1024 });
    this.#maxBytes = options.maxBytes;
    this.#filename = options.filename;
  }

  /**
   * Bytes seen so far. Deliberately not called `size`: @aws-sdk/lib-storage reads a body's
   * `size` as its total length, and took 0 (at the start) for "expect no parts".
   */
  get bytesSeen(): number {
    return this.#size;
  }

  get sniffed(): Sniffed | undefined {
    return this.#sniffed;
  }

  /** The first bytes of the file (all of it when it is at most HEAD_BYTES long). */
  get head(): Buffer {
    return Buffer.concat(this.#head, this.#headLength);
  }

  /** CRC-32 of the bytes so far (the ZIP of a gallery names it before each file's bytes). */
  get crc32(): number {
    return this.#crc;
  }

  digest(): string {
    return this.#hash.digest('hex');
  }

  tooLarge(): AppError {
    return new AppError(
      'payload_too_large',
      `${this.#filename} is larger than the limit of ${this.#maxBytes} bytes per file`,
      [{ field: 'files', message: `${this.#filename} exceeds ${this.#maxBytes} bytes` }],
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      callback(this.tooLarge());
      return;
    }
    this.#hash.update(chunk);
    this.#crc = crc32(chunk, this.#crc);
    if (this.#headLength < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.#headLength);
      this.#head.push(take);
      this.#headLength += take.length;
    }
    if (this.#sniffed !== undefined) {
      callback(null, chunk);
      return;
    }
    // Hold the first bytes back until their type is known: a refused file writes nothing.
    this.#pending.push(chunk);
    if (this.#headLength < SNIFF_BYTES) {
      callback();
      return;
    }
    this.#sniff().then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#sniffed !== undefined) {
      callback();
      return;
    }
    this.#sniff().then(() => callback(), callback);
  }

  async #sniff(): Promise<void> {
    const first = this.head.subarray(0, SNIFF_BYTES);
    // A TIFF's first directory may lie anywhere (libtiff writes it after the pixels); file-type
    // gives up when it is past the bytes it is shown. The header is enough: sharp reads the
    // directory from the whole file later and refuses the file if it is not a TIFF after all.
    const type = (await fileTypeFromBuffer(first)) ?? (isTiffHeader(first) ? TIFF : undefined);
    const kind = type === undefined ? undefined : ACCEPTED.get(type.mime);
    if (type === undefined || kind === undefined) {
      throw new AppError(
        'unsupported_media_type',
        `${this.#filename} is not a supported photo, video or document` +
          (type === undefined ? '' : ` (it is ${type.mime})`),
        [{ field: 'files', message: `${this.#filename}: accepted types are ${ACCEPTED_TYPES.join(', ')}` }],
      );
    }
    this.#sniffed = { kind, contentType: type.mime };
    for (const chunk of this.#pending) this.push(chunk);
    this.#pending = [];
  }
}

const TIFF = { mime: 'image/tiff' };

/** `II*\0` or `MM\0*`: a classic TIFF header (version 42), in either byte order. */
function isTiffHeader(bytes: Buffer): boolean {
  if (bytes.length < 8) return false;
  const order = bytes.toString('latin1', 0, 2);
  if (order === 'II') return bytes.readUInt16LE(2) === 42;
  if (order === 'MM') return bytes.readUInt16BE(2) === 42;
  return false;
}

export interface Dimensions {
  width: number;
  height: number;
}

/**
 * Reads a photo's dimensions from its header with sharp (never decoding pixels), from the kept
 * head or the stored file. null when the header cannot be read from `source`: when it is only a
 * head, that may be because sharp wants the whole file (WebP, GIF, TIFF; the caller then reads
 * the stored file); when when even the
 * whole file's header cannot be read: its bytes sniffed as a photo, so it is accepted without
 * dimensions and its variants end `failed` (docs/api.md §13). Refuses images over the pixel limit
 * (decompression bombs).
 */
export async function readDimensions(
  source: Buffer | string,
  limits: { maxPixels: number; filename: string },
): Promise<Dimensions | null> {
  let meta: Metadata | undefined;
  try {
    meta = await sharp(source, { limitInputPixels: false }).metadata();
  } catch {
    meta = undefined;
  }
  if (meta?.width === undefined || meta.height === undefined) return null;
  // What a viewer shows: EXIF orientation 5-8 swaps width and height (HEIF/AVIF come already
  // turned by libheif). sharp's own figure, so these always match the variants, which are made
  // with its autoOrient().
  const { width, height } = meta.autoOrient;
  if (width * height > limits.maxPixels) {
    throw new AppError(
      'payload_too_large',
      `${limits.filename} is ${width}x${height} pixels, over the limit of ${limits.maxPixels} pixels`,
      [{ field: 'files', message: `${limits.filename} exceeds ${limits.maxPixels} pixels` }],
    );
  }
  return { width, height };
}

/** The longest file name kept, in characters (code points). */
export const FILENAME_MAX = 255;

/** The uploaded name without any path parts or control characters; never empty. */
export function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  const trimmed = clean === '.' || clean === '..' ? '' : clean;
  if (trimmed === '') return 'file';
  // At most 255 characters (code points, as the documented maxLength counts), cut between
  // graphemes so that no accent or emoji sequence is split.
  let out = '';
  let length = 0;
  for (const { segment } of new Intl.Segmenter().segment(trimmed)) {
    const size = Array.from(segment).length;
    if (length + size > FILENAME_MAX) break;
    out += segment;
    length += size;
  }
  return out === '' ? 'file' : out;
}
