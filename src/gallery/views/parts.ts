// What the client's gallery page, its photo page and its proofing forms share: numbers and sizes
// as a person reads them, the download icon, and whether the link offers downloads. Its own
// module so that the page and the forms it renders do not import each other.
import { html } from '../../lib/html.ts';
import type { GalleryView } from '../gallery.load.ts';

export const number = (n: number): string => n.toLocaleString('en-US');

/** Icons drawn inline (markup, not script or style: the CSP allows them), coloured by the text. */
export const ICON_DOWNLOAD = html`<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
  <path fill="currentColor" d="M11 4h2v8.2l3.3-3.3 1.4 1.4L12 16l-5.7-5.7 1.4-1.4 3.3 3.3V4Zm-6 14h14v2H5v-2Z" />
</svg>`;

export function plural(n: number, one: string, many: string): string {
  return `${number(n)} ${n === 1 ? one : many}`;
}

/** Bytes as a person reads them. */
export function fileSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? ''}`;
}

/**
 * docs/api.md §25: with downloads off, no control offers an original or the ZIP; nor while an open
 * invoice locks the gallery (§29).
 */
export const downloadsOn = (view: GalleryView): boolean => view.link.downloads_enabled !== 0 && view.lock === undefined;
