// The pages in front of a gallery (docs/api.md §25): its link expired, or it asks for a password.
// Plain HTML forms: they work without JavaScript.
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';
import { expiryDate } from '../gallery.gate.ts';

const ICON_LOCK = html`<svg class="icon" viewBox="0 0 24 24" width="44" height="44" aria-hidden="true">
  <path
    fill="currentColor"
    d="M12 2a5 5 0 0 1 5 5v3h1a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h1V7a5 5 0 0 1 5-5Zm0 2a3 3 0 0 0-3 3v3h6V7a3 3 0 0 0-3-3Zm0 9a2 2 0 0 0-1 3.7V19h2v-2.3A2 2 0 0 0 12 13Z"
  />
</svg>`;

const ICON_CLOCK = html`<svg class="icon" viewBox="0 0 24 24" width="44" height="44" aria-hidden="true">
  <path
    fill="currentColor"
    d="M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm1 3v5.6l3.7 2.1-1 1.7-4.7-2.7V7h2Z"
  />
</svg>`;

function shell(title: string, body: SafeHtml): SafeHtml {
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
        ${body}
      </body>
    </html> `;
}

export function expiredPage(studioName: string, expiresAt: string): SafeHtml {
  return shell(
    `This gallery has expired · ${studioName}`,
    html`<main class="notice">
      ${ICON_CLOCK}
      <p class="notice__studio">${studioName}</p>
      <h1>This gallery has expired</h1>
      <p>
        The link from ${studioName} stopped working on
        <time datetime="${expiresAt}">${expiryDate(expiresAt)}</time>. Ask ${studioName} for a new link if you still
        need the photos.
      </p>
    </main>`,
  );
}

export function passwordPage(input: { studioName: string; address: string; token: string; wrong: boolean }): SafeHtml {
  return shell(
    `${input.address} · ${input.studioName}`,
    html`<main class="notice notice--form">
      ${ICON_LOCK}
      <p class="notice__studio">${input.studioName}</p>
      <h1>${input.address}</h1>
      <p>${input.studioName} protected this gallery with a password.</p>
      <form class="unlock" method="post" action="/g/${input.token}/unlock">
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxlength="200"
          ${input.wrong ? html`aria-invalid="true" aria-describedby="password-error" autofocus` : 'autofocus'}
        />
        ${input.wrong ? html`<p class="unlock__error" id="password-error">That password is not right.</p>` : ''}
        <button class="button" type="submit">Open the gallery</button>
      </form>
    </main>`,
  );
}
