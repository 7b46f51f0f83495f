// Real photos for the variant pipeline, built in code (no binary fixtures): a camera JPEG with EXIF
// orientation, GPS and serial numbers, XMP, IPTC and a comment; a 16-bit PNG with alpha; CMYK; an
// Adobe RGB (1998) JPEG with a hand-built ICC profile; an animated GIF; a small photo; broken
// JPEGs. Plus readers that list what metadata a produced file still carries, byte by byte.
import { crc32, deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';

export type Rgb = readonly [number, number, number];

const u16be = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u32be = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

// ---- JPEG segments ----------------------------------------------------------------------------------

/** A JPEG marker segment: FF xx, a length that counts itself, the payload. */
function segment(marker: number, payload: Buffer): Buffer {
  if (payload.length + 2 > 0xffff) throw new Error('a JPEG segment holds at most 65533 bytes');
  return Buffer.concat([Buffer.from([0xff, marker]), u16be(payload.length + 2), payload]);
}

/** Inserts segments right after SOI (and JFIF APP0, if any), where readers look for them. */
export function insertJpegSegments(jpeg: Buffer, segments: Buffer[]): Buffer {
  let at = 2;
  if (jpeg[at] === 0xff && jpeg[at + 1] === 0xe0) at += 2 + jpeg.readUInt16BE(at + 2);
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)]);
}

/** APP2 ICC_PROFILE, one chunk (profiles here are far below 64 KB). */
export const iccSegment = (profile: Buffer): Buffer =>
  segment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([1, 1]), profile]));

/** APP13 "Photoshop 3.0" holding one 8BIM IPTC-NAA resource with the given IPTC datasets (record 2). */
export function iptcSegment(datasets: [number, string][]): Buffer {
  const iptc = Buffer.concat(
    datasets.map(([tag, text]) => {
      const value = Buffer.from(text, 'utf8');
      return Buffer.concat([Buffer.from([0x1c, 2, tag]), u16be(value.length), value]);
    }),
  );
  const padded = iptc.length % 2 === 1 ? Buffer.concat([iptc, Buffer.alloc(1)]) : iptc;
  const resource = Buffer.concat([Buffer.from('8BIM', 'latin1'), u16be(0x0404), Buffer.alloc(2), u32be(iptc.length), padded]); // prettier-ignore
  return segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]));
}

export const commentSegment = (text: string): Buffer => segment(0xfe, Buffer.from(text, 'utf8'));

/** The markers of a JPEG's header segments up to the first scan (APPn, COM, DQT, SOFn, ...). */
export function jpegMarkers(jpeg: Buffer): { marker: number; payload: Buffer }[] {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG');
  const out: { marker: number; payload: Buffer }[] = [];
  let at = 2;
  while (at + 4 <= jpeg.length) {
    if (jpeg[at] !== 0xff) throw new Error(`no marker at byte ${at}`);
    const marker = jpeg[at + 1]!;
    const length = jpeg.readUInt16BE(at + 2);
    out.push({ marker, payload: jpeg.subarray(at + 4, at + 2 + length) });
    if (marker === 0xda) break; // start of scan: entropy-coded data follows
    at += 2 + length;
  }
  return out;
}

/** The chunk types of a RIFF WebP (VP8 /VP8L/VP8X/ALPH/ANIM/ICCP/EXIF/XMP ). */
export function webpChunks(webp: Buffer): string[] {
  if (webp.toString('latin1', 0, 4) !== 'RIFF' || webp.toString('latin1', 8, 12) !== 'WEBP') throw new Error('not a WebP'); // prettier-ignore
  const out: string[] = [];
  for (let at = 12; at + 8 <= webp.length;) {
    const size = webp.readUInt32LE(at + 4);
    out.push(webp.toString('latin1', at, at + 4));
    at += 8 + size + (size % 2);
  }
  return out;
}

// ---- EXIF -------------------------------------------------------------------------------------------

