// Galleries (docs/api.md §27): the list with search, status filter and sort (docs/api.md §19's
// queries, paged by cursor), and the form that creates a gallery. Plain forms and links: no script.
import { ListingCreateBody, ListingListQuery } from '../../modules/listings/listings.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ListingItemType } from '../../modules/listings/listings.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import type { ComplianceStatus } from '../../db/schema-mls.ts';
import { complianceBadge } from './compliance.ts';
import { count, day } from './format.ts';
import { csrfField, errorSummary, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export const GALLERY_STATUSES = ['draft', 'active', 'archived'] as const;
export const GALLERY_SORTS = {
  '-created_at': 'Newest first',
  created_at: 'Oldest first',
  '-updated_at': 'Recently changed',
  updated_at: 'Least recently changed',
} as const;
export type GallerySort = keyof typeof GALLERY_SORTS;

export interface GalleryFilters {
  search: string;
  status: '' | (typeof GALLERY_STATUSES)[number];
  sort: GallerySort;
}

/** The list's URL with these filters (and a cursor): what the search form's GET makes too. */
export function galleriesUrl(f: GalleryFilters, cursor?: string): string {
  const q = new URLSearchParams();
  if (f.search !== '') q.set('search', f.search);
  if (f.status !== '') q.set('status', f.status);
  if (f.sort !== '-created_at') q.set('sort', f.sort);
  if (cursor !== undefined) q.set('cursor', cursor);
  const s = q.toString();
  return `/dashboard/galleries${s === '' ? '' : `?${s}`}`;
}

const option = (value: string, label: string, selected: string): SafeHtml =>
  html`<option value="${value}" ${value === selected ? 'selected' : ''}>${label}</option>`;

export const statusBadge = (status: string): SafeHtml => html`<span class="badge badge-${status}">${status}</span>`;

function filtersForm(f: GalleryFilters): SafeHtml {
  return html`<form method="get" action="/dashboard/galleries" class="filters" role="search" aria-label="Galleries">
    <div class="filter">
      <label for="g-search">Search</label>
      <input
        id="g-search"
        name="search"
        type="search"
        value="${f.search}"
        maxlength="${maxLengthOf(ListingListQuery, 'search')}"
        placeholder="Address or MLS number"
      />
    </div>
    <div class="filter">
      <label for="g-status">Status</label>
      <select id="g-status" name="status">
        ${option('', 'Any status', f.status)} ${GALLERY_STATUSES.map((s) => option(s, s, f.status))}
      </select>
    </div>
    <div class="filter">
      <label for="g-sort">Sort</label>
      <select id="g-sort" name="sort">
        ${Object.entries(GALLERY_SORTS).map(([v, label]) => option(v, label, f.sort))}
      </select>
    </div>
    <button type="submit" class="button button-secondary">Show</button>
  </form>`;
}

export interface GalleriesPageOptions {
  viewer: Viewer;
  notice: Notice | null;
  filters: GalleryFilters;
  items: ListingItemType[];
  total: number;
  /** False when more match than were counted: `total` is then a lower bound (docs/api.md §19). */
  totalExact: boolean;
  /** Client names by id, for the rows that have one. */
  clients: Map<string, string>;
  /** docs/api.md §31: the last compliance status of the galleries that have an MLS profile. */
  compliance: Map<string, ComplianceStatus>;
  nextUrl: string | null;
  /** A later page (reached by cursor): offers the way back to the first. */
  paged: boolean;
}

/** The gallery's compliance with its MLS profile, when it has one. */
const mlsBadge = (status: ComplianceStatus | undefined): SafeHtml =>
  status === undefined ? html`` : complianceBadge(status, 'MLS ');

export function galleriesPage(o: GalleriesPageOptions): SafeHtml {
  const filtered = o.filters.search !== '' || o.filters.status !== '';
  const rows =
    o.items.length === 0
      ? html`<p class="muted">
          ${filtered ? 'No gallery matches.' : 'No galleries yet. Create one to upload photos and send it to a client.'}
        </p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Galleries list">
          <table class="stack" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Gallery</th>
                <th scope="col" role="columnheader">Status</th>
                <th scope="col" role="columnheader">Client</th>
                <th scope="col" role="columnheader">Created</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${o.items.map(
                (g) =>
                  html`<tr role="row">
                    <td role="cell" class="cell-title"><a href="/dashboard/galleries/${g.id}">${g.address}</a></td>
                    <td role="cell" data-label="Status">
                      ${statusBadge(g.status)} ${mlsBadge(o.compliance.get(g.id))}
                    </td>
                    <td role="cell" data-label="Client">
                      ${
                        g.client_id === null
                          ? html`<span class="muted">not assigned</span>`
                          : html`<a href="/dashboard/clients/${g.client_id}"
                              >${o.clients.get(g.client_id) ?? 'client'}</a
                            >`
                      }
                    </td>
                    <td role="cell" class="nowrap" data-label="Created">${day(g.created_at)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
  return page({
    title: 'Galleries',
    viewer: o.viewer,
    section: 'galleries',
    notice: o.notice,
    body: html`<div class="page-head">
        <h1>Galleries</h1>
        <a class="button" href="/dashboard/galleries/new">New gallery</a>
      </div>
      <section class="card" aria-label="Find galleries">
        ${filtersForm(o.filters)}
        <p class="muted small" role="status">
          ${count(o.total)}${o.totalExact ? '' : '+'} ${o.total === 1 && o.totalExact ? 'gallery' : 'galleries'}
        </p>
        ${rows}
        <nav class="pager" aria-label="Pages">
          ${o.paged ? html`<a href="${galleriesUrl(o.filters)}">First page</a>` : ''}
          ${o.nextUrl === null ? '' : html`<a class="button button-secondary" href="${o.nextUrl}">Next page</a>`}
        </nav>
      </section>`,
  });
}

export interface GalleryFormValues {
  address: string;
  status: string;
  beds: string;
  baths: string;
  sqft: string;
  mls_number: string;
  description: string;
}

export const EMPTY_GALLERY: GalleryFormValues = {
  address: '',
  status: 'draft',
  beds: '',
  baths: '',
  sqft: '',
  mls_number: '',
  description: '',
};

export const GALLERY_LABELS: Record<string, string> = {
  address: 'Address',
  status: 'Status',
  beds: 'Beds',
  baths: 'Baths',
  sqft: 'Square feet',
  mls_number: 'MLS number',
  description: 'Description',
};

function input(name: keyof GalleryFormValues, v: GalleryFormValues, errors: FieldErrors, extra: SafeHtml): SafeHtml {
  const error = errors[name];
  return html`<div class="field${error === undefined ? '' : ' field-invalid'}">
    <label for="f-${name}"
      >${GALLERY_LABELS[name]}${name === 'address' ? '' : html` <span class="optional">(optional)</span>`}</label
    >
    ${error === undefined ? '' : html`<p class="field-error" id="f-${name}-error">${error}</p>`}
    <input
      id="f-${name}"
      name="${name}"
      value="${v[name]}"
      ${extra}${error === undefined ? '' : html` aria-invalid="true" aria-describedby="f-${name}-error"`}
    />
  </div>`;
}

/** The gallery's fields: the new-gallery page and the gallery page's Details share it. */
export function galleryFields(v: GalleryFormValues, errors: FieldErrors): SafeHtml {
  const num = html`type="text" inputmode="decimal" autocomplete="off"`;
  const descError = errors.description;
  return html`${input('address', v, errors, html`type="text" required maxlength="${maxLengthOf(ListingCreateBody, 'address')}" autocomplete="off"`)}
    <div class="field">
      <label for="f-status">Status</label>
      <p class="hint" id="f-status-hint">Draft: being prepared. Active: delivered, can be published. Archived: done.</p>
      <select id="f-status" name="status" aria-describedby="f-status-hint">
        ${GALLERY_STATUSES.map((s) => option(s, s, v.status))}
      </select>
    </div>
    <div class="form-grid form-grid-3">
      ${input('beds', v, errors, num)} ${input('baths', v, errors, num)} ${input('sqft', v, errors, num)}
    </div>
    ${input('mls_number', v, errors, html`type="text" maxlength="${maxLengthOf(ListingCreateBody, 'mls_number')}" autocomplete="off"`)}
    <div class="field${descError === undefined ? '' : ' field-invalid'}">
      <label for="f-description">Description <span class="optional">(optional)</span></label>
      ${descError === undefined ? '' : html`<p class="field-error" id="f-description-error">${descError}</p>`}
      <textarea
        id="f-description"
        name="description"
        rows="5"
        maxlength="${maxLengthOf(ListingCreateBody, 'description')}"
      >
${v.description}</textarea>
    </div>`;
}

export function newGalleryPage(o: { viewer: Viewer; values: GalleryFormValues; errors: FieldErrors }): SafeHtml {
  return page({
    title: 'New gallery',
    viewer: o.viewer,
    section: 'galleries',
    body: html`<p><a href="/dashboard/galleries">← Galleries</a></p>
      <h1>New gallery</h1>
      ${errorSummary(o.errors, GALLERY_LABELS)}
      <section class="card">
        <form method="post" action="/dashboard/galleries" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${galleryFields(o.values, o.errors)}
          <button type="submit" class="button">Create gallery</button>
        </form>
      </section>`,
  });
}
