// The contract's shapes, asserted the same way by every suite: timestamps, page bodies, error
// answers naming their fields, and the keys of a gallery and of a gallery list item.
import assert from 'node:assert/strict';
import { detailFields, expectError, type Response } from './test-app.ts';

/** An ISO 8601 UTC timestamp with milliseconds, as every `*_at` field is written. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every field of a gallery (`GET /v1/listings/:id`), sorted. */
export const GALLERY_KEYS = [
  'address',
  'baths',
  'beds',
  'client_id',
  'client_link',
  'cover_media_id',
  'created_at',
  'description',
  'id',
  'media_count',
  'mls_number',
  'mls_profile_id',
  'property_page',
  'sqft',
  'status',
  'tours',
  'updated_at',
];

/** Every field of a gallery list item (`GET /v1/listings`, a client's `listings`), sorted. */
export const GALLERY_ITEM_KEYS = ['address', 'baths', 'beds', 'client_id', 'created_at', 'id', 'sqft', 'status'];

export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number };
}

/** The ids of a page's items, in order. */
export const idsOf = (res: Response): string[] => res.json<Page<{ id: string }>>().data.map((item) => item.id);

/** An error answer as docs/api.md §2 describes it; returns the fields its details name. */
export const assertError = (res: Response, status: number, code: string): string[] =>
  detailFields(expectError(res, status, code));

/** A 400 validation_error whose details name every one of `fields` (and maybe others). */
export function assertValidation(res: Response, ...fields: string[]): void {
  const named = assertError(res, 400, 'validation_error');
  for (const field of fields) assert.ok(named.includes(field), `details name ${field}: ${res.body}`);
}

/**
 * A page's pagination, next_cursor included: null when no item follows the page (page * limit
 * reaches total), else an opaque string (docs/api.md §19). `total_exact` is true unless expected
 * otherwise.
 */
export function assertPagination(
  actual: { next_cursor?: unknown; [key: string]: unknown },
  expected: { page: number | null; limit: number; total: number; total_exact?: boolean; next_cursor?: string | null },
): void {
  const { next_cursor: cursor, ...rest } = actual;
  const { next_cursor: expectedCursor, ...wanted } = expected;
  assert.deepEqual(rest, { ...wanted, total_exact: expected.total_exact ?? true });
  if (expectedCursor !== undefined) {
    assert.equal(cursor, expectedCursor);
    return;
  }
  const follows = expected.page !== null && expected.page * expected.limit < expected.total;
  if (follows) assert.equal(typeof cursor, 'string', `a next_cursor after page ${expected.page}`);
  else assert.equal(cursor, null, `no next_cursor after page ${String(expected.page)}`);
}
