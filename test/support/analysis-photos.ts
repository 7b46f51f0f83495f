// The labelled photos the analysis tests run (docs/analysis.md): interiors drawn in code, each from
// a seed, with strong vertical lines (door and window frames, cupboards, shelves, a radiator) under
// camera-like grain, and copies made from them whose truth is known by construction: rotated by a
// known angle, blurred by a known sigma, over- and under-exposed, re-encoded and resized.
import { createRequire } from 'node:module';
import path from 'node:path';
import qrcode from 'qrcode-generator';
import sharp from 'sharp';

/** A small deterministic generator (mulberry32): the same seed draws the same room. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const W = 1200;
const H = 900;
/** Drawn this much larger on each side, so a rotation's corners fall outside the crop. */
const MARGIN = 200;

function roomSvg(seed: number, width: number, height: number): string {
  const r = random(seed);
  const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(h)},${Math.round(s)}%,${Math.round(l)}%)`;
  const hue = r() * 360;
  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="${hsl(hue, 15 + r() * 30, 55 + r() * 25)}"/>`);
  const floor = height * (0.62 + r() * 0.15);
  parts.push(
    `<rect y="${floor}" width="${width}" height="${height - floor}" fill="${hsl(hue + 30, 30, 25 + r() * 20)}"/>`,
  );
  // Floor boards: slanting lines, not verticals.
  for (let x = -width; x < width * 2; x += 60 + r() * 40) {
    parts.push(
      `<line x1="${x}" y1="${height}" x2="${width / 2 + (x - width / 2) * 0.3}" y2="${floor}" stroke="${hsl(hue + 30, 25, 18)}" stroke-width="3"/>`,
    );
  }
  const things = 4 + Math.floor(r() * 4);
  for (let i = 0; i < things; i++) {
    const kind = Math.floor(r() * 4);
    const x = r() * (width - 200);
    const w = 80 + r() * 220;
    const top = height * (0.1 + r() * 0.3);
    const bottom = kind === 1 ? top + (floor - top) * (0.3 + r() * 0.3) : floor;
    const fill = hsl(r() * 360, 20 + r() * 50, 20 + r() * 60);
    const edge = hsl(r() * 360, 30, 10 + r() * 30);
    parts.push(
      `<rect x="${x}" y="${top}" width="${w}" height="${bottom - top}" fill="${fill}" stroke="${edge}" stroke-width="${4 + r() * 8}"/>`,
    );
    // Inner verticals: panes, shelves' uprights, cupboard doors.
    const inner = 1 + Math.floor(r() * 4);
    for (let j = 1; j <= inner; j++) {
      const lx = x + (w * j) / (inner + 1);
      parts.push(
        `<line x1="${lx}" y1="${top}" x2="${lx}" y2="${bottom}" stroke="${edge}" stroke-width="${2 + r() * 5}"/>`,
      );
    }
    if (kind === 2) {
      // Shelves: horizontals with books (short verticals).
      for (let sy = top + 40; sy < bottom - 20; sy += 50 + r() * 30) {
        parts.push(`<rect x="${x}" y="${sy}" width="${w}" height="5" fill="${edge}"/>`);
        for (let bx = x + 6; bx < x + w - 12; bx += 8 + r() * 10) {
          parts.push(
            `<rect x="${bx}" y="${sy - 30 - r() * 10}" width="${5 + r() * 5}" height="30" fill="${hsl(r() * 360, 60, 30 + r() * 40)}"/>`,
          );
        }
      }
    }
  }
  // A round lamp and a rug: no verticals, some curves.
  parts.push(`<circle cx="${r() * width}" cy="${height * 0.2}" r="${30 + r() * 40}" fill="${hsl(50, 80, 85)}"/>`);
  parts.push(
    `<ellipse cx="${width / 2}" cy="${(floor + height) / 2}" rx="${width * 0.25}" ry="${(height - floor) * 0.25}" fill="${hsl(r() * 360, 40, 45)}"/>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
}

/** Camera-like grain (seeded), so a sharp photo has texture a blur removes. */
function grain(raw: Buffer, seed: number, amount = 10): Buffer {
  const r = random(seed ^ 0x5bd1e995);
  const out = Buffer.from(raw);
  for (let i = 0; i < out.length; i++) {
    const v = out[i]! + Math.round((r() - 0.5) * amount);
    out[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return out;
}

export interface Shot {
  /** Rotated clockwise by this many degrees (a camera held crooked). */
  tilt?: number;
  /** Gaussian blur of this sigma, in pixels of the 1200x900 photo. */
  blur?: number;
  /** Brightness: out = in * gain + offset, before grain. */
  gain?: number;
  offset?: number;
  quality?: number;
}

/** A 1200x900 JPEG of room `seed`, shot as `shot` says. */
export async function roomPhoto(seed: number, shot: Shot = {}): Promise<Buffer> {
  const big = Buffer.from(roomSvg(seed, W + 2 * MARGIN, H + 2 * MARGIN));
  let img = sharp(big).flatten({ background: '#808080' });
  if (shot.tilt !== undefined && shot.tilt !== 0) {
    // Rotated about the centre; the canvas grows, so take the middle back out.
    const rotated = await img.rotate(shot.tilt, { background: '#808080' }).png().toBuffer({ resolveWithObject: true });
    img = sharp(rotated.data).extract({
      left: Math.round((rotated.info.width - W) / 2),
      top: Math.round((rotated.info.height - H) / 2),
      width: W,
      height: H,
    });
  } else {
    img = img.extract({ left: MARGIN, top: MARGIN, width: W, height: H });
  }
  if (shot.gain !== undefined || shot.offset !== undefined)
    img = sharp(await img.png().toBuffer()).linear(shot.gain ?? 1, shot.offset ?? 0);
  if (shot.blur !== undefined && shot.blur > 0) img = sharp(await img.png().toBuffer()).blur(shot.blur);
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return sharp(grain(data, seed), { raw: { width: info.width, height: info.height, channels: info.channels } })
    .jpeg({ quality: shot.quality ?? 90 })
    .toBuffer();
}

/** The same photo saved again at another quality. */
export const reencoded = (jpeg: Buffer, quality: number): Promise<Buffer> => sharp(jpeg).jpeg({ quality }).toBuffer();

/** The same photo resized to `scale` of its width. */
export const resized = async (jpeg: Buffer, scale: number): Promise<Buffer> => {
  const { width } = await sharp(jpeg).metadata();
  return sharp(jpeg)
    .resize(Math.round((width ?? 1200) * scale))
    .jpeg({ quality: 85 })
    .toBuffer();
};

// --- The model stage's labelled set (docs/analysis.md) ----------------------------------------

const BOLD = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** A line of text in DejaVu Sans Bold (the font file the project ships), dark on transparent. */
async function textLine(text: string, points: number, colour: string): Promise<Buffer> {
  return sharp({
    text: { text: `<span foreground="${colour}">${text}</span>`, fontfile: BOLD, font: `DejaVu Sans Bold ${points}`, rgba: true, dpi: 96 }, // prettier-ignore
  })
    .png()
    .toBuffer();
}

/**
 * Room `seed` with a sign on it: a white board at (left, top) carrying `lines`, each `points`
 * high. The words are the truth `text` is measured against.
 */
export async function signPhoto(
  seed: number,
  lines: string[],
  points = 44,
  at = { left: 300, top: 200 },
): Promise<Buffer> {
  const rendered = await Promise.all(lines.map((l) => textLine(l, points, '#161616')));
  const sizes = await Promise.all(rendered.map((b) => sharp(b).metadata()));
  const pad = Math.round(points * 0.6);
  const width = Math.max(...sizes.map((m) => m.width ?? 0)) + 2 * pad;
  const gap = Math.round(points * 0.5);
  const height = sizes.reduce((h, m) => h + (m.height ?? 0) + gap, 0) - gap + 2 * pad;
  let y = pad;
  const board = await sharp({ create: { width, height, channels: 3, background: '#f4f4f0' } })
    .composite(
      rendered.map((input, i) => {
        const top = y;
        y += (sizes[i]?.height ?? 0) + gap;
        return { input, left: pad, top };
      }),
    )
    .png()
    .toBuffer();
  return sharp(await roomPhoto(seed))
    .composite([{ input: board, left: at.left, top: at.top }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** Room `seed` with a QR code of `data` printed on it: `size` pixels, at (left, top). */
export async function qrPhoto(seed: number, data: string, size: number, at = { left: 700, top: 250 }): Promise<Buffer> {
  const qr = qrcode(0, 'M');
  qr.addData(data, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  let path = '';
  for (let row = 0; row < n; row++)
    for (let col = 0; col < n; col++) if (qr.isDark(row, col)) path += `M${col + 4} ${row + 4}h1v1h-1z`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${n + 8} ${n + 8}" shape-rendering="crispEdges"><rect width="${n + 8}" height="${n + 8}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`; // prettier-ignore
  return sharp(await roomPhoto(seed))
    .composite([{ input: Buffer.from(svg), left: at.left, top: at.top }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** A floor plan drawn from `seed`: black walls on white paper, rooms named, door arcs. */
export async function floorPlan(seed: number): Promise<Buffer> {
  const r = random(seed);
  const parts: string[] = ['<rect width="1200" height="900" fill="#fff"/>'];
  const x0 = 120;
  const y0 = 100;
  const x1 = 1080;
  const y1 = 800;
  parts.push(
    `<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="none" stroke="#111" stroke-width="10"/>`,
  );
  const split = x0 + (x1 - x0) * (0.35 + r() * 0.3);
  const across = y0 + (y1 - y0) * (0.4 + r() * 0.2);
  parts.push(`<line x1="${split}" y1="${y0}" x2="${split}" y2="${y1}" stroke="#111" stroke-width="6"/>`);
  parts.push(`<line x1="${x0}" y1="${across}" x2="${split}" y2="${across}" stroke="#111" stroke-width="6"/>`);
  for (let i = 0; i < 3; i++) {
    const cx = x0 + 60 + r() * (x1 - x0 - 160);
    parts.push(`<path d="M${cx} ${y1} a60 60 0 0 1 60 -60" fill="none" stroke="#444" stroke-width="2"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900">${parts.join('')}</svg>`;
  return sharp(Buffer.from(svg)).flatten({ background: '#fff' }).jpeg({ quality: 90 }).toBuffer();
}

const HUMAN_ASSETS = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@vladmandic/human')),
  '..',
  'assets',
);

export interface PeoplePhoto {
  name: string;
  jpeg: Buffer;
  faces: number;
  people: number;
}

/**
 * Real photos the @vladmandic/human package ships (its demo screenshots), cut to one subject each,
 * counted by eye: the five portraits of screenshot-facedetect.jpg (one face, one person each) and
 * the webcam inset of screenshot-vrm.jpg (one man in a kitchen, boxes drawn over him).
 */
export async function peoplePhotos(): Promise<PeoplePhoto[]> {
  const detect = path.join(HUMAN_ASSETS, 'screenshot-facedetect.jpg');
  const portraits = [
    [7, 347, 151, 151],
    [164, 347, 151, 151],
    [322, 347, 151, 151],
    [478, 347, 151, 151],
    [631, 347, 160, 151],
  ] as const;
  const out: PeoplePhoto[] = [];
  for (const [i, [left, top, width, height]] of portraits.entries()) {
    const jpeg = await sharp(detect).extract({ left, top, width, height }).resize(600).jpeg({ quality: 90 }).toBuffer();
    out.push({ name: `portrait ${i + 1}`, jpeg, faces: 1, people: 1 });
  }
  const vrm = path.join(HUMAN_ASSETS, 'screenshot-vrm.jpg');
  out.push({
    name: 'webcam inset',
    jpeg: await sharp(vrm)
      .extract({ left: 476, top: 3, width: 321, height: 242 })
      .resize(800)
      .jpeg({ quality: 90 })
      .toBuffer(),
    faces: 1,
    people: 1,
  });
  return out;
}
