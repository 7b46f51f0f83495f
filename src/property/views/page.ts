// The property pages (docs/api.md §25): server-rendered, complete without JavaScript (every photo
// opens its large size as a plain link); the gallery's script adds the same photo viewer. One
// template draws the branded page, the unbranded one (`studioName` null: no name, no link, no
// contact, no footer, no file's name, no original played) and the embeddable view. Every value is
// escaped (html``); every image and file is this site's own, under /p/<token>. Open Graph tags
// carry absolute URLs (shared links unfold).
import { html, type SafeHtml } from '../../lib/html.ts';
import { previewNotice } from '../../public/views/pay-lock.ts';
import { galleryAssetUrl } from '../../gallery/assets.ts';
import { pageHead } from '../../public/views/head.ts';
import { photoPage as publicPhotoPage } from '../../public/views/photo.ts';
import { fileSize } from '../../gallery/views/parts.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import type { PropertyView } from '../property.load.ts';
import { propertyPageUrl } from '../../modules/listings/listings.serializer.ts';
import { coverPreload, SIZES, variantSrcset, variantUrl } from '../../public/views/images.ts';
import { untaggedRendition } from '../../public/page-media.ts';
import { toursFor, toursSection } from '../../public/views/tours.ts';
import { photo, propertyTiles } from './photo-tile.ts';
import { kitSection } from './kit.ts';
import type { PageKitItem } from '../property.kit.ts';

/** Photos fetched at once: the first row of the grid (one column on a phone); the rest when near. */
const EAGER_TILES = 1;

const number = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many: string): string => `${number(n)} ${n === 1 ? one : many}`;

const ICON_DOCUMENT = html`<svg class="icon icon--large" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
  <path
    fill="currentColor"
    d="M6 2h8l6 6v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2Zm7 1.5V9h5.5L13 3.5ZM8 13v1.5h8V13H8Zm0 3v1.5h6V16H8Z"
  />
</svg>`;
const ICON_OPEN = html`<svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
  <path
    fill="currentColor"
    d="M14 4h6v6h-2V7.4l-7.3 7.3-1.4-1.4L16.6 6H14V4ZM5 6h6v2H6v10h10v-5h2v6a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1Z"
  />
</svg>`;

/** Beds, baths, square feet: what is known, in that order. */
function factsOf(view: Pick<PropertyView, 'listing'>): string[] {
  const { beds, baths, sqft } = view.listing;
  return [
    beds === null ? null : plural(beds, 'bed', 'beds'),
    baths === null ? null : plural(baths, 'bath', 'baths'),
    sqft === null ? null : `${number(sqft)} sq ft`,
  ].filter((f): f is string => f !== null);
}

/** The page's one-line summary (Open Graph, oEmbed): the facts, then the description's start. */
export function summaryOf(view: Pick<PropertyView, 'listing'>): string {
  const facts = factsOf(view).join(' · ');
  const text = (view.listing.description ?? '').replace(/\s+/g, ' ').trim();
  const short = text.length > 200 ? `${text.slice(0, 199).trimEnd()}…` : text;
  return [facts, short].filter((s) => s !== '').join(' — ');
}

export interface PropertyUrls {
  /** PUBLIC_URL: Open Graph and oEmbed discovery need absolute URLs. */
  publicUrl: string;
}

const pageTitle = (view: PropertyView): string =>
  view.studioName === null ? view.listing.address : `${view.listing.address} · ${view.studioName}`;

