// A gallery's share links on its dashboard page (docs/api.md §28): each link with its copyable URL,
// its controls and counts, the selection sent at it; a form to make one, one to change each, and
// buttons to email it again, give it a new URL or delete it. Folded away like the gallery's Details
// (the page stays short); plain forms that work without JavaScript, shown again as typed when refused.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import {
  MAX_SHARE_LINKS,
  ShareLinkCreateBody,
  type FavoritesType,
  type ShareLinkType,
} from '../../modules/client-links/share-links.schemas.ts';
import { maxLengthOf, minLengthOf } from '../form.ts';
import { count, day, when } from './format.ts';
import { csrfField, errorSummary, page, type FieldErrors, type Viewer } from './layout.ts';
import { linkField } from './links.ts';

/** A share link's form as typed: every field as text, the switches as ticked or not. */
export interface ShareLinkFormValues {
  label: string;
  email: string;
  expires_on: string;
  remove_password: boolean;
  downloads_enabled: boolean;
  favorites_enabled: boolean;
  selection_min: string;
  selection_max: string;
}

const EMPTY_SHARE_LINK: ShareLinkFormValues = {
  label: '',
  email: '',
  expires_on: '',
  remove_password: false,
  downloads_enabled: true,
  favorites_enabled: true,
  selection_min: '',
  selection_max: '',
};

/** A refused form, shown again: the new link's (`id` null) or one link's. */
export interface ShareLinkFormState {
  id: string | null;
  values: ShareLinkFormValues;
  errors: FieldErrors;
}

export interface ShareLinkRow {
  link: ShareLinkType;
  /** What was marked, written and sent at the link. */
  favorites: FavoritesType;
}

export interface ShareLinksPanelOptions {
  listing: ListingType;
  links: ShareLinkRow[];
  media: MediaType[];
  csrf: string;
  /** Open the panel (a share link's notice, or a refused form). */
  open: boolean;
  form?: ShareLinkFormState;
}

const SHARE_LINK_LABELS: Record<string, string> = {
  label: 'Label',
  email: 'Email',
  expires_on: 'Expires on',
  password: 'Password',
  selection_min: 'Fewest to choose',
  selection_max: 'Most to choose',
};

const PASSWORD = {
  min: minLengthOf(ShareLinkCreateBody, 'password'),
  max: maxLengthOf(ShareLinkCreateBody, 'password'),
};

export const valuesOfLink = (l: ShareLinkType): ShareLinkFormValues => ({
  label: l.label,
  email: l.email ?? '',
  expires_on: l.expires_at === null ? '' : l.expires_at.slice(0, 10),
  remove_password: false,
  downloads_enabled: l.downloads_enabled,
  favorites_enabled: l.favorites_enabled,
  selection_min: l.selection_min === null ? '' : String(l.selection_min),
  selection_max: l.selection_max === null ? '' : String(l.selection_max),
});

/** What to fix in one form, each linking to its field (whose id carries the form's prefix). */
function summaryOf(prefix: string, errors: FieldErrors): SafeHtml {
  const key = (k: string) => `${prefix}-${k}`;
  const labels = Object.fromEntries(Object.entries(SHARE_LINK_LABELS).map(([k, m]) => [key(k), m]));
  return errorSummary(Object.fromEntries(Object.entries(errors).map(([k, m]) => [key(k), m])), labels);
}

const linksPath = (l: ListingType): string => `/dashboard/galleries/${l.id}/share-links`;

