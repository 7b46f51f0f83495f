// The client gallery page: server-rendered, complete without JavaScript (every photo opens its
// large size as a plain link, every file downloads); a small script adds the photo viewer.
// Every value is escaped (html``); every URL is this site's own, relative to /g/<token>.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';
import { pageHead } from '../../public/views/head.ts';
import type { GalleryView } from '../gallery.load.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { coverPreload, SIZES, variantSrcset, variantUrl } from '../../public/views/images.ts';
import { commentForm, selectionForm, type PageNotice } from './proofing.ts';
import { downloadsOn, fileSize, ICON_DOWNLOAD, number, plural } from './parts.ts';

export { tooMany, type PageNotice } from './proofing.ts';
import { toursSection } from '../../public/views/tours.ts';
import { payLockNotice } from '../../public/views/pay-lock.ts';

/** Tiles in the first row on a phone (two columns): fetched at once; every other one when near. */
const EAGER_TILES = 2;

const ICON_DOCUMENT = html`<svg class="icon icon--large" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
  <path
    fill="currentColor"
    d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2Zm7 1.5V9h5.5L13 3.5ZM8 13v1.5h8V13H8Zm0 3v1.5h6V16H8Z"
  />
</svg>`;
const ICON_PHOTOS = html`<svg class="icon icon--large" viewBox="0 0 24 24" width="52" height="52" aria-hidden="true">
  <path
    fill="currentColor"
    d="M4 5h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2Zm0 2v8.6l4.5-4.6 3.5 3.5 2.5-2.5L20 17V7H4Zm11.5 1.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Z"
  />
</svg>`;

function facts(view: GalleryView): string[] {
  const { beds, baths, sqft } = view.listing;
  return [
    beds === null ? null : plural(beds, 'bed', 'beds'),
    baths === null ? null : plural(baths, 'bath', 'baths'),
    sqft === null ? null : `${number(sqft)} sq ft`,
  ].filter((f): f is string => f !== null);
}

/** docs/api.md §20: a page of test data says so, first thing, in words (not colour alone). */
export const testModeBanner = (view: GalleryView): SafeHtml | '' =>
  view.livemode
    ? ''
    : html`<p class="test-mode" role="note">
        <strong>Test mode</strong> · This gallery is test data: no client was sent it.
      </p>`;

/** docs/api.md §28: whether the link offers favorites, comments and sending a selection. */
const favoritesOn = (view: GalleryView): boolean => view.link.favorites_enabled !== 0;

/** The favorite toggle: a form of its own, a real button (keyboard and screen readers). */
function favoriteToggle(base: string, m: VisibleMedia, alt: string, on: boolean): SafeHtml {
  return html`<form class="tile__favorite" method="post" action="${base}/favorites/${m.row.id}">
    <input type="hidden" name="on" value="${on ? '0' : '1'}" />
    <button type="submit" class="favorite${on ? ' favorite--on' : ''}" aria-pressed="${on ? 'true' : 'false'}">
      <span aria-hidden="true">${on ? '♥' : '♡'}</span>
      <span class="visually-hidden">Favorite: ${alt}</span>
    </button>
  </form>`;
}

interface TileOptions {
  downloads: boolean;
  /** Favorites and comments are offered (docs/api.md §28). */
  proofing: boolean;
  favorite: boolean;
  comment: string | undefined;
}

