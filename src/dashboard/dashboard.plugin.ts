// The admin dashboard at /dashboard: server-rendered pages over the same services as the API.
// It lives in its own Fastify scope, so form parsing, cookies and HTML errors stay here and the
// /v1 JSON behaviour is untouched. Pages never run SQL: every read and write is a service call.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { statusOf } from '../http/error-handler.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { sameToken } from '../modules/accounts/sessions.service.ts';
import { findAsset } from './assets.ts';
import { registerAssignmentRoutes } from './assignments.routes.ts';
import { registerClientsRoutes } from './clients.routes.ts';
import { registerGalleriesRoutes } from './galleries.routes.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import { formOf, parseForm } from './form.ts';
import { PAGE_ROUTE, sendPage, viewerFor, viewerOf, type DashboardContext, type DashboardState } from './page.ts';
import { noticeOf } from './notices.ts';
import { clearSessionCookie, cookiePolicy, fromThisSite, preSessionTokenValid, setPageHeaders } from './security.ts';
import { registerMlsProfilesRoutes } from './mls-profiles.routes.ts';
import { registerPasswordResetRoutes } from './password-reset.routes.ts';
import { registerProductsRoutes } from './products.routes.ts';
import { registerSettingsRoutes } from './settings.routes.ts';
import { registerTeamRoutes } from './team.routes.ts';
import { registerStripeSettingsRoutes } from './stripe.routes.ts';
import { registerTwoFactorRoutes } from './two-factor.routes.ts';
import { registerWebhooksRoutes } from './webhooks.routes.ts';
import { errorPage } from './views/errors.ts';
import { overviewPage } from './views/overview.ts';

/** Not an HTTP status: the key of the words of a member's 403 (an owner-only page). */
const OWNER_ONLY_STATUS = 4031;
/** The message of the AppError a member's request to an owner-only route is refused with. */
const OWNER_ONLY = 'Only the studio owner may use this page';

const ERROR_TEXT: Record<number, [string, string]> = {
  400: ['Something is wrong with that request', 'The page could not understand what was sent. Go back and try again.'],
  403: [
    'That form could not be accepted',
    'It was open too long, or it did not come from this dashboard. Go back, reload the page and try again.',
  ],
  [OWNER_ONLY_STATUS]: [
    "That page is the studio owner's",
    'API keys, webhooks, the team, the studio settings, products and invoices are for the owner of the studio. Ask them if you need something changed there.',
  ],
  404: ['Page not found', 'There is no such page, or what it showed no longer exists.'],
  405: ['Page not found', 'There is no such page.'],
  413: ['That was too large', 'The form sent was larger than the dashboard accepts.'],
  415: ['That could not be read', 'This page accepts only forms sent from the dashboard.'],
  500: ['Something went wrong', 'Something went wrong on our side. Try again in a moment.'],
  503: ['Lightbox is unavailable', 'The service is unavailable right now. Try again shortly.'],
};

function errorReply(request: FastifyRequest, reply: FastifyReply, status: number, ownerOnly = false): FastifyReply {
  const text = ownerOnly ? ERROR_TEXT[OWNER_ONLY_STATUS] : ERROR_TEXT[status];
  const [title, message] = text ?? ERROR_TEXT[status < 500 ? 400 : 500] ?? ['Error', ''];
  const state = request.dashboard as DashboardState | null;
  const viewer =
    state?.account && state.session && state.user ? viewerFor(state.account, state.session, state.user) : null;
  return sendPage(reply, errorPage({ title, message, viewer, requestId: request.id }), status);
}

