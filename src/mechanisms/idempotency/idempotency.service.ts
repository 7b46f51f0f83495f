// Idempotency-Key (docs/api.md §9, docs/decisions/0003): the first request with a key runs;
// a repeat of it within 24 hours gets the first response again; anything else under the key is
// a conflict. Records live in the database, so every node sees the same ones.
import { createHash, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import * as repo from './idempotency.repository.ts';
import { isoAt } from '../../lib/clock.ts';

/** How long a key's first response is kept and replayed. */
export const RECORD_TTL_MS = 24 * 3_600_000;
/**
 * How long a request may hold its key before another may take it over. Longer than any JSON
 * request takes; after a crash, a retry waits at most this long before running again.
 */
export const JSON_LEASE_MS = 5 * 60_000;
/** Uploads stream gigabytes: they hold their key for up to an hour. */
export const UPLOAD_LEASE_MS = 60 * 60_000;
const PRUNE_BATCH = 1000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Begin =
  | { kind: 'proceed'; token: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' };

/** JSON with object keys sorted at every level: the same data always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same": method, path and body. An upload's body is streamed to
 * storage, so it cannot be read before it runs: its fingerprint is method and path alone.
 */
export function fingerprint(method: string, path: string, body: { json: unknown } | 'upload'): string {
  const text = body === 'upload' ? 'multipart' : canonicalJson(body.json);
  return createHash('sha256').update(`${method}\n${path}\n${text}`).digest('hex');
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;

export function createIdempotencyService({ db, clock }: Pick<Deps, 'db' | 'clock'>) {
  const service = {
    /** Claims the key for this request, or says why not (replay, still running, another request). */
    async begin(accountId: string, key: string, print: string, leaseMs: number): Promise<Begin> {
      // A few rounds at most: each lost race means another request changed the row meanwhile.
      for (let round = 0; round < 3; round += 1) {
        const now = clock.now();
        const token = randomUUID();
        const inserted = await repo.insertInFlight(db.kysely, {
          account_id: accountId,
          idempotency_key: key,
          fingerprint: print,
          state: 'in_flight',
          token,
          locked_until: isoAt(now + leaseMs),
          response_status: null,
          response_headers: null,
          response_body: null,
          created_at: isoAt(now),
          expires_at: isoAt(now + RECORD_TTL_MS),
        });
        if (inserted) return { kind: 'proceed', token };
        const row = await repo.findRecord(db.kysely, accountId, key);
        if (row === undefined) continue;
        // An expired record is as good as none (the pruner may not have come by yet).
        if (row.expires_at <= isoAt(now)) {
          await repo.deleteIfExpired(db.kysely, accountId, key, isoAt(now));
          continue;
        }
        if (row.fingerprint !== print) return { kind: 'mismatch' };
        if (row.state === 'completed') {
          return {
            kind: 'replay',
            response: {
              status: row.response_status ?? 200,
              headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
              body: row.response_body ?? '',
            },
          };
        }
        if (row.locked_until > isoAt(now)) return { kind: 'in_flight' };
        // The request that held it died (or stalled past its lease): this retry runs instead.
        const taken = await repo.takeOver(
          db.kysely,
          accountId,
          key,
          { token: row.token, now: isoAt(now) },
          { token, lockedUntil: isoAt(now + leaseMs) },
        );
        if (taken) return { kind: 'proceed', token };
      }
      return { kind: 'in_flight' };
    },

    /**
     * Whether the account holds an unexpired record of this key: a request of another method
     * under it is a conflict. One primary-key read.
     */
    async inUse(accountId: string, key: string): Promise<boolean> {
      const row = await repo.findRecord(db.kysely, accountId, key);
      return row !== undefined && row.expires_at > isoAt(clock.now());
    },

    /** Keeps the response for replay. False when the key was taken over meanwhile (lease ran out). */
    complete(accountId: string, key: string, token: string, response: StoredResponse): Promise<boolean> {
      return repo.complete(db.kysely, accountId, key, token, {
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: response.body,
      });
    },

    /** Gives the key back: the request failed in a way that a retry may not (5xx, refused upload). */
    release(accountId: string, key: string, token: string): Promise<void> {
      return repo.release(db.kysely, accountId, key, token);
    },

    /** Deletes every expired record; returns how many. */
    async prune(): Promise<number> {
      const now = isoAt(clock.now());
      let total = 0;
      for (;;) {
        const deleted = await repo.deleteExpired(db.kysely, now, PRUNE_BATCH);
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    },
  };
  return service;
}
