// API keys: `lbx_` + 40 base62 characters (about 238 bits); a test key is `lbx_test_` + 40 (docs/api.md
// §20). Only the SHA-256 of a key is stored, with a short non-secret prefix to recognise it in lists.
import { hash, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import type { KeyScope } from '../../db/schema.ts';
import type { Writes } from '../../mechanisms/writes/writes.ts';
import { findTestAccountId, testAccountOf } from '../accounts/test-mode.entry.ts';
import { KEY_MAX_DAYS, KEY_NAME_MAX_LENGTH } from './api-keys.schemas.ts';
import * as repo from './api-keys.repository.ts';

/** Who is calling: set by the auth hook on every authenticated /v1 request. */
export interface AuthContext {
  /**
   * Whose data the key sees and changes: the studio's for a live key, the studio's test account's
   * for a test key (docs/api.md §20), so every query scoped by it is scoped by mode too.
   */
  accountId: string;
  /** The studio the key belongs to (the same as accountId for a live key). */
  liveAccountId: string;
  livemode: boolean;
  keyId: string;
  scope: KeyScope;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const KEY_SHAPE = /^lbx_(?:test_)?[0-9A-Za-z]{32,64}$/;
/** The non-secret start kept to recognise a key: its kind and 6 random characters. */
const PREFIX_RANDOM = 6;
/** A key revoked on another node stops working within this long (the contract allows 5 s). */
const CACHE_TTL_MS = 3000;
const CACHE_MAX_ENTRIES = 10_000;
const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKey {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  /** A test key: it sees and changes only the studio's test data (docs/api.md §20). */
  test: boolean;
}

export interface CreateKeyInput {
  name: string;
  scope?: KeyScope;
  /** A test key (`lbx_test_`); a live key by default. */
  test?: boolean;
  /** Whole days from now; omitted means the key does not expire. */
  expiresInDays?: number;
}

interface CacheEntry {
  auth: AuthContext;
  expiresAt: number | null;
  cachedAt: number;
  lastTouched: number;
}

function randomSecret(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting higher bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET.charAt(byte % 62);
    }
  }
  return out;
}

// The one-shot form: a third of createHash().update().digest()'s cost, on every /v1 request.
const hashKey = (key: string): string => hash('sha256', key, 'hex');

const toApiKey = (row: repo.ApiKeyRow): ApiKey => ({
  id: row.id,
  account_id: row.account_id,
  name: row.name,
  prefix: row.prefix,
  scope: row.scope,
  expires_at: row.expires_at,
  last_used_at: row.last_used_at,
  created_at: row.created_at,
  test: row.test === 1,
});

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function createApiKeysService({ db, clock, writes }: Pick<Deps, 'db' | 'clock'> & { writes: Writes }) {
  const cache = new Map<string, CacheEntry>();

  function forget(keyId: string): void {
    for (const [keyHash, entry] of cache) if (entry.auth.keyId === keyId) cache.delete(keyHash);
  }

  return {
    async create(accountId: string, input: CreateKeyInput): Promise<{ key: string; apiKey: ApiKey }> {
      const name = input.name.trim();
      if (name.length < 1 || name.length > KEY_NAME_MAX_LENGTH) {
        throw new AppError('validation_error', `name must be 1 to ${KEY_NAME_MAX_LENGTH} characters`, [
          { field: 'name', message: `must be 1 to ${KEY_NAME_MAX_LENGTH} characters` },
        ]);
      }
      const days = input.expiresInDays;
      if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > KEY_MAX_DAYS)) {
        throw new AppError('validation_error', `expires_in_days must be a whole number from 1 to ${KEY_MAX_DAYS}`, [
          { field: 'expires_in_days', message: `must be a whole number from 1 to ${KEY_MAX_DAYS}` },
        ]);
      }
      const now = clock.date();
      const kind = input.test === true ? 'lbx_test_' : 'lbx_';
      const key = `${kind}${randomSecret(SECRET_LENGTH)}`;
      const row = {
        id: newId('key'),
        account_id: accountId,
        name,
        prefix: key.slice(0, kind.length + PREFIX_RANDOM),
        key_hash: hashKey(key),
        scope: input.scope ?? 'full',
        expires_at: days === undefined ? null : new Date(now.getTime() + days * 86_400_000).toISOString(),
        last_used_at: null,
        created_at: now.toISOString(),
        test: input.test === true ? 1 : 0,
      };
      await writes.run(accountId, { now: row.created_at }, ({ trx }) => repo.insertApiKey(trx, row));
      return { key, apiKey: toApiKey(row) };
    },

    /** One key of the account (GET /v1/account names the key used). */
    async get(accountId: string, keyId: string): Promise<ApiKey> {
      const row = await repo.findApiKey(db.kysely, accountId, keyId);
      if (row === undefined) throw notFound('API key');
      return toApiKey(row);
    },

    async list(accountId: string): Promise<ApiKey[]> {
      return (await repo.listApiKeys(db.kysely, accountId)).map(toApiKey);
    },

    /** Revokes a key; refused from the very next request on this node. */
    async revoke(keyId: string, accountId: string | null): Promise<void> {
      // The command line acts as operator (no account given): the key's own account's write.
      const owner = accountId ?? (await repo.findApiKeyById(db.kysely, keyId))?.account_id;
      const deleted =
        owner !== undefined && (await writes.run(owner, {}, ({ trx }) => repo.deleteApiKey(trx, keyId, owner)));
      // After the delete too: a lookup racing it may have cached the key again meanwhile.
      forget(keyId);
      if (!deleted) throw notFound('API key');
    },

    /** The caller behind a presented key, or null when it is malformed, unknown or expired. */
    async authenticate(presented: string): Promise<AuthContext | null> {
      if (!KEY_SHAPE.test(presented)) return null;
      const keyHash = hashKey(presented);
      const now = clock.now();
      let entry = cache.get(keyHash);
      if (entry === undefined || now - entry.cachedAt > CACHE_TTL_MS) {
        const row = await repo.findApiKeyByHash(db.kysely, keyHash);
        if (row === undefined) {
          cache.delete(keyHash);
          return null;
        }
        // A test key's data is its studio's test account's, made on first use (docs/api.md §20).
        const dataAccount =
          row.test === 1
            ? ((await findTestAccountId(db.kysely, row.account_id)) ??
              (await writes.run(row.account_id, { now: new Date(now).toISOString() }, testAccountOf)))
            : row.account_id;
        if (dataAccount === undefined) return null;
        if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
        entry = {
          auth: {
            accountId: dataAccount,
            liveAccountId: row.account_id,
            livemode: row.test !== 1,
            keyId: row.id,
            scope: row.scope,
          },
          expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
          cachedAt: now,
          lastTouched: entry?.lastTouched ?? (row.last_used_at === null ? 0 : Date.parse(row.last_used_at)),
        };
        cache.set(keyHash, entry);
      }
      if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
      if (now - entry.lastTouched >= TOUCH_INTERVAL_MS) {
        entry.lastTouched = now;
        const { keyId, liveAccountId } = entry.auth;
        const at = new Date(now).toISOString();
        await writes.run(liveAccountId, { now: at }, ({ trx }) =>
          repo.touchApiKey(trx, keyId, at, new Date(now - TOUCH_INTERVAL_MS).toISOString()),
        );
      }
      return entry.auth;
    },
  };
}
