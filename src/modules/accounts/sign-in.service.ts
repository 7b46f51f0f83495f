// Dashboard sign-in: email and password, throttled per client address and per account.
// Failures are rows in the database, so the limits hold however many nodes serve the dashboard.
import { randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Deps } from '../../deps.ts';
import { normalizeEmail } from '../../email-address.ts';
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

/**
 * The address a limit applies to. IPv6 hosts usually hold a whole /64, so that is one subject;
 * an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function addressSubject(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export type SignInService = ReturnType<typeof createSignInService>;

export function createSignInService({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  // Verified against when the email is unknown, so the time taken does not tell who has an account.
  let dummyHash: Promise<string> | undefined;
  const dummy = (): Promise<string> => (dummyHash ??= hashPassword(randomUUID()));

  async function check(email: string, password: string): Promise<Account | null> {
    const row = await findAccountByEmail(db.kysely, normalizeEmail(email));
    if (row === undefined) {
      await verifyPassword(password, await dummy());
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
      const now = clock().getTime();
      const at = new Date(now).toISOString();
      const since = new Date(now - SIGN_IN_WINDOW_MS).toISOString();
      await repo.deleteFailuresBefore(db.kysely, since);
      const byAccount: repo.Subject = { scope: 'account', subject: normalizeEmail(input.email).slice(0, 320) };
      const limits: [repo.Subject, number][] = [
        [{ scope: 'address', subject: addressSubject(input.address) }, ADDRESS_LIMIT],
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

      const account = await check(input.email, input.password);
      if (account === null) return { outcome: 'invalid' };
      await repo.deleteFailures(db.kysely, ids);
      await repo.clearSubject(db.kysely, byAccount);
      return { outcome: 'signed_in', account };
    },
  };
}
