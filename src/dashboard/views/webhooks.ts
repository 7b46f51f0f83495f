// Settings > Webhooks: add an endpoint (its signing secret shown once), enable or disable it,
// rotate its secret (the new one shown once), send a test, delete it after confirming, and see
// its recent deliveries with a Retry button each.
import { EVENT_TYPES } from '../../db/schema.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import type { WebhookDeliveryType, WebhookEndpointType } from '../../modules/webhooks/webhooks.schemas.ts';
import { day, when } from './format.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

/** How many of an endpoint's deliveries its card lists, newest first. */
export const RECENT_DELIVERIES = 10;

export interface WebhookFormValues {
  url: string;
  description: string;
  /** `all` (every type, `["*"]`) or `some` (the ticked ones). */
  mode: string;
  selected: readonly string[];
}

const EMPTY_WEBHOOK_FORM: WebhookFormValues = { url: '', description: '', mode: 'all', selected: [] };

/** The form field that ticks one event type: names are unique (a repeated name keeps its first value). */
export const eventFieldName = (type: string): string => `event.${type}`;

const LABELS = { url: 'Endpoint URL', events: 'Events', description: 'Description' };

/** The event types by what they are about, for the checkboxes. */
const GROUPS: { title: string; prefix: string }[] = [
  { title: 'Galleries', prefix: 'listing.' },
  { title: 'Media', prefix: 'media.' },
  { title: 'Clients', prefix: 'client.' },
  { title: 'Client links', prefix: 'client_link.' },
  { title: 'Share links', prefix: 'share_link.' },
  { title: 'Notification emails', prefix: 'notification.' },
];

export interface EndpointView {
  endpoint: WebhookEndpointType;
  deliveries: WebhookDeliveryType[];
  total: number;
}

/** The secret to show once: after a create, or after a rotation. */
export interface ShownSecret {
  endpoint: WebhookEndpointType;
  secret: string;
  rotated: boolean;
}

const anchor = (id: string): string => `endpoint-${id}`;
/** What an endpoint is called in button names and headings: its description, else its URL. */
const nameOf = (e: WebhookEndpointType): string => e.description ?? e.url;

function secretPanel(shown: ShownSecret): SafeHtml {
  return html`<section class="card new-key" aria-labelledby="new-secret-title">
    <h2 id="new-secret-title">${shown.rotated ? 'The new signing secret' : 'Your endpoint’s signing secret'}</h2>
    <p class="endpoint-url"><code>${shown.endpoint.url}</code></p>
    <p class="warning">Copy it now and keep it somewhere safe: you will not see it again.</p>
    <div class="field">
      <label for="new-secret-value">Signing secret</label>
      <div class="key-row">
        <textarea
          id="new-secret-value"
          class="key-value"
          rows="2"
          readonly
          spellcheck="false"
          autocomplete="off"
          aria-describedby="copy-status"
        >
${shown.secret}</textarea>
        <button type="button" class="button" data-copy-target="new-secret-value" data-copy-status="copy-status" hidden>
          Copy secret
        </button>
      </div>
      <p id="copy-status" class="hint" role="status" aria-live="polite"></p>
    </div>
    <p class="muted">
      Your receiver checks each request’s <code>webhook-signature</code> header with it (Standard Webhooks).
      ${
        shown.rotated
          ? 'The previous secret keeps signing for 24 hours (both signatures are sent): switch your receiver over before then.'
          : 'If it is lost, rotate the secret below to get a new one.'
      }
    </p>
  </section>`;
}

function eventsChoice(values: WebhookFormValues, error: string | undefined): SafeHtml {
  const selected = new Set(values.selected);
  return html`<fieldset
    class="field${error === undefined ? '' : ' field-invalid'}"
    id="f-events"
    aria-describedby="${error === undefined ? 'f-events-hint' : 'f-events-hint f-events-error'}"
  >
    <legend>${LABELS.events}</legend>
    <p class="hint" id="f-events-hint">What happens in your studio that this endpoint should hear about.</p>
    ${error === undefined ? '' : html`<p class="field-error" id="f-events-error">${error}</p>`}
    <div class="choice">
      <input type="radio" id="events-all" name="events" value="all" ${values.mode === 'some' ? '' : html` checked`} />
      <label for="events-all">All events, including types added later</label>
    </div>
    <div class="choice">
      <input type="radio" id="events-some" name="events" value="some" ${values.mode === 'some' ? html` checked` : ''} />
      <label for="events-some">Only the events ticked below</label>
    </div>
    <div class="event-groups">
      ${GROUPS.map(
        (g) =>
          html`<fieldset class="event-group">
            <legend>${g.title}</legend>
            ${EVENT_TYPES.filter((t) => t.startsWith(g.prefix)).map(
              (t) =>
                html`<div class="choice">
                  <input
                    type="checkbox"
                    id="event-${t}"
                    name="${eventFieldName(t)}"
                    value="on"
                    ${selected.has(t) ? html` checked` : ''}
                  />
                  <label for="event-${t}"><code>${t}</code></label>
                </div>`,
            )}
          </fieldset>`,
      )}
    </div>
  </fieldset>`;
}