function photo(base: string, m: VisibleMedia, index: number, o: TileOptions): SafeHtml {
  const { downloads } = o;
  const thumb = m.variants.find((v) => v.name === 'thumb');
  const large = m.variants.find((v) => v.name === 'large');
  // docs/api.md §31: a virtually staged photo says so, in words under it and in its alt text.
  const staged = m.row.virtually_staged === 1;
  const alt = `${m.row.caption ?? m.row.alt_text ?? `Photo ${index + 1}`}${staged ? ' (virtually staged)' : ''}`;
  if (thumb === undefined || large === undefined) {
    // Not ready yet (or could not be made): the original is still there to download.
    return html`<li class="tile tile--pending">
      ${downloads ? html`<a href="${base}/media/${m.row.id}/download">${m.row.filename}</a>` : html`<span>${m.row.filename}</span>`}
      <span class="tile__note">Preview coming soon</span>
    </li>`;
  }
  // Without JavaScript the link opens the photo's page; with it, the viewer shows data-pswp-src.
  return html`<li class="tile" id="photo-${m.row.id}">
    <a
      class="tile__link"
      href="${base}/photo/${m.row.id}"
      data-pswp-src="${variantUrl(base, m, 'large')}"
      data-pswp-width="${large.width}"
      data-pswp-height="${large.height}"
      ${downloads ? html`data-download="${base}/media/${m.row.id}/download"` : ''}
      ${m.row.caption === null ? '' : html`data-caption="${m.row.caption}"`}
    >
      <img
        src="${variantUrl(base, m, 'thumb')}"
        srcset="${variantSrcset(base, m, ['thumb', 'medium'])}"
        sizes="${SIZES.galleryTile}"
        width="${thumb.width}"
        height="${thumb.height}"
        alt="${alt}"
        loading="${index < EAGER_TILES ? 'eager' : 'lazy'}"
        decoding="async"
      />
    </a>
    ${
      downloads
        ? html`<a
            class="tile__download"
            href="${base}/media/${m.row.id}/download"
            download
            title="Download the original (${fileSize(m.row.size)})"
            aria-label="Download the original of ${alt} (${fileSize(m.row.size)})"
            >${ICON_DOWNLOAD}</a
          >`
        : ''
    }
    ${o.proofing ? favoriteToggle(base, m, alt, o.favorite) : ''}
    ${staged ? html`<p class="tile__staged">Virtually staged</p>` : ''}
    ${m.row.caption === null ? '' : html`<p class="tile__caption">${m.row.caption}</p>`}
    ${o.proofing ? commentForm(base, m, alt, o.comment) : ''}
  </li>`;
}

/**
 * The poster (docs/api.md §25) while the video is not playing, and `play` serves the web rendition
 * when there is one. Before the poster is made, `#t=0.1` has the browser show the first frame
 * rather than a black box.
 */
function player(base: string, m: VisibleMedia, downloads: boolean): SafeHtml | '' {
  const poster = m.variants.find((v) => v.name === 'poster');
  // With downloads off only a web rendition plays (the original is not served): else the poster alone.
  if (!downloads && !m.variants.some((v) => v.name === 'web')) {
    if (poster === undefined) return '';
    return html`<img
      class="file__poster"
      src="${variantUrl(base, m, 'poster')}"
      width="${poster.width}"
      height="${poster.height}"
      alt="${m.row.caption ?? m.row.filename}"
      loading="lazy"
      decoding="async"
    />`;
  }
  if (poster === undefined) {
    return html`<video controls preload="metadata" src="${base}/media/${m.row.id}/play#t=0.1"></video>`;
  }
  return html`<video
    controls
    preload="none"
    poster="${variantUrl(base, m, 'poster')}"
    width="${poster.width}"
    height="${poster.height}"
    src="${base}/media/${m.row.id}/play"
  ></video>`;
}

function video(base: string, m: VisibleMedia, downloads: boolean): SafeHtml {
  return html`<li class="file file--video">
    ${player(base, m, downloads)}
    <div class="file__meta">
      <span class="file__name">${m.row.caption ?? m.row.filename}</span>
      ${
        downloads
          ? html`<a class="button button--quiet" href="${base}/media/${m.row.id}/download" download
              >${ICON_DOWNLOAD} Download <span class="button__size">${fileSize(m.row.size)}</span></a
            >`
          : ''
      }
    </div>
  </li>`;
}

function documentItem(base: string, m: VisibleMedia, downloads: boolean): SafeHtml {
  if (!downloads) {
    return html`<li class="file file--document">
      <span class="file__link">
        ${ICON_DOCUMENT}
        <span class="file__text">
          <span class="file__name">${m.row.caption ?? m.row.filename}</span>
          <span class="file__size">PDF · ${fileSize(m.row.size)} · not offered for download</span>
        </span>
      </span>
    </li>`;
  }
  return html`<li class="file file--document">
    <a class="file__link" href="${base}/media/${m.row.id}/download" download>
      ${ICON_DOCUMENT}
      <span class="file__text">
        <span class="file__name">${m.row.caption ?? m.row.filename}</span>
        <span class="file__size">PDF · ${fileSize(m.row.size)}</span>
      </span>
      <span class="file__action">${ICON_DOWNLOAD} Download</span>
    </a>
  </li>`;
}

