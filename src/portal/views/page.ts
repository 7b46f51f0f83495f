// The client's portal (docs/api.md §28): every gallery assigned to the client, newest first, as
// cards (cover, address, status) that open the gallery's own page, a page of them at a time with
// plain links between pages (no JavaScript needed). The gallery page's look: its stylesheet, its
// masthead, its test-mode note. Every value is escaped (html``); every URL is this site's own.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../../gallery/assets.ts';
import { pageHead } from '../../public/views/head.ts';
import { variantSrcset, variantUrl } from '../../public/views/images.ts';
import type { Portal, PortalGallery, PortalPage } from '../../modules/portals/portals.service.ts';

const number = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, one: string, many: string): string => `${number(n)} ${n === 1 ? one : many}`;

/** How a gallery's status reads to a client. */
const STATUS: Record<string, string> = { active: 'Ready', draft: 'In preparation', archived: 'Archived' };

/** A card's image at its width: one column on a phone, two from 600 px, three from 960 px. */
const CARD_SIZES = '(min-width: 1280px) 400px, (min-width: 960px) 33vw, (min-width: 600px) 50vw, 100vw';

/** Cards in the first row on a desktop: fetched at once; every other one when near. */
const EAGER_CARDS = 3;

function facts(g: PortalGallery): string[] {
  const { beds, baths, sqft } = g.listing;
  return [
    beds === null ? null : plural(beds, 'bed', 'beds'),
    baths === null ? null : plural(baths, 'bath', 'baths'),
    sqft === null ? null : `${number(sqft)} sq ft`,
  ].filter((f): f is string => f !== null);
}

function coverOf(base: string, g: PortalGallery, index: number): SafeHtml {
  const thumb = g.cover?.variants.find((v) => v.name === 'thumb');
  if (g.cover === undefined || thumb === undefined) {
    const why =
      g.locked === 'password' ? 'Password protected' : g.locked === 'expired' ? 'Link expired' : 'No photos yet';
    return html`<div class="portal-card__cover"><span class="portal-card__placeholder">${why}</span></div>`;
  }
  return html`<div class="portal-card__cover">
    <img
      src="${variantUrl(base, g.cover, 'thumb')}"
      srcset="${variantSrcset(base, g.cover, ['thumb', 'medium'])}"
      sizes="${CARD_SIZES}"
      width="${thumb.width}"
      height="${thumb.height}"
      alt=""
      loading="${index < EAGER_CARDS ? 'eager' : 'lazy'}"
      decoding="async"
    />
  </div>`;
}

function card(base: string, g: PortalGallery, index: number): SafeHtml {
  const details = facts(g);
  const status = g.listing.status;
  return html`<li class="portal-card" data-status="${status}">
    ${coverOf(base, g, index)}
    <div class="portal-card__body">
      <h2>${g.href === null ? g.listing.address : html`<a href="${g.href}">${g.listing.address}</a>`}</h2>
      <p class="portal-card__meta">
        <span class="portal-status portal-status--${status}">${STATUS[status] ?? status}</span>
        ${details.length === 0 ? '' : html`<span>${details.join(' · ')}</span>`}
        ${g.locked === 'password' ? html`<span>Asks for a password</span>` : ''}
        ${g.locked === 'expired' ? html`<span>The link has expired</span>` : ''}
      </p>
    </div>
  </li>`;
}

/** docs/api.md §20: a portal of test data says so, first thing, in words (not colour alone). */
const testModeBanner = (portal: Portal): SafeHtml | '' =>
  portal.livemode
    ? ''
    : html`<p class="test-mode" role="note">
        <strong>Test mode</strong> · This portal is test data: no client was sent it.
      </p>`;

export function portalPage(portal: Portal, page: PortalPage, base: string, first: boolean): SafeHtml {
  const { studioName, client } = portal;
  return html`<!doctype html>
    <html lang="en">
      ${pageHead({ title: `Your galleries · ${studioName}`, styles: ['portal.css'] })}
      <body>
        ${testModeBanner(portal)}
        <header class="masthead">
          <p class="studio">${studioName}</p>
        </header>
        <main id="portal">
          <div class="portal__intro">
            <h1>Your galleries</h1>
            <p>
              ${plural(page.total, 'gallery', 'galleries')} shared with ${client.name} by ${studioName}, newest first.
            </p>
          </div>
          ${
            page.galleries.length === 0
              ? html`<section class="empty">
                  <h2>${first ? 'No galleries yet' : 'No more galleries'}</h2>
                  <p>
                    ${
                      first
                        ? `When ${studioName} shares a gallery with you, it appears here.`
                        : html`<a href="${base}">Back to your newest galleries</a>`
                    }
                  </p>
                </section>`
              : html`<ul class="portal-grid">
                  ${page.galleries.map((g, i) => card(base, g, i))}
                </ul>`
          }
          ${
            first && page.next === null
              ? ''
              : html`<nav class="portal-pages" aria-label="More galleries">
                  ${first ? html`<span></span>` : html`<a class="button button--quiet" href="${base}">← Newest</a>`}
                  ${
                    page.next === null
                      ? html`<p class="portal-pages__note">These are the oldest.</p>`
                      : html`<a class="button button--quiet" rel="next" href="${base}?cursor=${page.next}"
                          >Older galleries →</a
                        >`
                  }
                </nav>`
          }
        </main>
        <footer class="footer">
          <p>Shared with you by ${studioName}. This page is personal: anyone who has its link can see it.</p>
        </footer>
      </body>
    </html> `;
}

const TEXT: Record<number, [string, string]> = {
  404: [
    'This page is no longer available',
    'The link may have been replaced. Ask the studio that sent it for a new link.',
  ],
  429: ['Too many requests', 'Please wait a minute, then reload the page.'],
  500: ['Something went wrong', 'Please try again in a moment.'],
};

/** The portal's error pages: the same for every unknown or replaced token. */
export function portalErrorPage(status: number, requestId: string): SafeHtml {
  const [title, message] = TEXT[status] ?? TEXT[status >= 500 ? 500 : 404] ?? ['Error', ''];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
      </head>
      <body class="error-page">
        <main class="notice">
          <h1>${title}</h1>
          <p>${message}</p>
          ${status >= 500 ? html`<p class="notice__ref">Reference: ${requestId}</p>` : ''}
        </main>
      </body>
    </html> `;
}
