// "Forgot password?": asking for a link, the answer (the same whoever asked), choosing the new
// password, and the one page for a link that no longer works.
import { html, type SafeHtml } from '../../lib/html.ts';
import { csrfField, errorSummary, field, page, type FieldErrors } from './layout.ts';

const RESET_LABELS = { password: 'New password', password_confirm: 'Repeat the new password' };

const backToSignIn = html`<p class="after-card"><a href="/dashboard/sign-in">Back to sign in</a></p>`;

export function forgotPage(o: { csrf: string; email: string; error?: string | undefined }): SafeHtml {
  return page({
    title: 'Forgot your password?',
    notice: o.error === undefined ? null : { kind: 'error', text: o.error },
    body: html`<h1>Forgot your password?</h1>
      <p class="lead">
        Enter the email you sign in with. If it belongs to a studio account, we will email it a link to choose a new
        password.
      </p>
      <form method="post" action="/dashboard/forgot-password" class="card">
        ${csrfField(o.csrf)}
        ${field({ name: 'email', label: 'Email', type: 'email', value: o.email, autocomplete: 'username', maxlength: 254, autofocus: true })}
        <div class="actions"><button type="submit" class="button">Email me a link</button></div>
      </form>
      ${backToSignIn}`,
  });
}

export function resetSentPage(minutes: number): SafeHtml {
  return page({
    title: 'Check your email',
    body: html`<h1>Check your email</h1>
      <section class="card" role="status">
        <p>
          If an account uses that email, a link to choose a new password is on its way to it. The link works once,
          within ${minutes} minutes.
        </p>
        <p class="muted">
          Nothing after a few minutes? Look in the spam folder, check the spelling of the email, or
          <a href="/dashboard/forgot-password">ask for another link</a>.
        </p>
      </section>
      ${backToSignIn}`,
  });
}

export function resetPage(o: {
  csrf: string;
  token: string;
  email: string;
  errors: FieldErrors;
  minPassword: number;
}): SafeHtml {
  const e = o.errors;
  return page({
    title: 'Choose a new password',
    body: html`<h1>Choose a new password</h1>
      <p class="lead">For ${o.email}. Every device signed in to this account will be signed out.</p>
      ${errorSummary(e, RESET_LABELS)}
      <form method="post" action="/dashboard/reset-password" class="card">
        ${csrfField(o.csrf)}
        <input type="hidden" name="token" value="${o.token}" />
        <input type="text" name="username" value="${o.email}" autocomplete="username" hidden />
        ${field({ name: 'password', label: RESET_LABELS.password, type: 'password', error: e.password, autocomplete: 'new-password', minlength: o.minPassword, hint: `At least ${o.minPassword} characters. A short sentence is easy to remember and hard to guess.`, autofocus: e.password !== undefined || e.password_confirm === undefined })}
        ${field({ name: 'password_confirm', label: RESET_LABELS.password_confirm, type: 'password', error: e.password_confirm, autocomplete: 'new-password', autofocus: e.password === undefined && e.password_confirm !== undefined })}
        <div class="actions"><button type="submit" class="button">Set the new password</button></div>
      </form>`,
  });
}

/** One page for a used, expired or unknown link: which of them it was is nobody's business. */
export function linkInvalidPage(minutes: number): SafeHtml {
  return page({
    title: 'This link is no longer valid',
    body: html`<h1>This link is no longer valid</h1>
      <section class="card">
        <p>
          A link to choose a new password works once, within ${minutes} minutes of asking for it. This one has been
          used, has expired, or is not a link we sent.
        </p>
        <p><a class="button" href="/dashboard/forgot-password">Ask for a new link</a></p>
      </section>
      ${backToSignIn}`,
  });
}
