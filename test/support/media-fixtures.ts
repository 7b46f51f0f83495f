// Over 400 lines on purpose: a catalogue of one small builder per file format, each independent; read by scanning, not end to end.
// Small, valid files of every format docs/api.md §6 accepts, and of kinds it refuses, built in code:
// photos with sharp, the rest as minimal byte sequences that file-type recognises. Plus a
// multipart/form-data body builder for uploads.
//
// HEIC/HEIF: sharp's prebuilt libvips can encode AV1 but not HEVC, so
// - `heif` is a real AV1-coded HEIF written by sharp, with `mif1` as its major brand (sniffed as
//   image/heif, decodable by sharp);
// - `heic` is a hand-built HEIC container (major brand `heic`, one `hvc1` item with its `hvcC`
//   and `ispe` properties): sniffed as image/heic and read by sharp (format heif, compression
//   hevc, the declared size), but its item holds no real HEVC bitstream, so it cannot be
//   decoded. The service only reads headers, which is what this covers.
import { crc32 } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';

export type MediaKind = 'photo' | 'video' | 'document';

export interface Fixture {
  /** A short label for test names. */
  label: string;
  filename: string;
  /** What the client declares for the part (never trusted by the service). */
  declaredType: string;
  data: Buffer;
}

export interface AcceptedFixture extends Fixture {
  kind: MediaKind;
  contentType: string;
  width: number | null;
  height: number | null;
}

// ---- ISO BMFF (MP4, MOV, HEIF) boxes ------------------------------------------------------------

const u8 = (n: number): Buffer => Buffer.from([n]);
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), ascii(type), body]);
}

function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  const head = Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]);
  return box(type, head, ...parts);
}

const ftyp = (major: string, minor: number, compatible: string[]): Buffer =>
  box('ftyp', ascii(major), u32(minor), ...compatible.map(ascii));

/** A movie header box (version 0): timescale 1000, duration 0, rate 1.0, volume 1.0, identity matrix. */
function mvhd(): Buffer {
  const matrix = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(u32);
  return fullBox(
    'mvhd',
    0,
    0,
    u32(0),
    u32(0),
    u32(1000),
    u32(0),
    u32(0x10000),
    u16(0x0100),
    Buffer.alloc(10),
    ...matrix,
    Buffer.alloc(24),
    u32(2),
  );
}

/** An MP4 file: ftyp isom, an empty movie and a few bytes of media data. */
export function mp4(): Buffer {
  return Buffer.concat([
    ftyp('isom', 0x200, ['isom', 'iso2', 'avc1', 'mp41']),
    box('moov', mvhd()),
    box('free'),
    box('mdat', Buffer.from('lightbox mp4 sample data')),
  ]);
}

/** A QuickTime movie: ftyp 'qt  ', wide, media data and a movie header. */
export function mov(): Buffer {
  return Buffer.concat([
    ftyp('qt  ', 0x20050300, ['qt  ']),
    box('wide'),
    box('mdat', Buffer.from('lightbox quicktime sample data')),
    box('moov', mvhd()),
  ]);
}

/** An MP4-family file that is audio (ftyp 'M4A '): not a photo, video or document. */
export function m4a(): Buffer {
  return Buffer.concat([ftyp('M4A ', 0, ['M4A ', 'mp42', 'isom']), box('moov', mvhd())]);
}

/**
 * A HEIC container: ftyp heic (compatible mif1, heic), a meta box with one primary `hvc1` item,
 * its decoder configuration (hvcC, Main profile, 4:2:0, 8 bits, no parameter sets) and its
 * size (ispe), and an mdat holding the item's (placeholder) bytes.
 */
export function heic(width: number, height: number): Buffer {
  const payload = Buffer.from('not a real HEVC bitstream: headers only');
  const hvcC = box(
    'hvcC',
    Buffer.from([1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 90, 0xf0, 0, 0xfc, 0xfd, 0xf8, 0xf8, 0, 0, 0x0f, 0]),
  );
  const ispe = fullBox('ispe', 0, 0, u32(width), u32(height));
  // Item 1 has two properties: hvcC (1, essential) and ispe (2).
  const iprp = box('iprp', box('ipco', hvcC, ispe), fullBox('ipma', 0, 0, u32(1), u16(1), u8(2), u8(0x81), u8(0x02)));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), ascii('pict'), u32(0), u32(0), u32(0), u8(0));
  const pitm = fullBox('pitm', 0, 0, u16(1));
  const iinf = fullBox('iinf', 0, 0, u16(1), fullBox('infe', 2, 0, u16(1), u16(0), ascii('hvc1'), u8(0)));
  // iloc v0: 4-byte offsets and lengths, no base offset; one item, one extent.
  const iloc = (offset: number): Buffer =>
    fullBox('iloc', 0, 0, u8(0x44), u8(0), u16(1), u16(1), u16(0), u16(1), u32(offset), u32(payload.length));
  const head = ftyp('heic', 0, ['mif1', 'heic']);
  const metaLength = fullBox('meta', 0, 0, hdlr, pitm, iloc(0), iinf, iprp).length;
  const meta = fullBox('meta', 0, 0, hdlr, pitm, iloc(head.length + metaLength + 8), iinf, iprp);
  return Buffer.concat([head, meta, box('mdat', payload)]);
}

