// A photo's tile on the property pages (docs/api.md §25) and the embeddable view: the variant that
// fits the tile (thumb, medium, large), opening its own page without JavaScript or the viewer with
// it; and docs/api.md §31: a virtually staged photo says so, and is shown with its original beside it.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { SIZES, variantSrcset, variantUrl } from '../../public/views/images.ts';
import { stagingLabelWanted } from '../../modules/variants/variants.staging.ts';

/** A photo's link and image: opens its own page, or the viewer (data-pswp-*). */
function photoLink(base: string, m: VisibleMedia, alt: string, eager: boolean, sizes: string, caption: string | null) {
  const large = m.variants.find((v) => v.name === 'large');
  return html`<a
    class="tile__link"
    href="${base}/photo/${m.row.id}"
    data-pswp-src="${variantUrl(base, m, 'large')}"
    data-pswp-width="${large?.width ?? ''}"
    data-pswp-height="${large?.height ?? ''}"
    ${caption === null ? '' : html`data-caption="${caption}"`}
  >
    <img
      src="${variantUrl(base, m, 'thumb')}"
      srcset="${variantSrcset(base, m)}"
      sizes="${sizes}"
      width="${large?.width ?? ''}"
      height="${large?.height ?? ''}"
      alt="${alt}"
      loading="${eager ? 'eager' : 'lazy'}"
      decoding="async"
    />
  </a>`;
}

const ready = (m: VisibleMedia): boolean =>
  m.variants.some((v) => v.name === 'thumb') && m.variants.some((v) => v.name === 'large');

/**
 * docs/api.md §31: each staged photo shown (with disclose_staging: stagingLabelWanted) paired with
 * its original, when the page shows that one too (not hidden, its variants ready): staged id to
 * original. A paired original is shown beside its staged photo, not again on its own.
 */
export function stagedPairs(photos: readonly VisibleMedia[], disclose: boolean): Map<string, VisibleMedia> {
  const profile = { disclose_staging: disclose };
  const byId = new Map(photos.map((m) => [m.row.id, m]));
  const pairs = new Map<string, VisibleMedia>();
  for (const m of photos) {
    const original = m.row.original_media_id === null ? undefined : byId.get(m.row.original_media_id);
    if (stagingLabelWanted(m.row, profile) && ready(m) && original !== undefined && ready(original)) {
      pairs.set(m.row.id, original);
    }
  }
  return pairs;
}

/**
 * A photo: the variant that fits the tile's width (thumb, medium, large); opens its own page or the
 * viewer. A staged photo says so under it, and with its original (docs/api.md §31) shows that
 * beside it, "Before virtual staging", the pair a row of its own; both open in the viewer.
 */
export function photo(
  base: string,
  m: VisibleMedia,
  index: number,
  eager: number,
  sizes: string,
  disclose: boolean,
  original?: VisibleMedia,
): SafeHtml | '' {
  // Not ready yet (or could not be made): a public page shows nothing rather than a placeholder.
  if (!ready(m)) return '';
  const alt = m.row.caption ?? m.row.alt_text ?? `Photo ${index + 1}`;
  const staged = stagingLabelWanted(m.row, { disclose_staging: disclose });
  const caption = m.row.caption === null ? '' : html`<p class="tile__caption">${m.row.caption}</p>`;
  if (!staged) {
    return html`<li class="tile" id="photo-${m.row.id}">
      ${photoLink(base, m, alt, index < eager, sizes, m.row.caption)} ${caption}
    </li>`;
  }
  const stagedLink = photoLink(
    base,
    m,
    `${alt} (virtually staged)`,
    index < eager,
    sizes,
    m.row.caption ?? 'Virtually staged',
  );
  if (original === undefined) {
    return html`<li class="tile tile--staged" id="photo-${m.row.id}">
      ${stagedLink}
      <p class="staged__label">Virtually staged</p>
      ${caption}
    </li>`;
  }
  const before = original.row.caption ?? original.row.alt_text ?? alt;
  return html`<li class="tile tile--pair" id="photo-${m.row.id}">
    <div class="pair">
      <figure class="pair__item">
        ${stagedLink}
        <figcaption><span class="staged__label">Virtually staged</span> ${caption}</figcaption>
      </figure>
      <figure class="pair__item" id="photo-${original.row.id}">
        ${photoLink(base, original, `${before}, before virtual staging`, index < eager, SIZES.propertyTile, 'Before virtual staging')}
        <figcaption><span class="staged__label staged__label--before">Before virtual staging</span></figcaption>
      </figure>
    </div>
  </li>`;
}
