// Dashboard sign-in: email and password, throttled per client address and per account.
// Failures are rows in the database, so the limits hold however many nodes serve the dashboard.
import { randomUUID } from 'node:crypto';
import { addressGroup } from '../../lib/client-address.ts';
import type { Deps } from '../../deps.ts';
import { normalizeEmail } from '../../lib/email-address.ts';
import type { Account } from './accounts.service.ts';
import { findAccountByEmail } from './accounts.repository.ts';
import { hashPassword, verifyPassword } from './password.ts';
import * as repo from './sign-in.repository.ts';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures allowed per client address in the window (a shared office stays usable). */
export const ADDRESS_LIMIT = 10;
/** Failures allowed per account (the email tried) in the window, from any address. */
export const ACCOUNT_LIMIT = 5;

export type SignInResult =
  | { outcome: 'signed_in'; account: Account }
  /** Unknown email and wrong password alike: the caller must not tell them apart. */
  | { outcome: 'invalid' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface SignInInput {
  email: string;
  password: string;
  /** The client's address as the server sees it. */
  address: string;
}

/** What a throttled password check decided. */
export type Attempt<T> =
  { outcome: 'passed'; value: T } | { outcome: 'invalid' } | { outcome: 'throttled'; retryAfterSeconds: number };

/**
 * The throttle of every password check (sign-in, and the current password when changing it): the
 * same failure rows per client address and per account, so a guesser gains nothing by switching
 * from one form to the other.
 */
export function createSignInThrottle({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  return {
    /** Runs `check` unless over a limit; `check` answers null for a wrong password. */
    async attempt<T>(who: { email: string; address: string }, check: () => Promise<T | null>): Promise<Attempt<T>> {
      const now = clock.now();
      const at = new Date(now).toISOString();
      const since = new Date(now - SIGN_IN_WINDOW_MS).toISOString();
      await repo.deleteFailuresBefore(db.kysely, since);
      const byAccount: repo.Subject = { scope: 'account', subject: normalizeEmail(who.email).slice(0, 320) };
      const limits: [repo.Subject, number][] = [
        [{ scope: 'address', subject: addressGroup(who.address) }, ADDRESS_LIMIT],
        [byAccount, ACCOUNT_LIMIT],
      ];
      // Counted as a failure before the password is checked, so a burst of parallel attempts
      // cannot all slip under the limit; the rows are removed again if this one succeeds.
      const rows = limits.map(([subject]) => ({ ...subject, id: randomUUID(), created_at: at }));
      await repo.insertFailures(db.kysely, rows);
      const ids = rows.map((r) => r.id);

      let retryAt = 0;
      for (const [subject, limit] of limits) {
        const recent = await repo.recentFailures(db.kysely, subject, since, limit);
        if (recent.length <= limit) continue;
        // Without this attempt's own row, the limit-th newest failure is the one whose expiry
        // lets the next attempt through.
        const others = [...recent];
        others.splice(others.indexOf(at), 1);
        const pivot = others[limit - 1] ?? at;
        retryAt = Math.max(retryAt, Date.parse(pivot) + SIGN_IN_WINDOW_MS);
      }
      if (retryAt > 0) {
        // A refused attempt is not a failure: the wait it announces stays true.
        await repo.deleteFailures(db.kysely, ids);
        return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((retryAt - now) / 1000)) };
      }

      const value = await check();
      if (value === null) return { outcome: 'invalid' };
      await repo.deleteFailures(db.kysely, ids);
      await repo.clearSubject(db.kysely, byAccount);
      return { outcome: 'passed', value };
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;

export function createSignInService({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  const throttle = createSignInThrottle({ db, clock });
  // Verified against when the email is unknown, so the time taken does not tell who has an
  // account. Made once, now, in the background: made lazily, the first unknown email would take
  // two hashes' time and stand out.
  const dummyHash = hashPassword(randomUUID());
  // Awaited before first use; a failure then surfaces there, not as an unhandled rejection.
  dummyHash.catch(() => undefined);

  async function check(email: string, password: string): Promise<Account | null> {
    const row = await findAccountByEmail(db.kysely, normalizeEmail(email));
    if (row === undefined) {
      await verifyPassword(password, await dummyHash);
      return null;
    }
    if (!(await verifyPassword(password, row.password_hash))) return null;
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      sender_name: row.sender_name,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  return {
    async signIn(input: SignInInput): Promise<SignInResult> {
      const result = await throttle.attempt(input, () => check(input.email, input.password));
      return result.outcome === 'passed' ? { outcome: 'signed_in', account: result.value } : result;
    },
  };
}
