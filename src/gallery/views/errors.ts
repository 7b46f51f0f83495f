// The client gallery's error pages: plain, the same for every unknown, replaced or revoked link.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';

const TEXT: Record<number, [string, string]> = {
  404: [
    'This gallery is no longer available',
    'The link may have been replaced or the gallery withdrawn. Ask the studio that sent it for a new link.',
  ],
  416: ['That part of the file does not exist', 'Start the download again.'],
  429: ['Too many requests', 'Please wait a minute, then reload the page.'],
  503: ['Not ready yet', 'The download is being prepared. Try again in a minute.'],
  500: ['Something went wrong', 'Please try again in a moment.'],
};

/** A picture frame with a broken corner: drawn inline (markup, allowed by the CSP). */
const ICON = html`<svg class="icon" viewBox="0 0 24 24" width="44" height="44" aria-hidden="true">
  <path
    fill="currentColor"
    d="M4 4h16a2 2 0 0 1 2 2v7h-2V6H4v9.6l4.5-4.6 3.5 3.5 1.3-1.3 1.4 1.4-2.7 2.7-3.5-3.5L4 18.4V18h8v2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm11.5 3a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm1.9 8 1.6 1.6 1.6-1.6 1.4 1.4-1.6 1.6 1.6 1.6-1.4 1.4-1.6-1.6-1.6 1.6-1.4-1.4 1.6-1.6-1.6-1.6 1.4-1.4Z"
  />
</svg>`;

export function errorPage(status: number, requestId: string): SafeHtml {
  const [title, message] = TEXT[status] ?? TEXT[status >= 500 ? 500 : 404] ?? ['Error', ''];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>${title}</title>
        <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
      </head>
      <body class="error-page">
        <main class="notice">
          ${ICON}
          <h1>${title}</h1>
          <p>${message}</p>
          ${status >= 500 ? html`<p class="notice__ref">Reference: ${requestId}</p>` : ''}
        </main>
      </body>
    </html> `;
}
