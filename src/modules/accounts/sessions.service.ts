// Dashboard sessions, stored server-side so that signing out or changing the password ends
// them everywhere at once. The browser holds a random token; the database holds its SHA-256.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import * as repo from './sessions.repository.ts';
import { isoAt } from '../../lib/clock.ts';
import { findOwner } from './users.repository.ts';

/** A session unused this long ends (the owner signs in again after a night away). */
export const SESSION_IDLE_MS = 8 * 3_600_000;
/** A session ends this long after sign-in, however active: a stolen cookie does not live forever. */
export const SESSION_ABSOLUTE_MS = 7 * 86_400_000;
/** Activity is written at most this often, so reading pages does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** What newToken makes (32 random bytes, base64url): anything else is not a token of ours. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  accountId: string;
  /** The person signed in (docs/api.md §27). */
  userId: string;
  /** The synchronizer token every form of this session must send back. */
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Constant-time comparison of two tokens (a mismatch in length is simply false). */
export function sameToken(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A one-time value is sealed (AES-256-GCM) with a key derived from the cookie's token. The
 * database holds only the token's SHA-256, so a copy of it, a backup or a log of its rows cannot
 * open what a session is waiting to be shown.
 */
const oneTimeKey = (token: string): Buffer =>
  Buffer.from(hkdfSync('sha256', token, Buffer.alloc(0), 'lightbox session one-time value', 32));

function seal(token: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', oneTimeKey(token), iv);
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function unseal(token: string, sealed: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', oneTimeKey(token), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null; // not sealed with this token's key
  }
}

const toSession = (row: repo.SessionRow & { user_id: string }): Session => ({
  accountId: row.account_id,
  userId: row.user_id,
  csrfToken: row.csrf_token,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export type SessionsService = ReturnType<typeof createSessionsService>;

export function createSessionsService({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  return {
    /** Starts a session; the returned token goes in the cookie and is never stored. */
    async create(accountId: string, userId?: string): Promise<{ token: string; session: Session }> {
      // Without a person named, the studio's owner (the CLI's and the tests' sign-in).
      const user = userId ?? (await findOwner(db.kysely, accountId))?.id;
      if (user === undefined) throw new Error(`account ${accountId} has no owner to sign in`);
      const now = clock.now();
      // Dead sessions are removed as new ones start: the table stays the size of who is signed in.
      await repo.deleteDeadSessions(db.kysely, isoAt(now), isoAt(now - SESSION_IDLE_MS));
      const token = newToken();
      const row = {
        token_hash: hashToken(token),
        account_id: accountId,
        user_id: user,
        csrf_token: newToken(),
        created_at: isoAt(now),
        last_seen_at: isoAt(now),
        expires_at: isoAt(now + SESSION_ABSOLUTE_MS),
        one_time: null,
      };
      await repo.insertSession(db.kysely, row);
      return { token, session: toSession(row) };
    },

    /** The live session behind a cookie's token, or null (unknown, idle too long, or past its end). */
    async authenticate(token: string | undefined): Promise<Session | null> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) return null;
      const hash = hashToken(token);
      const row = await repo.findSession(db.kysely, hash);
      if (row === undefined) return null;
      const now = clock.now();
      // A session from before teams whose person is gone signs nobody in.
      if (row.user_id === null) {
        await repo.deleteSession(db.kysely, hash);
        return null;
      }
      if (Date.parse(row.expires_at) <= now || Date.parse(row.last_seen_at) + SESSION_IDLE_MS <= now) {
        await repo.deleteSession(db.kysely, hash);
        return null;
      }
      if (now - Date.parse(row.last_seen_at) >= TOUCH_INTERVAL_MS) {
        await repo.touchSession(db.kysely, hash, isoAt(now), isoAt(now - TOUCH_INTERVAL_MS));
      }
      return toSession({ ...row, user_id: row.user_id });
    },

    /** Signs out: the token stops working at once, on every node. */
    async end(token: string | undefined): Promise<void> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) return;
      await repo.deleteSession(db.kysely, hashToken(token));
    },

    /**
     * Keeps `value` for this session's next page to show once (post-redirect-get of a form whose
     * answer must not be repeated). A second value replaces the first.
     */
    async holdOnce(token: string | undefined, value: string): Promise<void> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) throw new Error('no session to hold a value for');
      await repo.setOneTime(db.kysely, hashToken(token), seal(token, value));
    },

    /** The value held for this session, removed from the database before it is returned: once. */
    async takeOnce(token: string | undefined): Promise<string | null> {
      if (token === undefined || !TOKEN_SHAPE.test(token)) return null;
      const hash = hashToken(token);
      const sealed = (await repo.findSession(db.kysely, hash))?.one_time ?? null;
      if (sealed === null || !(await repo.takeOneTime(db.kysely, hash, sealed))) return null;
      return unseal(token, sealed);
    },

    async countOf(accountId: string): Promise<number> {
      return repo.countSessionsOfAccount(db.kysely, accountId);
    },
  };
}
