// Clients (docs/api.md §27): the list with search (paged by cursor), a client's page with their
// galleries, and the forms that create, edit and delete one. Plain forms: no script needed.
import { portalSection } from './portal.ts';
import { ClientCreateBody, ClientListQuery } from '../../modules/clients/clients.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ClientItemType, ClientType } from '../../modules/clients/clients.schemas.ts';
import { ListingCreateBody, type ListingItemType } from '../../modules/listings/listings.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day } from './format.ts';
import { statusBadge } from './galleries.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export interface ClientFormValues {
  name: string;
  email: string;
  phone: string;
  company: string;
  notes: string;
}

export const EMPTY_CLIENT: ClientFormValues = { name: '', email: '', phone: '', company: '', notes: '' };

const CLIENT_LABELS: Record<string, string> = {
  name: 'Name',
  email: 'Email',
  phone: 'Phone',
  company: 'Company',
  notes: 'Notes',
};

export const clientsUrl = (search: string, cursor?: string): string => {
  const q = new URLSearchParams();
  if (search !== '') q.set('search', search);
  if (cursor !== undefined) q.set('cursor', cursor);
  const s = q.toString();
  return `/dashboard/clients${s === '' ? '' : `?${s}`}`;
};

export function clientsPage(o: {
  viewer: Viewer;
  notice: Notice | null;
  search: string;
  items: ClientItemType[];
  total: number;
  nextUrl: string | null;
  paged: boolean;
}): SafeHtml {
  const rows =
    o.items.length === 0
      ? html`<p class="muted">
          ${o.search === '' ? 'No clients yet. Add one, or assign a gallery to a new client from its page.' : 'No client matches.'}
        </p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Clients list">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Name</th>
                <th scope="col" role="columnheader">Email</th>
                <th scope="col" role="columnheader">Company</th>
                <th scope="col" role="columnheader">Added</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.items.map(
                (c) =>
                  html`<tr role="row">
                    <td role="cell" class="cell-title"><a href="/dashboard/clients/${c.id}">${c.name}</a></td>
                    <td role="cell" data-label="Email">${c.email}</td>
                    <td role="cell" data-label="Company">${c.company ?? html`<span class="muted">—</span>`}</td>
                    <td role="cell" class="nowrap" data-label="Added">${day(c.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return page({
    title: 'Clients',
    viewer: o.viewer,
    section: 'clients',
    notice: o.notice,
    body: html`<div class="page-head">
        <h1>Clients</h1>
        <a class="button" href="/dashboard/clients/new">New client</a>
      </div>
      <section class="card" aria-label="Find clients">
        <form method="get" action="/dashboard/clients" class="filters" role="search" aria-label="Clients">
          <div class="filter">
            <label for="c-search">Search</label>
            <input
              id="c-search"
              name="search"
              type="search"
              value="${o.search}"
              maxlength="${maxLengthOf(ClientListQuery, 'search')}"
              placeholder="Name or email"
            />
          </div>
          <button type="submit" class="button button-secondary">Search</button>
        </form>
        <p class="muted small" role="status">${count(o.total)} ${o.total === 1 ? 'client' : 'clients'}</p>
        ${rows}
        <nav class="pager" aria-label="Pages">
          ${o.paged ? html`<a href="${clientsUrl(o.search)}">First page</a>` : ''}
          ${o.nextUrl === null ? '' : html`<a class="button button-secondary" href="${o.nextUrl}">Next page</a>`}
        </nav>
      </section>`,
  });
}

function clientFields(v: ClientFormValues, errors: FieldErrors): SafeHtml {
  const notesError = errors.notes;
  return html`${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, maxlength: maxLengthOf(ClientCreateBody, 'name'), autocomplete: 'off' })}
    ${field({ name: 'email', label: 'Email', type: 'email', value: v.email, error: errors.email, maxlength: maxLengthOf(ClientCreateBody, 'email'), autocomplete: 'off', hint: 'Gallery emails go to this address. Each client has their own.' })}
    ${field({ name: 'phone', label: 'Phone', value: v.phone, error: errors.phone, maxlength: maxLengthOf(ClientCreateBody, 'phone'), required: false, autocomplete: 'off' })}
    ${field({ name: 'company', label: 'Company', value: v.company, error: errors.company, maxlength: maxLengthOf(ClientCreateBody, 'company'), required: false, autocomplete: 'off' })}
    <div class="field${notesError === undefined ? '' : ' field-invalid'}">
      <label for="f-notes">Notes <span class="optional">(optional)</span></label>
      ${notesError === undefined ? '' : html`<p class="field-error" id="f-notes-error">${notesError}</p>`}
      <textarea id="f-notes" name="notes" rows="4" maxlength="${maxLengthOf(ClientCreateBody, 'notes')}">
${v.notes}</textarea>
    </div>`;
}

export function newClientPage(o: { viewer: Viewer; values: ClientFormValues; errors: FieldErrors }): SafeHtml {
  return page({
    title: 'New client',
    viewer: o.viewer,
    section: 'clients',
    body: html`<p><a href="/dashboard/clients">← Clients</a></p>
      <h1>New client</h1>
      ${errorSummary(o.errors, CLIENT_LABELS)}
      <section class="card">
        <form method="post" action="/dashboard/clients" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${clientFields(o.values, o.errors)}
          <button type="submit" class="button">Add client</button>
        </form>
      </section>`,
  });
}

/** What the client page's two "give a gallery" forms were sent with, to show them again. */
export interface GiveGalleryValues {
  listing_id: string;
  address: string;
  status: string;
  /** The new gallery form's Email box (the existing gallery's is checked by default). */
  notify_new: boolean;
}

export const EMPTY_GIVE: GiveGalleryValues = { listing_id: '', address: '', status: 'draft', notify_new: false };

const GIVE_LABELS: Record<string, string> = { listing_id: 'Gallery', address: 'Address', status: 'Status' };

/** A select's error and hint tied to it, as field() does for an input. */
function described(id: string, hint: boolean, error: string | undefined): SafeHtml {
  const ids = [hint ? `${id}-hint` : '', error === undefined ? '' : `${id}-error`].filter((s) => s !== '').join(' ');
  return html`${ids === '' ? '' : html` aria-describedby="${ids}"`}${error === undefined ? '' : html` aria-invalid="true"`}`;
}

/**
 * docs/api.md §27: from a client's page, one of the studio's unassigned galleries given to them,
 * or a new one made for them (its address) and given in the same step. Plain forms.
 */
function giveGallerySection(o: {
  viewer: Viewer;
  client: ClientType;
  unassigned: ListingItemType[];
  values: GiveGalleryValues;
  errors: FieldErrors;
}): SafeHtml {
  const c = o.client;
  const v = o.values;
  const e = o.errors;
  const existing =
    o.unassigned.length === 0
      ? html`<p class="muted">
          Every gallery of the studio has a client. Make a new one here, or give one from its own page (under
          Galleries).
        </p>`
      : html`<form method="post" action="/dashboard/clients/${c.id}/galleries" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)}
          <div class="field${e.listing_id === undefined ? '' : ' field-invalid'}">
            <label for="f-listing_id">Gallery</label>
            <p class="hint" id="f-listing_id-hint">
              Galleries without a client, newest first. A draft asks you to confirm before it is emailed.
            </p>
            ${e.listing_id === undefined ? '' : html`<p class="field-error" id="f-listing_id-error">${e.listing_id}</p>`}
            <select id="f-listing_id" name="listing_id" required ${described('f-listing_id', true, e.listing_id)}>
              <option value="">Choose a gallery</option>
              ${o.unassigned.map(
                (g) =>
                  html`<option value="${g.id}" ${g.id === v.listing_id ? 'selected' : ''}>
                    ${g.address} (${g.status})
                  </option>`,
              )}
            </select>
          </div>
          <label class="check">
            <input type="checkbox" name="notify" value="1" checked /> Email ${c.name} the link to the gallery
          </label>
          <button type="submit" class="button">Assign gallery</button>
        </form>`;
  return html`<section class="card" id="give" aria-labelledby="give-title">
    <h2 id="give-title">Give ${c.name} a gallery</h2>
    ${errorSummary(e, GIVE_LABELS)}
    <div class="give-gallery">
      <div>
        <h3>An existing gallery</h3>
        ${existing}
      </div>
      <div>
        <h3>A new gallery</h3>
        <form method="post" action="/dashboard/clients/${c.id}/galleries/new" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'address', label: 'Address', value: v.address, error: e.address, maxlength: maxLengthOf(ListingCreateBody, 'address'), autocomplete: 'off', hint: 'The property, as the client will see it.' })}
          <div class="field${e.status === undefined ? '' : ' field-invalid'}">
            <label for="f-status">Status</label>
            ${e.status === undefined ? '' : html`<p class="field-error" id="f-status-error">${e.status}</p>`}
            <select id="f-status" name="status" ${described('f-status', false, e.status)}>
              ${(['draft', 'active'] as const).map(
                (s) => html`<option value="${s}" ${s === v.status ? 'selected' : ''}>${s}</option>`,
              )}
            </select>
          </div>
          <label class="check">
            <input type="checkbox" name="notify" value="1" ${v.notify_new ? 'checked' : ''} /> Email ${c.name} the link
            now
          </label>
          <p class="hint">A new gallery has no photos yet: you can email the link from its page once they are in.</p>
          <button type="submit" class="button">Create and assign</button>
        </form>
      </div>
    </div>
  </section>`;
}

export function clientPage(o: {
  viewer: Viewer;
  notice: Notice | null;
  client: ClientType;
  values: ClientFormValues;
  errors: FieldErrors;
  /** The studio's galleries without a client, to give one to this client. */
  unassigned: ListingItemType[];
  give?: { values: GiveGalleryValues; errors: FieldErrors };
}): SafeHtml {
  const c = o.client;
  const galleries =
    c.listings.length === 0
      ? html`<p class="muted">No galleries yet. Give them one below.</p>`
      : html`<ul class="gallery-list">
          ${c.listings.map(
            (g) =>
              html`<li>
                <a href="/dashboard/galleries/${g.id}">${g.address}</a> ${statusBadge(g.status)}
                <span class="muted small">created ${day(g.created_at)}</span>
              </li>`,
          )}
        </ul>`;
  return page({
    title: c.name,
    viewer: o.viewer,
    section: 'clients',
    notice: o.notice,
    body: html`<p><a href="/dashboard/clients">← Clients</a></p>
      <h1>${c.name}</h1>
      <p class="lead">${c.email}${c.company === null ? '' : ` · ${c.company}`}</p>
      <section class="card" aria-labelledby="client-galleries">
        <h2 id="client-galleries">Galleries <span class="muted">(${count(c.listings.length)})</span></h2>
        ${galleries}
      </section>
      ${giveGallerySection({ viewer: o.viewer, client: c, unassigned: o.unassigned, values: o.give?.values ?? EMPTY_GIVE, errors: o.give?.errors ?? {} })}
      ${portalSection(c, o.viewer.csrfToken)}
      <section class="card" id="details" aria-labelledby="client-details">
        <h2 id="client-details">Details</h2>
        ${errorSummary(o.errors, CLIENT_LABELS)}
        <form method="post" action="/dashboard/clients/${c.id}" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${clientFields(o.values, o.errors)}
          <button type="submit" class="button">Save client</button>
        </form>
        <p class="danger-zone">
          <a class="link-danger" href="/dashboard/clients/${c.id}/delete">Delete this client…</a>
        </p>
      </section>`,
  });
}

export function deleteClientPage(o: { viewer: Viewer; client: ClientType }): SafeHtml {
  const c = o.client;
  return page({
    title: 'Delete client',
    viewer: o.viewer,
    section: 'clients',
    body: html`<h1>Delete ${c.name}?</h1>
      <section class="card">
        <p>
          Their ${count(c.listings.length)} ${c.listings.length === 1 ? 'gallery stays' : 'galleries stay'}, unassigned;
          their links stop working and emails to them not yet sent are cancelled. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action="/dashboard/clients/${c.id}/delete" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">Delete client</button>
          </form>
          <a class="button button-secondary" href="/dashboard/clients/${c.id}">Cancel</a>
        </div>
      </section>`,
  });
}
