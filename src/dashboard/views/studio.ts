// Settings > Studio: the names clients see in emails, and the password.
import { StudioBody } from '../../modules/accounts/account.schemas.ts';
import { maxLengthOf } from '../form.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';
import { stripeSection, type StripeStatus } from './stripe.ts';

export interface StudioValues {
  name: string;
  sender_name: string;
  currency: string;
}

const STUDIO_LABELS = { name: 'Studio name', sender_name: 'Sender name', currency: 'Currency' };
const PASSWORD_LABELS = {
  current_password: 'Current password',
  new_password: 'New password',
  new_password_confirm: 'Repeat the new password',
};

/**
 * docs/api.md §30: the room order suggested photo orders follow. Each row's up and down buttons
 * submit the whole order (hidden fields) and the move: saved at once, no script needed.
 */
function roomsSection(csrf: string, order: readonly string[], error: string | undefined): SafeHtml {
  const last = order.length - 1;
  return html`<section class="card" id="rooms" aria-labelledby="rooms-title">
    <h2 id="rooms-title">Room order</h2>
    <p class="muted">
      Suggested photo orders put a gallery's photos in this order of rooms, similar photos together with the best one
      first. Photos whose room is not known yet go with Other.
    </p>
    ${error === undefined ? '' : html`<p class="field-error" role="alert">${error}</p>`}
    <form method="post" action="/dashboard/settings/rooms">
      ${csrfField(csrf)}
      <ol class="room-order">
        ${order.map(
          (room, i) =>
            html`<li>
              <input type="hidden" name="room" value="${room}" />
              <span class="room-name">${room}</span>
              <span class="room-moves">
                <button
                  type="submit"
                  name="move"
                  value="up:${i}"
                  class="button button-secondary button-small"
                  ${i === 0 ? html`disabled` : ''}
                >
                  <span aria-hidden="true">↑</span><span class="visually-hidden">Move ${room} up</span>
                </button>
                <button
                  type="submit"
                  name="move"
                  value="down:${i}"
                  class="button button-secondary button-small"
                  ${i === last ? html`disabled` : ''}
                >
                  <span aria-hidden="true">↓</span><span class="visually-hidden">Move ${room} down</span>
                </button>
              </span>
            </li>`,
        )}
      </ol>
      <div class="actions">
        <button type="submit" name="move" value="reset" class="button button-secondary">
          Reset to the default order
        </button>
      </div>
    </form>
  </section>`;
}

/**
 * docs/api.md §29: the watermark of locked galleries' previews, the studio's name or a logo. The
 * form is multipart (its token first, so it is checked before the file is read).
 */
function logoSection(csrf: string, logo: { version: string } | null, error: string | undefined): SafeHtml {
  const described = error === undefined ? 'f-logo-hint' : 'f-logo-hint f-logo-error';
  return html`<section class="card" id="watermark" aria-labelledby="watermark-title">
    <h2 id="watermark-title">Watermark</h2>
    <p class="muted">
      While a gallery waits for an invoice to be paid, its photos are shown as previews with a watermark across them:
      ${logo === null ? 'now your studio name.' : 'now your logo, below.'}
    </p>
    ${
      logo === null
        ? ''
        : html`<p>
              <img
                class="logo-preview"
                src="/dashboard/settings/studio/logo?v=${logo.version}"
                alt="The watermark logo"
              />
            </p>
            <form class="logo-remove" method="post" action="/dashboard/settings/studio/logo/delete">
              ${csrfField(csrf)}
              <div class="actions"><button type="submit" class="button button-secondary">Remove logo</button></div>
            </form>`
    }
    <form method="post" action="/dashboard/settings/studio/logo" enctype="multipart/form-data">
      ${csrfField(csrf)}
      <div class="field${error === undefined ? '' : ' field-invalid'}">
        <label for="f-logo">${logo === null ? 'Upload a logo' : 'Replace the logo'}</label>
        <p class="hint" id="f-logo-hint">
          PNG, JPEG or WebP, at most 2 MB and 4096 px a side. A PNG or WebP with a transparent background looks best.
        </p>
        ${error === undefined ? '' : html`<p class="field-error" id="f-logo-error">${error}</p>`}
        <input
          id="f-logo"
          name="logo"
          type="file"
          accept="image/png,image/jpeg,image/webp"
          required
          aria-describedby="${described}"
          ${error === undefined ? '' : html` aria-invalid="true" autofocus`}
        />
      </div>
      <div class="actions"><button type="submit" class="button">Upload logo</button></div>
    </form>
  </section>`;
}

/**
 * docs/api.md §32: the music track of the listing kit's videos (none: silent videos). The form is
 * multipart (its token first, so it is checked before the file is read).
 */
