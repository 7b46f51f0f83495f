// Text drawn into variants' pixels: the studio's name across a pay-to-unlock preview
// (variants.watermark.ts, docs/api.md §29) and the "Virtually staged" label (variants.staging.ts,
// §31). Set by sharp's text input (Pango) with DejaVu Sans Bold from the dejavu-fonts-ttf package,
// the font the invoice PDF embeds: an SVG `<text>` would take whatever fonts the system's
// fontconfig has, and that differs by host.
import { createRequire } from 'node:module';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
const FONT_FILE = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

const escapeMarkup = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text set in DejaVu Sans Bold, `px` high, as a PNG with alpha (the mark's name, §31's staging label). */
export async function setText(text: string, px: number, colour: string, alpha: number) {
  return sharp({
    text: {
      text: `<span foreground="${colour}" alpha="${alpha}%">${escapeMarkup(text)}</span>`,
      fontfile: FONT_FILE,
      font: `DejaVu Sans Bold ${px}`,
      dpi: 72,
      rgba: true,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
}