function addForm(viewer: Viewer, values: WebhookFormValues, errors: FieldErrors): SafeHtml {
  return html`<section class="card" aria-labelledby="add-title">
    <h2 id="add-title">Add an endpoint</h2>
    ${errorSummary(errors, LABELS)}
    <form method="post" action="/dashboard/settings/webhooks">
      ${csrfField(viewer.csrfToken)}
      ${field({ name: 'url', label: LABELS.url, value: values.url, error: errors.url, maxlength: 2048, hint: 'Where Lightbox sends each event, as an HTTPS POST (https://…). Addresses inside a private network are refused.', autocomplete: 'url', autofocus: errors.url !== undefined })}
      ${eventsChoice(values, errors.events)}
      ${field({ name: 'description', label: LABELS.description, value: values.description, error: errors.description, maxlength: 500, required: false, hint: 'For your own reference: “Booking system”, “Zapier”.', autocomplete: 'off', autofocus: errors.url === undefined && errors.description !== undefined })}
      <div class="actions"><button type="submit" class="button">Add endpoint</button></div>
    </form>
  </section>`;
}

const STATUS_LABEL: Record<string, string> = { pending: 'pending', succeeded: 'succeeded', failed: 'failed' };

function deliveriesTable(view: EndpointView, csrf: string): SafeHtml {
  const { endpoint, deliveries, total } = view;
  if (deliveries.length === 0) {
    return html`<p class="muted">Nothing sent yet.${endpoint.enabled ? ' Send a test event to try it.' : ''}</p>`;
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Recent deliveries to ${nameOf(endpoint)}">
      <table class="stack deliveries" role="table">
        <thead role="rowgroup">
          <tr role="row">
            <th scope="col" role="columnheader">Event</th>
            <th scope="col" role="columnheader">Status</th>
            <th scope="col" role="columnheader">Attempts</th>
            <th scope="col" role="columnheader">Response</th>
            <th scope="col" role="columnheader">Last error</th>
            <th scope="col" role="columnheader">When</th>
            <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          ${deliveries.map(
            (d) =>
              html`<tr role="row" data-delivery="${d.id}">
                <td role="cell" class="cell-title"><code>${d.event_type}</code></td>
                <td role="cell" data-label="Status">
                  <span class="badge badge-${d.status}">${STATUS_LABEL[d.status] ?? d.status}</span>
                  ${
                    d.next_attempt_at === null
                      ? ''
                      : html`<span class="hint block">next try ${when(d.next_attempt_at)}</span>`
                  }
                </td>
                <td role="cell" data-label="Attempts">${d.attempts}</td>
                <td role="cell" data-label="Response">
                  ${d.response_status === null ? html`<span class="muted">none</span>` : html`<code>${d.response_status}</code>`}
                </td>
                <td role="cell" data-label="Last error" class="cell-error">
                  ${d.last_error === null ? html`<span class="muted">none</span>` : html`<span class="error-text">${d.last_error}</span>`}
                </td>
                <td role="cell" data-label="When">
                  ${when(d.created_at)}
                  ${d.delivered_at === null ? '' : html`<span class="hint block">delivered ${when(d.delivered_at)}</span>`}
                </td>
                <td role="cell" class="nowrap cell-action">
                  <form
                    method="post"
                    action="/dashboard/settings/webhooks/${endpoint.id}/deliveries/${d.id}/retry"
                    class="inline"
                  >
                    ${csrfField(csrf)}
                    <button type="submit" class="button button-secondary button-small">
                      Retry<span class="visually-hidden"> ${d.event_type} delivery of ${day(d.created_at)}</span>
                    </button>
                  </form>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${total > deliveries.length ? html`<p class="muted">The ${deliveries.length} most recent of ${total}.</p>` : ''}`;
}

function eventsText(events: readonly string[]): SafeHtml {
  if (events.includes('*')) return html`All events`;
  return html`<span class="event-list">${events.map((t) => html`<code>${t}</code> `)}</span>`;
}

function endpointCard(view: EndpointView, csrf: string): SafeHtml {
  const e = view.endpoint;
  const base = `/dashboard/settings/webhooks/${e.id}`;
  const hidden = html`<span class="visually-hidden"> for ${nameOf(e)}</span>`;
  return html`<article class="card endpoint" id="${anchor(e.id)}" aria-labelledby="${anchor(e.id)}-title">
    <div class="endpoint-head">
      <h3 id="${anchor(e.id)}-title" class="endpoint-url"><code>${e.url}</code></h3>
      ${
        e.enabled
          ? html`<span class="badge badge-succeeded">enabled</span>`
          : e.disabled_reason === 'gone'
            ? html`<span class="badge badge-disabled">disabled: gone</span>`
            : html`<span class="badge badge-disabled">disabled</span>`
      }
    </div>
    <dl class="facts">
      ${
        e.description === null
          ? ''
          : html`<dt>Description</dt>
              <dd>${e.description}</dd>`
      }
      <dt>Events</dt>
      <dd>${eventsText(e.events)}</dd>
      <dt>Added</dt>
      <dd>${day(e.created_at)}</dd>
    </dl>
    ${
      e.enabled
        ? ''
        : e.disabled_reason === 'gone'
          ? html`<p class="notice notice-error">
              Disabled because the receiver answered <strong>410 Gone</strong>: it said this address is gone for good.
              Nothing is sent while it is disabled; its pending retries wait. Enable it again once the receiver is back.
            </p>`
          : html`<p class="muted">Disabled by hand. Nothing is sent while it is disabled; its pending retries wait.</p>`
    }
    <div class="actions endpoint-actions">
      ${
        e.enabled
          ? html`<form method="post" action="${base}/test" class="inline">
              ${csrfField(csrf)}
              <button type="submit" class="button">Send test event${hidden}</button>
            </form>`
          : ''
      }
      <form method="post" action="${base}/${e.enabled ? 'disable' : 'enable'}" class="inline">
        ${csrfField(csrf)}
        <button type="submit" class="button ${e.enabled ? 'button-secondary' : ''}">
          ${e.enabled ? 'Disable' : 'Enable'}${hidden}
        </button>
      </form>
      <form method="post" action="${base}/rotate" class="inline">
        ${csrfField(csrf)}
        <button type="submit" class="button button-secondary">Rotate secret${hidden}</button>
      </form>
      <a class="link-danger" href="${base}/delete">Delete${hidden}</a>
    </div>
    <h4>Recent deliveries</h4>
    ${deliveriesTable(view, csrf)}
  </article>`;
}

export function webhooksPage(o: {
  viewer: Viewer;
  endpoints: EndpointView[];
  totalEndpoints: number;
  shown?: ShownSecret | undefined;
  values?: WebhookFormValues | undefined;
  errors?: FieldErrors | undefined;
  notice?: Notice | null;
}): SafeHtml {
  return page({
    title: 'Webhooks',
    viewer: o.viewer,
    section: 'webhooks',
    notice: o.notice,
    body: html`<h1>Webhooks</h1>
      <p class="lead">
        Lightbox tells your other systems what happens in ${o.viewer.studioName} (a gallery created, a client’s link
        viewed) by sending each event to the endpoints below, signed, and retrying for a day when one does not answer.
      </p>
      ${o.shown === undefined ? '' : secretPanel(o.shown)}
      <section aria-labelledby="endpoints-title" class="endpoints">
        <h2 id="endpoints-title">Your endpoints</h2>
        ${
          o.endpoints.length === 0
            ? html`<p class="card muted">No endpoints yet. Add one below.</p>`
            : o.endpoints.map((v) => endpointCard(v, o.viewer.csrfToken))
        }
        ${
          o.totalEndpoints > o.endpoints.length
            ? html`<p class="muted">The first ${o.endpoints.length} of ${o.totalEndpoints} endpoints are shown.</p>`
            : ''
        }
      </section>
      ${addForm(o.viewer, o.values ?? EMPTY_WEBHOOK_FORM, o.errors ?? {})}`,
  });
}

export function deleteWebhookPage(o: { viewer: Viewer; endpoint: WebhookEndpointType }): SafeHtml {
  const e = o.endpoint;
  return page({
    title: 'Delete webhook endpoint',
    viewer: o.viewer,
    section: 'webhooks',
    body: html`<h1>Delete this webhook endpoint?</h1>
      <section class="card">
        <dl class="facts">
          <dt>URL</dt>
          <dd class="endpoint-url"><code>${e.url}</code></dd>
          ${
            e.description === null
              ? ''
              : html`<dt>Description</dt>
                  <dd>${e.description}</dd>`
          }
          <dt>Events</dt>
          <dd>${eventsText(e.events)}</dd>
          <dt>Added</dt>
          <dd>${day(e.created_at)}</dd>
        </dl>
        <p>
          Nothing more is sent to it, its pending retries are dropped and its delivery history is deleted. This cannot
          be undone: to receive events there again, add it again (with a new secret).
        </p>
        <form method="post" action="/dashboard/settings/webhooks/${e.id}/delete" class="actions">
          ${csrfField(o.viewer.csrfToken)}
          <button type="submit" class="button button-danger">Delete endpoint</button>
          <a class="button button-secondary" href="/dashboard/settings/webhooks#${anchor(e.id)}">Cancel</a>
        </form>
      </section>`,
  });
}
