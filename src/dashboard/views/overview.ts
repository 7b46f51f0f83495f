// The overview: what the account holds, and what the API has been doing lately.
import type { LatestNotification } from '../../modules/notifications/notifications.service.ts';
import type { AccountCounts } from '../../mechanisms/counts/counts.service.ts';
import type { RecentAssignment } from '../../modules/client-links/client-links.service.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, when } from './format.ts';
import { assignmentsPanel } from './assignments.ts';
import { page, type Notice, type Viewer } from './layout.ts';

export interface OverviewData {
  /** The account's maintained counts: a few keyed rows, cheap at any size. */
  counts: AccountCounts;
  /** How many API keys; null for a member, who does not see them (docs/api.md §27). */
  keys: number | null;
  notifications: LatestNotification[];
  /** The latest assignments, with their link's counters. */
  assignments: RecentAssignment[];
}

/** Parts kept whole on a line: a narrow card wraps between them, never inside one. */
const breakdown = (parts: string[]): SafeHtml[] =>
  parts.map((part, i) => html`<span class="nowrap">${part}${i < parts.length - 1 ? ' ·' : ''}</span> `);

function notificationsTable(rows: LatestNotification[]): SafeHtml {
  if (rows.length === 0) {
    return html`<p class="muted">
      No emails yet. When a gallery is assigned to a client (on its page under Galleries, or through the API), the email
      to that client appears here with its delivery status.
    </p>`;
  }
  // A card of labelled lines per email on a phone (see the keys table for the roles).
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Latest notification emails">
    <table class="stack" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">Status</th>
          <th scope="col" role="columnheader">To</th>
          <th scope="col" role="columnheader">Gallery</th>
          <th scope="col" role="columnheader">Attempts</th>
          <th scope="col" role="columnheader">Queued</th>
          <th scope="col" role="columnheader">Last error</th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${rows.map(
          (n) =>
            html`<tr role="row">
              <td role="cell" data-label="Status"><span class="badge badge-${n.status}">${n.status}</span></td>
              <td role="cell" data-label="To">${n.to}</td>
              <td role="cell" data-label="Gallery">
                ${n.listing_address ?? html`<span class="muted">deleted gallery</span>`}
              </td>
              <td role="cell" data-label="Attempts">${n.attempts}</td>
              <td role="cell" class="nowrap" data-label="Queued">${when(n.created_at)}</td>
              <td role="cell" data-label="Last error">
                ${n.last_error === null ? html`<span class="muted">none</span>` : html`<span class="error-text">${n.last_error}</span>`}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function overviewPage(o: { viewer: Viewer; data: OverviewData; notice: Notice | null }): SafeHtml {
  const { keys } = o.data;
  const { listings: galleries, clients, media, notifications: emails } = o.data.counts;
  const firstSteps =
    keys === 0
      ? html`<section class="card" aria-labelledby="next-step">
          <h2 id="next-step">No API key</h2>
          <p>Your website or app talks to Lightbox with an API key. Generate one to connect them.</p>
          <p><a class="button" href="/dashboard/settings/api">Generate an API key</a></p>
        </section>`
      : '';
  return page({
    title: 'Overview',
    viewer: o.viewer,
    section: 'overview',
    notice: o.notice,
    body: html`<h1>Overview</h1>
      <p class="lead">${o.viewer.studioName}, at a glance.</p>
      ${firstSteps}
      <dl class="stats">
        <div class="stat">
          <dt>Galleries</dt>
          <dd>
            <span class="figure" data-testid="galleries-total">${count(galleries.total)}</span>
            <span class="breakdown"
              >${breakdown([
                `${count(galleries.active)} active`,
                `${count(galleries.draft)} draft`,
                `${count(galleries.archived)} archived`,
              ])}</span
            >
          </dd>
        </div>
        <div class="stat">
          <dt>Clients</dt>
          <dd><span class="figure" data-testid="clients-total">${count(clients)}</span></dd>
        </div>
        <div class="stat">
          <dt>Media files</dt>
          <dd>
            <span class="figure" data-testid="media-total">${count(media)}</span>
            <span class="breakdown">photos, videos and documents</span>
          </dd>
        </div>
        <div class="stat">
          <dt>Emails</dt>
          <dd>
            <span class="figure" data-testid="emails-total">${count(emails.total)}</span>
            <span class="breakdown"
              >${breakdown([
                `${count(emails.sent)} sent`,
                `${count(emails.queued)} queued`,
                `${count(emails.failed)} failed`,
                // Unsent emails of an unassigned gallery or a deleted client: without them the parts
                // would not add up to the total.
                `${count(emails.cancelled)} cancelled`,
              ])}</span
            >
          </dd>
        </div>
        ${
          keys === null
            ? ''
            : html`<div class="stat">
                <dt>API keys</dt>
                <dd>
                  <span class="figure">${count(keys)}</span>
                  <span class="breakdown"><a href="/dashboard/settings/api">Manage keys</a></span>
                </dd>
              </div>`
        }
      </dl>
      ${assignmentsPanel(o.data.assignments, o.viewer.csrfToken)}
      <section class="card" aria-labelledby="latest-emails">
        <h2 id="latest-emails">Latest notification emails</h2>
        ${notificationsTable(o.data.notifications)}
      </section>`,
  });
}
