// The client gallery page: server-rendered, complete without JavaScript (every photo opens its
// large size as a plain link, every file downloads); a small script adds the photo viewer.
// Every value is escaped (html``); every URL is this site's own, relative to /g/<token>.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';
import type { GalleryView } from '../gallery.load.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';

const number = (n: number): string => n.toLocaleString('en-US');

function plural(n: number, one: string, many: string): string {
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

function facts(view: GalleryView): string[] {
  const { beds, baths, sqft } = view.listing;
  return [
    beds === null ? null : plural(beds, 'bed', 'beds'),
    baths === null ? null : plural(baths, 'bath', 'baths'),
    sqft === null ? null : `${number(sqft)} sq ft`,
  ].filter((f): f is string => f !== null);
}

function photo(base: string, m: VisibleMedia, index: number): SafeHtml {
  const thumb = m.variants.find((v) => v.name === 'thumb');
  const large = m.variants.find((v) => v.name === 'large');
  const alt = m.row.caption ?? `Photo ${index + 1}`;
  if (thumb === undefined || large === undefined) {
    // Not ready yet (or could not be made): the original is still there to download.
    return html`<li class="tile tile--pending">
      <a href="${base}/media/${m.row.id}/download">${m.row.filename}</a>
      <span class="tile__note">Preview coming soon</span>
    </li>`;
  }
  return html`<li class="tile">
    <a
      class="tile__link"
      href="${base}/large/${m.row.id}"
      data-pswp-width="${large.width}"
      data-pswp-height="${large.height}"
      data-download="${base}/media/${m.row.id}/download"
      ${m.row.caption === null ? '' : html`data-caption="${m.row.caption}"`}
    >
      <img
        src="${base}/thumb/${m.row.id}"
        width="${thumb.width}"
        height="${thumb.height}"
        alt="${alt}"
        loading="${index < 6 ? 'eager' : 'lazy'}"
        decoding="async"
      />
    </a>
    ${m.row.caption === null ? '' : html`<p class="tile__caption">${m.row.caption}</p>`}
  </li>`;
}

function video(base: string, m: VisibleMedia): SafeHtml {
  return html`<li class="file file--video">
    <video controls preload="metadata" src="${base}/media/${m.row.id}/play"></video>
    <div class="file__meta">
      <span class="file__name">${m.row.caption ?? m.row.filename}</span>
      <a class="file__download" href="${base}/media/${m.row.id}/download" download
        >Download (${fileSize(m.row.size)})</a
      >
    </div>
  </li>`;
}

function documentItem(base: string, m: VisibleMedia): SafeHtml {
  return html`<li class="file file--document">
    <a class="file__download" href="${base}/media/${m.row.id}/download" download>
      <span class="file__name">${m.row.caption ?? m.row.filename}</span>
      <span class="file__size">PDF · ${fileSize(m.row.size)}</span>
    </a>
  </li>`;
}

export function galleryPage(view: GalleryView, base: string): SafeHtml {
  const { listing, studioName, media, cover } = view;
  const photos = media.filter((m) => m.row.kind === 'photo');
  const videos = media.filter((m) => m.row.kind === 'video');
  const documents = media.filter((m) => m.row.kind === 'document');
  const total = media.reduce((sum, m) => sum + m.row.size, 0);
  const coverLarge = cover?.variants.find((v) => v.name === 'large');
  const details = facts(view);
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>${listing.address} · ${studioName}</title>
        <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
        <link rel="stylesheet" href="${galleryAssetUrl('photoswipe.css')}" />
        <script type="module" src="${galleryAssetUrl('gallery.js')}"></script>
      </head>
      <body>
        <header class="masthead">
          <p class="studio">${studioName}</p>
        </header>
        <main
          id="gallery"
          data-lightbox="${galleryAssetUrl('photoswipe-lightbox.esm.min.js')}"
          data-pswp="${galleryAssetUrl('photoswipe.esm.min.js')}"
        >
          <section class="hero">
            ${
              coverLarge === undefined || cover === undefined
                ? ''
                : html`<img
                    class="hero__image"
                    src="${base}/large/${cover.row.id}"
                    width="${coverLarge.width}"
                    height="${coverLarge.height}"
                    alt="${cover.row.caption ?? listing.address}"
                  />`
            }
            <div class="hero__text">
              <h1>${listing.address}</h1>
              ${details.length === 0 ? '' : html`<p class="facts">${details.join(' · ')}</p>`}
              ${
                media.length === 0
                  ? ''
                  : html`<a class="button" href="${base}/download.zip" download
                      >Download all
                      <span class="button__size"
                        >(${plural(media.length, 'file', 'files')}, ${fileSize(total)})</span
                      ></a
                    >`
              }
            </div>
          </section>
          ${listing.description === null ? '' : html`<section class="description"><p>${listing.description}</p></section>`}
          ${
            media.length === 0
              ? html`<section class="empty">
                  <p>There is nothing in this gallery yet. ${studioName} will add the photos soon.</p>
                </section>`
              : ''
          }
          ${
            photos.length === 0
              ? ''
              : html`<section class="photos" aria-labelledby="photos-title">
                  <h2 id="photos-title">${plural(photos.length, 'photo', 'photos')}</h2>
                  <ul class="grid" id="photo-grid">
                    ${photos.map((m, i) => photo(base, m, i))}
                  </ul>
                </section>`
          }
          ${
            videos.length === 0
              ? ''
              : html`<section class="videos" aria-labelledby="videos-title">
                  <h2 id="videos-title">${plural(videos.length, 'video', 'videos')}</h2>
                  <ul class="files">
                    ${videos.map((m) => video(base, m))}
                  </ul>
                </section>`
          }
          ${
            documents.length === 0
              ? ''
              : html`<section class="documents" aria-labelledby="documents-title">
                  <h2 id="documents-title">${plural(documents.length, 'document', 'documents')}</h2>
                  <ul class="files">
                    ${documents.map((m) => documentItem(base, m))}
                  </ul>
                </section>`
          }
        </main>
        <footer class="footer"><p>Shared with you by ${studioName}.</p></footer>
      </body>
    </html> `;
}
