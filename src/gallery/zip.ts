// A streaming ZIP writer for the client gallery's "Download all" (docs/api.md §14).
//
// Why not a ZIP library: the response needs a Content-Length before the first byte and
// must serve any byte range (Range / If-Range) so that a broken 10 GB download resumes,
// without a temporary file. That is possible because entries are stored (method 0) and
// every entry's size and CRC-32 are known at upload: then every header, and the offset of
// every byte, is a pure function of the entry list. planZip() computes that layout once;
// zipStream() (zip-stream.ts) walks it for any range, generating header bytes and asking
// storage only for the slices of entry data that fall inside the range.
import { createHash } from 'node:crypto';
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

interface ZipPlannedEntry {
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