function musicSection(csrf: string, music: { version: string } | null, error: string | undefined): SafeHtml {
  const described = error === undefined ? 'f-music-hint' : 'f-music-hint f-music-error';
  return html`<section class="card" id="music" aria-labelledby="music-title">
    <h2 id="music-title">Listing kit music</h2>
    <p class="muted">
      The videos of each listing kit
      ${music === null ? 'have no sound now.' : 'carry this track, faded out at the end:'}
    </p>
    ${
      music === null
        ? ''
        : html`<p>
              <audio
                class="music-preview"
                controls
                preload="none"
                src="/dashboard/settings/studio/music?v=${music.version}"
                aria-label="The listing kit music"
              ></audio>
            </p>
            <form class="logo-remove" method="post" action="/dashboard/settings/studio/music/delete">
              ${csrfField(csrf)}
              <div class="actions"><button type="submit" class="button button-secondary">Remove music</button></div>
            </form>`
    }
    <form method="post" action="/dashboard/settings/studio/music" enctype="multipart/form-data">
      ${csrfField(csrf)}
      <div class="field${error === undefined ? '' : ' field-invalid'}">
        <label for="f-music">${music === null ? 'Upload a music track' : 'Replace the music track'}</label>
        <p class="hint" id="f-music-hint">
          MP3, M4A, AAC or WAV, at most 20 MB. Use music you have the rights to; it is cut to each video's length.
        </p>
        ${error === undefined ? '' : html`<p class="field-error" id="f-music-error">${error}</p>`}
        <input
          id="f-music"
          name="music"
          type="file"
          accept="audio/mpeg,audio/mp4,audio/aac,audio/wav,.mp3,.m4a,.aac,.wav"
          required
          aria-describedby="${described}"
          ${error === undefined ? '' : html` aria-invalid="true" autofocus`}
        />
      </div>
      <div class="actions"><button type="submit" class="button">Upload music</button></div>
    </form>
  </section>`;
}

/** docs/api.md §32: the flyer's paper, the studio's choice or else KIT_PAPER. */
export interface PaperSetting {
  chosen: 'letter' | 'a4' | null;
  /** KIT_PAPER: the paper when the studio has not chosen one. */
  fallback: 'letter' | 'a4';
}

const PAPERS = [
  { value: 'letter', label: 'Letter', size: '8.5 × 11 in, as in North America' },
  { value: 'a4', label: 'A4', size: '210 × 297 mm, as in most other places' },
] as const;

/** docs/api.md §32: the paper of the listing kit's flyer, next to its music. */
function paperSection(csrf: string, paper: PaperSetting, error: string | undefined): SafeHtml {
  const current = paper.chosen ?? paper.fallback;
  return html`<section class="card" id="paper" aria-labelledby="paper-title">
    <h2 id="paper-title">Listing kit flyer</h2>
    <p class="muted">
      The paper each listing kit's flyer is laid out for. A new choice applies to kits built from now on: rebuild a
      gallery's kit to remake its flyer.
    </p>
    <form method="post" action="/dashboard/settings/studio/paper">
      ${csrfField(csrf)}
      <fieldset class="paper-choices${error === undefined ? '' : ' field-invalid'}">
        <legend>Paper</legend>
        ${error === undefined ? '' : html`<p class="field-error" id="f-paper-error">${error}</p>`}
        ${PAPERS.map(
          (p) =>
            html`<label class="check">
              <input
                type="radio"
                name="paper"
                value="${p.value}"
                ${p.value === current ? html`checked` : ''}
                ${error === undefined ? '' : html`aria-describedby="f-paper-error"`}
              />
              <span><strong>${p.label}</strong> <span class="muted">${p.size}</span></span>
            </label>`,
        )}
      </fieldset>
      <div class="actions"><button type="submit" class="button">Save paper</button></div>
    </form>
  </section>`;
}

