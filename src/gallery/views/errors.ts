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

export function errorPage(status: number, requestId: string): SafeHtml {
  const [title, message] = TEXT[status] ?? TEXT[status >= 500 ? 500 : 404] ?? ['Error', ''];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>${title}</title>
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
