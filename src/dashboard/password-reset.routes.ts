// "Forgot password?": ask for a link (the same answer whoever asks, the email sent after it),
// then choose a new password with the link, which signs the browser in afresh.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { App } from '../http/types.ts';
import { isEmail } from '../lib/email-address.ts';
import { classifySendError } from '../mail/mailer.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import { RESET_VALID_MS } from '../modules/accounts/password-reset.service.ts';
import { PAGE_ROUTE, sendPage, type DashboardContext } from './page.ts';
import { fieldErrors, formFields } from './form.ts';
import { newPasswordErrors, startSession, tooManyResetRequests } from './session.ts';
import { preSessionToken } from './security.ts';
import type { FieldErrors } from './views/layout.ts';
import { forgotPage, linkInvalidPage, resetPage, resetSentPage } from './views/password-reset.ts';

const ANONYMOUS = { dashboard: 'anonymous' } as const;
const MINUTES = RESET_VALID_MS / 60_000;

/**
 * The link's token is in its URL, and the request log writes URLs: the token is blanked in the
 * URL before anything logs it (the query was read when the route was found).
 */
const redactToken: onRequestHookHandler = (request, _reply, done) => {
  request.raw.url = request.raw.url?.replace(/([?&]token=)[^&#]*/g, '$1[redacted]');
  done();
};

/** How long closing the app waits for reset emails still on their way. */
const CLOSE_WAIT_MS = 5_000;

export function registerPasswordResetRoutes(scope: App, ctx: DashboardContext): void {
  const { services, cookies } = ctx;
  const invalid = (reply: FastifyReply) => sendPage(reply, linkInvalidPage(MINUTES), 410);
  const delivering = new Set<Promise<void>>();

  /**
   * Delivers the link once the answer has gone (the response's 'close'), so the answer takes the
   * same time whether or not there is an account and an email to send. A failure is logged with
   * its reason (an SMTP reply, a database error), never the link.
   */
  function deliverAfterAnswer(request: FastifyRequest, reply: FastifyReply, deliver: () => Promise<boolean>): void {
    reply.raw.once('close', () => {
      const task = deliver().then(
        // For the operator only: the answer never said which.
        (sent) => request.log.info(sent ? 'password reset link emailed' : 'password reset asked for an unknown email'),
        (err: unknown) => request.log.warn({ reason: classifySendError(err).reason }, 'password reset email not sent'),
      );
      delivering.add(task);
      void task.finally(() => delivering.delete(task));
    });
  }

  // Shutting down: emails already promised get a moment to leave (bounded: SMTP may hang).
  scope.addHook('onClose', async () => {
    await Promise.race([Promise.allSettled([...delivering]), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
  });

  scope.get('/forgot-password', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    if (!(await services.accounts.isSetUp())) return reply.redirect('/dashboard/setup', 303);
    return sendPage(reply, forgotPage({ csrf: preSessionToken(request, reply, cookies), email: '' }));
  });

  scope.post('/forgot-password', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    const email = formFields(request.body).get('email').trim();
    const refuse = (error: string, status: number) =>
      sendPage(reply, forgotPage({ csrf: preSessionToken(request, reply, cookies), email, error }), status);
    if (!isEmail(email)) return refuse('Enter an email address like name@example.com.', 400);
    const result = await services.passwordResets.request({ email, address: request.ip });
    if (result.outcome === 'throttled') {
      void reply.header('retry-after', String(result.retryAfterSeconds));
      return refuse(tooManyResetRequests(result.retryAfterSeconds), 429);
    }
    deliverAfterAnswer(request, reply, result.deliver);
    return reply.redirect('/dashboard/forgot-password/sent', 303);
  });

  scope.get('/forgot-password/sent', { config: ANONYMOUS, schema: PAGE_ROUTE }, (_request, reply) =>
    sendPage(reply, resetSentPage(MINUTES)),
  );

  scope.get(
    '/reset-password',
    { config: ANONYMOUS, schema: PAGE_ROUTE, onRequest: redactToken },
    async (request, reply) => {
      const { token } = request.query as { token?: unknown };
      const link = typeof token === 'string' ? token : undefined;
      const holder = await services.passwordResets.inspect(link);
      if (link === undefined || holder === null) return invalid(reply);
      const csrf = preSessionToken(request, reply, cookies);
      return sendPage(
        reply,
        resetPage({ csrf, token: link, email: holder.email, errors: {}, minPassword: MIN_PASSWORD_LENGTH }),
      );
    },
  );

  scope.post('/reset-password', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    const form = formFields(request.body);
    const token = form.get('token');
    const password = form.get('password');
    const holder = await services.passwordResets.inspect(token);
    if (holder === null) return invalid(reply);
    const render = (errors: FieldErrors) =>
      sendPage(
        reply,
        resetPage({
          csrf: preSessionToken(request, reply, cookies),
          token,
          email: holder.email,
          errors,
          minPassword: MIN_PASSWORD_LENGTH,
        }),
        400,
      );
    const errors = newPasswordErrors(password, form.get('password_confirm'));
    if (Object.keys(errors).length > 0) return render(errors);
    let done;
    try {
      done = await services.passwordResets.complete(token, password);
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused !== null) return render(refused);
      throw err;
    }
    // Used meanwhile (another tab, a double click): the link is spent either way.
    if (done === null) return invalid(reply);
    // With two-factor on, the link proves the email, not the phone: sign in with the code.
    const user = await services.team.get(done.accountId, done.userId);
    if (user === null || user.twoFactor) {
      await services.sessions.end(request.dashboard.token);
      return reply.redirect('/dashboard/sign-in?notice=password-reset-sign-in', 303);
    }
    // Every session of the person has ended; this browser, which holds the link, starts afresh.
    await startSession(ctx, reply, done.accountId, request.dashboard.token, done.userId);
    return reply.redirect('/dashboard?notice=password-reset', 303);
  });
}
