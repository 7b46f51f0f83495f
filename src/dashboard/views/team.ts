// Settings > Team (docs/api.md §27): the people of the studio and their roles, the invitations
// still open, a form to invite someone by email, and for each member: remove (after a
// confirmation page) or turn their two-factor sign-in off. Plain links and forms.
import type { Invitation, User } from '../../modules/accounts/team.service.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { day } from './format.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

const ROLE_LABEL = { owner: 'Owner', member: 'Member' } as const;
const ROLE_HINT = {
  owner: 'Everything: galleries, clients, invoices and products, API keys, webhooks, the team and the studio settings.',
  member: 'Galleries and clients; not invoices, API keys, webhooks, the team or the studio settings.',
} as const;

function peopleTable(users: User[], viewer: Viewer): SafeHtml {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="The team">
    <table class="stack" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">Email</th>
          <th scope="col" role="columnheader">Role</th>
          <th scope="col" role="columnheader">Two-factor</th>
          <th scope="col" role="columnheader">Joined</th>
          <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${users.map(
          (u) =>
            html`<tr role="row">
              <td role="cell" class="cell-title wrap-anywhere">${u.email}</td>
              <td role="cell" data-label="Role"><span class="badge badge-${u.role}">${ROLE_LABEL[u.role]}</span></td>
              <td role="cell" data-label="Two-factor">${u.twoFactor ? 'On' : html`<span class="muted">Off</span>`}</td>
              <td role="cell" class="nowrap" data-label="Joined">${day(u.createdAt)}</td>
              <td role="cell" class="cell-action">
                ${
                  u.role === 'member'
                    ? html`${
                          u.twoFactor
                            ? html`<form
                                method="post"
                                action="/dashboard/settings/team/${u.id}/reset-2fa"
                                class="inline"
                              >
                                ${csrfField(viewer.csrfToken)}
                                <button type="submit" class="button button-secondary button-small">
                                  Turn off two-factor<span class="visually-hidden"> for ${u.email}</span>
                                </button>
                              </form> `
                            : ''
                        }<a class="link-danger" href="/dashboard/settings/team/${u.id}/remove"
                          >Remove<span class="visually-hidden"> ${u.email}</span></a
                        >`
                    : html`<span class="muted">${u.id === viewer.userId ? 'You' : ''}</span>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function invitationsList(invitations: Invitation[], viewer: Viewer): SafeHtml {
  if (invitations.length === 0) return html`<p class="muted">No open invitations.</p>`;
  return html`<ul class="plain-list">
    ${invitations.map(
      (i) =>
        html`<li>
          <span class="cell-title wrap-anywhere">${i.email}</span>
          <span class="muted">· link valid until ${day(i.expiresAt)}</span>
          <form method="post" action="/dashboard/settings/team/invitations/${i.id}/revoke" class="inline">
            ${csrfField(viewer.csrfToken)}
            <button type="submit" class="button button-secondary button-small">
              Withdraw<span class="visually-hidden"> the invitation to ${i.email}</span>
            </button>
          </form>
        </li>`,
    )}
  </ul>`;
}

export function teamPage(o: {
  viewer: Viewer;
  users: User[];
  invitations: Invitation[];
  email?: string;
  errors?: FieldErrors;
  notice?: Notice | null;
}): SafeHtml {
  const errors = o.errors ?? {};
  return page({
    title: 'Team',
    viewer: o.viewer,
    section: 'team',
    notice: o.notice,
    body: html`<h1>Team</h1>
      <p class="lead">The people who sign in to ${o.viewer.studioName}'s dashboard.</p>
      <section class="card" aria-labelledby="people-title">
        <h2 id="people-title">People</h2>
        ${peopleTable(o.users, o.viewer)}
        <dl class="facts">
          <dt>${ROLE_LABEL.owner}</dt>
          <dd>${ROLE_HINT.owner}</dd>
          <dt>${ROLE_LABEL.member}</dt>
          <dd>${ROLE_HINT.member}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        ${errorSummary(errors, { email: 'Email' })}
        <form method="post" action="/dashboard/settings/team">
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'email', label: 'Email', type: 'email', value: o.email ?? '', error: errors.email, maxlength: 254, autocomplete: 'off', hint: 'They get an email with a link, valid 7 days, to choose a password and join as a member.', autofocus: errors.email !== undefined })}
          <div class="actions"><button type="submit" class="button">Send invitation</button></div>
        </form>
        <h3>Open invitations</h3>
        ${invitationsList(o.invitations, o.viewer)}
      </section>`,
  });
}

export function removeMemberPage(o: { viewer: Viewer; member: User }): SafeHtml {
  return page({
    title: 'Remove a member',
    viewer: o.viewer,
    section: 'team',
    body: html`<h1 class="wrap-anywhere">Remove ${o.member.email}?</h1>
      <section class="card">
        <p>
          They are signed out at once, everywhere, and can no longer sign in. Galleries and clients they worked on stay
          as they are. To have them back, invite them again.
        </p>
        <form method="post" action="/dashboard/settings/team/${o.member.id}/remove" class="actions">
          ${csrfField(o.viewer.csrfToken)}
          <button type="submit" class="button button-danger">Remove member</button>
          <a class="button button-secondary" href="/dashboard/settings/team">Cancel</a>
        </form>
      </section>`,
  });
}

const ACCEPT_LABELS = { password: 'Password', password_confirm: 'Repeat the password' };

export function acceptPage(o: {
  csrf: string;
  token: string;
  email: string;
  studioName: string;
  errors: FieldErrors;
  minPassword: number;
}): SafeHtml {
  const e = o.errors;
  return page({
    title: 'Join the team',
    body: html`<h1>Join ${o.studioName}</h1>
      <p class="lead">Choose a password to sign in to the studio's dashboard as ${o.email}.</p>
      ${errorSummary(e, ACCEPT_LABELS)}
      <form method="post" action="/dashboard/invitations/accept" class="card">
        ${csrfField(o.csrf)}
        <input type="hidden" name="token" value="${o.token}" />
        <input type="text" name="username" value="${o.email}" autocomplete="username" hidden />
        ${field({ name: 'password', label: ACCEPT_LABELS.password, type: 'password', error: e.password, autocomplete: 'new-password', minlength: o.minPassword, hint: `At least ${o.minPassword} characters.`, autofocus: true })}
        ${field({ name: 'password_confirm', label: ACCEPT_LABELS.password_confirm, type: 'password', error: e.password_confirm, autocomplete: 'new-password' })}
        <div class="actions"><button type="submit" class="button">Join the team</button></div>
      </form>`,
  });
}

export function invitationInvalidPage(days: number): SafeHtml {
  return page({
    title: 'Invitation no longer valid',
    body: html`<h1>This invitation no longer works</h1>
      <p class="lead">
        An invitation link works once, within ${days} days, and stops working when it is withdrawn. Ask the studio's
        owner to invite you again.
      </p>
      <p class="after-card"><a href="/dashboard/sign-in">Sign in</a> if you have joined already.</p>`,
  });
}
