// Your sign-in (docs/api.md §27): for everyone signed in, owner or member. Two-factor sign-in (set
// up with a QR code the app draws, its recovery codes shown once), and one's own password.
import { html, type SafeHtml } from '../../lib/html.ts';
import { MIN_PASSWORD_LENGTH } from '../../modules/accounts/accounts.service.ts';
import type { TwoFactorSetup } from '../../modules/accounts/two-factor.service.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice, type Viewer } from './layout.ts';

const PASSWORD_LABELS = {
  current_password: 'Current password',
  new_password: 'New password',
  new_password_confirm: 'Repeat the new password',
};

export function youPage(o: {
  viewer: Viewer;
  status: { enabled: boolean; recoveryCodesLeft: number };
  passwordErrors?: FieldErrors;
  codeError?: string | undefined;
  notice?: Notice | null;
}): SafeHtml {
  const pe = o.passwordErrors ?? {};
  const twoFactor = o.status.enabled
    ? html`<p><span class="badge badge-on">On</span> Signing in asks for a code from your authenticator app.</p>
        <p class="muted">
          ${o.status.recoveryCodesLeft} of 10 recovery codes left. Each works once, in place of a code, if your phone is
          lost.
        </p>
        ${errorSummary(o.codeError === undefined ? {} : { code: o.codeError }, { code: 'Code' })}
        <form method="post" action="/dashboard/account/two-factor/disable">
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'code', label: 'Code', error: o.codeError, autocomplete: 'one-time-code', maxlength: 20, hint: 'To turn two-factor sign-in off, enter a code from your app (or a recovery code).', autofocus: o.codeError !== undefined })}
          <div class="actions"><button type="submit" class="button button-secondary">Turn off two-factor</button></div>
        </form>`
    : html`<p><span class="badge">Off</span> Your password alone signs you in.</p>
        <p>
          With two-factor sign-in, a stolen password is not enough: signing in also asks for a code from an app on your
          phone.
        </p>
        <p><a class="button" href="/dashboard/account/two-factor">Set up two-factor sign-in</a></p>`;
  return page({
    title: 'Your sign-in',
    viewer: o.viewer,
    section: 'you',
    notice: o.notice,
    body: html`<h1>Your sign-in</h1>
      <p class="lead wrap-anywhere">
        Signed in to ${o.viewer.studioName} as ${o.viewer.email} (${o.viewer.role === 'owner' ? 'owner' : 'member'}).
      </p>
      <section class="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        ${twoFactor}
      </section>
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">Change password</h2>
        <p class="muted">Changing it signs you out everywhere else; you stay signed in here.</p>
        ${errorSummary(pe, PASSWORD_LABELS)}
        <form method="post" action="/dashboard/settings/password">
          ${csrfField(o.viewer.csrfToken)}
          <input type="text" name="username" value="${o.viewer.email}" autocomplete="username" hidden />
          ${field({ name: 'current_password', label: PASSWORD_LABELS.current_password, type: 'password', error: pe.current_password, autocomplete: 'current-password', autofocus: pe.current_password !== undefined })}
          ${field({ name: 'new_password', label: PASSWORD_LABELS.new_password, type: 'password', error: pe.new_password, autocomplete: 'new-password', minlength: MIN_PASSWORD_LENGTH, hint: `At least ${MIN_PASSWORD_LENGTH} characters.`, autofocus: pe.current_password === undefined && pe.new_password !== undefined })}
          ${field({ name: 'new_password_confirm', label: PASSWORD_LABELS.new_password_confirm, type: 'password', error: pe.new_password_confirm, autocomplete: 'new-password' })}
          <div class="actions"><button type="submit" class="button">Change password</button></div>
        </form>
      </section>`,
  });
}

export function twoFactorSetupPage(o: { viewer: Viewer; setup: TwoFactorSetup; error?: string | undefined }): SafeHtml {
  return page({
    title: 'Set up two-factor sign-in',
    viewer: o.viewer,
    section: 'you',
    body: html`<h1>Set up two-factor sign-in</h1>
      <section class="card" aria-labelledby="scan-title">
        <h2 id="scan-title">1. Scan the code</h2>
        <p>
          Open an authenticator app on your phone (Google Authenticator, 1Password, Authy, Microsoft Authenticator…),
          add an account and scan this code.
        </p>
        <div class="qr-box">${o.setup.qr}</div>
        <p class="hint" id="secret-hint">Cannot scan it? Type this key into the app instead (a time-based key):</p>
        <p><code class="secret" aria-describedby="secret-hint">${o.setup.secret}</code></p>
      </section>
      <section class="card" aria-labelledby="confirm-title">
        <h2 id="confirm-title">2. Enter the code it shows</h2>
        ${errorSummary(o.error === undefined ? {} : { code: o.error }, { code: 'Code' })}
        <form method="post" action="/dashboard/account/two-factor">
          ${csrfField(o.viewer.csrfToken)}
          ${field({ name: 'code', label: 'Code from the app', error: o.error, autocomplete: 'one-time-code', maxlength: 10, hint: 'Six digits; a new one every 30 seconds.', autofocus: o.error !== undefined })}
          <div class="actions">
            <button type="submit" class="button">Turn on two-factor</button>
            <a class="button button-secondary" href="/dashboard/account">Cancel</a>
          </div>
        </form>
      </section>`,
  });
}

export function recoveryCodesPage(o: { viewer: Viewer; codes: string[] }): SafeHtml {
  return page({
    title: 'Your recovery codes',
    viewer: o.viewer,
    section: 'you',
    notice: { kind: 'success', text: 'Two-factor sign-in is on.' },
    body: html`<h1>Your recovery codes</h1>
      <section class="card new-key" aria-labelledby="codes-title">
        <h2 id="codes-title">Keep these 10 codes somewhere safe</h2>
        <p class="warning">They are shown only now. Print them or keep them in a password manager.</p>
        <p>If your phone is lost, sign in with one of them in place of a code. Each works once.</p>
        <ul class="recovery-codes" aria-label="Recovery codes">
          ${o.codes.map((c) => html`<li><code>${c}</code></li>`)}
        </ul>
        <p><a class="button" href="/dashboard/account">Done</a></p>
      </section>`,
  });
}

export function signInCodePage(o: { csrf: string; error?: string | undefined }): SafeHtml {
  return page({
    title: 'Enter your code',
    notice: o.error === undefined ? null : { kind: 'error', text: o.error },
    body: html`<h1>Enter your code</h1>
      <p class="lead">Your account asks for a second step: the code your authenticator app shows now.</p>
      <form method="post" action="/dashboard/sign-in/code" class="card">
        ${csrfField(o.csrf)}
        ${field({ name: 'code', label: 'Code', autocomplete: 'one-time-code', maxlength: 20, hint: 'Six digits from the app, or one of your recovery codes (like abcde-fghjk) if your phone is lost.', autofocus: true })}
        <div class="actions"><button type="submit" class="button">Sign in</button></div>
      </form>
      <p class="after-card"><a href="/dashboard/sign-in">Start again</a></p>`,
  });
}
