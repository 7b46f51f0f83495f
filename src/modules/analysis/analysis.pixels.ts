// The pixel stage of a photo's analysis (docs/api.md §30, docs/analysis.md): one decode, with
// sharp, of a copy at most GREY_EDGE pixels on its long side (shrink-on-load keeps a large JPEG's
// full size out of memory), in grey; then, in plain arithmetic on that copy:
// - phash: the 64-bit DCT hash (a 32x32 copy, its 8x8 lowest frequencies against their median);
// - sharpness: the variance of the 4-neighbour Laplacian, mapped to 0..1 by v / (v + SHARPNESS_HALF);
// - exposure: the mean, and the fractions at or above 250 and at or below 5 (of 255);
// - tilt: the lean of vertical edges, from the orientation of strong, nearly horizontal gradients.
import sharp from 'sharp';

/** The grey copy's long side, in pixels. */
const GREY_EDGE = 1024;
/** The Laplacian variance that maps to a sharpness of 0.5 (docs/analysis.md says how it was chosen). */
const SHARPNESS_HALF = 60;
/** Below this sharpness a photo is `blurry`. */
const BLURRY_BELOW = 0.45;
/** Pixels at or above this (of 255) are clipped highlights; at or below CLIPPED_SHADOW, shadows. */
const CLIPPED_HIGHLIGHT = 250;
const CLIPPED_SHADOW = 5;
/** Gradients within this many degrees of horizontal belong to near-vertical edges. */
const VERTICAL_WINDOW = 15;
/** Fewer near-vertical edge pixels than this share of the copy: too few verticals, no tilt. */
const MIN_VERTICAL_SHARE = 0.004;
/** The lean's peak must hold at least this share of the near-vertical edge weight. */
const MIN_PEAK_SHARE = 0.25;

export interface PixelAnalysis {
  phash: string;
  sharpness: number;
  blurry: boolean;
  exposure: { mean: number; clippedHighlights: number; clippedShadows: number };
  tiltDegrees: number | null;
}

export class AnalysisError extends Error {}

