// A streaming ZIP writer for the client gallery's "Download all" (API.md section 14).
//
// Why not a ZIP library: the response needs a Content-Length before the first byte and
// must serve any byte range (Range / If-Range) so that a broken 10 GB download resumes,
// without a temporary file. That is possible because entries are stored (method 0) and
// every entry's size and CRC-32 are known at upload: then every header, and the offset of
// every byte, is a pure function of the entry list. planZip() computes that layout once;
// zipStream() walks it for any range, generating header bytes and asking storage only for
// the slices of entry data that fall inside the range.
import { createHash } from 'node:crypto';
import { finished, Readable } from 'node:stream';
import { centralHeader, endRecords, localHeader, MAX_32, type EntryFields } from './zip-format.ts';

export interface ZipEntryInput {
  /** The media filename (path parts already stripped); planZip makes it safe and unique. */
  name: string;
  /** Bytes, known up front; may exceed 4 GiB. */
  size: number;
  /** CRC-32 of the bytes, recorded at upload. */
  crc32: number;
  modifiedAt: Date;
  /** Opaque (e.g. media id + sha256): it only feeds the ETag. */
  identity: string;
}

export interface ZipPlannedEntry {
  /** The name inside the archive, after uniqueNames(). */
  readonly name: string;
  readonly size: number;
  /** Where its local header starts, and where its data starts. */
  readonly headerOffset: number;
  readonly dataOffset: number;
}

/** A run of the archive: generated header bytes, or the data of entry `entry`. */
export type ZipSegment =
  | { readonly kind: 'header'; readonly offset: number; readonly length: number; readonly bytes: Buffer }
  | { readonly kind: 'data'; readonly offset: number; readonly length: number; readonly entry: number };

export interface ZipPlan {
  /** Total bytes of the archive: the Content-Length. */
  readonly size: number;
  /** Strong, quoted ETag; changes with any name, size, CRC, time, identity or the order. */
  readonly etag: string;
  readonly entries: readonly ZipPlannedEntry[];
  /** The layout, in order, covering [0, size) without gaps; read by zipStream. */
  readonly segments: readonly ZipSegment[];
}

/** Inclusive byte range, as in an HTTP Range header. */
export interface ZipRange {
  start: number;
  end: number;
}

/** Opens bytes [start, end] (inclusive, relative to the entry) of entry `index`'s data. */
export type OpenEntryRange = (index: number, start: number, end: number) => Promise<Readable>;

/** Filesystems (ext4, NTFS, APFS) cap a name at 255 bytes or units; a longer one fails to extract. */
const MAX_NAME_BYTES = 255;
const MAX_EXT_CHARS = 16;
// Control characters (C0, DEL, C1) are removed. Separators would make a path, and Windows,
// where many clients extract, refuses the other characters here: they become "_". Windows
// also drops trailing dots and spaces, so "a." and "a" would collide there: they go too.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const UNSAFE = /[/\\<>:"|?*]/g;
const TRAILING = /[. ]+$/;
/** Enough for one 1 MiB read to pass through without splitting, and bounded. */
const STREAM_BUFFER = 1024 * 1024;
const ETAG_FORMAT = 'lightbox-zip-v1';

/** How names collide on the client's disk: Windows and macOS compare without case. */
const collisionKey = (name: string): string => name.toLowerCase();
const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** An item known to exist (the lists are built together); the check satisfies strict indexing. */
function item<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`zip: no item ${index} in a list of ${list.length}`);
  return value;
}

function splitExtension(name: string): [base: string, ext: string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.length - dot > MAX_EXT_CHARS) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** base + suffix + ext, cutting whole code points off the base to stay within MAX_NAME_BYTES. */
function fitName(base: string, suffix: string, ext: string): string {
  const room = MAX_NAME_BYTES - utf8Length(suffix + ext);
  let cut = base;
  if (utf8Length(cut) > room) {
    const points = Array.from(cut);
    while (points.length > 0 && utf8Length(points.join('')) > room) points.pop();
    cut = points.join('');
  }
  return cut + suffix + ext;
}

