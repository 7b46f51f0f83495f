// The <head> of the public pages (the client gallery at /g, the property pages at /p, and those to
// come): the same charset, viewport, referrer policy, icon, stylesheets and viewer script, from
// this site only (the assets are served under /g/assets/).
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../../gallery/assets.ts';

export function pageHead(options: {
  title: string;
  /** False for a capability page (/g): search engines are told to keep out. */
  indexable?: boolean;
  /** More stylesheets by asset name, after the gallery's own. */
  styles?: readonly string[];
  /** More module scripts by asset name, after the gallery's own. */
  scripts?: readonly string[];
  /** The cover's preload (src/public/views/images.ts), first thing after the title. */
  preload?: SafeHtml | '';
  /** Anything else (Open Graph tags), already escaped. */
  extra?: SafeHtml;
}): SafeHtml {
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    ${options.indexable === true ? '' : html`<meta name="robots" content="noindex, nofollow" />`}
    <meta name="referrer" content="no-referrer" />
    <title>${options.title}</title>
    ${options.preload ?? ''}
    <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
    <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
    ${(options.styles ?? []).map((name) => html`<link rel="stylesheet" href="${galleryAssetUrl(name)}" />`)}
    <link rel="stylesheet" href="${galleryAssetUrl('photoswipe.css')}" />
    <script type="module" src="${galleryAssetUrl('gallery.js')}"></script>
    ${(options.scripts ?? []).map((name) => html`<script type="module" src="${galleryAssetUrl(name)}"></script>`)}
    ${options.extra ?? ''}
  </head>`;
}
