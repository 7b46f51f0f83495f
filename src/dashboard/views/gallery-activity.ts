// A gallery's activity on its dashboard page: what the client did with the link (views,
// downloads, favorites and their note), the property pages' views, and the emails sent about it.
import type { FavoritesType, ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import type { NotificationType } from '../../modules/notifications/notifications.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, when } from './format.ts';

/** What the activity is drawn from: a part of the gallery page's own options. */
interface ActivityOptions {
  listing: ListingType;
  media: MediaType[];
  favorites: FavoritesType;
  emails: NotificationType[];
}

export function activitySection(o: ActivityOptions): SafeHtml {
  const l = o.listing;
  const link = l.client_link;
  const favorites = o.favorites.media_ids
    .map((id) => o.media.find((m) => m.id === id))
    .filter((m): m is MediaType => m !== undefined);
  const emails =
    o.emails.length === 0
      ? html`<p class="muted">No emails about this gallery yet.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Emails about this gallery">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Status</th>
                <th scope="col" role="columnheader">To</th>
                <th scope="col" role="columnheader">Queued</th>
                <th scope="col" role="columnheader">Sent</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.emails.map(
                (n) =>
                  html`<tr role="row">
                    <td role="cell" data-label="Status"><span class="badge badge-${n.status}">${n.status}</span></td>
                    <td role="cell" data-label="To">${n.to}</td>
                    <td role="cell" class="nowrap" data-label="Queued">${when(n.created_at)}</td>
                    <td role="cell" class="nowrap" data-label="Sent">${when(n.sent_at, 'not yet')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return html`<section class="card" id="activity" aria-labelledby="activity-title">
    <h2 id="activity-title">Activity</h2>
    <dl class="facts activity">
      <div>
        <dt>Client link views</dt>
        <dd data-testid="link-views">${link === null ? '—' : count(link.views)}</dd>
      </div>
      <div>
        <dt>Downloads</dt>
        <dd data-testid="link-downloads">${link === null ? '—' : count(link.downloads)}</dd>
      </div>
      <div>
        <dt>First viewed</dt>
        <dd>${link === null ? '—' : when(link.first_viewed_at, 'not yet')}</dd>
      </div>
      <div>
        <dt>Last viewed</dt>
        <dd>${link === null ? '—' : when(link.last_viewed_at, 'not yet')}</dd>
      </div>
      <div>
        <dt>Favorites</dt>
        <dd data-testid="favorites-count">${count(favorites.length)}</dd>
      </div>
      <div>
        <dt>Property page views</dt>
        <dd data-testid="property-views">${l.property_page === null ? '—' : count(l.property_page.views)}</dd>
      </div>
    </dl>
    <h3>Favorites</h3>
    ${
      favorites.length === 0
        ? html`<p class="muted">The client has not marked any favorites.</p>`
        : html`<ul class="favorites-list">
              ${favorites.map((m) => html`<li><a href="#m-${m.id}">${m.filename}</a>${m.caption === null ? '' : html` — ${m.caption}`}</li>`)}
            </ul>
            ${
              o.favorites.submitted_at === null
                ? html`<p class="muted small">Not sent yet.</p>`
                : html`<p class="small">
                    Sent ${when(o.favorites.submitted_at)}${o.favorites.note === null ? '' : html`, with a note:`}
                  </p>`
            }
            ${o.favorites.note === null ? '' : html`<blockquote class="note">${o.favorites.note}</blockquote>`}`
    }
    <h3>Emails</h3>
    ${emails}
  </section>`;
}
