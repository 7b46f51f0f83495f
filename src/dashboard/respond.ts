// What every dashboard route shares: the request's sign-in state, how a page is sent, and
// how a refused form is read back.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../errors.ts';
import type { Account } from '../modules/accounts/accounts.service.ts';
import type { Session } from '../modules/accounts/sessions.service.ts';
import type { User } from '../modules/accounts/team.service.ts';
import { formOf, type FormFields } from './form.ts';
import type { SafeHtml } from '../lib/html.ts';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import { setPageHeaders, setSessionCookie, type CookiePolicy } from './security.ts';
import type { FieldErrors, Notice, Viewer } from './views/layout.ts';

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

/** After a new key's redirect: the page shows the key instead, when this session still holds it. */
export const KEY_CREATED: Notice = { kind: 'success', text: 'Your new API key is ready.' };
/** The same page again (a reload, Back, another tab): the key is not there to show. */
export const KEY_SHOWN_ONCE: Notice = {
  kind: 'info',
  text: 'A new key is shown only once, on the page right after it is generated. If it was not copied, revoke it below and generate another.',
};

/** After a new endpoint's or a rotation's redirect: the page shows the secret instead, when held. */
export const WEBHOOK_SECRET_READY: Notice = { kind: 'success', text: 'The signing secret is ready.' };
export const WEBHOOK_SECRET_SHOWN_ONCE: Notice = {
  kind: 'info',
  text: 'A signing secret is shown only once, on the page right after it is made. If it was not copied, rotate the secret to get a new one.',
};

const NOTICES: Record<string, Notice> = {
  'key-created': KEY_CREATED,
  'webhook-created': WEBHOOK_SECRET_READY,
  'webhook-rotated': WEBHOOK_SECRET_READY,
  'webhook-enabled': { kind: 'success', text: 'The endpoint is enabled: events are sent to it again.' },
  'webhook-disabled': {
    kind: 'success',
    text: 'The endpoint is disabled: nothing is sent to it, and its pending retries wait until it is enabled.',
  },
  'webhook-test-sent': {
    kind: 'success',
    text: 'A webhook.test event is on its way. Its delivery is listed under the endpoint: reload to see how it went.',
  },
  'webhook-test-disabled': { kind: 'error', text: 'That endpoint is disabled: enable it to send it a test event.' },
  'webhook-retried': { kind: 'success', text: 'The delivery is being sent again now. Reload to see how it went.' },
  'webhook-deleted': { kind: 'success', text: 'The endpoint was deleted. Nothing more is sent to it.' },
  welcome: { kind: 'success', text: 'Your studio is set up and you are signed in.' },
  'signed-out': { kind: 'info', text: 'You have signed out.' },
  'session-ended': { kind: 'info', text: 'Your session has ended. Sign in again to continue.' },
  'already-set-up': { kind: 'info', text: 'This Lightbox is already set up. Sign in with your studio account.' },
  'key-revoked': { kind: 'success', text: 'The key was revoked. Requests that use it are now refused.' },
  'test-data-deleted': {
    kind: 'success',
    text: 'All test data was deleted. Your live data is as it was; test keys carry on, on empty test data.',
  },
  'studio-saved': { kind: 'success', text: 'Studio settings saved.' },
  'link-saved': { kind: 'success', text: 'Link settings saved. The client meets them on their next visit.' },
  'link-refused': {
    kind: 'error',
    text: 'Those link settings were not saved: the expiry must be a future day and a password 8 to 200 characters.',
  },
  'email-resent': {
    kind: 'success',
    text: 'The gallery email is on its way to the client again. It is listed under Latest notification emails.',
  },
  'password-changed': { kind: 'success', text: 'Password changed. Every other session has been signed out.' },
  'invitation-sent': { kind: 'success', text: 'The invitation is on its way. Its link works for 7 days.' },
  'invitation-revoked': { kind: 'success', text: 'The invitation was withdrawn: its link no longer works.' },
  'member-removed': { kind: 'success', text: 'The member was removed and signed out everywhere.' },
  'two-factor-reset': {
    kind: 'success',
    text: 'Two-factor sign-in is off for that person, and they were signed out. They can set it up again.',
  },
  'two-factor-off': { kind: 'success', text: 'Two-factor sign-in is off. Your password alone signs you in.' },
  joined: { kind: 'success', text: 'Welcome to the team: you are signed in.' },
  'sign-in-again': { kind: 'info', text: 'Your sign-in took too long. Sign in again.' },
  'password-reset-sign-in': {
    kind: 'success',
    text: 'Your new password is set. Every session has been signed out: sign in with it and your code.',
  },
  'password-reset': {
    kind: 'success',
    text: 'Your new password is set and you are signed in. Every other session has been signed out.',
  },
};

/** The message a redirect asked for (`?notice=`), from a fixed list: a URL cannot inject text. */
export function noticeOf(request: FastifyRequest): Notice | null {
  const code = (request.query as Record<string, unknown> | undefined)?.notice;
  return typeof code === 'string' ? (NOTICES[code] ?? null) : null;
}

/** Past a sign-in limit: the words of every throttled password form (sign-in, password change). */
export function tooManyAttempts(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

/** Too many reset links asked for (this address or this email): the forgot form's 429 words. */
export function tooManyResetRequests(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many reset links asked for. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

/** A new password and its repetition, in the words of the setup and reset forms. */
export function newPasswordErrors(password: string, confirm: string): FieldErrors {
  if (password.length < MIN_PASSWORD_LENGTH) return { password: `Use at least ${MIN_PASSWORD_LENGTH} characters` };
  if (password.length > 1024) return { password: 'Use at most 1024 characters' };
  if (confirm !== password) return { password_confirm: 'The two passwords are not the same' };
  return {};
}

/**
 * Signs the browser in on a fresh session. The token it came with (if any) ends first: a token
 * planted before sign-in (fixation) signs nobody in.
 */
export async function startSession(
  ctx: DashboardContext,
  reply: FastifyReply,
  accountId: string,
  oldToken: string | undefined,
  userId?: string,
): Promise<void> {
  await ctx.services.sessions.end(oldToken);
  const { token } = await ctx.services.sessions.create(accountId, userId);
  setSessionCookie(reply, ctx.cookies, token);
}

/** The preHandler has already refused anything but a form on POST routes. */
export function formFields(body: unknown): FormFields {
  const form = formOf(body);
  if (form === null) throw new AppError('unsupported_media_type', 'Send a form');
  return form;
}

/** Service validation errors, by field, for a form that re-renders itself. */
export function fieldErrors(err: unknown, rename: Record<string, string> = {}): FieldErrors | null {
  if (!(err instanceof AppError) || err.code !== 'validation_error') return null;
  const errors: FieldErrors = {};
  for (const d of err.details ?? []) errors[rename[d.field] ?? d.field] = d.message;
  return errors;
}
