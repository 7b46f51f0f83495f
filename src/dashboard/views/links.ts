// A URL the studio hands on (a client link, a property page): one readable line in a readonly
// field, never a wrapped wall of token text; a Copy button that dashboard.js shows (the Clipboard
// API, or the browser's copy of the selected field); without JavaScript the field itself is there
// to select and copy. A password-protected link says so beside its label, in words and with a lock.
import { html, type SafeHtml } from '../../lib/html.ts';

export interface LinkFieldOptions {
  /** The field's id, unique on the page; its copy status is `${id}-status`. */
  id: string;
  /** The visible label ("Client link"). */
  label: string;
  url: string;
  /** docs/api.md §25: the client needs a password to open it. */
  passwordProtected?: boolean;
  /** Added to the button's name for a screen reader where one page shows several ("for 12 Quay Street"). */
  context?: string;
  /** A smaller field, for a row of a table. */
  compact?: boolean;
}

/** A closed padlock, drawn in the text's colour; its words beside it are what a reader hears. */
const LOCK = html`<svg
  class="lock-icon"
  aria-hidden="true"
  focusable="false"
  viewBox="0 0 16 16"
  width="16"
  height="16"
>
  <path
    fill="currentColor"
    d="M8 1a3.5 3.5 0 0 0-3.5 3.5V7H4a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 6H6V4.5a2 2 0 1 1 4 0V7Z"
  />
</svg>`;

/** The mark of a password-protected link: the lock and its words, both visible. */
function passwordMark(id?: string): SafeHtml {
  return html`<span class="link-lock" ${id === undefined ? '' : html` id="${id}"`}>${LOCK} Password protected</span>`;
}

export function linkField(o: LinkFieldOptions): SafeHtml {
  const lockId = `${o.id}-lock`;
  const name = o.context === undefined ? o.label : `${o.label} ${o.context}`;
  return html`<div class="link-field${o.compact === true ? ' link-field-compact' : ''}">
    <div class="link-field-head">
      <label for="${o.id}">${o.label}</label>
      ${o.passwordProtected === true ? passwordMark(lockId) : ''}
    </div>
    <div class="link-field-row">
      <input
        id="${o.id}"
        type="text"
        readonly
        value="${o.url}"
        class="link-value"
        spellcheck="false"
        autocomplete="off"
        dir="ltr"
        ${o.passwordProtected === true ? html` aria-describedby="${lockId}"` : ''}
      />
      <button
        type="button"
        class="button button-secondary button-small copy-button"
        data-copy-target="${o.id}"
        data-copy-status="${o.id}-status"
        hidden
      >
        Copy<span class="visually-hidden"> ${name}</span>
      </button>
    </div>
    <p id="${o.id}-status" class="hint copy-status" role="status" aria-live="polite"></p>
  </div>`;
}
