// What every dashboard route stands on: who may use it, the request's sign-in state, the context
// the routes are built from, and how a page is sent with the signed-in holder in its frame.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../errors.ts';
import type { Account } from '../modules/accounts/accounts.service.ts';
import type { Session } from '../modules/accounts/sessions.service.ts';
import type { User } from '../modules/accounts/team.service.ts';
import type { SafeHtml } from '../lib/html.ts';
import { setPageHeaders, type CookiePolicy } from './security.ts';
import type { Viewer } from './views/layout.ts';

/**
 * Who may use a route: anyone (assets), the signed-out (setup, sign-in), anyone signed in
 * ('member': galleries, clients, one's own sign-in), or the studio's owner only ('owner': keys,
 * webhooks, the team and the studio's settings; docs/api.md §27). A member is answered 403.
 */
export type Access = 'asset' | 'anonymous' | 'member' | 'owner';

export interface DashboardState {
  /** The session cookie's token as sent, whether or not it is still valid. */
  token: string | undefined;
  session: Session | null;
  account: Account | null;
  /** The person signed in (the owner or a member of the studio's team). */
  user: User | null;
}

export interface DashboardContext {
  services: Services;
  config: Config;
  clock: Clock;
  cookies: CookiePolicy;
}

/** Dashboard routes are pages and forms, not API operations: hidden from the OpenAPI document. */
export const PAGE_ROUTE = { hide: true } as const;

export function sendPage(reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  setPageHeaders(reply);
  return reply.code(status).type('text/html; charset=utf-8').send(body.toString());
}

/** The page frame's view of who is signed in. */
export const viewerFor = (account: Account, session: Session, user: User): Viewer => ({
  studioName: account.name,
  email: user.email,
  csrfToken: session.csrfToken,
  role: user.role,
  userId: user.id,
});

/** The signed-in holder, for the page frame. Only called on member and owner routes. */
export function viewerOf(request: FastifyRequest): { viewer: Viewer; account: Account; session: Session; user: User } {
  const { account, session, user } = request.dashboard;
  if (account === null || session === null || user === null) throw new AppError('unauthorized', 'Sign in first');
  return { viewer: viewerFor(account, session, user), account, session, user };
}
