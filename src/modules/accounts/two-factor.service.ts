// docs/api.md §27: two-factor sign-in. TOTP (RFC 6238, totp.ts) set up by scanning a QR code the
// app draws (qr.ts), confirmed with a first code; then 10 one-time recovery codes, shown once and
// kept as SHA-256 hashes. At sign-in, a right password leaves a challenge (a cookie of its own)
// that a code completes; code attempts count against the same sign-in limits as passwords.
import { createHash, randomInt } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { notFound } from '../../errors.ts';
import { isoAt } from '../../lib/clock.ts';
import { normalizeEmail } from '../../lib/email-address.ts';
import { findAccount } from './accounts.repository.ts';
import type { SafeHtml } from '../../lib/html.ts';
import { qrSvg } from './qr.ts';
import { seal, sealingKey, unseal } from './sealing.ts';
import { newToken, TOKEN_SHAPE } from './sessions.service.ts';
import { createSignInThrottle, type Attempt } from './sign-in.service.ts';
import { groupedSecret, matchingStep, newTotpSecret, otpauthUri } from './totp.ts';
import * as repo from './users.repository.ts';

const RECOVERY_CODE_COUNT = 10;
/** How long a sign-in waits for its code after the right password. */
export const CHALLENGE_VALID_MS = 10 * 60_000;

// 31 characters, none that reads like another (no 0/o, 1/l/i): 10 of them hold 49 bits.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i += 1) code += RECOVERY_ALPHABET.charAt(randomInt(RECOVERY_ALPHABET.length));
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

/** Salted with the person's id: the same code of two people hashes apart. */
const hashRecoveryCode = (userId: string, code: string): string =>
  createHash('sha256')
    .update(`${userId}:${normalizeRecoveryCode(code)}`)
    .digest('hex');