function openGraph(view: PropertyView, { publicUrl }: PropertyUrls): SafeHtml {
  const url = propertyPageUrl(publicUrl, view.token);
  const summary = summaryOf(view);
  const large = view.cover?.variants.find((v) => v.name === 'large');
  const oembed = `${publicUrl}/oembed?url=${encodeURIComponent(url)}&format=json`;
  return html`<meta name="description" content="${summary}" />
    <link rel="canonical" href="${url}" />
    <link rel="alternate" type="application/json+oembed" href="${oembed}" title="${view.listing.address}" />
    <meta property="og:type" content="website" />
    <meta property="og:title" content="${view.listing.address}" />
    <meta property="og:description" content="${summary}" />
    <meta property="og:url" content="${url}" />
    ${view.studioName === null ? '' : html`<meta property="og:site_name" content="${view.studioName}" />`}
    ${
      large === undefined
        ? html`<meta name="twitter:card" content="summary" />`
        : html`<meta property="og:image" content="${url}/cover.jpg" />
            <meta property="og:image:type" content="${large.content_type}" />
            <meta property="og:image:width" content="${large.width}" />
            <meta property="og:image:height" content="${large.height}" />
            <meta
              property="og:image:alt"
              content="${view.cover?.row.caption ?? view.cover?.row.alt_text ?? view.listing.address}"
            />
            <meta name="twitter:card" content="summary_large_image" />`
    }`;
}

/**
 * docs/api.md §25: the poster once made (nothing loads until play), and the web rendition plays.
 * The unbranded page plays only a rendition with none of the original's tags (`play` serves
 * nothing else there): until one is made, the poster alone, or nothing before the poster.
 */
function video(view: PropertyView, base: string, m: VisibleMedia, index: number): SafeHtml | '' {
  const poster = m.variants.find((v) => v.name === 'poster');
  let player: SafeHtml;
  if (!view.branded && untaggedRendition(m) === undefined) {
    if (poster === undefined) return '';
    player = html`<img
      class="file__poster"
      src="${variantUrl(base, m, 'poster')}"
      width="${poster.width}"
      height="${poster.height}"
      alt="${m.row.caption ?? `Video ${index + 1}`}"
      loading="lazy"
      decoding="async"
    />`;
  } else if (poster === undefined) {
    player = html`<video controls preload="metadata" playsinline src="${base}/media/${m.row.id}/play#t=0.1"></video>`;
  } else {
    player = html`<video
      controls
      preload="none"
      playsinline
      poster="${variantUrl(base, m, 'poster')}"
      width="${poster.width}"
      height="${poster.height}"
      src="${base}/media/${m.row.id}/play"
    ></video>`;
  }
  return html`<li class="file file--video">
    ${player}
    ${m.row.caption === null ? '' : html`<div class="file__meta"><span class="file__name">${m.row.caption}</span></div>`}
  </li>`;
}

/** What a document's file name can say it is, as a listing names it. */
const DOCUMENT_KINDS: readonly (readonly [RegExp, string])[] = [
  [/floor[\s_.-]*plan/i, 'Floor plan'],
  [/site[\s_.-]*plan/i, 'Site plan'],
  [/brochure/i, 'Brochure'],
  [/disclosure/i, 'Disclosure'],
];

/**
 * The names of a page's documents, in position order. The branded page: the caption, else the file
 * name. The unbranded page never shows a file name (it may name the studio, as
 * `STUDIO-floorplan.pdf` does, docs/api.md §25): the caption, as the studio wrote it for the pages
 * (as a photo's); else the kind the file name says (`Floor plan`), numbered when two say the same;
 * else `Document N`, N its place among the page's documents.
 */
function documentNames(documents: readonly VisibleMedia[], branded: boolean): string[] {
  if (branded) return documents.map((m) => m.row.caption ?? m.row.filename);
  const kinds = documents.map((m) =>
    m.row.caption === null ? DOCUMENT_KINDS.find(([says]) => says.test(m.row.filename))?.[1] : undefined,
  );
  const total = new Map<string, number>();
  for (const kind of kinds) if (kind !== undefined) total.set(kind, (total.get(kind) ?? 0) + 1);
  const seen = new Map<string, number>();
  return documents.map((m, i) => {
    const kind = kinds[i];
    if (kind === undefined) return m.row.caption ?? `Document ${i + 1}`;
    const nth = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, nth);
    return total.get(kind) === 1 ? kind : `${kind} ${nth}`;
  });
}

/** docs/api.md §25: neither page offers originals, so a document is listed by name only. */
function documentItem(m: VisibleMedia, name: string): SafeHtml {
  return html`<li class="file file--document">
    <span class="file__link">
      ${ICON_DOCUMENT}
      <span class="file__text">
        <span class="file__name">${name}</span>
        <span class="file__size">PDF · ${fileSize(m.row.size)}</span>
      </span>
    </span>
  </li>`;
}

