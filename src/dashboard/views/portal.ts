// The client's portal on their dashboard page (docs/api.md §28): its link, to copy, and a button
// that replaces it (the old link stops at once, as POST /v1/clients/:id/portal/rotate does).
import { html, type SafeHtml } from '../../lib/html.ts';
import type { ClientType } from '../../modules/clients/clients.schemas.ts';
import { csrfField } from './layout.ts';

export function portalSection(c: ClientType, csrf: string): SafeHtml {
  return html`<section class="card" id="portal" aria-labelledby="client-portal">
    <h2 id="client-portal">Portal</h2>
    <p class="muted">
      One page with every gallery assigned to ${c.name}, newest first. Every assignment email links to it.
    </p>
    <div class="copy-row">
      <label for="portal-url">Portal link</label>
      <div class="key-row">
        <input id="portal-url" type="text" readonly value="${c.portal_url}" class="key-value" />
        <button
          type="button"
          class="button button-secondary"
          data-copy-target="portal-url"
          data-copy-status="portal-url-status"
          hidden
        >
          Copy<span class="visually-hidden"> Portal link</span>
        </button>
      </div>
      <p id="portal-url-status" class="hint" role="status" aria-live="polite"></p>
    </div>
    <form method="post" action="/dashboard/clients/${c.id}/portal/rotate" class="inline">
      ${csrfField(csrf)}
      <button type="submit" class="button button-secondary button-small">Replace the link</button>
    </form>
    <p class="hint">Replacing it stops the old link at once; the galleries' own links stay as they are.</p>
  </section>`;
}
