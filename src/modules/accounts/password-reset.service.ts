// "Forgot password?": a single-use link by email, valid for 30 minutes, of which only the SHA-256
// of its token is stored. Asking for one answers the same whether or not the email has an
// account, and is throttled like sign-in (per address and per account, a budget of its own).
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { isoAt } from '../../lib/clock.ts';
import { normalizeEmail } from '../../lib/email-address.ts';
import { checkNewPassword, storeNewPassword } from './accounts.service.ts';
import { findAccount } from './accounts.repository.ts';
import { findUser, findUserByEmail } from './users.repository.ts';
import { hashPassword } from './password.ts';
import { sendPasswordResetEmail } from './password-reset.email.ts';
import * as repo from './password-reset.repository.ts';
import { newToken, TOKEN_SHAPE } from './sessions.service.ts';
import { createSignInThrottle } from './sign-in.service.ts';

export const RESET_VALID_MS = 30 * 60_000;

/** The token is 32 random bytes (256 bits, base64url); only this hash of it is stored. */
const hashResetToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export type ResetRequest =
  | { outcome: 'throttled'; retryAfterSeconds: number }
  /**
   * Answer at once, then call `deliver` (after the answer is on its way). Everything that
   * depends on whether the email has an account (the lookup, the stored link, the email) happens
   * there, so the answer is the same, and takes the same time, either way.
   */
  | { outcome: 'accepted'; deliver: () => Promise<boolean> };

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

export function createPasswordResetService(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'mailer'> & { writes: Writes },
) {
  const { db, clock, config, writes } = deps;
  const throttle = createSignInThrottle({ db, clock }, 'reset');
  const signInThrottle = createSignInThrottle({ db, clock });
  const linkBase = new URL('/dashboard/reset-password', config.publicUrl);

  /** The person a link is for while it is valid, or undefined. */
  async function liveUser(token: string | undefined): Promise<string | undefined> {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
    return repo.findLiveReset(db.kysely, hashResetToken(token), clock.iso());
  }

  /** Stores a new link for the email's account, if it has one, and emails it: true if it did. */
  async function issue(email: string): Promise<boolean> {
    const now = clock.now();
    await repo.deleteExpiredResets(db.kysely, isoAt(now));
    const user = await findUserByEmail(db.kysely, normalizeEmail(email));
    const account = user === undefined ? undefined : await findAccount(db.kysely, user.account_id);
    if (user === undefined || account === undefined) return false;
    // Earlier links stay valid until they expire: emails arrive out of order, and any of them
    // should work. Using one (or setting the password any other way) ends them all.
    const token = newToken();
    await repo.insertReset(db.kysely, {
      token_hash: hashResetToken(token),
      account_id: account.id,
      user_id: user.id,
      created_at: isoAt(now),
      expires_at: isoAt(now + RESET_VALID_MS),
    });
    const url = new URL(linkBase);
    url.searchParams.set('token', token);
    await sendPasswordResetEmail(deps, {
      to: user.email,
      studioName: account.name,
      resetUrl: url.toString(),
      validMinutes: RESET_VALID_MS / 60_000,
    });
    return true;
  }

  return {
    async request(input: { email: string; address: string }): Promise<ResetRequest> {
      const counted = await throttle.count(input);
      if (counted.outcome === 'throttled') return counted;
      return { outcome: 'accepted', deliver: () => issue(input.email) };
    },

    /** Whose password a link would set (for the form), or null when it is no longer valid. */
    async inspect(token: string | undefined): Promise<{ email: string } | null> {
      const userId = await liveUser(token);
      const user = userId === undefined ? undefined : await findUser(db.kysely, userId);
      return user === undefined ? null : { email: user.email };
    },

    /**
     * Sets the new password with a link, once: the link is used up in the same transaction, and
     * every session and every other link of the account end with it. Resolves to the account,
     * or null when the link is no longer valid; a password that breaks the rules is a
     * validation_error on `password` and leaves the link as it was.
     */
    async complete(token: string | undefined, password: string): Promise<{ accountId: string; userId: string } | null> {
      const userId = await liveUser(token);
      const user = userId === undefined ? undefined : await findUser(db.kysely, userId);
      if (token === undefined || user === undefined) return null;
      checkNewPassword('password', password);
      const hash = await hashPassword(password); // slow: never inside the transaction
      const now = clock.iso();
      const done = await writes.run(user.account_id, { now }, async ({ trx }) => {
        if (!(await repo.consumeReset(trx, hashResetToken(token), now))) return false;
        await storeNewPassword(trx, user.id, hash, now);
        return true;
      });
      if (!done) return null;
      // Whoever holds the link controls the email: the person's sign-in lock (if any) is lifted.
      await signInThrottle.forgive(user.email);
      return { accountId: user.account_id, userId: user.id };
    },
  };
}