export function studioPage(o: {
  viewer: Viewer;
  email: string;
  values: StudioValues;
  studioErrors?: FieldErrors;
  passwordErrors?: FieldErrors;
  notice?: Notice | null;
  minPassword: number;
  /** docs/api.md §27: who signs in to the studio. */
  team: { email: string; role: 'owner' | 'member' }[];
  /** docs/api.md §30: the studio's room order, and why a sent one was refused. */
  roomOrder: readonly string[];
  roomError?: string;
  /** docs/api.md §29: online payment (Stripe), when the page shows it. */
  stripe?: { status: StripeStatus; errors?: FieldErrors };
  /** docs/api.md §29: the watermark logo (its key's tail versions the preview's URL), and why an upload was refused. */
  logo?: { version: string } | null;
  logoError?: string;
  /** docs/api.md §32: the kit's music track (its key's tail versions the player's URL), and why an upload was refused. */
  music?: { version: string } | null;
  musicError?: string;
  /** docs/api.md §32: the flyer's paper, and why a sent one was refused. */
  paper?: PaperSetting;
  paperError?: string;
}): SafeHtml {
  const se = o.studioErrors ?? {};
  const pe = o.passwordErrors ?? {};
  return page({
    title: 'Studio settings',
    viewer: o.viewer,
    section: 'studio',
    notice: o.notice,
    body: html`<h1>Studio settings</h1>
      <p class="lead">Signed in as ${o.email}.</p>
      <section class="card" aria-labelledby="studio-title">
        <h2 id="studio-title">Studio</h2>
        ${errorSummary(se, STUDIO_LABELS)}
        <form method="post" action="/dashboard/settings/studio">
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'name', label: STUDIO_LABELS.name, value: o.values.name, error: se.name, maxlength: maxLengthOf(StudioBody, 'name'), autocomplete: 'organization', hint: 'Your studio as clients know it: emails to them name it in the subject line.', autofocus: se.name !== undefined })}
          ${field({ name: 'sender_name', label: STUDIO_LABELS.sender_name, value: o.values.sender_name, error: se.sender_name, maxlength: maxLengthOf(StudioBody, 'sender_name'), required: false, autocomplete: 'off', hint: 'The “From” name of the emails sent to your clients, and the name they are signed with. Leave it empty to use the studio name.', autofocus: se.sender_name !== undefined })}
          ${field({ name: 'currency', label: STUDIO_LABELS.currency, value: o.values.currency, error: se.currency, maxlength: 3, autocomplete: 'off', hint: 'The ISO 4217 code your products and invoices are priced in, such as USD, EUR, GBP or JPY.', autofocus: se.currency !== undefined })}
          <div class="actions"><button type="submit" class="button">Save studio</button></div>
        </form>
      </section>
      ${o.logo === undefined ? '' : logoSection(o.viewer.csrfToken, o.logo, o.logoError)}
      ${o.music === undefined ? '' : musicSection(o.viewer.csrfToken, o.music, o.musicError)}
      ${o.paper === undefined ? '' : paperSection(o.viewer.csrfToken, o.paper, o.paperError)}
      ${roomsSection(o.viewer.csrfToken, o.roomOrder, o.roomError)}
      <section class="card" id="mls" aria-labelledby="mls-title">
        <h2 id="mls-title">MLS profiles</h2>
        <p class="muted">
          What each listing service you deliver to accepts: photo sizes, text, QR codes, people, the first photo,
          virtual staging. A gallery given a profile gets MLS photos made to fit it and a compliance report.
        </p>
        <p><a href="/dashboard/settings/mls">MLS profiles</a></p>
      </section>
      ${o.stripe === undefined ? '' : stripeSection(o.viewer, o.stripe.status, o.stripe.errors ?? {})}
      <section class="card" aria-labelledby="team-title">
        <h2 id="team-title">Team</h2>
        <ul class="plain-list">
          ${o.team.map(
            (u) =>
              html`<li>
                <span class="wrap-anywhere">${u.email}</span>
                <span class="badge badge-${u.role}">${u.role === 'owner' ? 'Owner' : 'Member'}</span>
              </li>`,
          )}
        </ul>
        <p><a href="/dashboard/settings/team">Invite or remove people</a></p>
      </section>
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">Change password</h2>
        <p class="muted">Changing it signs you out everywhere else; you stay signed in here.</p>
        ${errorSummary(pe, PASSWORD_LABELS)}
        <form method="post" action="/dashboard/settings/password">
          ${csrfField(o.viewer.csrfToken)}
          <input type="text" name="username" value="${o.email}" autocomplete="username" hidden />
          ${field({ name: 'current_password', label: PASSWORD_LABELS.current_password, type: 'password', error: pe.current_password, autocomplete: 'current-password', autofocus: pe.current_password !== undefined })}
          ${field({ name: 'new_password', label: PASSWORD_LABELS.new_password, type: 'password', error: pe.new_password, autocomplete: 'new-password', minlength: o.minPassword, hint: `At least ${o.minPassword} characters.`, autofocus: pe.current_password === undefined && pe.new_password !== undefined })}
          ${field({ name: 'new_password_confirm', label: PASSWORD_LABELS.new_password_confirm, type: 'password', error: pe.new_password_confirm, autocomplete: 'new-password' })}
          <div class="actions"><button type="submit" class="button">Change password</button></div>
        </form>
      </section>`,
  });
}
