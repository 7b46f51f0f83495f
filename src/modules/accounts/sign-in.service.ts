// Dashboard sign-in: email and password, throttled per client address and per account.
// Failures are rows in the database, so the limits hold however many nodes serve the dashboard.
import { randomUUID } from 'node:crypto';
import { addressGroup } from '../../lib/client-address.ts';
import type { Deps } from '../../deps.ts';
import { normalizeEmail } from '../../lib/email-address.ts';
import { findAccount, type Account } from './accounts.repository.ts';
import { findUserByEmail, type UserRow } from './users.repository.ts';
import { passwordHasher, verifyPassword } from '../../lib/password.ts';
import * as repo from './sign-in.repository.ts';
import type { SignInScope } from '../../db/schema.ts';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failures allowed per client address in the window (a shared office stays usable). */
export const ADDRESS_LIMIT = 10;
/** Failures allowed per account (the email tried) in the window, from any address. */
export const ACCOUNT_LIMIT = 5;

export type SignInResult =
  /** The password was right; `user.totp_enabled` says whether a code must follow. */
  | { outcome: 'signed_in'; account: Account; user: UserRow }
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
 * What a throttle counts: password checks (sign-in, and the current password when changing it),
 * or requests for a reset link. Each has its own budget, with the same limits: an owner who got
 * the password wrong five times can still ask for a link, and link requests lock nobody out.
 */
export type ThrottlePurpose = 'sign_in' | 'reset';

const SCOPES: Record<ThrottlePurpose, { address: SignInScope; account: SignInScope }> = {
  sign_in: { address: 'address', account: 'account' },
  reset: { address: 'reset_address', account: 'reset_account' },
};

/**
 * The throttle of every password check (sign-in, and the current password when changing it): the
 * same failure rows per client address and per account, so a guesser gains nothing by switching
 * from one form to the other. With purpose `reset`, the same rules over a budget of their own.
 */
export function createSignInThrottle({ db, clock }: Pick<Deps, 'db' | 'clock'>, purpose: ThrottlePurpose = 'sign_in') {
  const scopes = SCOPES[purpose];

  /** Counts one try against both limits; refused (and not counted) when either is spent. */
  async function claim(who: { email: string; address: string }) {
    const now = clock.now();
    const at = new Date(now).toISOString();
    const since = new Date(now - SIGN_IN_WINDOW_MS).toISOString();
    await repo.deleteFailuresBefore(db.kysely, since);
    const byAccount: repo.Subject = { scope: scopes.account, subject: normalizeEmail(who.email).slice(0, 320) };
    const limits: [repo.Subject, number][] = [
      [{ scope: scopes.address, subject: addressGroup(who.address) }, ADDRESS_LIMIT],
      [byAccount, ACCOUNT_LIMIT],
    ];
    // Counted before the password is checked, so a burst of parallel attempts cannot all slip
    // under the limit; the rows are removed again if this one succeeds.
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
      return { throttled: true as const, retryAfterSeconds: Math.max(1, Math.ceil((retryAt - now) / 1000)) };
    }
    return { throttled: false as const, ids, byAccount };
  }

  return {
    /**
     * Runs `check` unless over a limit; `check` answers null for a wrong password. A pass forgets
     * the account's earlier failures, unless `forgive` says no: a right password followed by a
     * second factor still to come proves too little to reset the count of wrong codes.
     */
    async attempt<T>(
      who: { email: string; address: string },
      check: () => Promise<T | null>,
      forgive: (value: T) => boolean = () => true,
    ): Promise<Attempt<T>> {
      const claimed = await claim(who);
      if (claimed.throttled) return { outcome: 'throttled', retryAfterSeconds: claimed.retryAfterSeconds };
      const value = await check();
      if (value === null) return { outcome: 'invalid' };
      await repo.deleteFailures(db.kysely, claimed.ids);
      if (forgive(value)) await repo.clearSubject(db.kysely, claimed.byAccount);
      return { outcome: 'passed', value };
    },

    /**
     * Counts a try that has no right or wrong answer (a reset link asked for): every one uses up
     * the budget, whether or not the email has an account, so the limit tells nothing either.
     */
    async count(who: {
      email: string;
      address: string;
    }): Promise<{ outcome: 'counted' } | { outcome: 'throttled'; retryAfterSeconds: number }> {
      const claimed = await claim(who);
      return claimed.throttled
        ? { outcome: 'throttled', retryAfterSeconds: claimed.retryAfterSeconds }
        : { outcome: 'counted' };
    },

    /** Forgets an account's failures (its owner proved who they are another way). */
    async forgive(email: string): Promise<void> {
      await repo.clearSubject(db.kysely, { scope: scopes.account, subject: normalizeEmail(email).slice(0, 320) });
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;

export function createSignInService({
  db,
  clock,
  passwords = passwordHasher(),
}: Pick<Deps, 'db' | 'clock'> & Partial<Pick<Deps, 'passwords'>>) {
  const throttle = createSignInThrottle({ db, clock });
  // Verified against when the email is unknown, so the time taken does not tell who has an
  // account. Made once, now, in the background: made lazily, the first unknown email would take
  // two hashes' time and stand out.
  const dummyHash = passwords.hash(randomUUID());
  // Awaited before first use; a failure then surfaces there, not as an unhandled rejection.
  dummyHash.catch(() => undefined);

  async function check(email: string, password: string): Promise<{ account: Account; user: UserRow } | null> {
    const user = await findUserByEmail(db.kysely, normalizeEmail(email));
    const row = user === undefined ? undefined : await findAccount(db.kysely, user.account_id);
    if (user === undefined || row === undefined) {
      await verifyPassword(password, await dummyHash);
      return null;
    }
    if (!(await verifyPassword(password, user.password_hash))) return null;
    const account: Account = {
      id: row.id,
      name: row.name,
      email: row.email,
      sender_name: row.sender_name,
      currency: row.currency,
      created_at: row.created_at,
      updated_at: row.updated_at,
      livemode: true,
    };
    return { account, user };
  }

  return {
    async signIn(input: SignInInput): Promise<SignInResult> {
      const result = await throttle.attempt(
        input,
        () => check(input.email, input.password),
        (passed) => passed.user.totp_enabled === 0,
      );
      return result.outcome === 'passed' ? { outcome: 'signed_in', ...result.value } : result;
    },
  };
}
