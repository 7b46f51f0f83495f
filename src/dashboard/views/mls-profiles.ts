// MLS profiles (docs/api.md §31): what each listing service the studio delivers to accepts, on a
// page of Settings. The list, a new profile, one profile's form, its deletion after a page that
// asks. Plain forms: no script needed. Limits and defaults are read from the API's schema.
import { DEFAULTS, MlsProfileCreateBody, type MlsProfileType } from '../../modules/mls/mls.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { maxLengthOf } from '../form.ts';
import { count, day } from './format.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

/** The profile's form as typed: numbers kept as text, so a refused form shows what was sent. */
export interface MlsProfileFormValues {
  name: string;
  max_long_edge: string;
  min_long_edge: string;
  max_bytes: string;
  max_photos: string;
  forbid_text: boolean;
  forbid_qr_codes: boolean;
  forbid_people: boolean;
  first_photo_exterior: boolean;
  disclose_staging: boolean;
}

export const NUMBER_FIELDS = ['max_long_edge', 'min_long_edge', 'max_bytes', 'max_photos'] as const;
export const RULE_FIELDS = [
  'forbid_text',
  'forbid_qr_codes',
  'forbid_people',
  'first_photo_exterior',
  'disclose_staging',
] as const;

/** A profile's form values: a stored profile's, or the contract's defaults. */
export const profileValues = (p: Omit<MlsProfileType, 'id' | 'created_at' | 'updated_at'>): MlsProfileFormValues => ({
  name: p.name,
  max_long_edge: String(p.max_long_edge),
  min_long_edge: String(p.min_long_edge),
  max_bytes: count(p.max_bytes),
  max_photos: String(p.max_photos),
  forbid_text: p.forbid_text,
  forbid_qr_codes: p.forbid_qr_codes,
  forbid_people: p.forbid_people,
  first_photo_exterior: p.first_photo_exterior,
  disclose_staging: p.disclose_staging,
});

export const NEW_PROFILE = profileValues({ name: '', ...DEFAULTS });

const LABELS: Record<string, string> = {
  name: 'Name',
  max_long_edge: 'Largest long edge',
  min_long_edge: 'Smallest long edge',
  max_bytes: 'Largest file',
  max_photos: 'Most photos',
};

const RULES: Record<(typeof RULE_FIELDS)[number], { label: string; hint: string }> = {
  forbid_text: {
    label: 'No text in photos',
    hint: 'Signs, phone numbers or logos read in a photo fail it; it is left out of the unbranded property page.',
  },
  forbid_qr_codes: {
    label: 'No QR codes',
    hint: 'A QR code in a photo fails it; it is left out of the unbranded property page.',
  },
  forbid_people: {
    label: 'No people',
    hint: 'A person or face in a photo fails it; it is left out of the unbranded property page.',
  },
  first_photo_exterior: {
    label: 'First photo shows the exterior',
    hint: 'The front, the rear or an aerial view must come first.',
  },
  disclose_staging: {
    label: 'Disclose virtual staging',
    hint: 'Staged photos carry a “Virtually staged” label and must name their original photo.',
  },
};

/** The numbers' bounds, read from the schema (the form and the API refuse the same values). */
function bounds(name: (typeof NUMBER_FIELDS)[number]): { minimum: number; maximum: number } {
  const schema = (MlsProfileCreateBody.properties as Record<string, { minimum?: number; maximum?: number }>)[name];
  return { minimum: schema?.minimum ?? 0, maximum: schema?.maximum ?? 0 };
}

const NUMBER_HINTS: Record<(typeof NUMBER_FIELDS)[number], string> = {
  max_long_edge: "Pixels. The gallery's MLS photos are made to fit a square this size.",
  min_long_edge: 'Pixels. A photo whose original is smaller fails; at most the largest long edge.',
  max_bytes: 'Bytes (10,000,000 is 10 MB). Larger MLS photos are compressed again to fit.',
  max_photos: 'A listing with more visible photos fails.',
};

function numberField(name: (typeof NUMBER_FIELDS)[number], value: string, error: string | undefined): SafeHtml {
  const id = `f-${name}`;
  const { minimum, maximum } = bounds(name);
  return html`<div class="field${error === undefined ? '' : ' field-invalid'}">
    <label for="${id}">${LABELS[name]}</label>
    <p class="hint" id="${id}-hint">${NUMBER_HINTS[name]} From ${count(minimum)} to ${count(maximum)}.</p>
    ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
    <input
      id="${id}"
      name="${name}"
      type="text"
      inputmode="numeric"
      autocomplete="off"
      class="input-number"
      value="${value}"
      required
      aria-describedby="${id}-hint${error === undefined ? '' : ` ${id}-error`}"
      ${error === undefined ? '' : html`aria-invalid="true"`}
    />
  </div>`;
}

function profileFields(v: MlsProfileFormValues, errors: FieldErrors): SafeHtml {
  return html`${field({ name: 'name', label: LABELS.name ?? 'Name', value: v.name, error: errors.name, maxlength: maxLengthOf(MlsProfileCreateBody, 'name'), autocomplete: 'off', hint: 'The listing service it is for, e.g. “Bright MLS”.' })}
    <fieldset class="mls-sizes">
      <legend>Photo files</legend>
      <div class="mls-numbers">${NUMBER_FIELDS.map((n) => numberField(n, v[n], errors[n]))}</div>
    </fieldset>
    <fieldset class="mls-rules">
      <legend>Rules</legend>
      ${RULE_FIELDS.map(
        (r) =>
          html`<div class="check-field">
            <label class="check">
              <input type="checkbox" name="${r}" value="1" aria-describedby="f-${r}-hint" ${v[r] ? 'checked' : ''} />
              ${RULES[r].label}
            </label>
            <p class="hint" id="f-${r}-hint">${RULES[r].hint}</p>
          </div>`,
      )}
    </fieldset>`;
}