/** Replaces an ISO BMFF file's major brand (bytes 8..11), e.g. an AVIF relabelled as plain HEIF. */
function withMajorBrand(file: Buffer, brand: string): Buffer {
  const copy = Buffer.from(file);
  copy.write(brand, 8, 'latin1');
  return copy;
}

// ---- EBML (WebM) ---------------------------------------------------------------------------------

/** A WebM file: the EBML header with DocType webm, then a Segment of unknown size. */
export function webm(): Buffer {
  const element = (id: number[], data: Buffer): Buffer =>
    Buffer.concat([Buffer.from(id), u8(0x80 | data.length), data]);
  const header = Buffer.concat([
    element([0x42, 0x86], u8(1)), // EBMLVersion
    element([0x42, 0xf7], u8(1)), // EBMLReadVersion
    element([0x42, 0xf2], u8(4)), // EBMLMaxIDLength
    element([0x42, 0xf3], u8(8)), // EBMLMaxSizeLength
    element([0x42, 0x82], ascii('webm')), // DocType
    element([0x42, 0x87], u8(4)), // DocTypeVersion
    element([0x42, 0x85], u8(2)), // DocTypeReadVersion
  ]);
  return Buffer.concat([
    Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | header.length]),
    header,
    Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    element([0x15, 0x49, 0xa9, 0x66], element([0x2a, 0xd7, 0xb1], Buffer.from([0x0f, 0x42, 0x40]))), // Info
  ]);
}

// ---- PDF -----------------------------------------------------------------------------------------

/** A one-page PDF, all ASCII (so it can travel as a string body too), with a correct xref table. */
export function pdf(text = 'Lightbox'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>',
  ];
  const stream = `BT /F1 12 Tf 20 50 Td (${text}) Tj ET`;
  objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'ascii');
}

// ---- PNG -----------------------------------------------------------------------------------------

function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([ascii(type), data]);
  return Buffer.concat([u32(data.length), typed, u32(crc32(typed))]);
}

/**
 * A PNG that declares `width` x `height` (1-bit greyscale) but carries only a few bytes of
 * image data: its header is valid, decoding it would fail. A decompression bomb's shape,
 * without the cost of making one.
 */
export function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32(width), u32(height), Buffer.from([1, 0, 0, 0, 0])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x63, 0x00, 0x00])),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- photos ----------------------------------------------------------------------------------------

/** A small image with some detail (a gradient), so every encoder has real work to do. */
function picture(width: number, height: number): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = ((x + y) * 7) & 0xff;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** Noise, which no encoder can shrink: for files over a given size. */
function noise(width: number, height: number, seed = 1): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i += 1) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = state >> 16;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

const photo = (
  label: string,
  filename: string,
  contentType: string,
  data: Buffer,
  width: number,
  height: number,
): AcceptedFixture => ({ label, filename, declaredType: contentType, data, kind: 'photo', contentType, width, height });

/** One file of every accepted format (docs/api.md §6), each with a distinct size. */
export async function acceptedFixtures(): Promise<AcceptedFixture[]> {
  const avif = await picture(24, 16).avif().toBuffer();
  const heifAv1 = withMajorBrand(await picture(26, 18).heif({ compression: 'av1' }).toBuffer(), 'mif1');
  return [
    photo('JPEG', 'photo.jpg', 'image/jpeg', await picture(33, 21).jpeg().toBuffer(), 33, 21),
    photo('PNG', 'photo.png', 'image/png', await picture(40, 30).png().toBuffer(), 40, 30),
    photo('WebP', 'photo.webp', 'image/webp', await picture(31, 17).webp().toBuffer(), 31, 17),
    photo('GIF', 'photo.gif', 'image/gif', await picture(20, 12).gif().toBuffer(), 20, 12),
    photo('TIFF', 'photo.tiff', 'image/tiff', await picture(18, 27).tiff().toBuffer(), 18, 27),
    photo('AVIF', 'photo.avif', 'image/avif', avif, 24, 16),
    photo('HEIF (AV1)', 'photo.heif', 'image/heif', heifAv1, 26, 18),
    photo('HEIC', 'IMG_0001.HEIC', 'image/heic', heic(4032, 3024), 4032, 3024),
    {
      label: 'MP4',
      filename: 'clip.mp4',
      declaredType: 'video/mp4',
      data: mp4(),
      kind: 'video',
      contentType: 'video/mp4',
      width: null,
      height: null,
    },
    {
      label: 'MOV',
      filename: 'clip.mov',
      declaredType: 'video/quicktime',
      data: mov(),
      kind: 'video',
      contentType: 'video/quicktime',
      width: null,
      height: null,
    },
    {
      label: 'WebM',
      filename: 'clip.webm',
      declaredType: 'video/webm',
      data: webm(),
      kind: 'video',
      contentType: 'video/webm',
      width: null,
      height: null,
    },
    {
      label: 'PDF',
      filename: 'brochure.pdf',
      declaredType: 'application/pdf',
      data: pdf(),
      kind: 'document',
      contentType: 'application/pdf',
      width: null,
      height: null,
    },
  ];
}

