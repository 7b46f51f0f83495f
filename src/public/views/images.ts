// The image markup every public page shares (/g, /p, the portal to come): URLs that name the bytes
// they serve, and the responsive set a browser picks from. A variant's URL carries `?v=` and a
// hash of its storage key, which is new whenever the variant is made again (a new generation), so
// the bytes behind one URL never change and the image routes may let browsers keep them for a
// year (src/public/page-media.ts decides when).
import { createHash } from 'node:crypto';
import { html, type SafeHtml } from '../../lib/html.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';

type VariantRow = VisibleMedia['variants'][number];

/** The variants a page shows, smallest first; `medium` is missing on photos made before it existed. */
const PAGE_VARIANTS = ['thumb', 'medium', 'large'] as const;
type PageVariant = (typeof PAGE_VARIANTS)[number];

/** A short name for the variant's bytes: changes when the variant is made again. */
export const variantVersion = (variant: Pick<VariantRow, 'storage_key'>): string =>
  createHash('sha256').update(variant.storage_key).digest('base64url').slice(0, 16);

const variantOf = (m: VisibleMedia, name: string): VariantRow | undefined => m.variants.find((v) => v.name === name);

/** The page's URL of one variant, versioned: `/g/<token>/large/<media id>?v=<version>`. */
export function variantUrl(base: string, m: VisibleMedia, name: string): string {
  const variant = variantOf(m, name);
  const path = `${base}/${name}/${m.row.id}`;
  return variant === undefined ? path : `${path}?v=${variantVersion(variant)}`;
}

/**
 * The `srcset` of a photo's page variants that exist (thumb 480 px, medium 1024 px, large 2048 px),
 * each with its width. Variants of the same width (a photo smaller than a box) are listed once.
 */
export function variantSrcset(base: string, m: VisibleMedia, names: readonly PageVariant[] = PAGE_VARIANTS): string {
  const seen = new Set<number>();
  const entries: string[] = [];
  for (const name of names) {
    const variant = variantOf(m, name);
    if (variant === undefined || seen.has(variant.width)) continue;
    seen.add(variant.width);
    entries.push(`${variantUrl(base, m, name)} ${variant.width}w`);
  }
  return entries.join(', ');
}

/**
 * How wide the pages draw their images (the CSS in src/gallery/assets/gallery.css and
 * src/property/assets/property.css): the page is at most 1200 px wide with its gutters
 * (clamp(16px, 4vw, 40px)) around it.
 */
export const SIZES = {
  /** The cover, the width of the page. */
  hero: '(min-width: 1280px) 1200px, 100vw',
  /** The client gallery's grid: two columns on a phone, tiles of 260 px and more on a wide screen. */
  galleryTile: '(min-width: 1280px) 300px, (min-width: 700px) 33vw, 50vw',
  /** The property pages' grid: one column on a phone, two from 700 px. */
  propertyTile: '(min-width: 1280px) 600px, (min-width: 700px) 50vw, 100vw',
  /** The embeddable view's strip: three to a row, six from 700 px. */
  embedTile: '(min-width: 700px) 17vw, 33vw',
} as const;

/**
 * The cover, asked for before the stylesheets and scripts are read (it is the largest paint of
 * every public page): the same set and sizes as its <img>, so the browser fetches one file once.
 */
export const coverPreload = (base: string, cover: VisibleMedia): SafeHtml =>
  html`<link
    rel="preload"
    as="image"
    href="${variantUrl(base, cover, 'large')}"
    imagesrcset="${variantSrcset(base, cover)}"
    imagesizes="${SIZES.hero}"
    fetchpriority="high"
  />`;