const hashChallenge = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface TwoFactorSetup {
  /** The secret in groups of four, for typing into an app by hand. */
  secret: string;
  /** The QR code of the otpauth:// URI, as inline SVG. */
  qr: SafeHtml;
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

export function createTwoFactorService({ db, clock, writes }: Pick<Deps, 'db' | 'clock'> & { writes: Writes }) {
  const throttle = createSignInThrottle({ db, clock });

  async function requireUser(userId: string): Promise<repo.UserRow> {
    const row = await repo.findUser(db.kysely, userId);
    if (row === undefined) throw notFound('User');
    return row;
  }

  const secretOf = async (user: repo.UserRow): Promise<string | null> =>
    unseal(await sealingKey(db), user.id, user.totp_secret);

  /** Whether `code` (a TOTP code or a recovery code) proves the person, using it up if so. */
  async function verify(user: repo.UserRow, code: string): Promise<boolean> {
    const typed = code.replace(/\s/g, '');
    const secret = await secretOf(user);
    if (user.totp_enabled !== 1 || secret === null) return false;
    if (/^\d{6}$/.test(typed)) {
      const step = matchingStep(secret, typed, clock.now(), user.totp_last_step);
      return step !== null && (await repo.useStep(db.kysely, user.id, step));
    }
    if (normalizeRecoveryCode(typed).length !== 10) return false;
    return repo.consumeRecoveryCode(db.kysely, user.id, hashRecoveryCode(user.id, typed));
  }

  return {
    async status(userId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
      const user = await requireUser(userId);
      return { enabled: user.totp_enabled === 1, recoveryCodesLeft: await repo.countRecoveryCodes(db.kysely, user.id) };
    },

    /**
     * The set-up's secret and QR code, while two-factor is off. The secret is made on the first
     * visit and kept until confirmed (a reload shows the same one, so a scan already done works).
     */
    async setup(userId: string): Promise<TwoFactorSetup | null> {
      let user = await requireUser(userId);
      if (user.totp_enabled === 1) return null;
      if ((await secretOf(user)) === null) {
        const sealed = seal(await sealingKey(db), user.id, newTotpSecret());
        const now = clock.iso();
        const { id } = user;
        await writes.run(user.account_id, { now }, ({ trx }) => repo.setPendingSecret(trx, id, sealed, now));
        user = await requireUser(userId);
      }
      const secret = await secretOf(user);
      if (secret === null) return null;
      const account = await findAccount(db.kysely, user.account_id);
      const uri = otpauthUri(secret, `Lightbox ${account?.name ?? ''}`.trim(), user.email);
      return { secret: groupedSecret(secret), qr: qrSvg(uri, 'QR code to scan with an authenticator app') };
    },

    /**
     * Turns two-factor on with a first code from the app; passes with the 10 recovery codes, to be
     * shown once. Throttled like every code check: a wrong code counts against the sign-in limits.
     */
    async confirm(userId: string, code: string, address: string): Promise<Attempt<string[]>> {
      const user = await requireUser(userId);
      const typed = code.replace(/\s/g, '');
      const secret = await secretOf(user);
      const checked = await throttle.attempt({ email: user.email, address }, () =>
        Promise.resolve(
          user.totp_enabled === 0 && secret !== null ? matchingStep(secret, typed, clock.now(), null) : null,
        ),
      );
      if (checked.outcome !== 'passed') return checked;
      const step = checked.value;
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const now = clock.iso();
      const enabled = await writes.run(user.account_id, { now }, async ({ trx }) => {
        if (!(await repo.enableTotp(trx, user.id, step, now))) return false;
        await repo.replaceRecoveryCodes(
          trx,
          user.id,
          codes.map((c) => hashRecoveryCode(user.id, c)),
          now,
        );
        return true;
      });
      // Turned on meanwhile (another tab), or the step already used: as a wrong code.
      if (!enabled) return { outcome: 'invalid' };
      return { outcome: 'passed', value: codes };
    },

    /** Turns one's own two-factor off, with a current code (or a recovery code); throttled. */
    async disable(userId: string, code: string, address: string): Promise<Attempt<true>> {
      const user = await requireUser(userId);
      const result = await throttle.attempt({ email: user.email, address }, async () =>
        (await verify(user, code)) ? (true as const) : null,
      );
      if (result.outcome === 'passed') await repo.disableTotp(db.kysely, user.id, clock.iso());
      return result;
    },

    /**
     * The owner's (or the operator's) reset for someone who lost their phone and codes: two-factor
     * off, and every session of theirs ended. Resolves to how many sessions ended.
     */
    async reset(userId: string): Promise<number> {
      const user = await repo.findUser(db.kysely, userId);
      if (user === undefined) return 0;
      return writes.run(user.account_id, { now: clock.iso() }, async ({ trx, now }) => {
        await repo.disableTotp(trx, userId, now);
        return repo.deleteSessionsOfUser(trx, userId);
      });
    },

    /** `lightbox accounts reset-2fa`: the same, by email. */
    async resetByEmail(email: string): Promise<{ email: string; sessionsEnded: number }> {
      const user = await repo.findUserByEmail(db.kysely, normalizeEmail(email));
      if (user === undefined) throw notFound('User');
      const sessionsEnded = await this.reset(user.id);
      return { email: user.email, sessionsEnded };
    },

    /** A right password of a person with two-factor on: the token of the code step's cookie. */
    async challenge(userId: string): Promise<string> {
      const token = newToken();
      const now = clock.now();
      const user = await requireUser(userId);
      await writes.run(user.account_id, { now: isoAt(now) }, ({ trx }) =>
        repo.insertChallenge(trx, {
          token_hash: hashChallenge(token),
          user_id: userId,
          created_at: isoAt(now),
          expires_at: isoAt(now + CHALLENGE_VALID_MS),
        }),
      );
      return token;
    },

    /** The email a challenge signs in, while it is valid; null otherwise. */
    async pending(token: string | undefined): Promise<{ email: string } | null> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) return null;
      const userId = await repo.findChallenge(db.kysely, hashChallenge(token), clock.iso());
      const user = userId === undefined ? undefined : await repo.findUser(db.kysely, userId);
      return user === undefined ? null : { email: user.email };
    },

    /**
     * The code step of sign-in, throttled with the password attempts (per address and per
     * person). Passed: the challenge is used up and the person may be signed in.
     */
    async complete(
      token: string | undefined,
      code: string,
      address: string,
    ): Promise<Attempt<{ accountId: string; userId: string }> | { outcome: 'expired' }> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) return { outcome: 'expired' };
      const hash = hashChallenge(token);
      const userId = await repo.findChallenge(db.kysely, hash, clock.iso());
      const user = userId === undefined ? undefined : await repo.findUser(db.kysely, userId);
      if (user === undefined) return { outcome: 'expired' };
      const result = await throttle.attempt({ email: user.email, address }, async () =>
        (await verify(user, code)) ? { accountId: user.account_id, userId: user.id } : null,
      );
      if (result.outcome === 'passed' && !(await repo.consumeChallenge(db.kysely, hash))) return { outcome: 'expired' };
      return result;
    },
  };
}