/**
 * The tag numbers of IFD0, the Exif IFD and the GPS IFD of an EXIF block (as sharp's metadata()
 * returns it: "Exif\0\0" then a TIFF header). Enough to prove a fixture really carries GPS.
 */
export function exifTags(exif: Buffer): { ifd0: number[]; exif: number[]; gps: number[] } {
  const tiff = exif.toString('latin1', 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif;
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number): number => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number): number => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = (offset: number): Map<number, number> => {
    const tags = new Map<number, number>();
    const count = u16(offset);
    for (let i = 0; i < count; i++) {
      const entry = offset + 2 + i * 12;
      tags.set(u16(entry), u32(entry + 8)); // the value field: an offset for IFD pointers
    }
    return tags;
  };
  const ifd0 = ifd(u32(4));
  const exifAt = ifd0.get(0x8769);
  const gpsAt = ifd0.get(0x8825);
  return {
    ifd0: [...ifd0.keys()],
    exif: exifAt === undefined ? [] : [...ifd(exifAt).keys()],
    gps: gpsAt === undefined ? [] : [...ifd(gpsAt).keys()],
  };
}

export const GPS_LATITUDE = 0x0002;
export const BODY_SERIAL_NUMBER = 0xa431;

// ---- Adobe RGB (1998) ICC profile ---------------------------------------------------------------

const s15Fixed16 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(Math.round(n * 65536));
  return b;
};
const xyzType = (x: number, y: number, z: number): Buffer =>
  Buffer.concat([Buffer.from('XYZ \0\0\0\0', 'latin1'), s15Fixed16(x), s15Fixed16(y), s15Fixed16(z)]);

function textDescriptionType(text: string): Buffer {
  const ascii = Buffer.from(`${text}\0`, 'latin1');
  // ASCII part, an empty Unicode part (language code, count 0), an empty ScriptCode part (67 bytes).
  return Buffer.concat([Buffer.from('desc\0\0\0\0', 'latin1'), u32be(ascii.length), ascii, u32be(0), u32be(0), Buffer.alloc(2 + 1 + 67)]); // prettier-ignore
}

const pad4 = (b: Buffer): Buffer => (b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]));

/**
 * A minimal ICC v2.1 display profile for Adobe RGB (1998): the colorants as the specification
 * gives them adapted to the D50 connection space, a D65 media white point, and one pure gamma
 * curve of 563/256 (2.19921875) shared by the three channels. sharp bundles sRGB, P3 and CMYK
 * profiles only, and no apt packages are wanted, so the profile is written here (about 400 bytes).
 */