function hero(view: PropertyView, base: string): SafeHtml | '' {
  const { cover, listing } = view;
  const large = cover?.variants.find((v) => v.name === 'large');
  if (cover === undefined || large === undefined) return '';
  return html`<img
    class="hero__image"
    src="${variantUrl(base, cover, 'large')}"
    srcset="${variantSrcset(base, cover)}"
    sizes="${SIZES.hero}"
    width="${large.width}"
    height="${large.height}"
    alt="${cover.row.caption ?? cover.row.alt_text ?? listing.address}"
    fetchpriority="high"
  />`;
}

function intro(view: PropertyView): SafeHtml {
  const details = factsOf(view);
  const { listing } = view;
  return html`<div class="intro__text">
    <h1>${listing.address}</h1>
    ${details.length === 0 ? '' : html`<p class="facts">${details.join(' · ')}</p>`}
    ${listing.mls_number === null ? '' : html`<p class="property__mls">MLS ${listing.mls_number}</p>`}
  </div>`;
}

function viewerData(): { lightbox: string; pswp: string } {
  return {
    lightbox: galleryAssetUrl('photoswipe-lightbox.esm.min.js'),
    pswp: galleryAssetUrl('photoswipe.esm.min.js'),
  };
}

/** docs/api.md §20: a page of test data says so, first thing, in words (not colour alone). */
const testModeBanner = (view: PropertyView): SafeHtml | '' =>
  view.livemode
    ? ''
    : html`<p class="test-mode" role="note"><strong>Test mode</strong> · This property page is test data.</p>`;

/** The cover's preload when there is a cover to show. */
const preloadOf = (view: PropertyView, base: string): SafeHtml | '' =>
  view.cover?.variants.some((v) => v.name === 'large') === true ? coverPreload(base, view.cover) : '';

/**
 * The full page, branded (the studio's name) or unbranded (`view.studioName` null), with what it
 * offers of the listing kit (docs/api.md §32).
 */
export function propertyPage(view: PropertyView, urls: PropertyUrls, kit: readonly PageKitItem[] = []): SafeHtml {
  const base = `/p/${view.token}`;
  const { listing, media, studioName } = view;
  const photos = media.filter((m) => m.row.kind === 'photo');
  const shown = photos.filter((m) => m.variants.some((v) => v.name === 'large'));
  const videos = media
    .filter((m) => m.row.kind === 'video')
    .map((m, i) => video(view, base, m, i))
    .filter((item) => item !== '');
  const documents = media.filter((m) => m.row.kind === 'document');
  const names = documentNames(documents, view.branded);
  const viewer = viewerData();
  return html`<!doctype html>
    <html lang="en">
      ${pageHead({
        title: pageTitle(view),
        indexable: true,
        styles: listing.tours.length === 0 ? ['property.css'] : ['property.css', 'tours.css'],
        preload: preloadOf(view, base),
        extra: openGraph(view, urls),
      })}
      <body class="property">
        ${testModeBanner(view)}
        ${
          studioName === null
            ? ''
            : html`<header class="masthead">
                <p class="studio">${studioName}</p>
              </header>`
        }
        ${view.locked ? previewNotice() : ''}
        <main
          id="gallery"
          class="${studioName === null ? 'property__main property__main--plain' : 'property__main'}"
          data-lightbox="${viewer.lightbox}"
          data-pswp="${viewer.pswp}"
        >
          <section class="hero">
            ${hero(view, base)}
            <div class="intro">${intro(view)}</div>
            ${listing.description === null ? '' : html`<p class="description">${listing.description}</p>`}
          </section>
          ${toursSection(toursFor(listing.tours, studioName === null))}
          ${
            shown.length === 0
              ? ''
              : html`<section class="photos" aria-labelledby="photos-title">
                  <h2 id="photos-title">Photos <span class="count">${number(shown.length)}</span></h2>
                  <ul class="grid property__grid" id="photo-grid">
                    ${propertyTiles(base, photos, EAGER_TILES, view.disclosesStaging)}
                  </ul>
                </section>`
          }
          ${
            videos.length === 0
              ? ''
              : html`<section class="videos" aria-labelledby="videos-title">
                  <h2 id="videos-title">
                    ${videos.length === 1 ? 'Video' : 'Videos'} <span class="count">${number(videos.length)}</span>
                  </h2>
                  <ul class="files files--videos">
                    ${videos}
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
                    ${documents.map((m, i) => documentItem(m, names[i] ?? `Document ${i + 1}`))}
                  </ul>
                </section>`
          }
          ${kitSection(view, kit)}
        </main>
        ${
          studioName === null
            ? ''
            : html`<footer class="footer">
                <p>Photography by ${studioName}.</p>
              </footer>`
        }
      </body>
    </html> `;
}

