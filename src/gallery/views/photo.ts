// One photo at its large size, as a page: what a thumbnail opens without JavaScript (with it,
// the viewer opens instead). A page rather than the bare image: the browser's own image viewer
// styles itself inline, which the gallery's CSP refuses, and a page can size the photo to the
// screen and link to the previous and next photos, the original and the gallery.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';
import type { GalleryView } from '../gallery.load.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { downloadsOn, fileSize, ICON_DOWNLOAD, testModeBanner } from './page.ts';

/** The photos a visitor can step through: visible, with a large variant, in position order. */
export const viewablePhotos = (view: GalleryView): VisibleMedia[] =>
  view.media.filter((m) => m.row.kind === 'photo' && m.variants.some((v) => v.name === 'large'));

export function photoPage(view: GalleryView, base: string, photos: VisibleMedia[], index: number): SafeHtml {
  const m = photos[index];
  const large = m?.variants.find((v) => v.name === 'large');
  if (m === undefined || large === undefined) throw new Error('photoPage needs a viewable photo');
  const previous = photos[index - 1];
  const next = photos[index + 1];
  const alt = m.row.caption ?? `Photo ${index + 1}`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>${alt} · ${view.listing.address}</title>
        <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
      </head>
      <body class="photo-page">
        ${testModeBanner(view)}
        <header class="photo-bar">
          <a class="photo-bar__back" href="${base}#photo-${m.row.id}">← ${view.listing.address}</a>
          <span class="photo-bar__count">${index + 1} / ${photos.length}</span>
        </header>
        <main class="photo-stage">
          <img src="${base}/large/${m.row.id}" width="${large.width}" height="${large.height}" alt="${alt}" />
        </main>
        <footer class="photo-bar photo-bar--bottom">
          ${
            previous === undefined
              ? html`<span class="photo-nav photo-nav--off" aria-hidden="true">← Previous</span>`
              : html`<a class="photo-nav" href="${base}/photo/${previous.row.id}" rel="prev">← Previous</a>`
          }
          <div class="photo-bar__middle">
            ${m.row.caption === null ? '' : html`<p class="photo-caption">${m.row.caption}</p>`}
            ${
              downloadsOn(view)
                ? html`<a class="button button--quiet" href="${base}/media/${m.row.id}/download" download
                    >${ICON_DOWNLOAD} Original <span class="button__size">${fileSize(m.row.size)}</span></a
                  >`
                : ''
            }
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
