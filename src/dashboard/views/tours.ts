// The tours editor of a gallery's page (docs/api.md §28): one plain form (no JavaScript needed)
// with a row per tour and two empty rows to add more (ten at most), saved as the whole list, as
// PATCH /v1/listings/:id takes it. A row left empty is no tour; a refused list comes back as typed,
// with what to fix.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { ListingType } from '../../modules/listings/listings.schemas.ts';
import { MAX_TOURS, MAX_TOUR_URL, tourEmbed, TOUR_PROVIDERS } from '../../modules/listings/tours.ts';
import { csrfField } from './layout.ts';

export interface TourRow {
  url: string;
  label: string;
  unbranded: boolean;
}

export interface ToursFormState {
  rows: TourRow[];
  /** What to fix, by row (0-based), or for the whole list (-1). */
  errors: Map<number, string>;
}

/** Empty rows offered after the tours, to add new ones. */
const SPARE_ROWS = 2;

export const toursFormOf = (listing: ListingType): ToursFormState => ({
  rows: listing.tours.map((t) => ({ ...t })),
  errors: new Map(),
});

function row(r: TourRow, i: number, error: string | undefined): SafeHtml {
  const id = `f-tour-${i}`;
  const embed = r.url === '' ? undefined : tourEmbed(r.url);
  const note =
    r.url === ''
      ? ''
      : embed === undefined
        ? 'Shown as a link.'
        : `Plays in the page (${TOUR_PROVIDERS[embed.provider].name}).`;
  return html`<fieldset class="field tour-row${error === undefined ? '' : ' field-invalid'}">
    <legend>Tour ${i + 1}</legend>
    ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
    <div class="form-grid">
      <div class="field">
        <label for="${id}-url">URL</label>
        <input
          id="${id}-url"
          name="tour_url_${i}"
          type="url"
          inputmode="url"
          autocomplete="off"
          maxlength="${MAX_TOUR_URL}"
          value="${r.url}"
          ${error === undefined ? '' : html`aria-invalid="true" aria-describedby="${id}-error"`}
        />
      </div>
      <div class="field">
        <label for="${id}-label">Label</label>
        <input
          id="${id}-label"
          name="tour_label_${i}"
          type="text"
          autocomplete="off"
          maxlength="100"
          value="${r.label}"
        />
      </div>
    </div>
    <div class="choice">
      <input
        id="${id}-unbranded"
        name="tour_unbranded_${i}"
        type="checkbox"
        value="1"
        ${r.unbranded ? 'checked' : ''}
      />
      <label for="${id}-unbranded">Show on the unbranded property page too</label>
    </div>
    ${note === '' ? '' : html`<p class="hint">${note}</p>`}
  </fieldset>`;
}

/** The Tours part of the gallery's Details: its own form, posting the whole list. */
export function toursEditor(listing: ListingType, csrf: string, state: ToursFormState): SafeHtml {
  const rows = [...state.rows];
  while (rows.length < Math.min(MAX_TOURS, state.rows.length + SPARE_ROWS))
    rows.push({ url: '', label: '', unbranded: false });
  const whole = state.errors.get(-1);
  return html`<div class="tours-editor" id="tours">
    <h3>Tours</h3>
    <p class="hint">
      Virtual tours and videos, shown on the client's gallery page and the property pages (at most ${MAX_TOURS}).
      Matterport, Zillow 3D Home, iGuide, Kuula, YouTube and Vimeo addresses play in the page; any other https address
      is shown as a link. Clear a row's URL and label to remove it.
    </p>
    ${whole === undefined ? '' : html`<div class="notice notice-error" role="alert">${whole}</div>`}
    <form method="post" action="/dashboard/galleries/${listing.id}/tours" class="stack-form" novalidate>
      ${csrfField(csrf)} ${rows.map((r, i) => row(r, i, state.errors.get(i)))}
      <button type="submit" class="button">Save tours</button>
    </form>
  </div>`;
}
