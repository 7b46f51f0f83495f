// docs/api.md §32, the flyer (`flyer`): a one-page PDF on the studio's paper (Settings, else
// KIT_PAPER): the cover large, the address, beds, baths and sqft, the description, up to four more
// photos, the studio's name and a QR code that opens the branded property page (drawn from the
// same QR encoder as the two-factor set-up, src/modules/accounts/qr.ts). pdfkit, with DejaVu Sans
// embedded (subset) as the invoice's PDF has it, so the text is selectable and shows the same
// everywhere; dated by the build, so the same build gives the same bytes.
import { createRequire } from 'node:module';
import { qrModules } from '../accounts/qr.ts';

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/** Points (1/72 inch). */
const PAPER = { letter: [612, 792], a4: [595.28, 841.89] } as const;

export interface FlyerInput {
  paper: 'letter' | 'a4';
  address: string;
  beds: number | null;
  baths: number | null;
  sqft: number | null;
  description: string | null;
  studio: string;
  /** JPEG bytes of the cover's `large` variant. */
  cover: Buffer;
  /** Up to four more photos (JPEG bytes of their `large` variants), in order. */
  more: readonly Buffer[];
  /** The branded property page's URL; null when the gallery is not published (no QR code then). */
  pageUrl: string | null;
  /** The build's time: the PDF's dates. */
  date: Date;
}

/** `3 beds · 2 baths · 1,850 sqft`: the facts there are, or an empty string. */
export function factsLine(f: { beds: number | null; baths: number | null; sqft: number | null }): string {
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  return [
    f.beds === null ? null : plural(f.beds, 'bed', 'beds'),
    f.baths === null ? null : plural(f.baths, 'bath', 'baths'),
    f.sqft === null ? null : `${f.sqft.toLocaleString('en-US')} sqft`,
  ]
    .filter((s) => s !== null)
    .join(' · ');
}

export async function renderFlyer(input: FlyerInput): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const [width, height] = PAPER[input.paper];
  const margin = 36;
  const doc = new PDFDocument({
    size: [width, height],
    margin,
    autoFirstPage: true,
    info: { Title: input.address, Author: input.studio, CreationDate: input.date, ModDate: input.date },
  });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const inner = width - margin * 2;
  // The cover: the full width, 45% of the page's height, cropped to fill.
  const coverHeight = Math.round(height * 0.42);
  doc.save();
  doc.rect(margin, margin, inner, coverHeight).clip();
  doc.image(input.cover, margin, margin, { cover: [inner, coverHeight], align: 'center', valign: 'center' });
  doc.restore();
  let y = margin + coverHeight + 14;
  // The address and facts at the left; the QR code at the right of them.
  const qrSize = input.pageUrl === null ? 0 : 84;
  const textWidth = inner - (qrSize === 0 ? 0 : qrSize + 16);
  doc.font('bold').fontSize(20).fillColor('#111').text(input.address, margin, y, { width: textWidth });
  const facts = factsLine(input);
  if (facts !== '')
    doc
      .font('body')
      .fontSize(12)
      .fillColor('#333')
      .text(facts, margin, doc.y + 2, { width: textWidth });
  if (input.pageUrl !== null) {
    const qr = qrModules(input.pageUrl);
    const quiet = 2;
    const unit = qrSize / (qr.count + quiet * 2);
    const qx = margin + inner - qrSize;
    doc.rect(qx, y, qrSize, qrSize).fill('#fff');
    for (let row = 0; row < qr.count; row += 1) {
      for (let col = 0; col < qr.count; col += 1) {
        if (qr.isDark(row, col)) doc.rect(qx + (col + quiet) * unit, y + (row + quiet) * unit, unit, unit);
      }
    }
    doc.fill('#000');
    doc
      .font('body')
      .fontSize(7)
      .fillColor('#555')
      .text('Scan for photos', qx, y + qrSize + 2, { width: qrSize, align: 'center' });
  }
  y = Math.max(doc.y, y + qrSize + 12) + 8;
  // The photos' row goes at the bottom, above the studio's name; the description fills what is between.
  const footer = 22;
  const more = input.more.slice(0, 4);
  const gap = 8;
  const thumbWidth = more.length === 0 ? 0 : (inner - gap * (more.length - 1)) / more.length;
  const thumbHeight = more.length === 0 ? 0 : Math.min(Math.round(thumbWidth * 0.7), 130);
  const thumbsTop = height - margin - footer - thumbHeight;
  if (input.description !== null && input.description.trim() !== '') {
    const room = thumbsTop - 12 - y;
    if (room > 24) {
      doc.font('body').fontSize(10).fillColor('#222').text(input.description.trim(), margin, y, {
        width: inner,
        height: room,
        ellipsis: true,
      });
    }
  }
  more.forEach((photo, i) => {
    const x = margin + i * (thumbWidth + gap);
    doc.save();
    doc.rect(x, thumbsTop, thumbWidth, thumbHeight).clip();
    doc.image(photo, x, thumbsTop, { cover: [thumbWidth, thumbHeight], align: 'center', valign: 'center' });
    doc.restore();
  });
  // Set inside the bottom margin: without this pdfkit would start a second page for it.
  doc.page.margins.bottom = 0;
  doc
    .font('bold')
    .fontSize(10)
    .fillColor('#111')
    .text(input.studio, margin, height - margin - 12, { width: inner, align: 'center', lineBreak: false });
  doc.end();
  return done;
}
