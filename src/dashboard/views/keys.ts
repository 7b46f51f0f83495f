// Settings > API: generate a key (shown once), list the keys, revoke one after confirming. A Test
// mode switch (docs/api.md §20) shows the test keys instead, generates test keys, and offers to
// delete all test data after a confirmation. Plain links and forms: it all works without JavaScript.
import { ApiKeyCreateBody } from '../../modules/api-keys/api-keys.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ApiKey } from '../../modules/api-keys/api-keys.service.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { day, when } from './format.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export const EXPIRY_CHOICES: { value: string; label: string }[] = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

export interface KeyFormValues {
  name: string;
  scope: string;
  expires: string;
}

/** Which keys the page shows and makes: the studio's live keys, or its test keys. */
export type KeyMode = 'live' | 'test';

/** The keys page in a mode: the live page keeps its plain address. */
export const keysPath = (mode: KeyMode, query = ''): string => {
  const params = [mode === 'test' ? 'mode=test' : '', query].filter((p) => p !== '').join('&');
  return `/dashboard/settings/api${params === '' ? '' : `?${params}`}`;
};

/** The switch: two links, the current one marked for screen readers and by its look. */
function modeSwitch(mode: KeyMode): SafeHtml {
  const option = (value: KeyMode, label: string) =>
    html`<a
      class="mode-switch__option${mode === value ? ' mode-switch__option--on' : ''}"
      href="${keysPath(value)}"
      ${mode === value ? html`aria-current="page"` : ''}
      >${label}</a
    >`;
  return html`<nav class="mode-switch" aria-label="Live or test mode">
    ${option('live', 'Live')} ${option('test', 'Test mode')}
  </nav>`;
}

function testDataCard(): SafeHtml {
  return html`<section class="card" aria-labelledby="test-data-title">
    <h2 id="test-data-title">Test data</h2>
    <p>
      Test keys see and change only test data: galleries, media, clients, emails, links, webhooks and events of their
      own. Emails of test data are never sent; they are kept on the server in <code>outbox/test</code>.
    </p>
    <div class="actions">
      <a class="button button-danger" href="/dashboard/settings/api/test-data/delete">Delete all test data</a>
    </div>
  </section>`;
}

const LABELS = { name: 'Name', scope: 'Access', expires: 'Expires' };

const SCOPES: { value: string; label: string; hint: string }[] = [
  { value: 'full', label: 'Full access', hint: 'Can read and change galleries, media and clients.' },
  { value: 'read_only', label: 'Read only', hint: 'Can only read (GET requests); any change is refused.' },
];

const scopeLabel = (scope: string): string => SCOPES.find((s) => s.value === scope)?.label ?? scope;

function newKeyPanel(created: { key: string; apiKey: ApiKey }): SafeHtml {
  return html`<section class="card new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Your new API key “${created.apiKey.name}”</h2>
    <p class="warning">Copy it now and keep it somewhere safe: you will not see it again.</p>
    <div class="field">
      <label for="new-key-value">API key</label>
      <div class="key-row">
        <textarea
          id="new-key-value"
          class="key-value"
          rows="2"
          readonly
          spellcheck="false"
          autocomplete="off"
          aria-describedby="copy-status"
        >
${created.key}</textarea>
        <button type="button" class="button" data-copy-target="new-key-value" data-copy-status="copy-status" hidden>
          Copy key
        </button>
      </div>
      <p id="copy-status" class="hint" role="status" aria-live="polite"></p>
    </div>
    <p class="muted">
      Send it with every request as <code>Authorization: Bearer &lt;key&gt;</code>. If it is lost, revoke it below and
      generate another.
    </p>
  </section>`;
}

