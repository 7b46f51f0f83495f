// The image work of the pay-to-unlock previews (docs/api.md §29): a photo's `large` variant with
// the studio's name (or its logo, variants.logo.ts) drawn across it (`large_wm`, a JPEG of the same size) and the thumbnail cut
// from that (`thumb_wm`, WebP in the thumb box). Made once per photo by the `media.watermark` job
// (variants.watermark.job.ts) and stored as any variant, never per request.
//
// From `large`, not the original: it is already upright, sRGB, stripped of metadata and at most
// 2048 px, so a preview costs one small decode (tens of milliseconds) and carries nothing the
// variants do not. The mark is an SVG overlay (a pattern of the name, turned 30 degrees, tiled over
// the whole image, so no crop escapes it). Its text is set by sharp's text input (Pango) with
// DejaVu Sans Bold from the dejavu-fonts-ttf package, the font the invoice PDF embeds: an SVG
// `<text>` would take whatever fonts the system's fontconfig has, and that differs by host. The
// name is set twice, white over a black offset copy, both translucent, so it reads on light and
// dark parts of a photo alike.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { fitInside, THUMB_BOX, VariantError } from './variants.images.ts';
import { setText } from './variants.text.ts';

export const WATERMARK_NAMES = ['thumb_wm', 'large_wm'] as const;
export type WatermarkName = (typeof WATERMARK_NAMES)[number];

/** Which preview stands for which page variant while a gallery is locked. */
export const PREVIEW_OF = { thumb: 'thumb_wm', large: 'large_wm' } as const;

/** Bumped when the drawing changes, so every preview is made again. */
const MARK_FORMAT = 'lightbox-mark-v1';

/** What a preview carries, as stored in its row's `mark`: previews of another mark are made again. */
export const markOf = (studioName: string, logoKey: string | null = null): string =>
  createHash('sha256')
    .update(logoKey === null ? `${MARK_FORMAT}\n${studioName}` : `${MARK_FORMAT}\nlogo\n${logoKey}`)
    .digest('base64url')
    .slice(0, 16);

/** What a preview is marked with: the studio's name, or its logo's bytes (variants.logo.ts). */
export interface Mark {
  studioName: string;
  logo?: Buffer | undefined;
}

export interface MadePreview {
  name: WatermarkName;
  contentType: string;
  width: number;
  height: number;
  size: number;
}

/** The overlay for an image of `width` x `height`: the name tiled across it, turned 30 degrees. */
async function markOverlay(studioName: string, width: number, height: number): Promise<Buffer> {
  const px = Math.max(8, Math.round(Math.min(width, height) / 14));
  const name = studioName.trim() === '' ? 'Preview' : studioName.trim().slice(0, 120);
  const [light, dark] = await Promise.all([setText(name, px, 'white', 70), setText(name, px, 'black', 45)]);
  const w = light.info.width;
  const h = light.info.height;
  const uri = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;
  const shift = Math.max(1, Math.round(px / 20));
  // One name per tile, tiles a third wider than it and rows 2.6 names apart; the turn is about the centre.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}">
<defs><pattern id="m" patternUnits="userSpaceOnUse" width="${Math.round(w * 1.3)}" height="${Math.round(h * 2.6)}" patternTransform="rotate(-30 ${width / 2} ${height / 2})">
<image x="${shift}" y="${shift}" width="${w}" height="${h}" xlink:href="${uri(dark.data)}"/>
<image x="0" y="0" width="${w}" height="${h}" xlink:href="${uri(light.data)}"/>
</pattern></defs><rect width="${width}" height="${height}" fill="url(#m)"/></svg>`;
  return Buffer.from(svg);
}

/** How opaque the logo is drawn: seen across the photo, the photo still seen through it. */
const LOGO_OPACITY = 0.45;

/**
 * The overlay for an image of `width` x `height` from the studio's logo: the logo a quarter of
 * the shorter side wide or high, translucent, tiled over the whole image with a gap around each
 * (so no crop escapes it), as a PNG with alpha.
 */
async function logoOverlay(logo: Buffer, width: number, height: number): Promise<Buffer> {
  const side = Math.max(16, Math.round(Math.min(width, height) / 4));
  const fitted = await sharp(logo, { failOn: 'error' })
    .resize(side, side, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { data, info } = fitted;
  for (let i = 3; i < data.length; i += 4) data[i] = Math.round((data[i] ?? 0) * LOGO_OPACITY);
  const gap = Math.round(side / 3);
  const tile = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
    .extend({ top: gap, bottom: gap, left: gap, right: gap, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: tile, tile: true, gravity: 'northwest' }])
    .png()
    .toBuffer();
}

const JPEG_OPTIONS = { quality: 82, progressive: true, chromaSubsampling: '4:2:0', mozjpeg: false } as const;

/**
 * Reads a photo's `large` variant at `source` (a local file) and writes its previews through `put`:
 * `large_wm` at the same size, then `thumb_wm` from the marked pixels. Throws VariantError when the
 * file cannot be decoded.
 */
export async function makePreviews(
  source: string,
  mark: Mark,
  put: (name: WatermarkName, body: Readable, contentType: string) => Promise<void>,
): Promise<MadePreview[]> {
  let meta;
  try {
    meta = await sharp(source, { failOn: 'error' }).metadata();
  } catch (error) {
    throw new VariantError('the large variant cannot be decoded', { cause: error });
  }
  const overlay =
    mark.logo === undefined
      ? await markOverlay(mark.studioName, meta.width, meta.height)
      : await logoOverlay(mark.logo, meta.width, meta.height);
  const marked = await sharp(source, { failOn: 'error' })
    .composite([{ input: overlay }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: marked.info.width, height: marked.info.height, channels: marked.info.channels };
  const large = await sharp(marked.data, { raw }).flatten({ background: '#ffffff' }).jpeg(JPEG_OPTIONS).toBuffer();
  const box = fitInside({ width: raw.width, height: raw.height }, THUMB_BOX);
  const thumb = await sharp(marked.data, { raw })
    .resize(box.width, box.height, { fit: 'fill' })
    .webp({ quality: 80 })
    .toBuffer();
  await put('large_wm', Readable.from(large, { objectMode: false }), 'image/jpeg');
  await put('thumb_wm', Readable.from(thumb, { objectMode: false }), 'image/webp');
  return [
    { name: 'thumb_wm', contentType: 'image/webp', width: box.width, height: box.height, size: thumb.length },
    { name: 'large_wm', contentType: 'image/jpeg', width: raw.width, height: raw.height, size: large.length },
  ];
}