/**
 * A name that is safe as a single file name: well-formed UTF-8 in NFC (macOS would treat two
 * normalisations as one file), none of the characters above, not empty, not "." or "..",
 * at most 255 bytes.
 */
function cleanName(raw: string): string {
  let name = raw.toWellFormed().normalize('NFC').replace(CONTROL, '').replace(UNSAFE, '_');
  if (utf8Length(name) > MAX_NAME_BYTES) {
    const [base, ext] = splitExtension(name);
    name = fitName(base, '', ext);
  }
  name = name.replace(TRAILING, '');
  return /^[.\s]*$/.test(name) ? 'file' : name;
}

/**
 * Makes names safe and unique as `name (2).ext`, without regard to case. A name keeps its
 * own form when it is the first of its kind, even if a later duplicate could have taken it:
 * ["a.jpg", "a.jpg", "a (2).jpg"] gives "a.jpg", "a (3).jpg", "a (2).jpg". Idempotent.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const cleaned = names.map(cleanName);
  const taken = new Set<string>();
  const result: (string | undefined)[] = cleaned.map((name) => {
    const key = collisionKey(name);
    if (taken.has(key)) return undefined;
    taken.add(key);
    return name;
  });
  // Where to resume counting for each duplicated name, so n copies cost O(n), not O(n²).
  const nextNumber = new Map<string, number>();
  return cleaned.map((name, i) => {
    const kept = result[i];
    if (kept !== undefined) return kept;
    const [base, ext] = splitExtension(name);
    const key = collisionKey(name);
    for (let n = nextNumber.get(key) ?? 2; ; n++) {
      const candidate = fitName(base, ` (${n})`, ext);
      if (!taken.has(collisionKey(candidate))) {
        taken.add(collisionKey(candidate));
        nextNumber.set(key, n + 1);
        return candidate;
      }
    }
  });
}

function checkEntry(e: ZipEntryInput, index: number): void {
  const where = `zip entry ${index}`;
  if (!Number.isSafeInteger(e.size) || e.size < 0) throw new RangeError(`${where}: bad size ${e.size}`);
  if (!Number.isInteger(e.crc32) || e.crc32 < 0 || e.crc32 > MAX_32) {
    throw new RangeError(`${where}: bad crc32 ${e.crc32}`);
  }
  if (Number.isNaN(e.modifiedAt.getTime())) throw new RangeError(`${where}: invalid modifiedAt`);
}

/**
 * The archive's layout: every header's bytes and offset, its total size and its ETag.
 * Names are passed through uniqueNames() here so a caller cannot forget to.
 */
export function planZip(inputs: readonly ZipEntryInput[]): ZipPlan {
  inputs.forEach(checkEntry);
  const names = uniqueNames(inputs.map((e) => e.name));
  const segments: ZipSegment[] = [];
  const entries: ZipPlannedEntry[] = [];
  const central: Buffer[] = [];
  const hash = createHash('sha256').update(ETAG_FORMAT);
  let offset = 0;

  inputs.forEach((input, index) => {
    const fields: EntryFields = {
      name: Buffer.from(item(names, index), 'utf8'),
      size: input.size,
      crc32: input.crc32,
      mtime: input.modifiedAt.getTime(),
    };
    const header = localHeader(fields, offset);
    segments.push({ kind: 'header', offset, length: header.length, bytes: header });
    if (fields.size > 0) {
      segments.push({ kind: 'data', offset: offset + header.length, length: fields.size, entry: index });
    }
    entries.push({
      name: item(names, index),
      size: fields.size,
      headerOffset: offset,
      dataOffset: offset + header.length,
    });
    central.push(centralHeader(fields, offset));
    // Length-prefixed, so no two different lists of identities hash alike.
    const identity = Buffer.from(input.identity, 'utf8');
    hash.update(header).update(`${identity.length}:`).update(identity);
    offset += header.length + fields.size;
    if (!Number.isSafeInteger(offset)) throw new RangeError('zip archive too large');
  });

  const cdSize = central.reduce((sum, b) => sum + b.length, 0);
  const tail = Buffer.concat([...central, endRecords(inputs.length, offset, cdSize)]);
  segments.push({ kind: 'header', offset, length: tail.length, bytes: tail });
  hash.update(tail);
  return {
    size: offset + tail.length,
    etag: `"${hash.digest('base64url')}"`,
    entries,
    segments,
  };
}