/** One text input with its label, hint and error; `prefix` keeps each form's ids apart. */
function input(
  prefix: string,
  name: keyof ShareLinkFormValues | 'password',
  label: string,
  value: string,
  errors: FieldErrors,
  attrs: SafeHtml,
  hint?: string,
): SafeHtml {
  const id = `f-${prefix}-${name}`;
  const error = errors[name];
  const described = [hint === undefined ? '' : `${id}-hint`, error === undefined ? '' : `${id}-error`]
    .filter((s) => s !== '')
    .join(' ');
  return html`<div class="field${error === undefined ? '' : ' field-invalid'}">
    <label for="${id}">${label}</label>
    ${hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${hint}</p>`}
    ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
    <input
      id="${id}"
      name="${name}"
      ${attrs}
      ${name === 'password' ? '' : html`value="${value}"`}
      ${described === '' ? '' : html`aria-describedby="${described}"`}
      ${error === undefined ? '' : html`aria-invalid="true"`}
    />
  </div>`;
}

function check(prefix: string, name: string, label: string, checked: boolean): SafeHtml {
  return html`<div class="choice">
    <input id="f-${prefix}-${name}" name="${name}" type="checkbox" value="1" ${checked ? 'checked' : ''} />
    <label for="f-${prefix}-${name}">${label}</label>
  </div>`;
}

/** The fields both forms share: expiry, password, switches, selection bounds. */
function controlFields(prefix: string, v: ShareLinkFormValues, errors: FieldErrors, protectedNow: boolean): SafeHtml {
  const bound = html`type="text" inputmode="numeric" autocomplete="off"`;
  return html`<div class="form-grid">
      ${input(prefix, 'expires_on', 'Expires on (optional)', v.expires_on, errors, html`type="date"`, 'Works until the end of that day (UTC); empty: never.')}
      ${input(
        prefix,
        'password',
        protectedNow ? 'New password (optional)' : 'Password (optional)',
        '',
        errors,
        html`type="password" autocomplete="new-password" maxlength="${PASSWORD.max}"`,
        `${PASSWORD.min} to ${PASSWORD.max} characters${protectedNow ? '; empty: keep it' : '; empty: none'}.`,
      )}
    </div>
    ${protectedNow ? check(prefix, 'remove_password', 'Remove the password', v.remove_password) : ''}
    ${check(prefix, 'downloads_enabled', 'Visitors can download the originals and the ZIP', v.downloads_enabled)}
    ${check(prefix, 'favorites_enabled', 'Visitors can mark favorites, comment and send a selection', v.favorites_enabled)}
    <div class="form-grid">
      ${input(prefix, 'selection_min', 'Fewest to choose (optional)', v.selection_min, errors, bound)}
      ${input(prefix, 'selection_max', 'Most to choose (optional)', v.selection_max, errors, bound)}
    </div>`;
}

const labelAttrs = html`type="text" required maxlength="${maxLengthOf(ShareLinkCreateBody, 'label')}" autocomplete="off"`;

function createForm(o: ShareLinksPanelOptions): SafeHtml {
  const l = o.listing;
  const state = o.form?.id === null ? o.form : undefined;
  const v = state?.values ?? EMPTY_SHARE_LINK;
  const errors = state?.errors ?? {};
  const full = o.links.length >= MAX_SHARE_LINKS;
  return html`<details class="share-link-new" ${state === undefined ? '' : 'open'}>
    <summary>New share link</summary>
    ${
      full
        ? html`<p class="hint">A gallery can have at most ${MAX_SHARE_LINKS} share links: delete one first.</p>`
        : html`${summaryOf('shl-new', errors)}
            <form method="post" action="${linksPath(l)}" class="stack-form" novalidate>
              ${csrfField(o.csrf)}
              <div class="form-grid">
                ${input('shl-new', 'label', 'Label', v.label, errors, labelAttrs, 'What you call it, e.g. “Agent”.')}
                ${input(
                  'shl-new',
                  'email',
                  'Email it to (optional)',
                  v.email,
                  errors,
                  html`type="email" maxlength="${maxLengthOf(ShareLinkCreateBody, 'email')}" autocomplete="off"`,
                  'Cannot be changed later.',
                )}
              </div>
              ${controlFields('shl-new', v, errors, false)}
              <button type="submit" class="button">Create share link</button>
            </form>`
    }
  </details>`;
}

/** The link's controls in a few words. */
function controlsLine(s: ShareLinkType): SafeHtml {
  const expired = s.expires_at !== null && Date.parse(s.expires_at) <= Date.now();
  const bounds =
    s.selection_min === null && s.selection_max === null
      ? null
      : s.selection_min === null
        ? `choose up to ${count(s.selection_max ?? 0)}`
        : s.selection_max === null
          ? `choose at least ${count(s.selection_min)}`
          : `choose ${count(s.selection_min)}–${count(s.selection_max)}`;
  const parts: (SafeHtml | string)[] = [
    s.expires_at === null ? 'never expires' : html`${expired ? 'expired' : 'expires'} ${day(s.expires_at)}`,
    s.downloads_enabled ? 'downloads on' : 'downloads off',
    s.favorites_enabled ? 'favorites on' : 'favorites off',
  ];
  if (bounds !== null) parts.push(bounds);
  if (s.email !== null) parts.push(`emailed to ${s.email}`);
  return html`${parts.map((p, i) => html`${i === 0 ? '' : ' · '}<span class="nowrap">${p}</span>`)}`;
}

/** What was sent at the link: the photos, the note and the comments. */
function selection(row: ShareLinkRow, media: MediaType[]): SafeHtml {
  const f = row.favorites;
  if (f.submitted_at === null) return html``;
  const name = (id: string) => media.find((m) => m.id === id)?.filename ?? 'a removed photo';
  return html`<div class="share-link-selection">
    <p class="small">
      Selection sent ${when(f.submitted_at)}: ${count(f.media_ids.length)}
      ${f.media_ids.length === 1 ? 'photo' : 'photos'}${f.note === null ? '.' : html`, with a note:`}
    </p>
    ${f.note === null ? '' : html`<blockquote class="note">${f.note}</blockquote>`}
    ${
      f.media_ids.length === 0
        ? ''
        : html`<ul class="favorites-list">
            ${f.media_ids.map((id) => html`<li><a href="#m-${id}">${name(id)}</a></li>`)}
          </ul>`
    }
    ${
      f.comments.length === 0
        ? ''
        : html`<p class="small">Comments:</p>
            <ul class="share-link-comments">
              ${f.comments.map((c) => html`<li><a href="#m-${c.media_id}">${name(c.media_id)}</a>: ${c.text}</li>`)}
            </ul>`
    }
  </div>`;
}

function editForm(o: ShareLinksPanelOptions, s: ShareLinkType): SafeHtml {
  const state = o.form?.id === s.id ? o.form : undefined;
  const v = state?.values ?? valuesOfLink(s);
  const errors = state?.errors ?? {};
  const prefix = s.id;
  return html`<details class="share-link-edit" ${state === undefined ? '' : 'open'}>
    <summary>Edit<span class="visually-hidden"> ${s.label}</span></summary>
    ${summaryOf(prefix, errors)}
    <form method="post" action="${linksPath(o.listing)}/${s.id}" class="stack-form" novalidate>
      ${csrfField(o.csrf)} ${input(prefix, 'label', 'Label', v.label, errors, labelAttrs)}
      ${controlFields(prefix, v, errors, s.password_protected)}
      <button type="submit" class="button button-small">Save<span class="visually-hidden"> ${s.label}</span></button>
    </form>
  </details>`;
}

function linkItem(o: ShareLinksPanelOptions, row: ShareLinkRow): SafeHtml {
  const s = row.link;
  const path = `${linksPath(o.listing)}/${s.id}`;
  const hidden = html`<span class="visually-hidden"> ${s.label}</span>`;
  return html`<li class="share-link" id="${s.id}">
    ${linkField({
      id: `shl-url-${s.id}`,
      label: s.label,
      url: s.url,
      passwordProtected: s.password_protected,
      compact: true,
    })}
    <p class="small share-link-facts">${controlsLine(s)}</p>
    <p class="small share-link-counts" data-testid="share-link-counts">
      ${count(s.views)} ${s.views === 1 ? 'view' : 'views'} · ${count(s.downloads)}
      ${s.downloads === 1 ? 'download' : 'downloads'} · ${count(s.favorites_count)}
      ${s.favorites_count === 1 ? 'favorite' : 'favorites'} · last viewed ${when(s.last_viewed_at, 'not yet')}
    </p>
    ${selection(row, o.media)}
    <div class="row-actions share-link-actions">
      ${
        s.email === null
          ? ''
          : html`<form method="post" action="${path}/notify" class="inline">
              ${csrfField(o.csrf)}
              <button type="submit" class="button button-small">Email again${hidden}</button>
            </form>`
      }
      <form method="post" action="${path}/rotate" class="inline">
        ${csrfField(o.csrf)}
        <button type="submit" class="button button-secondary button-small">New URL${hidden}</button>
      </form>
      <a class="button button-secondary button-small" href="${path}/delete">Delete…${hidden}</a>
    </div>
    ${editForm(o, s)}
  </li>`;
}

export function shareLinksSection(o: ShareLinksPanelOptions): SafeHtml {
  const n = o.links.length;
  const views = o.links.reduce((t, r) => t + r.link.views, 0);
  const summary =
    n === 0
      ? 'None yet'
      : `${count(n)} ${n === 1 ? 'link' : 'links'}, ${count(views)} ${views === 1 ? 'view' : 'views'}`;
  return html`<section class="card gallery-details" id="share-links" aria-labelledby="share-links-title">
    <details class="edit-details" ${o.open || o.form !== undefined ? 'open' : ''}>
      <summary>
        <h2 id="share-links-title">Share links</h2>
        <span class="details-facts muted">${summary}</span>
        <span class="edit-word" aria-hidden="true">Open</span>
      </summary>
      <p class="hint">
        Links for other people (an agent, a stager): the client's gallery page without the client's name, each with its
        own controls and counts. A new URL stops the old one at once.
      </p>
      ${
        n === 0
          ? ''
          : html`<ul class="share-links">
              ${o.links.map((r) => linkItem(o, r))}
            </ul>`
      }
      ${createForm(o)}
    </details>
  </section>`;
}

export function deleteShareLinkPage(o: { viewer: Viewer; listing: ListingType; link: ShareLinkType }): SafeHtml {
  const back = `/dashboard/galleries/${o.listing.id}#share-links`;
  return page({
    title: 'Delete share link',
    viewer: o.viewer,
    section: 'galleries',
    body: html`<h1>Delete the share link “${o.link.label}”?</h1>
      <section class="card">
        <p>
          Its URL stops working at once for everyone who has
          it${o.link.email === null ? '' : html`, ${o.link.email} included`}; an email about it not yet sent is
          cancelled. Its counts and selection are deleted with it. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action="${linksPath(o.listing)}/${o.link.id}/delete" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">Delete share link</button>
          </form>
          <a class="button button-secondary" href="${back}">Cancel</a>
        </div>
      </section>`,
  });
}