export function adobeRgbProfile(): Buffer {
  const curve = Buffer.concat([Buffer.from('curv\0\0\0\0', 'latin1'), u32be(1), u16be(563)]);
  const tags: [string, Buffer][] = [
    ['desc', textDescriptionType('Adobe RGB (1998) compatible (Lightbox test)')],
    ['cprt', Buffer.from('text\0\0\0\0No copyright, test data\0', 'latin1')],
    ['wtpt', xyzType(0.95045, 1.0, 1.08905)],
    ['rXYZ', xyzType(0.60974, 0.31111, 0.01947)],
    ['gXYZ', xyzType(0.20528, 0.62567, 0.06087)],
    ['bXYZ', xyzType(0.14919, 0.06322, 0.74457)],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  const tableSize = 4 + tags.length * 12;
  let offset = 128 + tableSize;
  const table: Buffer[] = [u32be(tags.length)];
  const data: Buffer[] = [];
  for (const [signature, body] of tags) {
    table.push(Buffer.from(signature, 'latin1'), u32be(offset), u32be(body.length));
    const padded = pad4(body);
    data.push(padded);
    offset += padded.length;
  }
  const header = Buffer.alloc(128);
  header.writeUInt32BE(offset, 0); // profile size
  header.writeUInt32BE(0x02100000, 8); // version 2.1
  header.write('mntrRGB XYZ ', 12, 'latin1'); // display class, RGB data, XYZ connection space
  [2026, 1, 1, 0, 0, 0].forEach((v, i) => header.writeUInt16BE(v, 24 + i * 2));
  header.write('acsp', 36, 'latin1');
  s15Fixed16(0.9642).copy(header, 68); // the D50 illuminant of the connection space
  s15Fixed16(1.0).copy(header, 72);
  s15Fixed16(0.8249).copy(header, 76);
  return Buffer.concat([header, ...table, ...data]);
}

/**
 * What an Adobe RGB (1998) 8-bit colour is in sRGB, by the published D65 matrices (Adobe RGB ->
 * XYZ -> linear sRGB), clipped to the sRGB gamut: the expected answer, computed without lcms.
 */
export function adobeRgbToSrgb(rgb: Rgb): Rgb {
  const toXyz = [[0.5767309, 0.185554, 0.1881852], [0.2973769, 0.6273491, 0.0752741], [0.0270343, 0.0706872, 0.9911085]]; // prettier-ignore
  const toSrgb = [[3.2404542, -1.5371385, -0.4985314], [-0.969266, 1.8760108, 0.041556], [0.0556434, -0.2040259, 1.0572252]]; // prettier-ignore
  const mul = (m: number[][], v: number[]): number[] => m.map((row) => row.reduce((sum, c, i) => sum + c * v[i]!, 0));
  const linear = rgb.map((c) => (c / 255) ** (563 / 256));
  const encode = (c: number): number => {
    const x = Math.min(1, Math.max(0, c));
    return Math.round(255 * (x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055));
  };
  const [r, g, b] = mul(toSrgb, mul(toXyz, linear)).map(encode);
  return [r!, g!, b!];
}

// ---- photos -------------------------------------------------------------------------------------------

/** A flat image with coloured square patches at the given corners (sharp `create` + composite). */
function patched(
  width: number,
  height: number,
  background: Rgb,
  patches: { x: number; y: number; size: number; colour: Rgb }[],
): Sharp {
  const [r, g, b] = background;
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).composite(
    patches.map(({ x, y, size, colour: [pr, pg, pb] }) => ({
      input: { create: { width: size, height: size, channels: 3, background: { r: pr, g: pg, b: pb } } },
      left: x,
      top: y,
    })),
  );
}

export const CAMERA_SERIAL = 'SN-0451-LIGHTBOX-CAMERA';
export const LENS_SERIAL = 'LS-7731-LIGHTBOX-LENS';
export const CAMERA_COMMENT = 'Lightbox fixture comment: 12 Oak St, gate code 4471';
export const IPTC_CITY = 'Lightbox-Iptc-City';
export const XMP_MARKER = 'Lightbox-Xmp-Creator';
export const RED: Rgb = [230, 20, 20];
export const BLUE: Rgb = [20, 20, 230];
export const GREY: Rgb = [128, 128, 128];

/**
 * A 6000x4000 camera JPEG stored sideways with EXIF orientation 6 (shown 4000x6000, portrait),
 * carrying what must never reach a client: GPS, camera and lens serials, XMP, IPTC and a comment.
 * Stored pixels: red in the top-left corner, blue in the top-right; orientation 6 turns the
 * stored top-left to the shown top-right and the stored top-right to the shown bottom-right.
 */
