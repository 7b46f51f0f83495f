// One gallery (docs/api.md §27): its fields (a line at the top, opened to edit), its media (a
// grid: src/dashboard/views/gallery-media.ts), its client and link, its property pages, and what
// the client did with it. Every control is a plain form that works without JavaScript;
// dashboard.js adds drag and drop (upload and order), progress and resumable uploads, and copy
// buttons.
import { ClientCreateBody } from '../../modules/clients/clients.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ClientItemType } from '../../modules/clients/clients.schemas.ts';
import type { FavoritesType, ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import type { NotificationType } from '../../modules/notifications/notifications.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day } from './format.ts';
import { activitySection } from './gallery-activity.ts';
import { linkSettingsFields } from './assignments.ts';
import { linkField } from './links.ts';
import { DRAFT_HINT } from './draft-email.ts';
import { GALLERY_LABELS, galleryFields, statusBadge, type GalleryFormValues } from './galleries.ts';
import { mediaSection } from './gallery-media.ts';
import { toursEditor, toursFormOf, type ToursFormState } from './tours.ts';
import { shareLinksSection, type ShareLinkFormState, type ShareLinkRow } from './share-links.ts';
import { galleryInvoicesSection, type InvoiceFormState } from './invoice-form.ts';
import type { InvoiceType } from '../../modules/invoices/invoices.schemas.ts';
import type { ProductType } from '../../modules/products/products.schemas.ts';
import type { KitType } from '../../modules/kit/kit.schemas.ts';
import { kitSection } from './kit.ts';
import { complianceSection, type ComplianceState } from './compliance.ts';
import { csrfField, errorSummary, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

export interface GalleryPageOptions {
  viewer: Viewer;
  notice: Notice | null;
  listing: ListingType;
  media: MediaType[];
  client: { id: string; name: string; email: string } | null;
  /** Clients to choose from when assigning (the newest, at most a page). */
  clients: ClientItemType[];
  favorites: FavoritesType;
  emails: NotificationType[];
  values: GalleryFormValues;
  errors: FieldErrors;
  limits: { maxFileBytes: number; maxFiles: number };
  /** The tours editor as typed when a save was refused; else the gallery's tours. */
  tours?: ToursFormState;
  /** The gallery's share links; the panel open after one of their notices, or with a refused form. */
  shareLinks: { links: ShareLinkRow[]; open: boolean; form?: ShareLinkFormState };
  /** The gallery's invoices and a new one's form (docs/api.md §29); null for a member. */
  invoices: {
    currency: string;
    items: InvoiceType[];
    products: ProductType[];
    state: InvoiceFormState;
    open: boolean;
    noClient: boolean;
  } | null;
  /** docs/api.md §32: the listing kit (src/dashboard/views/kit.ts). */
  kit: KitType;
  /** docs/api.md §31: the gallery's MLS profile and its compliance report. */
  compliance: ComplianceState;
}

const base = (l: ListingType): string => `/dashboard/galleries/${l.id}`;

function linkSettings(l: ListingType, csrf: string): SafeHtml {
  const link = l.client_link;
  if (link === null) return html``;
  return html`<h3>Link settings</h3>
    <form method="post" action="/dashboard/galleries/${l.id}/link" class="stack-form">
      ${csrfField(csrf)}
      <input type="hidden" name="back" value="gallery" />
      ${linkSettingsFields('link', link)}
      <button type="submit" class="button button-small">Save link settings</button>
    </form>`;
}

function assignForm(o: GalleryPageOptions, again: boolean): SafeHtml {
  const l = o.listing;
  const others = o.clients.filter((c) => c.id !== l.client_id);
  return html`<form method="post" action="${base(l)}/assign" class="stack-form assign-form">
    ${csrfField(o.viewer.csrfToken)}
    ${
      others.length === 0
        ? ''
        : html`<label for="assign-client">${again ? 'Assign to another client' : 'An existing client'}</label>
            <select id="assign-client" name="client_id">
              <option value="">— a new client (below) —</option>
              ${others.map((c) => html`<option value="${c.id}">${c.name} (${c.email})</option>`)}
            </select>`
    }
    <fieldset class="new-client">
      <legend>${others.length === 0 ? 'A new client' : 'Or a new client'}</legend>
      <label for="assign-name">Name</label>
      <input
        id="assign-name"
        name="name"
        type="text"
        maxlength="${maxLengthOf(ClientCreateBody, 'name')}"
        autocomplete="off"
      />
      <label for="assign-email">Email</label>
      <input
        id="assign-email"
        name="email"
        type="email"
        maxlength="${maxLengthOf(ClientCreateBody, 'email')}"
        autocomplete="off"
      />
    </fieldset>
    <label class="check">
      <input type="checkbox" name="notify" value="1" checked /> Email the client the link to the gallery
    </label>
    ${l.status === 'draft' ? html`<p class="hint">${DRAFT_HINT}</p>` : ''}
    <button type="submit" class="button">${again ? 'Assign to this client' : 'Assign gallery'}</button>
  </form>`;
}

function clientSection(o: GalleryPageOptions): SafeHtml {
  const l = o.listing;
  const csrf = o.viewer.csrfToken;
  const body =
    o.client === null || l.client_link === null
      ? html`<p class="muted">Not assigned. Assigning gives the client a private link to the gallery.</p>
          ${assignForm(o, false)}`
      : html`<p>
            Assigned to <a href="/dashboard/clients/${o.client.id}">${o.client.name}</a>
            <span class="muted">(${o.client.email})</span> since ${day(l.client_link.created_at)}.
          </p>
          ${linkField({ id: 'client-link', label: 'Client link', url: l.client_link.url, passwordProtected: l.client_link.password_protected })}
          <div class="row-actions">
            <a
              class="button button-secondary button-small"
              href="${l.client_link.url}"
              target="_blank"
              rel="noopener noreferrer"
              >Open the client's page</a
            >
            <form method="post" action="/dashboard/clients/${o.client.id}/galleries/${l.id}/resend" class="inline">
              ${csrfField(csrf)}
              <input type="hidden" name="back" value="gallery" />
              <button type="submit" class="button button-small">Resend email</button>
            </form>
            <form method="post" action="${base(l)}/unassign" class="inline">
              ${csrfField(csrf)}
              <button type="submit" class="button button-secondary button-small">Unassign</button>
            </form>
          </div>
          ${linkSettings(l, csrf)}
          <details class="reassign">
            <summary>Assign to another client</summary>
            ${assignForm(o, true)}
          </details>`;
  return html`<section class="card" id="client" aria-labelledby="client-title">
    <h2 id="client-title">Client</h2>
    ${body}
  </section>`;
}

function propertySection(o: GalleryPageOptions): SafeHtml {
  const l = o.listing;
  const csrf = o.viewer.csrfToken;
  const p = l.property_page;
  const body =
    p === null
      ? html`<p class="muted">
            Not published. Publishing makes two public pages of the property: one with the studio's name, one with
            nothing that names the studio (for listing services that forbid branding). Neither offers originals.
          </p>
          ${
            l.status === 'active'
              ? html`<form method="post" action="${base(l)}/property-page" class="inline">
                  ${csrfField(csrf)}
                  <button type="submit" class="button">Publish property pages</button>
                </form>`
              : html`<p class="hint">Only an active gallery can be published: set its status to active first.</p>`
          }`
      : html`<p>Published ${day(p.published_at)} · ${count(p.views)} ${p.views === 1 ? 'view' : 'views'}.</p>
          ${linkField({ id: 'property-url', label: 'Property page', url: p.url })}
          ${linkField({ id: 'property-unbranded', label: 'Unbranded page', url: p.unbranded_url })}
          <form method="post" action="${base(l)}/property-page/delete" class="inline">
            ${csrfField(csrf)}
            <button type="submit" class="button button-secondary button-small">Unpublish</button>
          </form>`;
  return html`<section class="card" id="property" aria-labelledby="property-title">
    <h2 id="property-title">Property pages</h2>
    ${body}
  </section>`;
}

/** The gallery's facts in one line, for the closed Details (each fact kept whole when the line wraps). */
function factsLine(l: ListingType): SafeHtml {
  const facts = [
    l.beds === null ? null : `${count(l.beds)} ${l.beds === 1 ? 'bed' : 'beds'}`,
    l.baths === null ? null : `${count(l.baths)} ${l.baths === 1 ? 'bath' : 'baths'}`,
    l.sqft === null ? null : `${count(l.sqft)} sq ft`,
    l.mls_number === null ? null : `MLS ${l.mls_number}`,
  ].filter((f) => f !== null);
  if (facts.length === 0) return html`No beds, baths or MLS number yet`;
  return html`${facts.map((f, i) => html`${i === 0 ? '' : ' · '}<span class="nowrap">${f}</span>`)}`;
}

/** The gallery's fields: one line at the top, opened to edit (open when a save was refused). */
function detailsSection(o: GalleryPageOptions): SafeHtml {
  const l = o.listing;
  const refused = Object.keys(o.errors).length > 0 || o.tours !== undefined;
  return html`<section class="card gallery-details" id="details" aria-labelledby="details-title">
    <details class="edit-details" ${refused ? 'open' : ''}>
      <summary>
        <h2 id="details-title">Details</h2>
        <span class="details-facts muted">${factsLine(l)}</span>
        <span class="edit-word" aria-hidden="true">Edit</span>
      </summary>
      ${errorSummary(o.errors, GALLERY_LABELS)}
      <form method="post" action="${base(l)}" class="stack-form details-form" novalidate>
        ${csrfField(o.viewer.csrfToken)} ${galleryFields(o.values, o.errors)}
        <button type="submit" class="button">Save details</button>
      </form>
      ${toursEditor(l, o.viewer.csrfToken, o.tours ?? toursFormOf(l))}
      <p class="danger-zone"><a class="link-danger" href="${base(l)}/delete">Delete this gallery…</a></p>
    </details>
  </section>`;
}

export function galleryPage(o: GalleryPageOptions): SafeHtml {
  const l = o.listing;
  return page({
    title: l.address,
    viewer: o.viewer,
    section: 'galleries',
    notice: o.notice,
    scripts: ['tus.min.js'],
    body: html`<p><a href="/dashboard/galleries">← Galleries</a></p>
      <div class="page-head">
        <h1>${l.address}</h1>
        ${statusBadge(l.status)}
      </div>
      ${detailsSection(o)}
      <nav class="in-page" aria-label="On this page">
        <a href="#media">Media</a> <a href="#client">Client</a>
        <a href="#share-links">Share links</a> ${o.invoices === null ? '' : html`<a href="#invoices">Invoices</a>`}
        <a href="#property">Property pages</a> <a href="#kit">Listing kit</a> <a href="#mls">MLS</a>
        <a href="#activity">Activity</a>
      </nav>
      ${mediaSection({ listing: l, media: o.media, csrf: o.viewer.csrfToken, limits: o.limits })} ${clientSection(o)}
      ${shareLinksSection({
        listing: l,
        media: o.media,
        csrf: o.viewer.csrfToken,
        links: o.shareLinks.links,
        open: o.shareLinks.open,
        ...(o.shareLinks.form === undefined ? {} : { form: o.shareLinks.form }),
      })}
      ${
        o.invoices === null
          ? ''
          : galleryInvoicesSection({
              listingId: l.id,
              hasClient: l.client_id !== null,
              csrf: o.viewer.csrfToken,
              currency: o.invoices.currency,
              invoices: o.invoices.items,
              products: o.invoices.products,
              state: o.invoices.state,
              open: o.invoices.open,
              noClient: o.invoices.noClient,
            })
      }
      ${propertySection(o)} ${kitSection({ listing: l, kit: o.kit, csrf: o.viewer.csrfToken })}
      ${complianceSection({ listing: l, media: o.media, viewer: o.viewer, state: o.compliance })} ${activitySection(o)}`,
  });
}

export function deleteGalleryPage(o: { viewer: Viewer; listing: ListingType }): SafeHtml {
  const l = o.listing;
  return page({
    title: 'Delete gallery',
    viewer: o.viewer,
    section: 'galleries',
    body: html`<h1>Delete “${l.address}”?</h1>
      <section class="card">
        <p>
          Its ${count(l.media_count)} media files are deleted with it, its client link stops working and its property
          pages are taken down. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action="${base(l)}/delete" class="inline">
            ${csrfField(o.viewer.csrfToken)}
            <button type="submit" class="button button-danger">Delete gallery</button>
          </form>
          <a class="button button-secondary" href="${base(l)}">Cancel</a>
        </div>
      </section>`,
  });
}
