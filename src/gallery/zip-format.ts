// The byte records of a stored (method 0) ZIP archive, after PKWARE's APPNOTE.TXT 6.3.x.
// Every record is a pure function of its entry and offset, so the whole archive's layout,
// and therefore its length, is known before a byte is sent (see zip.ts).
//
// ZIP64 is used only where a 32-bit field cannot hold the value, because some older readers
// still stumble on ZIP64 records they do not need. A value equal to 0xFFFFFFFF (0xFFFF for
// counts) already counts as "does not fit": readers take that value as the marker meaning
// "look in the ZIP64 record", so writing it literally would be misread.

/** Largest value a 32-bit field may hold literally; this value itself is the ZIP64 marker. */
export const MAX_32 = 0xffffffff;
/** Largest entry count the end record may hold literally; 0xFFFF is the ZIP64 marker. */
const MAX_16 = 0xffff;

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_END64 = 0x06064b50;
const SIG_LOCATOR64 = 0x07064b50;

const LOCAL_FIXED = 30;
const CENTRAL_FIXED = 46;
const END_SIZE = 22;
const END64_SIZE = 56;
const LOCATOR64_SIZE = 20;

/** Bit 11: the name is UTF-8. Bit 3 (data descriptor) stays clear: sizes and CRC are up front. */
const FLAGS = 0x0800;
const VERSION_PLAIN = 20; // 2.0: stored files
const VERSION_ZIP64 = 45; // 4.5: ZIP64 extensions (APPNOTE 4.4.3.2)
/** Made by UNIX (high byte 3), so the external attributes below are read as a file mode. */
const MADE_BY = (3 << 8) | VERSION_ZIP64;
/** A regular file, rw-r--r--; without it unzip on UNIX would apply its own default mode. */
const EXTERNAL_ATTRS = (0o100644 << 16) >>> 0;

const TAG_ZIP64 = 0x0001;
const TAG_EXTENDED_TIME = 0x5455; // "UT": UNIX mtime in UTC, so the DOS time's zone does not matter

/** What a record needs to know about one entry; `name` is already UTF-8. */
export interface EntryFields {
  name: Buffer;
  size: number;
  crc32: number;
  /** Milliseconds since the epoch. */
  mtime: number;
}

const needsZip64Size = (size: number): boolean => size >= MAX_32;
const needsZip64Offset = (offset: number): boolean => offset >= MAX_32;

/**
 * MS-DOS date and time. DOS time has no zone; we write UTC so that the bytes (and the
 * ETag) do not depend on the server's zone, and add the "UT" field for readers that honour
 * it. Out-of-range dates are clamped to what the format can say (1980-2107).
 */
export function dosDateTime(mtime: number): { date: number; time: number } {
  const d = new Date(mtime);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(mtime) || year < 1980) return { date: (1 << 5) | 1, time: 0 };
  if (year > 2107) return { date: (127 << 9) | (12 << 5) | 31, time: (23 << 11) | (59 << 5) | 29 };
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/** The "UT" field holds a signed 32-bit UNIX time; outside that range we leave it out. */
function extendedTime(mtime: number): Buffer {
  const seconds = Math.floor(mtime / 1000);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 0x7fffffff) return Buffer.alloc(0);
  const b = Buffer.alloc(9);
  b.writeUInt16LE(TAG_EXTENDED_TIME, 0);
  b.writeUInt16LE(5, 2);
  b.writeUInt8(1, 4); // flags: modification time present (the central copy carries only it)
  b.writeUInt32LE(seconds, 5);
  return b;
}

/**
 * The ZIP64 extended information field (APPNOTE 4.5.3): it holds, in this fixed order,
 * only the values whose 32-bit field was set to 0xFFFFFFFF.
 */
function zip64Extra(values: readonly number[]): Buffer {
  if (values.length === 0) return Buffer.alloc(0);
  const b = Buffer.alloc(4 + 8 * values.length);
  b.writeUInt16LE(TAG_ZIP64, 0);
  b.writeUInt16LE(8 * values.length, 2);
  values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
  return b;
}

/**
 * "Version needed" is 4.5 for an entry that uses ZIP64 anywhere (its size, or only its
 * offset in the central directory), in both of its headers so that they agree.
 */
const versionNeeded = (e: EntryFields, offset: number): number =>
  needsZip64Size(e.size) || needsZip64Offset(offset) ? VERSION_ZIP64 : VERSION_PLAIN;

/**
 * Local file header of the entry that starts at `offset`. APPNOTE 4.5.3: in the local
 * header the ZIP64 field, when present, MUST hold both the original and the compressed size
 * (equal here: stored), and both 32-bit size fields are then 0xFFFFFFFF. The offset never
 * appears in a local header.
 */
