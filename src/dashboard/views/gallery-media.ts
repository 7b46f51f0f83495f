// A gallery's media in the dashboard (docs/api.md §27): a grid of thumbnails, each with a box to
// tick and small marks (cover, hidden, video, PDF); the ticked ones are hidden, shown or deleted
// together (a deletion is confirmed on a page of its own). One item's caption, position, cover and
// deletion are on its own page. Every control is a plain form that works without JavaScript;
// dashboard.js adds "select all", the count of the ticked, and reordering by drag or by arrows.
import { MediaUpdateBody } from '../../modules/media/media.schemas.ts';
import { maxLengthOf } from '../form.ts';
import type { ListingType } from '../../modules/listings/listings.schemas.ts';
import type { MediaType } from '../../modules/media/media.schemas.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { count } from './format.ts';
import { TILT_FLAG_DEGREES } from '../../modules/analysis/analysis.room-order.ts';
import { csrfField, page, type Notice, type Viewer } from './layout.ts';

export function bytes(n: number): string {
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
export function preview(l: ListingType, m: MediaType, alt: string): SafeHtml {
  const ready =
    m.variants !== null &&
    m.variants.status === 'ready' &&
    (m.kind === 'photo' ? 'thumb' in m.variants : 'poster' in m.variants && m.variants.poster !== null);
  if (ready) {
    return html`<img
      src="${base(l)}/media/${m.id}/thumb"
      alt="${alt}"
      loading="lazy"
      width="${m.width ?? 480}"
      height="${m.height ?? 320}"
    />`;
  }
  const label = m.kind === 'document' ? 'PDF' : m.variants?.status === 'failed' ? 'No preview' : 'Preview being made';
  return html`<div class="media-placeholder" aria-hidden="true">${label}</div>`;
}

/** The small marks on a thumbnail: what the item is for the client at a glance. */
function marks(l: ListingType, m: MediaType): SafeHtml {
  const isCover = l.cover_media_id === m.id;
  return html`<span class="tile-marks">
    ${isCover ? html`<span class="mark mark-cover">Cover</span>` : ''}
    ${m.hidden ? html`<span class="mark mark-hidden">Hidden</span>` : ''}
    ${m.kind === 'video' ? html`<span class="mark mark-video">Video</span>` : ''}
    ${m.kind === 'document' ? html`<span class="mark mark-document">PDF</span>` : ''}
  </span>`;
}

/** Similar groups are told apart by a letter and one of these colours (dashboard.css: .group-N). */
const GROUP_COLOURS = 6;

/** Each similar group of the gallery, by its name: its letter and colour, in order of first appearance. */
function groupsOf(media: readonly MediaType[]): Map<string, { letter: string; colour: number; size: number }> {
  const groups = new Map<string, { letter: string; colour: number; size: number }>();
  for (const m of media) {
    const name = m.analysis?.similar_group;
    if (name === null || name === undefined) continue;
    const known = groups.get(name);
    if (known !== undefined) {
      known.size += 1;
      continue;
    }
    const n = groups.size;
    const letter = n < 26 ? String.fromCharCode(65 + n) : `${String.fromCharCode(65 + (n % 26))}${Math.floor(n / 26)}`;
    groups.set(name, { letter, colour: n % GROUP_COLOURS, size: 1 });
  }
  return groups;
}

type Groups = ReturnType<typeof groupsOf>;

/**
 * What the photo's analysis found (docs/api.md §30), as short flags under its name: blurry, tilted
 * (more than TILT_FLAG_DEGREES, the threshold of §31's `tilted` issue), in a similar group (its
 * letter; the best of it says so), text read in it, people seen. Fields not read are no flag.
 */
function flags(m: MediaType, groups: Groups): SafeHtml {
  const a = m.analysis;
  if (a === null || a.status !== 'ready') return html``;
  const group = a.similar_group === null ? undefined : groups.get(a.similar_group);
  const tilt = a.tilt_degrees;
  const items: SafeHtml[] = [];
  if (a.room !== null) items.push(html`<li class="flag">${a.room.label}</li>`);
  if (a.blurry === true) items.push(html`<li class="flag flag-warn">Blurry</li>`);
  if (tilt !== null && Math.abs(tilt) > TILT_FLAG_DEGREES) {
    items.push(html`<li class="flag flag-warn">Tilted ${Math.abs(tilt).toFixed(1)}°</li>`);
  }
  if (group !== undefined) {
    items.push(
      html`<li class="flag group-${group.colour}">
        Similar ${group.letter}${a.best_in_group === true ? ' · best' : ''}<span class="visually-hidden">
          (one of ${group.size} similar photos)</span
        >
      </li>`,
    );
  }
  if (a.text !== null && a.text.length > 0) items.push(html`<li class="flag">Text</li>`);
  if (a.people !== null && a.people > 0) items.push(html`<li class="flag">People</li>`);
  return items.length === 0
    ? html``
    : html`<ul class="tile-flags" aria-label="Analysis">
        ${items}
      </ul>`;
}

function tile(l: ListingType, m: MediaType, groups: Groups): SafeHtml {
  const name = m.filename;
  const named = m.analysis?.similar_group ?? null;
  const group = named === null ? undefined : groups.get(named);
  const grouped = group === undefined ? '' : ` in-group group-${group.colour}`;
  return html`<li class="media-tile${m.hidden ? ' is-hidden' : ''}${grouped}" id="m-${m.id}" data-media-id="${m.id}">
    <label class="tile-pick">
      <input type="checkbox" name="media_id" value="${m.id}" /><span class="visually-hidden">Select ${name}</span>
    </label>
    <a class="tile-open" href="${base(l)}/media/${m.id}">
      <span class="media-preview">${preview(l, m, '')}</span>
      <span class="tile-name">${name}</span>
    </a>
    ${flags(m, groups)} ${marks(l, m)}
    <div class="order-tools" hidden>
      <span class="drag-handle" title="Drag to reorder"
        ><span aria-hidden="true">⠿</span><span class="visually-hidden">Drag ${name}</span></span
      >
      <button type="button" class="button button-secondary button-small" data-move="earlier">
        <span aria-hidden="true">←</span><span class="visually-hidden">Earlier: move ${name} one place up</span>
      </button>
      <button type="button" class="button button-secondary button-small" data-move="later">
        <span aria-hidden="true">→</span><span class="visually-hidden">Later: move ${name} one place down</span>
      </button>
    </div>
  </li>`;
}

export interface MediaSectionOptions {
  listing: ListingType;
  media: MediaType[];
  csrf: string;
  limits: { maxFileBytes: number; maxFiles: number };
}

export function mediaSection(o: MediaSectionOptions): SafeHtml {
  const l = o.listing;
  const csrf = o.csrf;
  const groups = groupsOf(o.media);
  // docs/api.md §30: one click puts the photos in the suggested order (through §13's reorder).
  const photos = o.media.filter((m) => m.kind === 'photo' && !m.hidden).length;
  const suggest =
    photos < 2
      ? ''
      : html`<form method="post" action="${base(l)}/media/suggested-order" class="suggest-form">
          ${csrfField(csrf)}
          <button type="submit" class="button button-secondary button-small">Apply suggested order</button>
          <span class="hint"
            >Photos by room (<a href="/dashboard/settings/studio#rooms">room order</a>), similar ones together, the best
            first.</span
          >
        </form>`;
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
        Up to ${o.limits.maxFiles} files at a time, ${bytes(o.limits.maxFileBytes)} each, or drag them here.
      </p>
      <div class="upload-row-controls">
        <input
          id="upload-files"
          name="files"
          type="file"
          multiple
          accept="image/*,video/mp4,video/quicktime,video/webm,application/pdf"
          aria-describedby="upload-hint"
        />
        <button type="submit" class="button">Upload</button>
      </div>
    </div>
    <div class="upload-progress" role="status" aria-live="polite"></div>
  </form>`;
  const grid =
    o.media.length === 0
      ? html`<p class="muted">No media yet.</p>`
      : html`<form method="post" action="${base(l)}/media/bulk" class="bulk-form" id="bulk">
            ${csrfField(csrf)}
            <div class="bulk-bar">
              <div class="bulk-pick">
                <label class="select-all" hidden
                  ><input type="checkbox" data-select-all /><span>All</span
                  ><span class="visually-hidden"> ${count(o.media.length)} items</span></label
                >
                <p class="bulk-count" role="status" aria-live="polite"></p>
                ${
                  o.media.length < 2
                    ? ''
                    : html`<button
                        type="button"
                        class="button button-secondary button-small reorder-toggle"
                        data-reorder-toggle
                        aria-pressed="false"
                        hidden
                      >
                        Reorder
                      </button>`
                }
              </div>
              <div class="bulk-actions" role="group" aria-label="The ticked items">
                <button type="submit" name="action" value="hide" class="button button-secondary button-small">
                  Hide<span class="visually-hidden"> the ticked items</span>
                </button>
                <button type="submit" name="action" value="show" class="button button-secondary button-small">
                  Show<span class="visually-hidden"> the ticked items</span>
                </button>
                <button type="submit" name="action" value="delete" class="button button-danger button-small">
                  Delete…<span class="visually-hidden"> the ticked items</span>
                </button>
              </div>
            </div>
            <p class="hint media-hint">
              Tick to hide, show or delete; open an item to caption it, make it the cover or move it.
              <span class="order-hint" hidden>Reorder: drag items, or use the arrows.</span>
            </p>
            <ol class="media-grid" data-order-action="${base(l)}/order" data-csrf="${csrf}">
              ${o.media.map((m) => tile(l, m, groups))}
            </ol>
          </form>
          <p class="order-status hint" role="status" aria-live="polite"></p>`;
  return html`<section class="card" id="media" aria-labelledby="media-title">
    <h2 id="media-title">Media <span class="muted">(${count(o.media.length)})</span></h2>
    ${uploadForm} ${suggest} ${grid}
  </section>`;
}

export interface MediaPageOptions {
  viewer: Viewer;
  notice: Notice | null;
  listing: ListingType;
  media: MediaType;
  /** The item's place among the gallery's (1-based), their number, and its neighbours. */
  total: number;
  previous: MediaType | null;
  next: MediaType | null;
  /** The gallery's photos, for a staged photo's original (docs/api.md §31). */
  photos: readonly MediaType[];
}

/**
 * docs/api.md §31: a photo's "Virtually staged" box and its "Original photo" (any other photo of
 * the gallery, or none; the service refuses one staged from this photo).
 */
function stagingFields(m: MediaType, photos: readonly MediaType[]): SafeHtml | '' {
  if (m.kind !== 'photo') return '';
  const others = photos.filter((p) => p.id !== m.id);
  return html`<label class="check">
      <input type="checkbox" name="virtually_staged" value="1" ${m.virtually_staged ? 'checked' : ''} /> Virtually
      staged
    </label>
    <input type="hidden" name="virtually_staged_shown" value="1" />
    <label for="orig-${m.id}">Original photo</label>
    <p class="hint" id="orig-${m.id}-hint">The photo before virtual staging: property pages show it beside this one.</p>
    <select id="orig-${m.id}" name="original_media_id" aria-describedby="orig-${m.id}-hint">
      <option value="" ${m.original_media_id === null ? 'selected' : ''}>None</option>
      ${others.map(
        (p) =>
          html`<option value="${p.id}" ${m.original_media_id === p.id ? 'selected' : ''}>
            ${count(p.position)}. ${p.caption ?? p.filename}
          </option>`,
      )}
    </select>`;
}

/** One item of a gallery: its caption, position, visibility, the cover, its deletion. */
export function mediaPage(o: MediaPageOptions): SafeHtml {
  const l = o.listing;
  const m = o.media;
  const csrf = o.viewer.csrfToken;
  const isCover = l.cover_media_id === m.id;
  const cover =
    m.kind !== 'photo'
      ? ''
      : isCover
        ? html`<p class="muted small">This photo is the gallery's cover.</p>`
        : html`<form method="post" action="${base(l)}/media/${m.id}/cover" class="inline">
            ${csrfField(csrf)}
            <input type="hidden" name="back" value="photo" />
            <button type="submit" class="button button-secondary button-small">Make cover</button>
          </form>`;
  return page({
    title: `${m.filename} · ${l.address}`,
    viewer: o.viewer,
    section: 'galleries',
    notice: o.notice,
    body: html`<p><a href="${base(l)}#m-${m.id}">← ${l.address}</a></p>
      <div class="page-head">
        <h1 class="media-title">${m.filename}</h1>
        ${marks(l, m)}
      </div>
      <nav class="media-pager" aria-label="Other items">
        ${
          o.previous === null
            ? html`<span></span>`
            : html`<a href="${base(l)}/media/${o.previous.id}" rel="prev"
                >← Previous<span class="visually-hidden">: ${o.previous.filename}</span></a
              >`
        }
        <span class="muted small">${count(m.position)} of ${count(o.total)}</span>
        ${
          o.next === null
            ? html`<span></span>`
            : html`<a href="${base(l)}/media/${o.next.id}" rel="next"
                >Next<span class="visually-hidden">: ${o.next.filename}</span> →</a
              >`
        }
      </nav>
      <section class="card media-detail" aria-label="${m.filename}">
        <div class="media-detail-preview${m.hidden ? ' is-hidden' : ''}">
          ${preview(l, m, m.caption ?? m.alt_text ?? m.filename)}
        </div>
        <div class="media-detail-fields">
          <p class="muted small">${m.kind} · ${bytes(m.size)}${m.width === null ? '' : ` · ${m.width}×${m.height}`}</p>
          <form method="post" action="${base(l)}/media/${m.id}" class="stack-form media-form">
            ${csrfField(csrf)}
            <input type="hidden" name="back" value="photo" />
            <label for="cap-${m.id}">Caption</label>
            <textarea id="cap-${m.id}" name="caption" rows="3" maxlength="${maxLengthOf(MediaUpdateBody, 'caption')}">
${m.caption ?? ''}</textarea>
            <label for="pos-${m.id}">Position</label>
            <p class="hint" id="pos-${m.id}-hint">1 to ${count(o.total)}: the items between shift to make room.</p>
            <input
              id="pos-${m.id}"
              name="position"
              type="number"
              min="1"
              max="${o.total}"
              value="${m.position}"
              class="position-input"
              inputmode="numeric"
              aria-describedby="pos-${m.id}-hint"
            />
            <label class="check">
              <input type="checkbox" name="hidden" value="1" ${m.hidden ? 'checked' : ''} /> Hidden from the client
            </label>
            <input type="hidden" name="hidden_shown" value="1" />
            ${stagingFields(m, o.photos)}
            <button type="submit" class="button">Save</button>
          </form>
          <div class="row-actions media-detail-actions">
            ${cover}
            <details class="confirm">
              <summary>Delete…</summary>
              <form method="post" action="${base(l)}/media/${m.id}/delete" class="inline">
                ${csrfField(csrf)}
                <button type="submit" class="button button-danger button-small">Delete ${m.kind} for good</button>
              </form>
            </details>
          </div>
        </div>
      </section>`,
  });
}

/** The question before the ticked items are deleted: what they are, and the one button that does it. */
export function bulkDeletePage(o: { viewer: Viewer; listing: ListingType; media: MediaType[] }): SafeHtml {
  const l = o.listing;
  const n = o.media.length;
  const what = n === 1 ? 'this item' : `these ${count(n)} items`;
  return page({
    title: 'Delete media',
    viewer: o.viewer,
    section: 'galleries',
    body: html`<p><a href="${base(l)}#media">← ${l.address}</a></p>
      <h1>Delete ${what}?</h1>
      <section class="card">
        <p>
          The client no longer sees ${n === 1 ? 'it' : 'them'}, and ${n === 1 ? 'its file is' : 'their files are'}
          removed. This cannot be undone.
        </p>
        <ul class="media-grid confirm-grid">
          ${o.media.map(
            (m) =>
              html`<li class="media-tile">
                <span class="media-preview">${preview(l, m, '')}</span>
                <span class="tile-name">${m.filename}</span>
                ${marks(l, m)}
              </li>`,
          )}
        </ul>
        <form method="post" action="${base(l)}/media/bulk" class="actions">
          ${csrfField(o.viewer.csrfToken)}
          <input type="hidden" name="action" value="delete" />
          <input type="hidden" name="confirm" value="1" />
          ${o.media.map((m) => html`<input type="hidden" name="media_id" value="${m.id}" />`)}
          <button type="submit" class="button button-danger">
            Delete ${n === 1 ? 'it' : `${count(n)} items`} for good
          </button>
          <a class="button button-secondary" href="${base(l)}#media">Cancel</a>
        </form>
      </section>`,
  });
}