/** How many photos the embeddable view shows under the cover before "all photos". */
const EMBED_PHOTOS = 6;

/**
 * The embeddable view (the oEmbed iframe, docs/api.md §25): the cover, the address and facts, the
 * first photos (the viewer opens them inside the frame), and a link that opens the full page in a
 * new tab. The only page another site may frame.
 */
export function embedView(view: PropertyView, urls: PropertyUrls): SafeHtml {
  const base = `/p/${view.token}`;
  const { listing, media, studioName } = view;
  const photos = media.filter((m) => m.row.kind === 'photo' && m.variants.some((v) => v.name === 'large'));
  const rest = photos.filter((m) => m.row.id !== view.cover?.row.id);
  const viewer = viewerData();
  const pageUrl = propertyPageUrl(urls.publicUrl, view.token);
  return html`<!doctype html>
    <html lang="en">
      ${pageHead({ title: pageTitle(view), indexable: false, styles: ['property.css'], preload: preloadOf(view, base) })}
      <body class="property property--embed">
        ${testModeBanner(view)}
        <main id="gallery" class="embed" data-lightbox="${viewer.lightbox}" data-pswp="${viewer.pswp}">
          <div class="embed__cover">${hero(view, base)}</div>
          <div class="embed__text">
            ${studioName === null ? '' : html`<p class="studio">${studioName}</p>`}
            <h1>${listing.address}</h1>
            ${factsOf(view).length === 0 ? '' : html`<p class="facts">${factsOf(view).join(' · ')}</p>`}
          </div>
          ${
            rest.length === 0
              ? ''
              : html`<ul class="grid embed__grid" id="photo-grid">
                  ${rest.slice(0, EMBED_PHOTOS).map((m, i) => photo(base, m, i, 0, SIZES.embedTile, view.disclosesStaging))}
                </ul>`
          }
          <p class="embed__more">
            <a class="button button--quiet" href="${pageUrl}" target="_blank" rel="noopener"
              >${ICON_OPEN}
              ${photos.length > 0 ? `See all ${plural(photos.length, 'photo', 'photos')}` : 'See the property'}</a
            >
          </p>
        </main>
      </body>
    </html> `;
}

const GONE_TITLE = 'This property page is not available';

/** The one page for an unknown token, a page taken down, an unknown path: names no one. */
export function propertyErrorPage(status: number): SafeHtml {
  const [title, message] =
    status === 429
      ? ['Too many requests', 'Please wait a minute, then reload the page.']
      : status >= 500
        ? ['Something went wrong', 'Please try again in a moment.']
        : [GONE_TITLE, 'The listing may have been withdrawn or its address changed.'];
  return html`<!doctype html>
    <html lang="en">
      ${pageHead({ title })}
      <body class="error-page">
        <main class="notice">
          <h1>${title}</h1>
          <p>${message}</p>
        </main>
      </body>
    </html> `;
}

/**
 * One photo at its large size, as a page (src/public/views/photo.ts): the client gallery's photo
 * page, with no original to offer and nothing naming anyone.
 */
export const photoPage = (view: PropertyView, photos: VisibleMedia[], index: number): SafeHtml =>
  publicPhotoPage({
    head: (title) => pageHead({ title, indexable: false }),
    banner: testModeBanner(view),
    base: `/p/${view.token}`,
    address: view.listing.address,
    photos,
    index,
  });
