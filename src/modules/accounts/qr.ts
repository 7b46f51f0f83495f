// The QR code of the two-factor set-up, drawn here as inline SVG (one path, no script, nothing
// loaded): it complies with the dashboard's Content-Security-Policy, and no outside service ever
// sees the secret. qrcode-generator encodes (zero dependencies); this file only draws.
import qrcode from 'qrcode-generator';
import { html, type SafeHtml } from '../../lib/html.ts';

/**
 * The modules of `text` as a QR code (error correction M): `count` x `count`, `isDark(row, col)`.
 * Drawn here as SVG, and by the listing kit's flyer into its PDF (docs/api.md §32).
 */
export function qrModules(text: string): { count: number; isDark(row: number, col: number): boolean } {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  return { count: qr.getModuleCount(), isDark: (row, col) => qr.isDark(row, col) };
}

/** The SVG markup of `text` as a QR code (error correction M, a 4-module quiet zone). */
export function qrSvg(text: string, label: string): SafeHtml {
  const qr = qrModules(text);
  const count = qr.count;
  const quiet = 4;
  const size = count + quiet * 2;
  let path = '';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (qr.isDark(row, col)) path += `M${col + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  // Every value is escaped like any page's: the path holds only digits and drawing commands.
  return html`<svg
    xmlns="http://www.w3.org/2000/svg"
    viewBox="0 0 ${size} ${size}"
    class="qr"
    role="img"
    aria-label="${label}"
    shape-rendering="crispEdges"
  >
    <rect width="${size}" height="${size}" fill="#fff" />
    <path d="${path}" fill="#000" />
  </svg>`;
}