/**
 * Photos over 1 MiB, whose header the service may not find in the first bytes it keeps (TIFF
 * writes its directory after the pixels): their size is read from the stored file.
 */
export async function largeFixtures(): Promise<AcceptedFixture[]> {
  const tiff = await noise(700, 600, 7).tiff({ compression: 'none' }).toBuffer();
  const jpeg = await noise(900, 700, 3).jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer();
  return [
    photo('large TIFF', 'large.tiff', 'image/tiff', tiff, 700, 600),
    photo('large JPEG', 'large.jpg', 'image/jpeg', jpeg, 900, 700),
  ];
}

/** A JPEG whose EXIF orientation (6: rotate 90°) makes it display 21 wide and 33 high. */
export async function rotatedJpeg(): Promise<Buffer> {
  return picture(33, 21).jpeg().withMetadata({ orientation: 6 }).toBuffer();
}

export const jpeg = async (width = 33, height = 21): Promise<Buffer> => picture(width, height).jpeg().toBuffer();
export const png = async (width: number, height: number): Promise<Buffer> => picture(width, height).png().toBuffer();

/** `size` bytes that are a JPEG as far as sniffing goes (the JPEG's head, then padding). */
export async function jpegOfSize(size: number): Promise<Buffer> {
  const head = await jpeg();
  if (size <= head.length) throw new Error(`a JPEG needs at least ${head.length} bytes`);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 0x20)]);
}

// ---- refused kinds ----------------------------------------------------------------------------------

/** An ELF executable header (x86-64, little-endian, ET_EXEC). */
function elf(): Buffer {
  const b = Buffer.alloc(128);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]).copy(b, 0);
  b.writeUInt16LE(2, 16); // e_type: executable
  b.writeUInt16LE(0x3e, 18); // e_machine: x86-64
  b.writeUInt32LE(1, 20); // e_version
  return b;
}

/** A Windows PE executable header: MZ stub pointing at a PE\0\0 signature (x86-64). */
function pe(): Buffer {
  const b = Buffer.alloc(256);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c);
  b.write('PE\0\0', 0x80, 'latin1');
  b.writeUInt16LE(0x8664, 0x84);
  return b;
}

const refused = (label: string, filename: string, declaredType: string, data: Buffer): Fixture => ({
  label,
  filename,
  declaredType,
  data,
});

/** Files that are not a photo, video or document, each declared as something harmless. */
export function refusedFixtures(): Fixture[] {
  return [
    refused(
      'HTML',
      'page.html',
      'text/html',
      Buffer.from('<!DOCTYPE html>\n<html><head><script>alert(document.cookie)</script></head><body></body></html>\n'),
    ),
    refused(
      'SVG',
      'logo.svg',
      'image/svg+xml',
      Buffer.from(
        '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">' +
          '<script>alert(2)</script><rect width="10" height="10"/></svg>\n',
      ),
    ),
    refused('plain text', 'notes.txt', 'text/plain', Buffer.from('Just some notes about the shoot.\n'.repeat(20))),
    refused('an ELF executable', 'camera-tool', 'application/octet-stream', elf()),
    refused('a PE executable', 'setup.exe', 'application/octet-stream', pe()),
    refused(
      'a text file named photo.jpg, declared image/jpeg',
      'photo.jpg',
      'image/jpeg',
      Buffer.from('This is not a JPEG at all, whatever its name says.\n'),
    ),
    refused('an empty file', 'empty.jpg', 'image/jpeg', Buffer.alloc(0)),
    refused('an MP4-family audio file', 'song.m4a', 'video/mp4', m4a()),
    // Not here: bytes that begin like a JPEG sniff as a photo whatever follows, and are accepted
    // with their variants `failed` (docs/api.md §13; media.upload.test.ts).
  ];
}

// ---- multipart/form-data ----------------------------------------------------------------------------

export interface Part {
  /** Form field name; `files` by default. */
  field?: string;
  /** A file part when set (even to ''); a plain field otherwise. */
  filename?: string;
  /** Written as given: lets a test send a raw non-ASCII or odd filename. */
  rawDisposition?: string;
  contentType?: string;
  data: Buffer | string;
}

export interface MultipartBody {
  body: Buffer;
  contentType: string;
  boundary: string;
}

let boundaries = 0;

export function multipart(parts: Part[]): MultipartBody {
  boundaries += 1;
  const boundary = `----LightboxBoundary${boundaries}${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const field = part.field ?? 'files';
    const disposition =
      part.rawDisposition ??
      `form-data; name="${field}"` + (part.filename === undefined ? '' : `; filename="${part.filename}"`);
    const type = part.contentType ?? (part.filename === undefined ? undefined : 'application/octet-stream');
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` + (type ? `Content-Type: ${type}\r\n` : '');
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}

/** The multipart parts for fixtures, each declared with its own name and type. */
export const filesOf = (fixtures: Fixture[]): Part[] =>
  fixtures.map((f) => ({ filename: f.filename, contentType: f.declaredType, data: f.data }));
