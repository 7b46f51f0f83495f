// Signing in and passwords, in the words of the dashboard's forms: a fresh session, the throttled
// forms' 429 words, and a new password checked with its repetition.
import type { FastifyReply } from 'fastify';
import { MIN_PASSWORD_LENGTH } from '../modules/accounts/accounts.service.ts';
import type { DashboardContext } from './page.ts';
import { setSessionCookie } from './security.ts';
import type { FieldErrors } from './views/layout.ts';

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
