// Your sign-in (docs/api.md §27): two-factor set-up and turning it off, for anyone signed in;
// and the code step of sign-in, for a browser whose password was right.
import type { FastifyReply } from 'fastify';
import type { App } from '../http/types.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { formFields } from './form.ts';
import { noticeOf } from './notices.ts';
import { startSession, tooManyAttempts } from './session.ts';
import { clearTwoFactorCookie, preSessionToken } from './security.ts';
import { recoveryCodesPage, signInCodePage, twoFactorSetupPage, youPage } from './views/you.ts';

const MEMBER = { dashboard: 'member' } as const;
const ANONYMOUS = { dashboard: 'anonymous' } as const;

export function registerTwoFactorRoutes(scope: App, ctx: DashboardContext): void {
  const { services, cookies } = ctx;

  scope.get('/account', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, user } = viewerOf(request);
    const status = await services.twoFactor.status(user.id);
    return sendPage(reply, youPage({ viewer, status, notice: noticeOf(request) }));
  });

  scope.get('/account/two-factor', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, user } = viewerOf(request);
    const setup = await services.twoFactor.setup(user.id);
    if (setup === null) return reply.redirect('/dashboard/account', 303);
    return sendPage(reply, twoFactorSetupPage({ viewer, setup }));
  });

  scope.post('/account/two-factor', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, user } = viewerOf(request);
    const code = formFields(request.body).get('code');
    const result = await services.twoFactor.confirm(user.id, code, request.ip);
    if (result.outcome !== 'passed') {
      const setup = await services.twoFactor.setup(user.id);
      if (setup === null) return reply.redirect('/dashboard/account', 303);
      if (result.outcome === 'throttled') {
        void reply.header('retry-after', String(result.retryAfterSeconds));
        const error = tooManyAttempts(result.retryAfterSeconds);
        return sendPage(reply, twoFactorSetupPage({ viewer, setup, error }), 429);
      }
      const error = 'That is not the code the app shows now. Check the app and try again.';
      return sendPage(reply, twoFactorSetupPage({ viewer, setup, error }), 400);
    }
    // The codes are answered once, to this request only (no-store): never stored readable.
    return sendPage(reply, recoveryCodesPage({ viewer, codes: result.value }));
  });

  scope.post('/account/two-factor/disable', { config: MEMBER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, user } = viewerOf(request);
    const code = formFields(request.body).get('code');
    const result = await services.twoFactor.disable(user.id, code, request.ip);
    if (result.outcome === 'passed') return reply.redirect('/dashboard/account?notice=two-factor-off', 303);
    const status = await services.twoFactor.status(user.id);
    if (result.outcome === 'throttled') {
      void reply.header('retry-after', String(result.retryAfterSeconds));
      return sendPage(reply, youPage({ viewer, status, codeError: tooManyAttempts(result.retryAfterSeconds) }), 429);
    }
    return sendPage(
      reply,
      youPage({ viewer, status, codeError: 'That code is not right. Try the one the app shows now.' }),
      400,
    );
  });

  /** Back to the password step: the pending sign-in is gone (its time is up, or it was used). */
  const again = (reply: FastifyReply) => {
    clearTwoFactorCookie(reply, cookies);
    return reply.redirect('/dashboard/sign-in?notice=sign-in-again', 303);
  };

  scope.get('/sign-in/code', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    if ((await services.twoFactor.pending(request.cookies[cookies.twoFactor])) === null) return again(reply);
    return sendPage(reply, signInCodePage({ csrf: preSessionToken(request, reply, cookies) }));
  });

  scope.post('/sign-in/code', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    const code = formFields(request.body).get('code').trim();
    const refuse = (error: string, status: number) =>
      sendPage(reply, signInCodePage({ csrf: preSessionToken(request, reply, cookies), error }), status);
    if (code === '') return refuse('Enter the code your app shows.', 400);
    const result = await services.twoFactor.complete(request.cookies[cookies.twoFactor], code, request.ip);
    switch (result.outcome) {
      case 'expired':
        return again(reply);
      case 'throttled':
        void reply.header('retry-after', String(result.retryAfterSeconds));
        return refuse(tooManyAttempts(result.retryAfterSeconds), 429);
      case 'invalid':
        return refuse('That code is not right. Enter the one your app shows now, or a recovery code.', 400);
      case 'passed':
        clearTwoFactorCookie(reply, cookies);
        await startSession(ctx, reply, result.value.accountId, request.dashboard.token, result.value.userId);
        return reply.redirect('/dashboard', 303);
    }
  });
}
