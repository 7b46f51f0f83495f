// One photo at its large size, as a page, for every public page: what a thumbnail opens without
// JavaScript (with it, the viewer opens instead). A page rather than the bare image: the browser's
// own image viewer styles itself inline, which the pages' CSP refuses, and a page can size the
// photo to the screen and link to the previous and next photos and back to the page.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { variantSrcset, variantUrl } from './images.ts';

/** The photos a visitor can step through: visible, with a large variant, in position order. */
export const viewablePhotos = (view: { media: VisibleMedia[] }): VisibleMedia[] =>
  view.media.filter((m) => m.row.kind === 'photo' && m.variants.some((v) => v.name === 'large'));

/** One visible media item of the page, or undefined (hidden, another gallery's, gone). */
export const visibleItem = (view: { media: VisibleMedia[] }, mediaId: string): VisibleMedia | undefined =>
  view.media.find((m) => m.row.id === mediaId);

export interface PhotoPageOptions {
  /** The page's <head>, given the title. */
  head: (title: string) => SafeHtml;
  /** Above the bar: the test-mode note of the page's kind, or nothing. */
  banner: SafeHtml | '';
  /** The page's own path (`/g/<token>`, `/p/<token>`): the photo's URLs hang off it. */
  base: string;
  address: string;
  photos: VisibleMedia[];
  index: number;
  /** Under the caption: what the page offers for the photo (the client gallery: the original). */
  actions?: (m: VisibleMedia) => SafeHtml | '';
}

export function photoPage({ head, banner, base, address, photos, index, actions }: PhotoPageOptions): SafeHtml {
  const m = photos[index];
  const large = m?.variants.find((v) => v.name === 'large');
  if (m === undefined || large === undefined) throw new Error('photoPage needs a viewable photo');
  const previous = photos[index - 1];
  const next = photos[index + 1];
  const alt = m.row.caption ?? m.row.alt_text ?? `Photo ${index + 1}`;
  return html`<!doctype html>
    <html lang="en">
      ${head(`${alt} · ${address}`)}
      <body class="photo-page">
        ${banner}
        <header class="photo-bar">
          <a class="photo-bar__back" href="${base}#photo-${m.row.id}">← ${address}</a>
          <span class="photo-bar__count">${index + 1} / ${photos.length}</span>
        </header>
        <main class="photo-stage">
          <img
            src="${variantUrl(base, m, 'large')}"
            srcset="${variantSrcset(base, m)}"
            sizes="100vw"
            width="${large.width}"
            height="${large.height}"
            alt="${alt}"
            fetchpriority="high"
          />
        </main>
        <footer class="photo-bar photo-bar--bottom">
          ${
            previous === undefined
              ? html`<span class="photo-nav photo-nav--off" aria-hidden="true">← Previous</span>`
              : html`<a class="photo-nav" href="${base}/photo/${previous.row.id}" rel="prev">← Previous</a>`
          }
          <div class="photo-bar__middle">
            ${m.row.caption === null ? '' : html`<p class="photo-caption">${m.row.caption}</p>`} ${actions?.(m) ?? ''}
          </div>
          ${
            next === undefined
              ? html`<span class="photo-nav photo-nav--off" aria-hidden="true">Next →</span>`
              : html`<a class="photo-nav" href="${base}/photo/${next.row.id}" rel="next">Next →</a>`
          }
        </footer>
      </body>
    </html> `;
}
