// First-run setup, sign-in and sign-out.
import { StudioBody } from '../modules/accounts/account.schemas.ts';
import { schemaFieldErrors, type FieldWords, fieldErrors, formFields } from './form.ts';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import { PAGE_ROUTE, sendPage, type DashboardContext } from './page.ts';
import { newPasswordErrors, startSession, tooManyAttempts } from './session.ts';
import { noticeOf } from './notices.ts';
import { CHALLENGE_VALID_MS } from '../modules/accounts/two-factor.service.ts';
import { clearSessionCookie, preSessionToken, setTwoFactorCookie } from './security.ts';
import { setupPage, signInPage } from './views/auth.ts';
import type { FieldErrors } from './views/layout.ts';

/** Where the schema's own keyword says too little. */
const SETUP_WORDS: Record<string, FieldWords> = {
  name: { empty: 'Enter the name of your studio' },
  email: { empty: 'Enter an email address like name@example.com' },
};

export function registerAuthRoutes(scope: App, ctx: DashboardContext): void {
  const { services, cookies } = ctx;

  scope.get('/setup', { config: { dashboard: 'anonymous' }, schema: PAGE_ROUTE }, async (request, reply) => {
    if (await services.accounts.isSetUp()) return reply.redirect('/dashboard/sign-in?notice=already-set-up', 303);
    const csrf = preSessionToken(request, reply, cookies);
    return sendPage(
      reply,
      setupPage({ csrf, values: { name: '', email: '' }, errors: {}, minPassword: MIN_PASSWORD_LENGTH }),
    );
  });

  scope.post('/setup', { config: { dashboard: 'anonymous' }, schema: PAGE_ROUTE }, async (request, reply) => {
    if (await services.accounts.isSetUp()) return reply.redirect('/dashboard/sign-in?notice=already-set-up', 303);
    const form = formFields(request.body);
    const values = { name: form.get('name').trim(), email: form.get('email').trim() };
    const password = form.get('password');
    const errors = schemaFieldErrors(StudioBody, values, SETUP_WORDS);
    Object.assign(errors, newPasswordErrors(password, form.get('password_confirm')));
    const render = (e: FieldErrors) =>
      sendPage(
        reply,
        setupPage({
          csrf: preSessionToken(request, reply, cookies),
          values,
          errors: e,
          minPassword: MIN_PASSWORD_LENGTH,
        }),
        400,
      );
    if (Object.keys(errors).length > 0) return render(errors);
    let accountId: string;
    try {
      accountId = (await services.accounts.createFirst({ ...values, password })).id;
    } catch (err) {
      // Someone else finished the setup first: theirs stands, and this browser signs in.
      if (err instanceof AppError && err.code === 'conflict') {
        return reply.redirect('/dashboard/sign-in?notice=already-set-up', 303);
      }
      const refused = fieldErrors(err);
      if (refused !== null) return render(refused);
      throw err;
    }
    await startSession(ctx, reply, accountId, request.dashboard.token);
    return reply.redirect('/dashboard?notice=welcome', 303);
  });

  scope.get('/sign-in', { config: { dashboard: 'anonymous' }, schema: PAGE_ROUTE }, async (request, reply) => {
    if (request.dashboard.account !== null) return reply.redirect('/dashboard', 303);
    if (!(await services.accounts.isSetUp())) return reply.redirect('/dashboard/setup', 303);
    const csrf = preSessionToken(request, reply, cookies);
    return sendPage(reply, signInPage({ csrf, email: '', notice: noticeOf(request) }));
  });

  scope.post('/sign-in', { config: { dashboard: 'anonymous' }, schema: PAGE_ROUTE }, async (request, reply) => {
    const form = formFields(request.body);
    const email = form.get('email').trim();
    const password = form.get('password');
    const refuse = (error: string, status: number) =>
      sendPage(reply, signInPage({ csrf: preSessionToken(request, reply, cookies), email, error }), status);
    if (email === '' || password === '') return refuse('Enter your email and your password.', 400);
    const result = await services.signIn.signIn({ email, password, address: request.ip });
    switch (result.outcome) {
      case 'throttled': {
        void reply.header('retry-after', String(result.retryAfterSeconds));
        return refuse(tooManyAttempts(result.retryAfterSeconds), 429);
      }
      case 'invalid':
        // The same words whether the email is unknown or the password wrong.
        return refuse('That email and password do not match an account. Check them and try again.', 400);
      case 'signed_in':
        // docs/api.md §27: with two-factor on, the password only opens the code step.
        if (result.user.totp_enabled === 1) {
          const pending = await services.twoFactor.challenge(result.user.id);
          setTwoFactorCookie(reply, cookies, pending, CHALLENGE_VALID_MS);
          return reply.redirect('/dashboard/sign-in/code', 303);
        }
        await startSession(ctx, reply, result.account.id, request.dashboard.token, result.user.id);
        return reply.redirect('/dashboard', 303);
    }
  });

  scope.post('/sign-out', { config: { dashboard: 'member' }, schema: PAGE_ROUTE }, async (request, reply) => {
    await services.sessions.end(request.dashboard.token);
    clearSessionCookie(reply, cookies);
    return reply.redirect('/dashboard/sign-in?notice=signed-out', 303);
  });
}