interface Grey {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Analyses a photo file (or its bytes). Throws AnalysisError when it cannot be decoded. */
export async function analysePixels(input: string | Buffer, maxPixels: number): Promise<PixelAnalysis> {
  let grey: Grey;
  try {
    const { data, info } = await sharp(input, { limitInputPixels: maxPixels, failOn: 'error' })
      .rotate()
      .resize(GREY_EDGE, GREY_EDGE, { fit: 'inside', withoutEnlargement: true })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1) throw new Error(`expected one channel, got ${info.channels}`);
    grey = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  } catch (err) {
    throw new AnalysisError(`cannot decode the photo: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (grey.width < 16 || grey.height < 16) throw new AnalysisError('the photo is smaller than 16x16 pixels');
  const sharpness = sharpnessOf(grey);
  return {
    phash: await phashOf(grey),
    sharpness,
    blurry: sharpness < BLURRY_BELOW,
    exposure: exposureOf(grey),
    tiltDegrees: tiltOf(grey),
  };
}

/** Variance of the Laplacian, mapped to 0..1. */
function laplacianVariance({ data, width, height }: Grey): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const l =
        (data[i - 1] ?? 0) + (data[i + 1] ?? 0) + (data[i - width] ?? 0) + (data[i + width] ?? 0) - 4 * (data[i] ?? 0);
      sum += l;
      sumSq += l * l;
      n++;
    }
  }
  const mean = sum / n;
  return sumSq / n - mean * mean;
}

function sharpnessOf(grey: Grey): number {
  const v = laplacianVariance(grey);
  return round(v / (v + SHARPNESS_HALF));
}

function exposureOf({ data }: Grey): PixelAnalysis['exposure'] {
  let sum = 0;
  let high = 0;
  let low = 0;
  for (const v of data) {
    sum += v;
    if (v >= CLIPPED_HIGHLIGHT) high++;
    else if (v <= CLIPPED_SHADOW) low++;
  }
  const n = data.length;
  return { mean: round(sum / n / 255), clippedHighlights: round(high / n), clippedShadows: round(low / n) };
}

/** DCT-II basis for N=32, rows 0..7 (the lowest frequencies are all the hash needs). */
const N = 32;
const BASIS = Array.from({ length: 8 }, (_, u) =>
  Float64Array.from({ length: N }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N))),
);

async function phashOf({ data, width, height }: Grey): Promise<string> {
  const small = await sharp(data, { raw: { width, height, channels: 1 } })
    .resize(N, N, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  // Rows first (8 frequencies of each of the 32 rows), then columns.
  const rows = new Float64Array(N * 8);
  for (let y = 0; y < N; y++) {
    for (let u = 0; u < 8; u++) {
      const basisU = BASIS[u] ?? [];
      let s = 0;
      for (let x = 0; x < N; x++) s += (small[y * N + x] ?? 0) * (basisU[x] ?? 0);
      rows[y * 8 + u] = s;
    }
  }
  const coeffs = new Float64Array(64);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      const basisV = BASIS[v] ?? [];
      let s = 0;
      for (let y = 0; y < N; y++) s += (rows[y * 8 + u] ?? 0) * (basisV[y] ?? 0);
      coeffs[v * 8 + u] = s;
    }
  }
  // The median leaves out the DC term (the mean brightness), as the classic pHash does.
  const median = [...coeffs.subarray(1)].sort((a, b) => a - b)[31] ?? 0;
  let hex = '';
  for (let nibble = 0; nibble < 16; nibble++) {
    let d = 0;
    for (let b = 0; b < 4; b++) d = (d << 1) | ((coeffs[nibble * 4 + b] ?? 0) > median ? 1 : 0);
    hex += d.toString(16);
  }
  return hex;
}

/** Bits in which two 16-hex-digit hashes differ. */
export function hammingDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let n = 0;
  while (x > 0n) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}

/**
 * How far vertical edges lean, in degrees, positive clockwise (their tops to the right); null with
 * too few of them. A vertical edge's gradient points across it: horizontal for an upright edge,
 * turned by the lean for a leaning one. Over a lightly smoothed copy, the Sobel gradients within
 * VERTICAL_WINDOW of horizontal and above a strength threshold vote, by strength, in 0.1° bins;
 * the lean is the strength-weighted mean angle within 1° of the strongest 1°-wide window.
 */
function tiltOf(grey: Grey): number | null {
  const { width, height } = grey;
  const data = boxBlur3(grey);
  const BINS = VERTICAL_WINDOW * 20;
  const hist = new Float64Array(BINS + 1);
  const angles: number[] = [];
  const weights: number[] = [];
  let count = 0;
  let total = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const a = data[i - width - 1] ?? 0;
      const b = data[i - width] ?? 0;
      const c = data[i - width + 1] ?? 0;
      const d = data[i - 1] ?? 0;
      const f = data[i + 1] ?? 0;
      const g = data[i + width - 1] ?? 0;
      const h = data[i + width] ?? 0;
      const k = data[i + width + 1] ?? 0;
      const gx = c + 2 * f + k - (a + 2 * d + g);
      const gy = g + 2 * h + k - (a + 2 * b + c);
      const mag = Math.hypot(gx, gy);
      if (mag < 120) continue;
      // Fold the gradient's direction into (-90°, 90°]: an edge's gradient may point either way.
      let deg = (Math.atan2(gy, gx) * 180) / Math.PI;
      if (deg > 90) deg -= 180;
      else if (deg <= -90) deg += 180;
      if (Math.abs(deg) > VERTICAL_WINDOW) continue;
      const bin = Math.round((deg + VERTICAL_WINDOW) * 10);
      hist[bin] = (hist[bin] ?? 0) + mag;
      angles.push(deg);
      weights.push(mag);
      count++;
      total += mag;
    }
  }
  if (count < MIN_VERTICAL_SHARE * width * height) return null;
  // The strongest 1°-wide window (10 bins).
  let best = 0;
  let bestAt = 0;
  let running = 0;
  for (let j = 0; j < hist.length; j++) {
    running += hist[j] ?? 0;
    if (j >= 10) running -= hist[j - 10] ?? 0;
    if (running > best) {
      best = running;
      bestAt = j - 4.5;
    }
  }
  if (best < MIN_PEAK_SHARE * total) return null;
  const peak = bestAt / 10 - VERTICAL_WINDOW;
  let sum = 0;
  let weight = 0;
  for (let j = 0; j < angles.length; j++) {
    if (Math.abs((angles[j] ?? 0) - peak) > 1) continue;
    sum += (angles[j] ?? 0) * (weights[j] ?? 0);
    weight += weights[j] ?? 0;
  }
  return Math.round((sum / weight) * 100) / 100;
}

/** A 3x3 box blur, edges copied: keeps grain and JPEG blocks from voting as edges. */
function boxBlur3({ data, width, height }: Grey): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] ?? 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      out[i] =
        ((data[i - width - 1] ?? 0) +
          (data[i - width] ?? 0) +
          (data[i - width + 1] ?? 0) +
          (data[i - 1] ?? 0) +
          (data[i] ?? 0) +
          (data[i + 1] ?? 0) +
          (data[i + width - 1] ?? 0) +
          (data[i + width] ?? 0) +
          (data[i + width + 1] ?? 0)) /
        9;
    }
  }
  return out;
}

const round = (v: number): number => Math.round(v * 10_000) / 10_000;
