// What the Idempotency-Key layer keeps and refuses (docs/api.md §9, docs/decisions/0003):
// shared by its hooks (src/mechanisms/idempotency/idempotency.hooks.ts) and by the OpenAPI document,
// which says on which answers a replay can happen.

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const VALID_IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * Statuses a POST answers before its idempotency hook runs (key, scope, rate limit, body parser):
 * never stored, so never replayed.
 */
export const REFUSED_BEFORE_CLAIM: ReadonlySet<number> = new Set([401, 403, 413, 415, 429]);

/**
 * Whether a handler's answer is kept for replay. A fault (5xx) may not happen again, so a retry
 * runs anew. A refused upload kept nothing (all or nothing), and its files were never part of the
 * fingerprint: a corrected retry with the same key must run too.
 */
export const keptForReplay = (status: number, upload: boolean): boolean => status < (upload ? 300 : 500);