export function localHeader(e: EntryFields, offset: number): Buffer {
  const big = needsZip64Size(e.size);
  const extra = Buffer.concat([zip64Extra(big ? [e.size, e.size] : []), extendedTime(e.mtime)]);
  const b = Buffer.alloc(LOCAL_FIXED + e.name.length + extra.length);
  const { date, time } = dosDateTime(e.mtime);
  b.writeUInt32LE(SIG_LOCAL, 0);
  b.writeUInt16LE(versionNeeded(e, offset), 4);
  b.writeUInt16LE(FLAGS, 6);
  b.writeUInt16LE(0, 8); // method 0: stored
  b.writeUInt16LE(time, 10);
  b.writeUInt16LE(date, 12);
  b.writeUInt32LE(e.crc32, 14);
  b.writeUInt32LE(big ? MAX_32 : e.size, 18); // compressed size
  b.writeUInt32LE(big ? MAX_32 : e.size, 22); // uncompressed size
  b.writeUInt16LE(e.name.length, 26);
  b.writeUInt16LE(extra.length, 28);
  e.name.copy(b, LOCAL_FIXED);
  extra.copy(b, LOCAL_FIXED + e.name.length);
  return b;
}

/**
 * Central directory header for the entry whose local header starts at `offset`. The ZIP64
 * field lists, in APPNOTE order (original size, compressed size, local header offset), only
 * the values too big for their 32-bit field; the disk number (always 0) never needs it.
 */
export function centralHeader(e: EntryFields, offset: number): Buffer {
  const bigSize = needsZip64Size(e.size);
  const bigOffset = needsZip64Offset(offset);
  const values = [...(bigSize ? [e.size, e.size] : []), ...(bigOffset ? [offset] : [])];
  const extra = Buffer.concat([zip64Extra(values), extendedTime(e.mtime)]);
  const b = Buffer.alloc(CENTRAL_FIXED + e.name.length + extra.length);
  const { date, time } = dosDateTime(e.mtime);
  b.writeUInt32LE(SIG_CENTRAL, 0);
  b.writeUInt16LE(MADE_BY, 4);
  b.writeUInt16LE(versionNeeded(e, offset), 6);
  b.writeUInt16LE(FLAGS, 8);
  b.writeUInt16LE(0, 10); // stored
  b.writeUInt16LE(time, 12);
  b.writeUInt16LE(date, 14);
  b.writeUInt32LE(e.crc32, 16);
  b.writeUInt32LE(bigSize ? MAX_32 : e.size, 20);
  b.writeUInt32LE(bigSize ? MAX_32 : e.size, 24);
  b.writeUInt16LE(e.name.length, 28);
  b.writeUInt16LE(extra.length, 30);
  b.writeUInt16LE(0, 32); // comment length
  b.writeUInt16LE(0, 34); // disk number start
  b.writeUInt16LE(0, 36); // internal attributes
  b.writeUInt32LE(EXTERNAL_ATTRS, 38);
  b.writeUInt32LE(bigOffset ? MAX_32 : offset, 42);
  e.name.copy(b, CENTRAL_FIXED);
  extra.copy(b, CENTRAL_FIXED + e.name.length);
  return b;
}

/**
 * The end of the archive: the end of central directory record, preceded by the ZIP64 end
 * record and its locator when the count, the directory's size or its offset does not fit.
 * `cdOffset` is where the central directory starts (the ZIP64 end record follows it).
 */
export function endRecords(count: number, cdOffset: number, cdSize: number): Buffer {
  const zip64 = count >= MAX_16 || needsZip64Offset(cdOffset) || needsZip64Size(cdSize);
  const end = Buffer.alloc(END_SIZE);
  end.writeUInt32LE(SIG_END, 0);
  end.writeUInt16LE(0, 4); // this disk
  end.writeUInt16LE(0, 6); // disk where the central directory starts
  end.writeUInt16LE(Math.min(count, MAX_16), 8);
  end.writeUInt16LE(Math.min(count, MAX_16), 10);
  end.writeUInt32LE(Math.min(cdSize, MAX_32), 12);
  end.writeUInt32LE(Math.min(cdOffset, MAX_32), 16);
  end.writeUInt16LE(0, 20); // comment length
  if (!zip64) return end;

  const end64Offset = cdOffset + cdSize;
  const end64 = Buffer.alloc(END64_SIZE);
  end64.writeUInt32LE(SIG_END64, 0);
  end64.writeBigUInt64LE(BigInt(END64_SIZE - 12), 4); // size of the rest of this record
  end64.writeUInt16LE(MADE_BY, 12);
  end64.writeUInt16LE(VERSION_ZIP64, 14);
  end64.writeUInt32LE(0, 16); // this disk
  end64.writeUInt32LE(0, 20); // disk where the central directory starts
  end64.writeBigUInt64LE(BigInt(count), 24);
  end64.writeBigUInt64LE(BigInt(count), 32);
  end64.writeBigUInt64LE(BigInt(cdSize), 40);
  end64.writeBigUInt64LE(BigInt(cdOffset), 48);

  const locator = Buffer.alloc(LOCATOR64_SIZE);
  locator.writeUInt32LE(SIG_LOCATOR64, 0);
  locator.writeUInt32LE(0, 4); // disk holding the ZIP64 end record
  locator.writeBigUInt64LE(BigInt(end64Offset), 8);
  locator.writeUInt32LE(1, 16); // total number of disks
  return Buffer.concat([end64, locator, end]);
}
