// The client gallery's photo page: the public kit's (src/public/views/photo.ts), with the original
// to download when downloads are on, under a head without the viewer (the page is the viewer).
import { html, type SafeHtml } from '../../lib/html.ts';
import { galleryAssetUrl } from '../assets.ts';
import type { GalleryView } from '../gallery.load.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { photoPage as publicPhotoPage } from '../../public/views/photo.ts';
import { testModeBanner } from './page.ts';
import { downloadsOn, fileSize, ICON_DOWNLOAD } from './parts.ts';

const head = (title: string): SafeHtml =>
  html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex, nofollow" />
    <meta name="referrer" content="no-referrer" />
    <title>${title}</title>
    <link rel="icon" href="${galleryAssetUrl('favicon.svg')}" type="image/svg+xml" />
    <link rel="stylesheet" href="${galleryAssetUrl('gallery.css')}" />
  </head>`;

export function photoPage(view: GalleryView, base: string, photos: VisibleMedia[], index: number): SafeHtml {
  return publicPhotoPage({
    head,
    banner: testModeBanner(view),
    base,
    address: view.listing.address,
    photos,
    index,
    actions: (m) =>
      downloadsOn(view)
        ? html`<a class="button button--quiet" href="${base}/media/${m.row.id}/download" download
            >${ICON_DOWNLOAD} Original <span class="button__size">${fileSize(m.row.size)}</span></a
          >`
        : '',
  });
}
