// The overview's latest assignments: which client has which gallery, what they did with its link
// (views, downloads, last visit), the link itself, and a button that sends the email again.
import { ClientLinkUpdateBody } from '../../modules/listings/listings.schemas.ts';
import { maxLengthOf, minLengthOf } from '../form.ts';
import type { RecentAssignment } from '../../modules/client-links/client-links.service.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day, when } from './format.ts';
import { csrfField } from './layout.ts';
import { linkField } from './links.ts';

/** A link password's length, as PATCH /v1/listings/:id/client_link takes it. */
const PASSWORD = {
  min: minLengthOf(ClientLinkUpdateBody, 'password'),
  max: maxLengthOf(ClientLinkUpdateBody, 'password'),
};

/** Where the Resend button posts: the dashboard's twin of POST /v1/clients/:id/listings/:listing_id/notify. */
const resendAction = (a: Pick<RecentAssignment, 'client_id' | 'listing_id'>): string =>
  `/dashboard/clients/${a.client_id}/galleries/${a.listing_id}/resend`;

/** Where a row's link settings post: the dashboard's twin of PATCH /v1/listings/:id/client_link. */
const linkAction = (a: Pick<RecentAssignment, 'listing_id'>): string => `/dashboard/galleries/${a.listing_id}/link`;

/** The link's state in a few words: what the client meets when they open it. */
function linkState(a: RecentAssignment): SafeHtml {
  return html`${a.expires_at === null ? 'never expires' : html`expires ${day(a.expires_at)}`} ·
  ${a.password_protected ? 'password' : 'no password'} · ${a.downloads_enabled ? 'downloads on' : 'downloads off'}`;
}

/** A link's settings as the forms show them (the overview's row, the gallery's page). */
interface LinkControls {
  expires_at: string | null;
  password_protected: boolean;
  downloads_enabled: boolean;
}

/** The fields of docs/api.md §25's controls for one link; `id` keeps their labels apart on a page. */
export function linkSettingsFields(id: string, a: LinkControls): SafeHtml {
  return html`<label for="${id}-expires">Expires on <span class="muted small">(empty: never)</span></label>
    <input
      id="${id}-expires"
      name="expires_on"
      type="date"
      value="${a.expires_at === null ? '' : a.expires_at.slice(0, 10)}"
    />
    <label for="${id}-password">
      ${a.password_protected ? 'New password' : 'Password'}
      <span class="muted small"
        >(${PASSWORD.min} to ${PASSWORD.max}
        characters${a.password_protected ? '; empty: keep it' : '; empty: none'})</span
      >
    </label>
    <input
      id="${id}-password"
      name="password"
      type="password"
      autocomplete="new-password"
      maxlength="${PASSWORD.max}"
    />
    ${
      a.password_protected
        ? html`<label class="check"
            ><input type="checkbox" name="remove_password" value="1" /> Remove the password</label
          >`
        : ''
    }
    <label class="check">
      <input type="checkbox" name="downloads_enabled" value="1" ${a.downloads_enabled ? 'checked' : ''} />
      The client can download the originals and the ZIP
    </label>`;
}

/** The controls of docs/api.md §25 for one link, folded away: a plain form (no JavaScript). */
function linkSettings(a: RecentAssignment, csrfToken: string): SafeHtml {
  const id = `link-${a.listing_id}`;
  return html`<details class="link-settings">
    <summary>Link settings <span class="muted small">(${linkState(a)})</span></summary>
    <form method="post" action="${linkAction(a)}" class="stack-form">
      ${csrfField(csrfToken)} ${linkSettingsFields(id, a)}
      <button type="submit" class="button button-small">
        Save link settings<span class="visually-hidden"> for ${a.listing_address}</span>
      </button>
    </form>
  </details>`;
}

export function assignmentsPanel(rows: RecentAssignment[], csrfToken: string): SafeHtml {
  const body =
    rows.length === 0
      ? html`<p class="muted">
          No galleries assigned yet. When a gallery is assigned to a client (on its page under Galleries, or through the
          API), it appears here with how often its link was opened and downloaded from.
        </p>`
      : html`<p class="hint">
            Opening a gallery here counts as one of its views. Resend emails the client the gallery again, with its
            link.
          </p>
          <div class="table-wrap" tabindex="0" role="region" aria-label="Latest assignments">
            <table class="stack stack-wide-labels assignments" role="table">
              <thead role="rowgroup">
                <tr role="row">
                  <th scope="col" role="columnheader">Gallery</th>
                  <th scope="col" role="columnheader">Client</th>
                  <th scope="col" role="columnheader">Assigned</th>
                  <th scope="col" role="columnheader" class="numeric">Views</th>
                  <th scope="col" role="columnheader" class="numeric">Downloads</th>
                  <th scope="col" role="columnheader">Last viewed</th>
                  <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody role="rowgroup">
                ${rows.map(
                  (a) =>
                    html`<tr role="row">
                      <td role="cell" class="cell-title cell-gallery">
                        ${a.listing_address}
                        ${linkField({
                          id: `link-url-${a.listing_id}`,
                          label: 'Client link',
                          context: `for ${a.listing_address}`,
                          url: a.url,
                          passwordProtected: a.password_protected,
                          compact: true,
                        })}
                      </td>
                      <td role="cell" data-label="Client">
                        ${a.client_name}<br /><span class="muted small">${a.client_email}</span>
                      </td>
                      <td role="cell" class="nowrap" data-label="Assigned">${day(a.assigned_at)}</td>
                      <td role="cell" class="numeric" data-label="Views">${count(a.views)}</td>
                      <td role="cell" class="numeric" data-label="Downloads">${count(a.downloads)}</td>
                      <td role="cell" data-label="Last viewed">${when(a.last_viewed_at, 'not yet')}</td>
                      <td role="cell" class="cell-actions">
                        <div class="row-actions">
                          <a
                            class="button button-secondary button-small"
                            href="${a.url}"
                            target="_blank"
                            rel="noopener noreferrer"
                            >Open gallery<span class="visually-hidden"> ${a.listing_address}</span></a
                          >
                          <form method="post" action="${resendAction(a)}" class="inline">
                            ${csrfField(csrfToken)}
                            <button type="submit" class="button button-small">
                              Resend email<span class="visually-hidden"> to ${a.client_name}</span>
                            </button>
                          </form>
                        </div>
                        ${linkSettings(a, csrfToken)}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`;
  return html`<section class="card" id="assignments" aria-labelledby="latest-assignments">
    <h2 id="latest-assignments">Latest assignments</h2>
    ${body}
  </section>`;
}