export async function cameraJpeg(width = 6000, height = 4000): Promise<Buffer> {
  const size = Math.round(Math.min(width, height) / 8);
  const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="40,26.7723N" exif:GPSLongitude="79,58.9333W"><dc:creator><rdf:Seq><rdf:li>${XMP_MARKER}</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`; // prettier-ignore
  const jpeg = await patched(width, height, GREY, [
    { x: 0, y: 0, size, colour: RED },
    { x: width - size, y: 0, size, colour: BLUE },
  ])
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Make: 'Canon', Model: 'EOS R5', Software: 'Lightbox fixture' },
      IFD2: { BodySerialNumber: CAMERA_SERIAL, LensSerialNumber: LENS_SERIAL },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '40/1 26/1 4634/100', GPSLongitudeRef: 'W', GPSLongitude: '79/1 58/1 5600/100' }, // prettier-ignore
    })
    .withXmp(xmp)
    .withMetadata({ orientation: 6 })
    .toBuffer();
  return insertJpegSegments(jpeg, [iptcSegment([[90, IPTC_CITY], [80, 'Lightbox Byline']]), commentSegment(CAMERA_COMMENT)]); // prettier-ignore
}

/** A 16-bit RGBA PNG: an opaque red left half, a fully transparent right half. */
export async function rgba16Png(width = 900, height = 600): Promise<Buffer> {
  const pixels = new Uint16Array(width * height * 4); // a Uint16Array is what sharp reads as 16-bit raw
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const opaque = x < width / 2;
      pixels.set(opaque ? [60000, 5000, 5000, 65535] : [0, 65535, 0, 0], at);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .toColourspace('rgb16')
    .png()
    .toBuffer();
}

/** A CMYK JPEG (sharp's bundled CMYK profile embedded) of a red field. */
export function cmykJpeg(width = 800, height = 600): Promise<Buffer> {
  return patched(width, height, RED, []).withIccProfile('cmyk').jpeg({ quality: 92 }).toBuffer();
}

/** Adobe RGB values of the two patches of adobeRgbJpeg: a green inside sRGB's gamut, one outside. */
export const ADOBE_GREEN_IN_GAMUT: Rgb = [120, 200, 100];
export const ADOBE_GREEN_SATURATED: Rgb = [40, 200, 60];

/** An Adobe RGB (1998) JPEG: the left half ADOBE_GREEN_IN_GAMUT, the right ADOBE_GREEN_SATURATED. */
export async function adobeRgbJpeg(width = 1200, height = 800): Promise<Buffer> {
  const jpeg = await patched(width, height, ADOBE_GREEN_IN_GAMUT, [])
    .composite([
      {
        input: { create: { width: width / 2, height, channels: 3, background: rgbObject(ADOBE_GREEN_SATURATED) } },
        left: width / 2,
        top: 0,
      },
    ]) // prettier-ignore
    .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
    .toBuffer();
  // Written as raw values with no profile, then tagged: the stored numbers are Adobe RGB.
  return insertJpegSegments(jpeg, [iccSegment(adobeRgbProfile())]);
}

const rgbObject = ([r, g, b]: Rgb): { r: number; g: number; b: number } => ({ r, g, b });

/** An animated GIF of three frames: red, then green, then blue. */
export async function animatedGif(width = 600, height = 400): Promise<Buffer> {
  const frames = await Promise.all(
    ([RED, [20, 200, 20], BLUE] as Rgb[]).map((c) => patched(width, height, c, []).png().toBuffer()),
  );
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: 100, loop: 0 })
    .toBuffer();
}

export const smallPhoto = (width = 300, height = 200): Promise<Buffer> =>
  patched(width, height, GREY, [{ x: 0, y: 0, size: 50, colour: RED }])
    .jpeg({ quality: 90 })
    .toBuffer();

/** The first part of a photo-like JPEG: its header promises pixels the file does not hold. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await photoLikeJpeg(1200, 800);
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/** A JPEG whose Huffman table definition is damaged: libjpeg stops with an error, not a warning. */
export async function corruptJpeg(): Promise<Buffer> {
  const jpeg = Buffer.from(await photoLikeJpeg(400, 300));
  const dht = jpeg.indexOf(Buffer.from([0xff, 0xc4]));
  // The 16 code counts of the first table: all 255 claims far more codes than exist.
  jpeg.fill(0xff, dht + 5, dht + 5 + 16);
  return jpeg;
}

/**
 * A JPEG whose compressed data is damaged in the middle (zeroed), which libjpeg reports as a
 * warning ("Corrupt JPEG data: premature end of data segment"): it decodes, with a smeared band,
 * as browsers show it.
 */
export async function damagedScanJpeg(): Promise<Buffer> {
  const jpeg = Buffer.from(await photoLikeJpeg(1200, 800));
  const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
  let at = sos + Math.floor((jpeg.length - sos) / 2);
  while (jpeg[at - 1] === 0xff) at++; // a zero right after 0xFF would be a stuffed byte, not damage
  return jpeg.fill(0, at, at + 2000);
}

/**
 * A photo-like JPEG: soft colour fields (a random 150x100 image enlarged) under fine grain, so
 * it compresses and decodes like a camera JPEG (about 7.7 MB at 6000x4000, quality 90) rather
 * than like a flat test card. Each call makes a different photo.
 */
export async function photoLikeJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  const sw = 150;
  const sh = 100;
  const base = await sharp(randomBytes(sw * sh * 3), { raw: { width: sw, height: sh, channels: 3 } })
    .blur(1.2)
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const grain = randomBytes(base.length);
  for (let i = 0; i < base.length; i++) {
    const v = base[i]! + (grain[i]! & 31) - 16;
    base[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return sharp(base, { raw: { width, height, channels: 3 } })
    .jpeg({ quality })
    .toBuffer();
}

// ---- PNG chunks (for a tagged PNG) -----------------------------------------------------------------

/** Inserts an iCCP chunk (a compressed ICC profile) right after a PNG's IHDR. */
export function withPngIcc(png: Buffer, profile: Buffer, name = 'Adobe RGB'): Buffer {
  const body = Buffer.concat([Buffer.from(`${name}\0`, 'latin1'), Buffer.from([0]), deflateSync(profile)]);
  const type = Buffer.from('iCCP', 'latin1');
  const chunk = Buffer.concat([u32be(body.length), type, body, u32be(crc32(Buffer.concat([type, body])))]);
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk, png.subarray(ihdrEnd)]);
}

/**
 * A JPEG that reads as a photo in a screenshot: a sky, a low sun, hills and a house, drawn as SVG
 * (rendered by sharp's librsvg) in colours turned by `hue` (degrees), so each call with another
 * hue is another picture. For pages a person looks at; photoLikeJpeg is for codec work.
 */
export function sceneJpeg(width: number, height: number, hue = 0): Promise<Buffer> {
  const c = (h: number, s: number, l: number): string => `hsl(${(h + hue) % 360},${s}%,${l}%)`;
  const g = (62 * height) / width; // the horizon, in viewBox units (the box is 100 wide)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 100 ${(100 * height) / width}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${c(205, 60, 62)}"/><stop offset="1" stop-color="${c(35, 80, 85)}"/></linearGradient></defs>
    <rect width="100" height="1000" fill="url(#sky)"/>
    <circle cx="72" cy="${g - 12}" r="6" fill="${c(45, 95, 78)}"/>
    <path d="M0 ${g - 6} Q25 ${g - 18} 55 ${g - 7} T100 ${g - 9} V100 H0Z" fill="${c(140, 30, 42)}"/>
    <rect x="0" y="${g}" width="100" height="100" fill="${c(100, 35, 34)}"/>
    <rect x="30" y="${g - 14}" width="22" height="16" fill="${c(30, 25, 88)}"/>
    <path d="M27 ${g - 14} L41 ${g - 24} L55 ${g - 14}Z" fill="${c(8, 45, 38)}"/>
    <rect x="38" y="${g - 7}" width="5" height="9" fill="${c(20, 40, 28)}"/>
    <rect x="33" y="${g - 11}" width="4" height="4" fill="${c(200, 50, 70)}"/>
    <rect x="46" y="${g - 11}" width="4" height="4" fill="${c(200, 50, 70)}"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}