export async function registerDashboard(
  scope: App,
  services: Services,
  { config, clock }: Pick<Deps, 'config' | 'clock'>,
): Promise<void> {
  const ctx: DashboardContext = { services, config, clock, cookies: cookiePolicy(config.publicUrl) };
  await scope.register(cookie);
  // Forms only, and small: the largest form is a few hundred bytes. Any other body is 415.
  scope.removeAllContentTypeParsers();
  await scope.register(formbody, { parser: parseForm, bodyLimit: 16 * 1024 });
  scope.decorateRequest('dashboard', null as never);
  // Before anything else, so redirects and early refusals carry them too.
  scope.addHook('onRequest', (_request, reply, done) => {
    setPageHeaders(reply);
    done();
  });

  scope.addHook('preHandler', async (request, reply) => {
    const access = request.routeOptions.config.dashboard ?? 'member';
    if (access === 'asset') return;
    const token = request.cookies[ctx.cookies.session];
    const session = await services.sessions.authenticate(token);
    // The account may be gone (deleted by an operator), or the person removed from its team;
    // any other failure is a real error.
    const user = session === null ? null : await services.team.get(session.accountId, session.userId);
    const account =
      user === null || session === null
        ? null
        : await services.accounts.get(session.accountId).catch((err: unknown) => {
            if (err instanceof AppError && err.code === 'not_found') return null;
            throw err;
          });
    request.dashboard = {
      token,
      session: account === null ? null : session,
      account,
      user: account === null ? null : user,
    };
    // A cookie that no longer signs anyone in is removed, so the browser stops sending it.
    if (token !== undefined && account === null) clearSessionCookie(reply, ctx.cookies);
    // No such page: a plain 404 for everyone (with the navigation when signed in).
    if (request.is404) return;

    if (request.method === 'POST') {
      if (!fromThisSite(request, config.publicUrl)) throw new AppError('forbidden', 'Cross-site form post');
      // An upload's body is streamed, unread until now: its handler checks the token before any file.
      if (request.routeOptions.config.streamedBody === true && (access === 'member' || access === 'owner')) {
        if (session === null || account === null) {
          void reply.header('connection', 'close');
          return reply.redirect('/dashboard/sign-in?notice=session-ended', 303);
        }
        if (access === 'owner' && user?.role !== 'owner') {
          void reply.header('connection', 'close');
          throw new AppError('forbidden', OWNER_ONLY);
        }
        return;
      }
      const form = formOf(request.body);
      if (form === null) throw new AppError('unsupported_media_type', 'Send a form');
      if (access === 'anonymous') {
        if (!preSessionTokenValid(request, ctx.cookies, form.optional('_csrf'))) {
          throw new AppError('forbidden', 'Missing or wrong form token');
        }
        return;
      }
      // Signed out meanwhile (elsewhere, or the session ran out): nothing is done; sign in again.
      if (session === null || account === null) return reply.redirect('/dashboard/sign-in?notice=session-ended', 303);
      if (!sameToken(session.csrfToken, form.optional('_csrf'))) {
        throw new AppError('forbidden', 'Missing or wrong form token');
      }
      if (access === 'owner' && user?.role !== 'owner') throw new AppError('forbidden', OWNER_ONLY);
      return;
    }
    if ((access === 'member' || access === 'owner') && account === null) {
      const next = (await services.accounts.isSetUp()) ? '/dashboard/sign-in' : '/dashboard/setup';
      return reply.redirect(next, 303);
    }
    // docs/api.md §27: a member is told the page is the owner's (the navigation never links to it).
    if (access === 'owner' && user?.role !== 'owner') throw new AppError('forbidden', OWNER_ONLY);
  });

  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = statusOf(error, request);
    if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
    // The refusal's own headers (Accept-Encoding, and Connection: close for an unread body).
    if (error instanceof AppError) void reply.headers(error.headers);
    return errorReply(request, reply, status, error instanceof AppError && error.message === OWNER_ONLY);
  });
  scope.setNotFoundHandler((request, reply) => errorReply(request, reply, 404));

  scope.get('/assets/:file', { config: { dashboard: 'asset' }, schema: PAGE_ROUTE }, (request, reply) => {
    const asset = findAsset((request.params as { file: string }).file);
    if (asset === undefined) return errorReply(request, reply, 404);
    return reply
      .headers({
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      })
      .send(asset.body);
  });

  scope.get('/', { config: { dashboard: 'member' }, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account, user } = viewerOf(request);
    const [counts, keys, notifications, assignments] = await Promise.all([
      services.counts.counts(account.id),
      // A member does not see the keys (docs/api.md §27), not even how many there are.
      user.role === 'owner' ? services.apiKeys.list(account.id) : null,
      services.notifications.latest(account.id, 10),
      services.clientLinks.latest(account.id, 10),
    ]);
    const data = { counts, keys: keys === null ? null : keys.length, notifications, assignments };
    return sendPage(reply, overviewPage({ viewer, data, notice: noticeOf(request) }));
  });

  registerAuthRoutes(scope, ctx);
  registerPasswordResetRoutes(scope, ctx);
  registerSettingsRoutes(scope, ctx);
  registerStripeSettingsRoutes(scope, ctx);
  registerAssignmentRoutes(scope, ctx);
  registerWebhooksRoutes(scope, ctx);
  registerGalleriesRoutes(scope, ctx);
  registerClientsRoutes(scope, ctx);
  registerProductsRoutes(scope, ctx);
  registerMlsProfilesRoutes(scope, ctx);
  registerTeamRoutes(scope, ctx);
  registerTwoFactorRoutes(scope, ctx);
}
