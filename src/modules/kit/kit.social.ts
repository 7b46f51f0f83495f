// docs/api.md §32, the social images (`social`): JPEGs of 1080x1080, 1080x1350 and 1080x1920, the
// cover cropped to fill, darkened toward the bottom, with the address and the facts set over it and
// the studio's name small. The text is set by sharp's text input (Pango) with DejaVu Sans from the
// dejavu-fonts-ttf package, as the watermark's is (variants.watermark.ts): an SVG `<text>` would
// take whatever fonts the host has. Made from the cover's `large` variant, so they carry no
// metadata the variants do not (none: docs/api.md §13).
import { createRequire } from 'node:module';
import sharp, { type OverlayOptions } from 'sharp';
import type { SocialFormat } from './kit.schemas.ts';

const require = createRequire(import.meta.url);
const FONT_FILE = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD_FILE = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

export const SOCIAL_SIZES: readonly { format: SocialFormat; width: number; height: number }[] = [
  { format: 'square', width: 1080, height: 1080 },
  { format: 'portrait', width: 1080, height: 1350 },
  { format: 'story', width: 1080, height: 1920 },
];

const escapeMarkup = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `text` set white in `px`, wrapped within `width`, as a PNG with alpha. */
async function setText(text: string, px: number, width: number, bold: boolean) {
  return sharp({
    text: {
      text: `<span foreground="white">${escapeMarkup(text)}</span>`,
      fontfile: bold ? BOLD_FILE : FONT_FILE,
      font: `${bold ? 'DejaVu Sans Bold' : 'DejaVu Sans'} ${px}`,
      width,
      dpi: 72,
      rgba: true,
      wrap: 'word',
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
}

export interface SocialText {
  address: string;
  /** `3 beds · 2 baths · 1,850 sqft`, or empty. */
  facts: string;
  studio: string;
}

export async function renderSocialImage(
  cover: Buffer,
  size: { width: number; height: number },
  text: SocialText,
): Promise<Buffer> {
  const { width, height } = size;
  const pad = 64;
  // A story (9:16) is shown under the app's own bars: the text keeps above its lowest 270 px.
  const bottom = height / width >= 16 / 9 ? 270 : pad;
  const [address, facts, studio] = await Promise.all([
    setText(text.address.slice(0, 300), 64, width - pad * 2, true),
    text.facts === '' ? undefined : setText(text.facts, 40, width - pad * 2, false),
    setText(text.studio.slice(0, 120), 26, width - pad * 2, false),
  ]);
  const block = address.info.height + (facts === undefined ? 0 : facts.info.height + 18) + studio.info.height + 28;
  const shadeTop = Math.max(0, height - bottom - block - pad * 2);
  // The shade is at its darkest from the text's foot down.
  const full = Math.min(1, (height - bottom + 20 - shadeTop) / (height - shadeTop));
  const shade = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">` +
      `<stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="${full.toFixed(3)}" stop-color="#000" stop-opacity="0.78"/>` +
      `</linearGradient></defs><rect x="0" y="${shadeTop}" width="${width}" height="${height - shadeTop}" fill="url(#g)"/></svg>`,
  );
  let y = height - bottom - block;
  const layers: OverlayOptions[] = [{ input: shade, top: 0, left: 0 }];
  layers.push({ input: address.data, top: y, left: pad });
  y += address.info.height + 18;
  if (facts !== undefined) {
    layers.push({ input: facts.data, top: y, left: pad });
    y += facts.info.height + 28;
  } else {
    y += 10;
  }
  layers.push({ input: studio.data, top: y, left: pad });
  return sharp(cover, { failOn: 'error' })
    .resize(width, height, { fit: 'cover', position: 'attention' })
    .composite(layers)
    .jpeg({ quality: 86, mozjpeg: true })
    .toBuffer();
}