function keysTable(keys: ApiKey[], now: number): SafeHtml {
  if (keys.length === 0) return html`<p class="muted">No API keys. Generate one above.</p>`;
  // On a phone each key is a card of labelled lines (dashboard.css); the roles keep it a table
  // for screen readers, which drop table semantics once CSS changes a table's display.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Your API keys">
    <table class="stack" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">Name</th>
          <th scope="col" role="columnheader">Key</th>
          <th scope="col" role="columnheader">Access</th>
          <th scope="col" role="columnheader">Created</th>
          <th scope="col" role="columnheader">Last used</th>
          <th scope="col" role="columnheader">Expires</th>
          <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${keys.map((k) => {
          const expired = k.expires_at !== null && Date.parse(k.expires_at) <= now;
          return html`<tr role="row">
            <td role="cell" class="cell-title">${k.name}</td>
            <td role="cell" class="nowrap" data-label="Key"><code>${k.prefix}…</code></td>
            <td role="cell" data-label="Access"><span class="badge badge-${k.scope}">${scopeLabel(k.scope)}</span></td>
            <td role="cell" class="nowrap" data-label="Created">${day(k.created_at)}</td>
            <td role="cell" class="nowrap" data-label="Last used">${when(k.last_used_at)}</td>
            <td role="cell" class="nowrap" data-label="Expires">
              ${expired ? html`<span class="badge badge-expired">expired</span> ` : ''}${k.expires_at === null ? html`<span class="muted">never</span>` : day(k.expires_at)}
            </td>
            <td role="cell" class="nowrap cell-action">
              <a class="link-danger" href="/dashboard/settings/api/${k.id}/revoke"
                >Revoke<span class="visually-hidden"> ${k.name}</span></a
              >
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

export function keysPage(o: {
  viewer: Viewer;
  /** The keys of `mode`. */
  keys: ApiKey[];
  mode: KeyMode;
  now: number;
  created?: { key: string; apiKey: ApiKey } | undefined;
  values?: KeyFormValues | undefined;
  errors?: FieldErrors | undefined;
  notice?: Notice | null;
}): SafeHtml {
  const values = o.values ?? { name: '', scope: 'full', expires: '' };
  const errors = o.errors ?? {};
  const test = o.mode === 'test';
  return page({
    title: 'API keys',
    viewer: o.viewer,
    section: 'keys',
    notice: o.notice,
    body: html`<h1>API keys</h1>
      <p class="lead">Keys let your website or apps use the Lightbox API on behalf of ${o.viewer.studioName}.</p>
      ${modeSwitch(o.mode)}
      ${
        test
          ? html`<p class="test-mode-note" role="note">
              <strong>Test mode.</strong> Test keys start with <code>lbx_test_</code> and work only on test data: try
              the API without touching real galleries or emailing real clients.
            </p>`
          : ''
      }
      ${o.created === undefined ? '' : newKeyPanel(o.created)}
      <section class="card" aria-labelledby="generate-title">
        <h2 id="generate-title">${test ? 'Generate a test key' : 'Generate a key'}</h2>
        ${errorSummary(errors, LABELS)}
        <form method="post" action="${keysPath(o.mode)}">
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'name', label: LABELS.name, value: values.name, error: errors.name, maxlength: maxLengthOf(ApiKeyCreateBody, 'name'), hint: 'What uses it, so you recognise it later: “Website”, “Booking app”.', autocomplete: 'off', autofocus: errors.name !== undefined })}
          <div class="form-grid">
            <fieldset class="field">
              <legend>${LABELS.scope}</legend>
              ${SCOPES.map(
                (s) =>
                  html`<div class="choice">
                    <input
                      type="radio"
                      id="scope-${s.value}"
                      name="scope"
                      value="${s.value}"
                      aria-describedby="scope-${s.value}-hint"
                      ${values.scope === s.value ? html` checked` : ''}
                    />
                    <label for="scope-${s.value}"
                      >${s.label}<br /><span class="hint" id="scope-${s.value}-hint">${s.hint}</span></label
                    >
                  </div>`,
              )}
            </fieldset>
            <div class="field">
              <label for="f-expires">${LABELS.expires}</label>
              <p class="hint" id="f-expires-hint">An expired key stops working by itself.</p>
              ${errors.expires === undefined ? '' : html`<p class="field-error" id="f-expires-error">${errors.expires}</p>`}
              <select id="f-expires" name="expires" aria-describedby="f-expires-hint">
                ${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${values.expires === c.value ? html` selected` : ''}>${c.label}</option>`)}
              </select>
            </div>
          </div>
          <div class="actions">
            <button type="submit" class="button">${test ? 'Generate test key' : 'Generate key'}</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">${test ? 'Your test keys' : 'Your keys'}</h2>
        ${keysTable(o.keys, o.now)}
      </section>
      ${test ? testDataCard() : ''}`,
  });
}

export function revokePage(o: { viewer: Viewer; key: ApiKey }): SafeHtml {
  return page({
    title: 'Revoke API key',
    viewer: o.viewer,
    section: 'keys',
    body: html`<h1>Revoke the key “${o.key.name}”?</h1>
      <section class="card">
        <dl class="facts">
          <dt>Key</dt>
          <dd><code>${o.key.prefix}…</code></dd>
          <dt>Access</dt>
          <dd>${scopeLabel(o.key.scope)}</dd>
          <dt>Created</dt>
          <dd>${day(o.key.created_at)}</dd>
          <dt>Last used</dt>
          <dd>${when(o.key.last_used_at)}</dd>
        </dl>
        <p>
          Anything using the key <code>${o.key.prefix}…</code> will be refused from its next request. This cannot be
          undone: to carry on, generate a new key and put it where this one was.
        </p>
        <form method="post" action="/dashboard/settings/api/${o.key.id}/revoke" class="actions">
          ${csrfField(o.viewer.csrfToken)}
          <button type="submit" class="button button-danger">Revoke key</button>
          <a class="button button-secondary" href="${keysPath(o.key.test ? 'test' : 'live')}">Cancel</a>
        </form>
      </section>`,
  });
}

/** The confirmation step of "Delete all test data" (docs/api.md §20). */
export function deleteTestDataPage(o: { viewer: Viewer }): SafeHtml {
  return page({
    title: 'Delete all test data',
    viewer: o.viewer,
    section: 'keys',
    body: html`<h1>Delete all test data?</h1>
      <section class="card">
        <p>
          Every gallery, photo, video, document, client, email, client link, webhook endpoint, delivery and event made
          with test keys is deleted, with the stored files. Client links of test galleries stop working.
        </p>
        <p>
          Your live data is not touched. Test keys are kept and carry on, on empty test data. This cannot be undone.
        </p>
        <form method="post" action="/dashboard/settings/api/test-data/delete" class="actions">
          ${csrfField(o.viewer.csrfToken)}
          <button type="submit" class="button button-danger">Delete all test data</button>
          <a class="button button-secondary" href="${keysPath('test')}">Cancel</a>
        </form>
      </section>`,
  });
}