/** The rules a profile has on, in a few words. */
function rulesLine(p: MlsProfileType): string {
  const on = RULE_FIELDS.filter((r) => p[r]).map((r) => RULES[r].label);
  return on.length === 0 ? 'No content rules' : on.join(' · ');
}

const megabytes = (n: number): string => `${(n / 1_000_000).toLocaleString('en-GB', { maximumFractionDigits: 2 })} MB`;

export function mlsProfilesPage(o: { viewer: Viewer; notice: Notice | null; items: MlsProfileType[] }): SafeHtml {
  const rows =
    o.items.length === 0
      ? html`<p class="muted">
          No MLS profiles yet. Add one for each listing service you deliver to: a gallery given a profile gets MLS
          photos made to its sizes and a report of what the service would refuse.
        </p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="MLS profiles list">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Name</th>
                <th scope="col" role="columnheader">Files</th>
                <th scope="col" role="columnheader">Rules</th>
                <th scope="col" role="columnheader">Added</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.items.map(
                (p) =>
                  html`<tr role="row">
                    <td role="cell" class="cell-title"><a href="/dashboard/settings/mls/${p.id}">${p.name}</a></td>
                    <td role="cell" data-label="Files">
                      <span class="nowrap">${count(p.min_long_edge)}–${count(p.max_long_edge)} px</span> ·
                      <span class="nowrap">up to ${megabytes(p.max_bytes)}</span> ·
                      <span class="nowrap">at most ${count(p.max_photos)} photos</span>
                    </td>
                    <td role="cell" data-label="Rules" class="small">${rulesLine(p)}</td>
                    <td role="cell" class="nowrap" data-label="Added">${day(p.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return page({
    title: 'MLS profiles',
    viewer: o.viewer,
    section: 'studio',
    notice: o.notice,
    body: html`<p><a href="/dashboard/settings/studio">← Studio settings</a></p>
      <div class="page-head">
        <h1>MLS profiles</h1>
        <a class="button" href="/dashboard/settings/mls/new">New profile</a>
      </div>
      <section class="card" aria-label="Profiles">
        <p class="muted small" role="status">
          ${count(o.items.length)} ${o.items.length === 1 ? 'profile' : 'profiles'} · choose one on a gallery's page
        </p>
        ${rows}
      </section>`,
  });
}

export function newMlsProfilePage(o: { viewer: Viewer; values: MlsProfileFormValues; errors: FieldErrors }): SafeHtml {
  return page({
    title: 'New MLS profile',
    viewer: o.viewer,
    section: 'studio',
    body: html`<p><a href="/dashboard/settings/mls">← MLS profiles</a></p>
      <h1>New MLS profile</h1>
      ${errorSummary(o.errors, LABELS)}
      <section class="card">
        <form method="post" action="/dashboard/settings/mls" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${profileFields(o.values, o.errors)}
          <button type="submit" class="button">Add profile</button>
        </form>
      </section>`,
  });
}

export function mlsProfilePage(o: {
  viewer: Viewer;
  notice: Notice | null;
  profile: MlsProfileType;
  values: MlsProfileFormValues;
  errors: FieldErrors;
}): SafeHtml {
  const p = o.profile;
  return page({
    title: p.name,
    viewer: o.viewer,
    section: 'studio',
    notice: o.notice,
    body: html`<p><a href="/dashboard/settings/mls">← MLS profiles</a></p>
      <h1>${p.name}</h1>
      <p class="lead">MLS profile · added ${day(p.created_at)}</p>
      <section class="card" aria-labelledby="profile-details">
        <h2 id="profile-details">Details</h2>
        ${errorSummary(o.errors, LABELS)}
        <form method="post" action="/dashboard/settings/mls/${p.id}" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${profileFields(o.values, o.errors)}
          <button type="submit" class="button">Save profile</button>
        </form>
        <p class="hint">
          New sizes make the MLS photos of the galleries that use it again, in the background; the old ones are served
          until then.
        </p>
        <p class="danger-zone">
          <a class="link-danger" href="/dashboard/settings/mls/${p.id}/delete">Delete this profile…</a>
        </p>
      </section>`,
  });
}

export function deleteMlsProfilePage(o: { viewer: Viewer; profile: MlsProfileType }): SafeHtml {
  const p = o.profile;
  return page({
    title: 'Delete MLS profile',
    viewer: o.viewer,
    section: 'studio',
    body: html`<h1>Delete “${p.name}”?</h1>
      <section class="card">
        <p>
          Galleries that use it are left with no MLS profile: their MLS photos are made again at the standard size, and
          they no longer get a compliance report.
        </p>
        <div class="actions">
          <form method="post" action="/dashboard/settings/mls/${p.id}/delete" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">Delete profile</button>
          </form>
          <a class="button button-secondary" href="/dashboard/settings/mls/${p.id}">Cancel</a>
        </div>
      </section>`,
  });
}
