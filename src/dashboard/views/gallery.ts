// One gallery (docs/api.md §27): its fields, its media (upload, caption, hide, cover, order,
// delete), its client and link, its property pages, and what the client did with it. Every
// control is a plain form that works without JavaScript; dashboard.js adds drag and drop (upload
// and order), progress and resumable uploads, and copy buttons.
import { ClientCreateBody } from '../../modules/clients/clients.schemas.ts';
import { MediaUpdateBody } from '../../modules/media/media.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ClientItemType } from '../../modules/clients/clients.schemas.ts';
import type { FavoritesType, ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import type { NotificationType } from '../../modules/notifications/notifications.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count, day } from './format.ts';
import { activitySection } from './gallery-activity.ts';
import { linkSettingsFields } from './assignments.ts';
import { GALLERY_LABELS, galleryFields, statusBadge, type GalleryFormValues } from './galleries.ts';
import { toursEditor, toursFormOf, type ToursFormState } from './tours.ts';
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
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

const base = (l: ListingType): string => `/dashboard/galleries/${l.id}`;

/** A photo's thumbnail or a video's poster once made; otherwise a box that says what the file is. */
function preview(l: ListingType, m: MediaType): SafeHtml {
  const ready =
    m.variants !== null &&
    m.variants.status === 'ready' &&
    (m.kind === 'photo' ? 'thumb' in m.variants : 'poster' in m.variants && m.variants.poster !== null);
  if (ready) {
    return html`<img
      src="${base(l)}/media/${m.id}/thumb"
      alt="${m.caption ?? m.filename}"
      loading="lazy"
      width="${m.width ?? 480}"
      height="${m.height ?? 320}"
    />`;
  }
  const label =
    m.kind === 'document'
      ? 'PDF'
      : m.variants?.status === 'failed'
        ? 'No preview'
        : m.kind === 'video'
          ? 'Video: preview being made'
          : 'Preview being made';
  return html`<div class="media-placeholder" aria-hidden="true">${label}</div>`;
}

function mediaItem(l: ListingType, m: MediaType, total: number, csrf: string): SafeHtml {
  const id = m.id;
  const name = `${m.kind} ${m.position}`;
  const isCover = l.cover_media_id === id;
  return html`<li class="media-item${m.hidden ? ' media-hidden' : ''}" id="m-${id}" data-media-id="${id}">
    <div class="order-tools" hidden>
      <span class="drag-handle" title="Drag to reorder"><span aria-hidden="true">⠿</span> Drag</span>
      <button type="button" class="button button-secondary button-small" data-move="earlier">
        Earlier<span class="visually-hidden">: move ${m.filename} one place up</span>
      </button>
      <button type="button" class="button button-secondary button-small" data-move="later">
        Later<span class="visually-hidden">: move ${m.filename} one place down</span>
      </button>
    </div>
    <div class="media-preview">${preview(l, m)}</div>
    <p class="media-name"><span class="media-filename">${m.filename}</span></p>
    <p class="muted small">
      ${m.kind} · ${bytes(m.size)}${m.width === null ? '' : ` · ${m.width}×${m.height}`}
      ${isCover ? html` · <span class="badge badge-cover">cover</span>` : ''}
      ${m.hidden ? html` · <span class="badge badge-hidden">hidden</span>` : ''}
    </p>
    <form method="post" action="${base(l)}/media/${id}" class="stack-form media-form">
      ${csrfField(csrf)}
      <label for="cap-${id}">Caption<span class="visually-hidden"> of ${name}</span></label>
      <textarea id="cap-${id}" name="caption" rows="2" maxlength="${maxLengthOf(MediaUpdateBody, 'caption')}">
${m.caption ?? ''}</textarea>
      <div class="media-form-row">
        <div>
          <label for="pos-${id}">Position<span class="visually-hidden"> of ${name}</span></label>
          <input
            id="pos-${id}"
            name="position"
            type="number"
            min="1"
            max="${total}"
            value="${m.position}"
            class="position-input"
            inputmode="numeric"
          />
        </div>
        <label class="check">
          <input type="checkbox" name="hidden" value="1" ${m.hidden ? 'checked' : ''} /> Hidden from the client
        </label>
      </div>
      <input type="hidden" name="hidden_shown" value="1" />
      <button type="submit" class="button button-small">Save<span class="visually-hidden"> ${name}</span></button>
    </form>
    <div class="row-actions">
      ${
        m.kind === 'photo' && !isCover
          ? html`<form method="post" action="${base(l)}/media/${id}/cover" class="inline">
              ${csrfField(csrf)}
              <button type="submit" class="button button-secondary button-small">
                Make cover<span class="visually-hidden"> (${name})</span>
              </button>
            </form>`
          : ''
      }
      <details class="confirm">
        <summary>Delete<span class="visually-hidden"> ${name}</span>…</summary>
        <form method="post" action="${base(l)}/media/${id}/delete" class="inline">
          ${csrfField(csrf)}
          <button type="submit" class="button button-danger button-small">
            Delete ${m.kind} for good<span class="visually-hidden"> (${m.filename})</span>
          </button>
        </form>
      </details>
    </div>
  </li>`;
}

function mediaSection(o: GalleryPageOptions): SafeHtml {
  const l = o.listing;
  const csrf = o.viewer.csrfToken;
  const uploadForm = html`<form
    method="post"
    action="${base(l)}/media"
    enctype="multipart/form-data"
    class="upload-form"
    data-upload="${base(l)}"
  >
    ${csrfField(csrf)}
    <div class="dropzone">
      <label for="upload-files">Choose photos, videos or PDFs</label>
      <p class="hint" id="upload-hint">
        Or drag them here. Up to ${o.limits.maxFiles} files at a time, ${bytes(o.limits.maxFileBytes)} each. Large
        videos upload in pieces and resume after a dropped connection.
      </p>
      <input
        id="upload-files"
        name="files"
        type="file"
        multiple
        accept="image/*,video/mp4,video/quicktime,video/webm,application/pdf"
        aria-describedby="upload-hint"
      />
    </div>
    <button type="submit" class="button">Upload</button>
    <div class="upload-progress" role="status" aria-live="polite"></div>
  </form>`;
  const grid =
    o.media.length === 0
      ? html`<p class="muted">No media yet.</p>`
      : html`<p class="hint">
            Change a position and save to move an item; the items between shift.
            <span class="order-hint" hidden
              >Or drag an item by its handle (with a mouse or a finger), or use Earlier and Later: the order saves at
              once.</span
            >
          </p>
          <ol class="media-grid" data-order-action="${base(l)}/order" data-csrf="${csrf}">
            ${o.media.map((m) => mediaItem(l, m, o.media.length, csrf))}
          </ol>
          <p class="order-status hint" role="status" aria-live="polite"></p>`;
  return html`<section class="card" id="media" aria-labelledby="media-title">
    <h2 id="media-title">Media <span class="muted">(${count(o.media.length)})</span></h2>
    ${uploadForm} ${grid}
  </section>`;
}

function copyRow(id: string, label: string, value: string): SafeHtml {
  return html`<div class="copy-row">
    <label for="${id}">${label}</label>
    <div class="key-row">
      <input id="${id}" type="text" readonly value="${value}" class="key-value" />
      <button
        type="button"
        class="button button-secondary"
        data-copy-target="${id}"
        data-copy-status="${id}-status"
        hidden
      >
        Copy<span class="visually-hidden"> ${label}</span>
      </button>
    </div>
    <p id="${id}-status" class="hint" role="status" aria-live="polite"></p>
  </div>`;
}

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
          ${copyRow('client-link', 'Client link', l.client_link.url)}
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
          ${copyRow('property-url', 'Property page', p.url)}
          ${copyRow('property-unbranded', 'Unbranded page', p.unbranded_url)}
          <form method="post" action="${base(l)}/property-page/delete" class="inline">
            ${csrfField(csrf)}
            <button type="submit" class="button button-secondary button-small">Unpublish</button>
          </form>`;
  return html`<section class="card" id="property" aria-labelledby="property-title">
    <h2 id="property-title">Property pages</h2>
    ${body}
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
      <nav class="in-page" aria-label="On this page">
        <a href="#media">Media</a> <a href="#client">Client</a> <a href="#property">Property pages</a>
        <a href="#activity">Activity</a> <a href="#details">Details</a>
      </nav>
      ${mediaSection(o)} ${clientSection(o)} ${propertySection(o)} ${activitySection(o)}
      <section class="card" id="details" aria-labelledby="details-title">
        <h2 id="details-title">Details</h2>
        ${errorSummary(o.errors, GALLERY_LABELS)}
        <form method="post" action="${base(l)}" class="stack-form" novalidate>
          ${csrfField(o.viewer.csrfToken)} ${galleryFields(o.values, o.errors)}
          <button type="submit" class="button">Save details</button>
        </form>
        ${toursEditor(l, o.viewer.csrfToken, o.tours ?? toursFormOf(l))}
        <p class="danger-zone"><a class="link-danger" href="${base(l)}/delete">Delete this gallery…</a></p>
      </section>`,
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
