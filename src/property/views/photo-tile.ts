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
function stagedPairs(photos: readonly VisibleMedia[], disclose: boolean): Map<string, VisibleMedia> {
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
  wide = false,
): SafeHtml | '' {
  // Not ready yet (or could not be made): a public page shows nothing rather than a placeholder.
  if (!ready(m)) return '';
  const alt = m.row.caption ?? m.row.alt_text ?? `Photo ${index + 1}`;
  const staged = stagingLabelWanted(m.row, { disclose_staging: disclose });
  const caption = m.row.caption === null ? '' : html`<p class="tile__caption">${m.row.caption}</p>`;
  if (!staged) {
    return html`<li class="tile${wide ? ' tile--wide' : ''}" id="photo-${m.row.id}">
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
    return html`<li class="tile tile--staged${wide ? ' tile--wide' : ''}" id="photo-${m.row.id}">
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

/**
 * The property page's grid: each photo in order, a staged one with its original beside it
 * (stagedPairs). On a wide screen the grid has two columns and a pair takes a row of its own, so a
 * photo left alone on the row before a pair would leave an empty cell: the next photo after the
 * pair moves up beside it instead (one place earlier, in the viewer too), or, when none follows,
 * the lone photo takes the whole row. A phone's single column is the same either way.
 */
export function propertyTiles(
  base: string,
  photos: readonly VisibleMedia[],
  eager: number,
  disclose: boolean,
): SafeHtml[] {
  const pairs = stagedPairs(photos, disclose);
  const pairedOriginals = new Set([...pairs.values()].map((m) => m.row.id));
  // Each tile with its place in the studio's order (its alt text and eager loading); not ready: not shown.
  const queue = photos
    .filter((m) => !pairedOriginals.has(m.row.id))
    .map((m, index) => ({ m, index, wide: false }))
    .filter((t) => ready(t.m));
  const isPair = (t: { m: VisibleMedia }): boolean => pairs.has(t.m.row.id);
  const placed: typeof queue = [];
  let column = 0;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (isPair(next) && column === 1) {
      const fill = queue.findIndex((t) => !isPair(t));
      const lone = placed.at(-1);
      if (fill !== -1) placed.push(...queue.splice(fill, 1));
      else if (lone !== undefined) lone.wide = true;
    }
    placed.push(next);
    column = isPair(next) ? 0 : (column + 1) % 2;
  }
  return placed
    .map(({ m, index, wide }) =>
      photo(base, m, index, eager, wide ? SIZES.hero : SIZES.propertyTile, disclose, pairs.get(m.row.id), wide),
    )
    .filter((tile) => tile !== '');
}
