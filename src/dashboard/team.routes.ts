// Settings > Team (docs/api.md §27), the owner's: invite by email, withdraw an invitation, remove
// a member (signed out at once), turn a member's two-factor off. And the invitation's link, for
// the person invited: choose a password and join, signed in.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from '../http/types.ts';
import { hasIdShape } from '../lib/ids.ts';
import { classifySendError } from '../mail/mailer.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import { INVITATION_VALID_MS, type User } from '../modules/accounts/team.service.ts';
import { PAGE_ROUTE, sendPage, viewerOf, type DashboardContext } from './page.ts';
import { fieldErrors, formFields } from './form.ts';
import { newPasswordErrors, startSession } from './session.ts';
import { noticeOf } from './notices.ts';
import { preSessionToken } from './security.ts';
import type { FieldErrors } from './views/layout.ts';
import { acceptPage, invitationInvalidPage, removeMemberPage, teamPage } from './views/team.ts';

const OWNER = { dashboard: 'owner' } as const;
const ANONYMOUS = { dashboard: 'anonymous' } as const;
const DAYS = INVITATION_VALID_MS / 86_400_000;

/** The link's token is in its URL: blanked before the request log writes the URL. */
const redactToken: onRequestHookHandler = (request, _reply, done) => {
  request.raw.url = request.raw.url?.replace(/([?&]token=)[^&#]*/g, '$1[redacted]');
  done();
};

export function registerTeamRoutes(scope: App, ctx: DashboardContext): void {
  const { services, cookies } = ctx;

  /** A member of the owner's own team; anyone else (or the owner) is simply not found. */
  async function memberOf(request: FastifyRequest, accountId: string): Promise<User> {
    const { id } = request.params as { id: string };
    const user = hasIdShape('usr', id) ? await services.team.get(accountId, id) : null;
    if (user?.role !== 'member') throw new AppError('not_found', 'No such member');
    return user;
  }

  async function renderTeam(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { email?: string; errors?: FieldErrors } = {},
  ) {
    const { viewer, account } = viewerOf(request);
    const { users, invitations } = await services.team.list(account.id);
    const status = extra.errors === undefined ? 200 : 400;
    return sendPage(reply, teamPage({ viewer, users, invitations, notice: noticeOf(request), ...extra }), status);
  }

  scope.get('/settings/team', { config: OWNER, schema: PAGE_ROUTE }, (request, reply) => renderTeam(request, reply));

  scope.post('/settings/team', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account, user } = viewerOf(request);
    const email = formFields(request.body).get('email').trim();
    try {
      await services.team.invite(account.id, { email, invitedBy: user.email });
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused !== null) {
        const words =
          refused.email === 'already signs in to a Lightbox team'
            ? 'That email already signs in to a Lightbox team'
            : 'Enter an email address like name@example.com';
        return renderTeam(request, reply, { email, errors: { email: words } });
      }
      if (err instanceof AppError) throw err;
      // Saved, but the email did not leave: the invitation is listed, and inviting again resends.
      request.log.warn({ reason: classifySendError(err).reason }, 'invitation email not sent');
      return renderTeam(request, reply, {
        email,
        errors: { email: 'The invitation email could not be sent. Try again in a moment.' },
      });
    }
    return reply.redirect('/dashboard/settings/team?notice=invitation-sent', 303);
  });

  scope.post('/settings/team/invitations/:id/revoke', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const { id } = request.params as { id: string };
    if (!hasIdShape('inv', id)) throw new AppError('not_found', 'No such invitation');
    await services.team.revokeInvitation(account.id, id);
    return reply.redirect('/dashboard/settings/team?notice=invitation-revoked', 303);
  });

  scope.get('/settings/team/:id/remove', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { viewer, account } = viewerOf(request);
    return sendPage(reply, removeMemberPage({ viewer, member: await memberOf(request, account.id) }));
  });

  scope.post('/settings/team/:id/remove', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const member = await memberOf(request, account.id);
    await services.team.removeMember(account.id, member.id);
    return reply.redirect('/dashboard/settings/team?notice=member-removed', 303);
  });

  scope.post('/settings/team/:id/reset-2fa', { config: OWNER, schema: PAGE_ROUTE }, async (request, reply) => {
    const { account } = viewerOf(request);
    const member = await memberOf(request, account.id);
    await services.twoFactor.reset(member.id);
    return reply.redirect('/dashboard/settings/team?notice=two-factor-reset', 303);
  });

  const invalid = (reply: FastifyReply) => sendPage(reply, invitationInvalidPage(DAYS), 410);

  scope.get(
    '/invitations/accept',
    { config: ANONYMOUS, schema: PAGE_ROUTE, onRequest: redactToken },
    async (request, reply) => {
      const { token } = request.query as { token?: unknown };
      const link = typeof token === 'string' ? token : undefined;
      const invitation = await services.team.inspectInvitation(link);
      if (link === undefined || invitation === null) return invalid(reply);
      const csrf = preSessionToken(request, reply, cookies);
      return sendPage(
        reply,
        acceptPage({ csrf, token: link, ...invitation, errors: {}, minPassword: MIN_PASSWORD_LENGTH }),
      );
    },
  );

  scope.post('/invitations/accept', { config: ANONYMOUS, schema: PAGE_ROUTE }, async (request, reply) => {
    const form = formFields(request.body);
    const token = form.get('token');
    const password = form.get('password');
    const invitation = await services.team.inspectInvitation(token);
    if (invitation === null) return invalid(reply);
    const render = (errors: FieldErrors) =>
      sendPage(
        reply,
        acceptPage({
          csrf: preSessionToken(request, reply, cookies),
          token,
          ...invitation,
          errors,
          minPassword: MIN_PASSWORD_LENGTH,
        }),
        400,
      );
    const errors = newPasswordErrors(password, form.get('password_confirm'));
    if (Object.keys(errors).length > 0) return render(errors);
    let joined: User | null;
    try {
      joined = await services.team.acceptInvitation(token, password);
    } catch (err) {
      const refused = fieldErrors(err);
      if (refused !== null) return render(refused);
      if (err instanceof AppError && err.code === 'conflict') return invalid(reply);
      throw err;
    }
    if (joined === null) return invalid(reply);
    await startSession(ctx, reply, joined.accountId, request.dashboard.token, joined.id);
    return reply.redirect('/dashboard?notice=joined', 303);
  });
}
