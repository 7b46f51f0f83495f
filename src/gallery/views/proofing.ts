// docs/api.md §25 and §28 on the gallery page: the selection (how many to choose, the favorites' ZIP,
// the note, the send button, and why a mark or a send was refused) and the comment on each photo.
// Both work without JavaScript (plain forms); favorites.js makes them answer without a reload.
import { html, type SafeHtml } from '../../lib/html.ts';
import type { GalleryView } from '../gallery.load.ts';
import type { VisibleMedia } from '../../modules/media/media.service.ts';
import { downloadsOn, ICON_DOWNLOAD, number, plural } from './parts.ts';

/** What the page says after a send or a refusal (docs/api.md §28); the note kept when a send was refused. */
export interface PageNotice {
  sent?: boolean;
  refused?: 'too_few' | 'too_many';
  note?: string;
}

const photos_ = (n: number): string => plural(n, 'photo', 'photos');

/** The refusal of a mark past the maximum, in the words the page and its script show. */
export const tooMany = (max: number): string =>
  `You can choose up to ${photos_(max)}. Unmark one before you mark another.`;

/** How many to choose, as the page says it; null without bounds. */
function selectionRule(min: number | null, max: number | null): string | null {
  if (min !== null && max !== null) {
    return min === max ? `Choose ${photos_(min)}.` : `Choose between ${number(min)} and ${photos_(max)}.`;
  }
  if (min !== null) return `Choose at least ${photos_(min)}.`;
  if (max !== null) return `Choose up to ${photos_(max)}.`;
  return null;
}

/** The comment on a photo: shown when written, and a form to write or change it (works without JavaScript). */
export function commentForm(base: string, m: VisibleMedia, alt: string, text: string | undefined): SafeHtml {
  const id = `comment-${m.row.id}`;
  return html`<div class="tile__comment">
    ${text === undefined ? '' : html`<p class="comment__text" data-comment-text><span class="visually-hidden">Your comment: </span>${text}</p>`}
    <details class="comment">
      <summary>
        ${text === undefined ? 'Add a comment' : 'Edit comment'}<span class="visually-hidden"> on ${alt}</span>
      </summary>
      <form method="post" action="${base}/comments/${m.row.id}" class="comment__form" data-comment-form>
        <label for="${id}">Comment on ${alt}</label>
        <textarea id="${id}" name="comment" maxlength="1000" rows="3">${text ?? ''}</textarea>
        <p class="comment__hint muted">Up to 1,000 characters. Leave it empty to remove it.</p>
        <button class="button button--quiet" type="submit">Save comment</button>
      </form>
    </details>
  </div>`;
}

/**
 * The selection: how many are marked, the favorites' ZIP once any are (docs/api.md §25), a note, and
 * the button that sends it to the studio. favorites.js keeps the count, the ZIP link and the button
 * current as hearts change without a reload (data-favorites-*).
 */
export function selectionForm(view: GalleryView, base: string, count: number, notice: PageNotice): SafeHtml {
  const submitted = view.link.favorites_submitted_at;
  const downloads = downloadsOn(view);
  const { selection_min: min, selection_max: max } = view.link;
  const rule = selectionRule(min, max);
  const refusal =
    notice.refused === 'too_many'
      ? max !== null && count > max
        ? `Your selection has ${photos_(count)}: choose at most ${photos_(max)}. Nothing was sent.`
        : tooMany(max ?? count)
      : notice.refused === 'too_few'
        ? `Your selection has ${photos_(count)}: choose at least ${photos_(min ?? count)} before you send it. Nothing was sent.`
        : null;
  return html`<section
    class="selection"
    id="favorites"
    aria-labelledby="favorites-title"
    data-selection-min="${min ?? ''}"
    data-selection-max="${max ?? ''}"
  >
    <h2 id="favorites-title">Your favorites <span class="count" data-favorites-count>${number(count)}</span></h2>
    ${
      notice.sent === true
        ? html`<p class="selection__sent" role="status">
            Sent to ${view.studioName}. You can change it and send again.
          </p>`
        : ''
    }
    <p class="selection__refused" role="alert" data-selection-message ${refusal === null ? 'hidden' : ''}>
      ${refusal ?? ''}
    </p>
    ${rule === null ? '' : html`<p class="selection__rule"><strong>${rule}</strong></p>`}
    <p class="selection__hint">
      Mark photos with ♡, then send your selection to ${view.studioName}.
      ${submitted === null ? '' : html`You last sent it on <time datetime="${submitted}">${submitted.slice(0, 10)}</time>.`}
    </p>
    ${
      downloads
        ? // No href while none is marked (it would be a 404): favorites.js sets it (the form's action + .zip).
          html`<p class="selection__download" data-favorites-zip ${count === 0 ? 'hidden' : ''}>
            <a class="button button--quiet" ${count === 0 ? '' : html`href="${base}/favorites.zip"`} download
              >${ICON_DOWNLOAD} Download favorites <span class="button__size">ZIP</span></a
            >
          </p>`
        : ''
    }
    <form method="post" action="${base}/favorites" class="selection__form">
      <label for="favorites-note">A note for ${view.studioName} <span class="muted">(optional)</span></label>
      <textarea id="favorites-note" name="note" maxlength="2000" rows="3">
${notice.note ?? view.link.favorites_note ?? ''}</textarea>
      <button class="button" type="submit" data-favorites-send ${count === 0 ? 'disabled' : ''}>
        Send my selection
      </button>
    </form>
  </section>`;
}
