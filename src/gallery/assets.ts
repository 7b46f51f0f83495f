// The client gallery's own stylesheet and scripts, and the photo viewer (PhotoSwipe, from its
// package), served from /g/assets/ under names that carry a hash of their content: cached for a
// year, and a new release is a new name. Nothing is loaded from another site.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Asset {
  body: Buffer;
  type: string;
}

const require = createRequire(import.meta.url);
const photoswipeDir = path.dirname(require.resolve('photoswipe/dist/photoswipe.css'));

const SOURCES: Record<string, { file: string; type: string }> = {
  'gallery.css': { file: new URL('./assets/gallery.css', import.meta.url).pathname, type: 'text/css; charset=utf-8' },
  'gallery.js': {
    file: new URL('./assets/gallery.js', import.meta.url).pathname,
    type: 'text/javascript; charset=utf-8',
  },
  // docs/api.md §25: marking favorites without a reload (the forms work without it).
  'favorites.js': {
    file: new URL('./assets/favorites.js', import.meta.url).pathname,
    type: 'text/javascript; charset=utf-8',
  },
  // The property pages' additions (docs/api.md §25), served beside the gallery's.
  'property.css': {
    file: new URL('../property/assets/property.css', import.meta.url).pathname,
    type: 'text/css; charset=utf-8',
  },
  // docs/api.md §28: tours on the public pages, and the client's portal.
  'tours.css': {
    file: new URL('../public/assets/tours.css', import.meta.url).pathname,
    type: 'text/css; charset=utf-8',
  },
  'portal.css': {
    file: new URL('../public/assets/portal.css', import.meta.url).pathname,
    type: 'text/css; charset=utf-8',
  },
  // Linked from every page: without it every fresh browser asks for /favicon.ico and logs a 404.
  'favicon.svg': { file: new URL('./assets/favicon.svg', import.meta.url).pathname, type: 'image/svg+xml' },
  'photoswipe.css': { file: path.join(photoswipeDir, 'photoswipe.css'), type: 'text/css; charset=utf-8' },
  'photoswipe.esm.min.js': {
    file: path.join(photoswipeDir, 'photoswipe.esm.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'photoswipe-lightbox.esm.min.js': {
    file: path.join(photoswipeDir, 'photoswipe-lightbox.esm.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

const byName = new Map<string, Asset>();
const urls = new Map<string, string>();

for (const [source, { file, type }] of Object.entries(SOURCES)) {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = source.indexOf('.');
  const name = `${source.slice(0, dot)}.${hash}${source.slice(dot)}`;
  byName.set(name, { body, type });
  urls.set(source, `/g/assets/${name}`);
}

/** The versioned URL of an asset, by its source name (`gallery.css`). */
export function galleryAssetUrl(source: string): string {
  const url = urls.get(source);
  if (url === undefined) throw new Error(`unknown gallery asset ${source}`);
  return url;
}

export const findGalleryAsset = (name: string): Asset | undefined => byName.get(name);