export function galleryPage(
  view: GalleryView,
  base: string,
  selection: {
    favorites: ReadonlySet<string>;
    comments?: ReadonlyMap<string, string>;
    notice?: PageNotice;
  } = { favorites: new Set() },
): SafeHtml {
  const proofing = favoritesOn(view);
  const notice = selection.notice ?? {};
  const { listing, studioName, media, cover } = view;
  const photos = media.filter((m) => m.row.kind === 'photo');
  const videos = media.filter((m) => m.row.kind === 'video');
  const documents = media.filter((m) => m.row.kind === 'document');
  const total = media.reduce((sum, m) => sum + m.row.size, 0);
  const coverLarge = cover?.variants.find((v) => v.name === 'large');
  const details = facts(view);
  const downloads = downloadsOn(view);
  return html`<!doctype html>
    <html lang="en">
      ${pageHead({
        title: `${listing.address} · ${studioName}`,
        styles: listing.tours.length === 0 ? [] : ['tours.css'],
        scripts: ['favorites.js'],
        preload: cover === undefined || coverLarge === undefined ? '' : coverPreload(base, cover),
      })}
      <body>
        ${testModeBanner(view)}
        <header class="masthead">
          <p class="studio">${studioName}</p>
        </header>
        ${view.lock === undefined ? '' : payLockNotice(view.lock, base)}
        <main
          id="gallery"
          data-lightbox="${galleryAssetUrl('photoswipe-lightbox.esm.min.js')}"
          data-pswp="${galleryAssetUrl('photoswipe.esm.min.js')}"
          data-downloads="${downloads ? 'on' : 'off'}"
        >
          <section class="hero">
            ${
              coverLarge === undefined || cover === undefined
                ? ''
                : html`<img
                    class="hero__image"
                    src="${variantUrl(base, cover, 'large')}"
                    srcset="${variantSrcset(base, cover)}"
                    sizes="${SIZES.hero}"
                    width="${coverLarge.width}"
                    height="${coverLarge.height}"
                    alt="${cover.row.caption ?? cover.row.alt_text ?? listing.address}"
                    fetchpriority="high"
                  />`
            }
            <div class="intro">
              <div class="intro__text">
                <h1>${listing.address}</h1>
                ${details.length === 0 ? '' : html`<p class="facts">${details.join(' · ')}</p>`}
                ${listing.description === null ? '' : html`<p class="description">${listing.description}</p>`}
              </div>
              ${
                media.length === 0 || !downloads
                  ? ''
                  : html`<div class="intro__actions">
                      <a class="button" href="${base}/download.zip" download>${ICON_DOWNLOAD} Download all</a>
                      <p class="intro__note">${plural(media.length, 'file', 'files')} · ${fileSize(total)} · ZIP</p>
                    </div>`
              }
            </div>
          </section>
          ${toursSection(listing.tours)}
          ${
            media.length === 0 && listing.tours.length === 0
              ? html`<section class="empty">
                  ${ICON_PHOTOS}
                  <h2>No photos yet</h2>
                  <p>There is nothing in this gallery yet. ${studioName} will add the photos soon.</p>
                </section>`
              : ''
          }
          ${
            photos.length === 0
              ? ''
              : html`<section class="photos" aria-labelledby="photos-title">
                    <h2 id="photos-title">Photos <span class="count">${number(photos.length)}</span></h2>
                    <ul class="grid" id="photo-grid">
                      ${photos.map((m, i) =>
                        photo(base, m, i, {
                          downloads,
                          proofing,
                          favorite: selection.favorites.has(m.row.id),
                          comment: selection.comments?.get(m.row.id),
                        }),
                      )}
                    </ul>
                  </section>
                  ${
                    proofing
                      ? selectionForm(
                          view,
                          base,
                          photos.filter((m) => selection.favorites.has(m.row.id)).length,
                          notice,
                        )
                      : ''
                  }`
          }
          ${
            videos.length === 0
              ? ''
              : html`<section class="videos" aria-labelledby="videos-title">
                  <h2 id="videos-title">
                    ${videos.length === 1 ? 'Video' : 'Videos'} <span class="count">${number(videos.length)}</span>
                  </h2>
                  <ul class="files files--videos">
                    ${videos.map((m) => video(base, m, downloads))}
                  </ul>
                </section>`
          }
          ${
            documents.length === 0
              ? ''
              : html`<section class="documents" aria-labelledby="documents-title">
                  <h2 id="documents-title">
                    ${documents.length === 1 ? 'Document' : 'Documents'}
                    <span class="count">${number(documents.length)}</span>
                  </h2>
                  <ul class="files files--documents">
                    ${documents.map((m) => documentItem(base, m, downloads))}
                  </ul>
                </section>`
          }
        </main>
        <footer class="footer">
          <p>
            Shared with you by
            ${studioName}.${media.length === 0 || !downloads ? '' : ' Every download is the original file, full size.'}
          </p>
        </footer>
      </body>
    </html> `;
}