/** Index of the segment holding byte `position` (segments are sorted and contiguous). */
function segmentAt(segments: readonly ZipSegment[], position: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (item(segments, mid).offset <= position) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Streams bytes [range.start, range.end] of the archive (all of it without a range).
 * Entry data is read through `open` one entry at a time, asking only for the slice inside
 * the range. A failure of `open` or of a source, or a source that yields more or fewer bytes
 * than asked, destroys the stream with an error, so the HTTP layer aborts the response
 * instead of ending a corrupt archive cleanly.
 */
export function zipStream(plan: ZipPlan, open: OpenEntryRange, range?: ZipRange): Readable {
  const start = range?.start ?? 0;
  const end = range?.end ?? plan.size - 1;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= plan.size) {
    throw new RangeError(`range ${start}-${end} is outside the archive of ${plan.size} bytes`);
  }
  return new ArchiveStream(plan.segments, open, start, end);
}

class ArchiveStream extends Readable {
  readonly #segments: readonly ZipSegment[];
  readonly #open: OpenEntryRange;
  readonly #end: number;
  #position: number;
  #segment: number;
  /** The entry being read; paused whenever our own buffer is full (backpressure). */
  #source: Readable | undefined;
  #opening = false;

  constructor(segments: readonly ZipSegment[], open: OpenEntryRange, start: number, end: number) {
    super({ highWaterMark: STREAM_BUFFER });
    this.#segments = segments;
    this.#open = open;
    this.#end = end;
    this.#position = start;
    this.#segment = segmentAt(segments, start);
  }

  override _read(): void {
    if (this.#source !== undefined) this.#source.resume();
    else if (!this.#opening) this.#fill();
  }

  /** Pushes generated bytes until the buffer is full, the range ends, or entry data begins. */
  #fill(): void {
    while (this.#position <= this.#end) {
      const seg = item(this.#segments, this.#segment);
      const from = this.#position - seg.offset;
      const to = Math.min(seg.offset + seg.length - 1, this.#end) - seg.offset; // inclusive
      if (seg.kind === 'data') {
        this.#readEntry(seg.entry, from, to);
        return;
      }
      this.#position += to - from + 1;
      this.#segment++;
      if (!this.push(seg.bytes.subarray(from, to + 1))) return;
    }
    this.push(null);
  }

  #readEntry(index: number, from: number, to: number): void {
    this.#opening = true;
    // Through an async function, so that an `open` that throws instead of rejecting still
    // becomes a stream error rather than an exception in whichever callback got us here.
    (async () => this.#open(index, from, to))().then(
      (source) => {
        this.#opening = false;
        if (this.destroyed) source.destroy();
        else this.#pipe(source, index, to - from + 1);
      },
      (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  }

  #pipe(source: Readable, index: number, expected: number): void {
    this.#source = source;
    let received = 0;
    source.on('data', (chunk: unknown) => {
      if (!(chunk instanceof Uint8Array)) {
        this.destroy(new TypeError(`zip entry ${index}: its source gave a ${typeof chunk}, not bytes`));
        return;
      }
      received += chunk.length;
      if (received > expected) {
        this.destroy(new Error(`zip entry ${index}: its source gave more than the ${expected} bytes asked`));
        return;
      }
      this.#position += chunk.length;
      if (!this.push(chunk)) source.pause();
    });
    finished(source, (err) => {
      if (this.#source !== source) return; // we destroyed it ourselves
      this.#source = undefined;
      if (err) this.destroy(err);
      else if (received !== expected) {
        this.destroy(new Error(`zip entry ${index}: its source ended after ${received} of ${expected} bytes`));
      } else {
        this.#segment++;
        this.#fill();
      }
    });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const source = this.#source;
    this.#source = undefined;
    source?.destroy();
    callback(err);
  }
}
