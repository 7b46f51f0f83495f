// The pages before sign-in: the one-time setup, and sign-in itself.
import { StudioBody } from '../../modules/accounts/account.schemas.ts';
import { maxLengthOf } from '../form.ts';
import { html, type SafeHtml } from '../../lib/html.ts';
import { csrfField, errorSummary, field, page, type FieldErrors, type Notice } from './layout.ts';

export interface SetupValues {
  name: string;
  email: string;
}

const SETUP_LABELS = {
  name: 'Studio name',
  email: 'Your email',
  password: 'Password',
  password_confirm: 'Repeat the password',
};

export function setupPage(o: {
  csrf: string;
  values: SetupValues;
  errors: FieldErrors;
  minPassword: number;
}): SafeHtml {
  const e = o.errors;
  const firstInvalid = Object.keys(e)[0];
  return page({
    title: 'Set up your studio',
    body: html`<h1>Welcome to Lightbox</h1>
      <p class="lead">
        Create your studio's account. You will sign in with this email and password to manage API keys and settings.
        This page appears only once, on a new installation.
      </p>
      ${errorSummary(e, SETUP_LABELS)}
      <form method="post" action="/dashboard/setup" class="card">
        ${csrfField(o.csrf)}
        ${field({ name: 'name', label: SETUP_LABELS.name, value: o.values.name, error: e.name, maxlength: maxLengthOf(StudioBody, 'name'), autocomplete: 'organization', hint: 'Shown to your clients in the emails Lightbox sends them.', autofocus: firstInvalid === undefined || firstInvalid === 'name' })}
        ${field({ name: 'email', label: SETUP_LABELS.email, type: 'email', value: o.values.email, error: e.email, autocomplete: 'username', maxlength: maxLengthOf(StudioBody, 'email'), autofocus: firstInvalid === 'email' })}
        ${field({ name: 'password', label: SETUP_LABELS.password, type: 'password', error: e.password, autocomplete: 'new-password', minlength: o.minPassword, hint: `At least ${o.minPassword} characters. A short sentence is easy to remember and hard to guess.`, autofocus: firstInvalid === 'password' })}
        ${field({ name: 'password_confirm', label: SETUP_LABELS.password_confirm, type: 'password', error: e.password_confirm, autocomplete: 'new-password', autofocus: firstInvalid === 'password_confirm' })}
        <div class="actions"><button type="submit" class="button">Create studio account</button></div>
      </form>`,
  });
}

export function signInPage(o: {
  csrf: string;
  email: string;
  error?: string | undefined;
  notice?: Notice | null;
}): SafeHtml {
  return page({
    title: 'Sign in',
    notice: o.error === undefined ? o.notice : { kind: 'error', text: o.error },
    body: html`<h1>Sign in</h1>
      <p class="lead">Manage your studio's API keys and settings.</p>
      <form method="post" action="/dashboard/sign-in" class="card">
        ${csrfField(o.csrf)}
        ${field({ name: 'email', label: 'Email', type: 'email', value: o.email, autocomplete: 'username', maxlength: 254, autofocus: o.email === '' })}
        ${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', autofocus: o.email !== '' })}
        <div class="actions"><button type="submit" class="button">Sign in</button></div>
      </form>
      <p class="after-card"><a href="/dashboard/forgot-password">Forgot your password?</a></p>`,
  });
}
