// A gallery's MLS compliance on its dashboard page (docs/api.md §31): the profile it is checked
// against (a select, or none), and the report: its status as the contract names it, what the
// gallery breaks as a whole, each photo with an issue (its thumbnail, a link to its place in the
// grid, each issue's message) and, for each issue, what the service fixed or what the studio can
// do. The list's badge is here too. A plain form: no script needed.
import type { ComplianceStatus } from '../../db/schema-mls.ts';
import type { ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import type { ComplianceIssueType, ComplianceReportType, MlsProfileType } from '../../modules/mls/mls.schemas.ts';
import { BRANDING_CODES } from '../../modules/mls/mls.compliance.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, when } from './format.ts';
import { preview } from './gallery-media.ts';
import { csrfField, type Viewer } from './layout.ts';

/** What the gallery page's panel shows: the studio's profiles, and the report against the gallery's. */
export interface ComplianceState {
  profiles: MlsProfileType[];
  /** The gallery's profile and its report; null when it has none. */
  checked: { profile: MlsProfileType; report: ComplianceReportType } | null;
}

/** The status as the contract names it, in a badge (the list's and the panel's). */
export const complianceBadge = (status: ComplianceStatus, prefix = ''): SafeHtml =>
  html`<span class="badge badge-mls-${status}">${prefix}${status}</span>`;

const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

/** The report's status in a sentence, naming the profile. */
function summary(report: ComplianceReportType, profile: MlsProfileType): string {
  const all = [...report.issues, ...report.photos.flatMap((p) => p.issues)];
  const fails = all.filter((i) => i.severity === 'fail').length;
  const warns = all.length - fails;
  switch (report.status) {
    case 'pass':
      return `Every visible photo meets ${profile.name}'s rules.`;
    case 'warn':
      return `Nothing ${profile.name} refuses; ${plural(warns, 'warning')} worth a look.`;
    case 'fail':
      return `${profile.name} would refuse this listing: ${plural(fails, 'issue')} to fix${warns === 0 ? '' : `, ${plural(warns, 'warning')}`}.`;
    case 'pending': {
      const waiting = report.photos.filter((p) => p.status === 'pending').length;
      return `${plural(waiting, 'photo is', 'photos are')} still being analysed: the report is complete once they are.`;
    }
  }
}

/** What the studio can do about an issue the service did not fix (docs/api.md §31's codes). */
function advice(issue: ComplianceIssueType, o: { profile: MlsProfileType; photoUrl: string | null }): SafeHtml {
  switch (issue.code) {
    case 'text_in_photo':
    case 'qr_code':
    case 'person':
      return html`Left out of the unbranded property page. Retouch it and upload it again, or hide the photo.`;
    case 'too_small':
      return html`Upload a larger original (at least ${count(o.profile.min_long_edge)} px on its long edge), or hide the
      photo.`;
    case 'too_large':
      return html`Nothing to do: its MLS photo is made to fit the profile.`;
    case 'too_many_photos':
      return html`Hide photos until ${count(o.profile.max_photos)} are left.`;
    case 'first_photo_not_exterior':
      return html`Move a photo of the front, the rear or an aerial view first (drag it in <a href="#media">Media</a>, or
        Apply suggested order).`;
    case 'staging_not_disclosed':
      return o.photoUrl === null
        ? html`Choose its original photo.`
        : html`Choose its original photo on <a href="${o.photoUrl}">the photo's page</a>.`;
    case 'blurry':
      return html`Replace it with a sharper shot if there is one.`;
    case 'tilted':
      return html`Straighten its verticals and upload it again.`;
    case 'similar':
      return html`Hide it, or keep it if it shows something the best one does not.`;
    case 'analysis_failed':
      return html`Check it by eye: nothing it shows was read.`;
  }
}

function issueItem(issue: ComplianceIssueType, o: { profile: MlsProfileType; photoUrl: string | null }): SafeHtml {
  return html`<li class="issue issue-${issue.severity}">
    <span class="issue-severity">${issue.severity === 'fail' ? 'Fails' : 'Warning'}</span>
    <span class="issue-message">${issue.message}</span>
    ${
      issue.fixed_by === null
        ? html`<span class="issue-todo">${advice(issue, o)}</span>`
        : html`<span class="issue-fixed">Fixed: ${issue.fixed_by}</span>`
    }
  </li>`;
}

/** What the service did without being asked, from the report and the photos' staging. */
function doneForYou(
  report: ComplianceReportType,
  profile: MlsProfileType,
  byId: ReadonlyMap<string, MediaType>,
): SafeHtml {
  const issues = report.photos.flatMap((p) => p.issues.map((i) => ({ photo: p.media_id, issue: i })));
  const resized = new Set(issues.filter((x) => x.issue.fixed_by !== null).map((x) => x.photo)).size;
  const leftOut = new Set(
    issues.filter((x) => x.issue.severity === 'fail' && BRANDING_CODES.has(x.issue.code)).map((x) => x.photo),
  ).size;
  const labelled = profile.disclose_staging
    ? report.photos.filter((p) => byId.get(p.media_id)?.virtually_staged === true).length
    : 0;
  const done = [
    resized === 0 ? null : `${plural(resized, 'MLS photo was', 'MLS photos were')} made smaller to fit the profile.`,
    labelled === 0
      ? null
      : `${plural(labelled, 'staged photo carries', 'staged photos carry')} a “Virtually staged” label on ${labelled === 1 ? 'its' : 'their'} MLS photo.`,
    leftOut === 0
      ? null
      : `${plural(leftOut, 'photo is', 'photos are')} left out of the unbranded property page (text, a QR code or people).`,
  ].filter((d) => d !== null);
  return done.length === 0
    ? html``
    : html`<div class="mls-done">
        <h3>Done automatically</h3>
        <ul>
          ${done.map((d) => html`<li>${d}</li>`)}
        </ul>
      </div>`;
}

function reportBody(
  l: ListingType,
  media: readonly MediaType[],
  profile: MlsProfileType,
  report: ComplianceReportType,
) {
  const byId = new Map(media.map((m) => [m.id, m]));
  const flagged = report.photos.map((p, i) => ({ ...p, place: i + 1 })).filter((p) => p.issues.length > 0);
  const clean = report.photos.filter((p) => p.issues.length === 0 && p.status === 'pass').length;
  const gallery = `/dashboard/galleries/${l.id}`;
  return html`<div class="mls-status">
      ${complianceBadge(report.status)}
      <p>${summary(report, profile)} <span class="muted small">Checked ${when(report.checked_at)}.</span></p>
    </div>
    ${doneForYou(report, profile, byId)}
    ${
      report.issues.length === 0
        ? ''
        : html`<h3>The listing</h3>
            <ul class="issues">
              ${report.issues.map((i) => issueItem(i, { profile, photoUrl: null }))}
            </ul>`
    }
    ${
      flagged.length === 0
        ? ''
        : html`<h3>Photos</h3>
            <ol class="mls-photos">
              ${flagged.map((p) => {
                const m = byId.get(p.media_id);
                const name = m?.caption ?? m?.filename ?? p.media_id;
                const photoUrl = `${gallery}/media/${p.media_id}`;
                return html`<li class="mls-photo">
                  <a class="mls-thumb" href="#m-${p.media_id}" tabindex="-1" aria-hidden="true"
                    >${m === undefined ? '' : preview(l, m, '')}</a
                  >
                  <div class="mls-photo-body">
                    <p class="mls-photo-name">
                      <a href="#m-${p.media_id}">Photo ${count(p.place)}: ${name}</a>
                      ${complianceBadge(p.status)}
                    </p>
                    <ul class="issues">
                      ${p.issues.map((i) => issueItem(i, { profile, photoUrl }))}
                    </ul>
                  </div>
                </li>`;
              })}
            </ol>`
    }
    ${
      report.photos.length === 0
        ? html`<p class="muted">No visible photos yet.</p>`
        : clean === 0
          ? ''
          : html`<p class="muted small">${plural(clean, 'other photo passes', 'other photos pass')}.</p>`
    }`;
}

export function complianceSection(o: {
  listing: ListingType;
  media: readonly MediaType[];
  viewer: Viewer;
  state: ComplianceState;
}): SafeHtml {
  const l = o.listing;
  const { profiles, checked } = o.state;
  const manage =
    o.viewer.role === 'owner'
      ? html`<a href="/dashboard/settings/mls">${profiles.length === 0 ? 'Add an MLS profile' : 'Manage profiles'}</a>`
      : '';
  const choose =
    profiles.length === 0
      ? html`<p class="muted">
          No MLS profiles yet: a profile says what a listing service accepts (sizes, text, people, staging).
          ${o.viewer.role === 'owner' ? manage : 'The studio owner adds them in Settings.'}
        </p>`
      : html`<form method="post" action="/dashboard/galleries/${l.id}/mls-profile" class="mls-choose">
          ${csrfField(o.viewer.csrfToken)}
          <label for="mls-profile">MLS profile</label>
          <select id="mls-profile" name="mls_profile_id">
            <option value="" ${l.mls_profile_id === null ? 'selected' : ''}>None</option>
            ${profiles.map(
              (p) => html`<option value="${p.id}" ${p.id === l.mls_profile_id ? 'selected' : ''}>${p.name}</option>`,
            )}
          </select>
          <button type="submit" class="button button-secondary button-small">Save</button>
          ${manage}
        </form>`;
  return html`<section class="card" id="mls" aria-labelledby="mls-title">
    <h2 id="mls-title">MLS compliance</h2>
    ${choose}
    ${
      checked === null
        ? profiles.length === 0
          ? ''
          : html`<p class="muted small">
              Choose a profile to get the gallery's MLS photos made to its sizes and a report of what it would refuse.
            </p>`
        : reportBody(l, o.media, checked.profile, checked.report)
    }
  </section>`;
}
