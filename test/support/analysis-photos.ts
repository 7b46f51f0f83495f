// The labelled photos the analysis tests run (docs/analysis.md): interiors drawn in code, each from
// a seed, with strong vertical lines (door and window frames, cupboards, shelves, a radiator) under
// camera-like grain, and copies made from them whose truth is known by construction: rotated by a
// known angle, blurred by a known sigma, over- and under-exposed, re-encoded and resized.
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
