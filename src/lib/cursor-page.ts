// A list's page, reached by number (docs/api.md §4) or by cursor (docs/api.md §19), and its `pagination`
// with `next_cursor`. Every list fetches one row more than its limit: that row's presence is what
// says items follow, whatever the total says (which may be counted at another instant).
import { validationError } from '../errors.ts';
import type { CursorCodec, CursorScope, Position } from './cursor.ts';
import { pageWindow } from './pagination.ts';

export interface PagingQuery {
  page?: number | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface PageRequest {
  /** Null when the page was reached by cursor. */
  page: number | null;
  limit: number;
  /** Rows to skip (0 by cursor). */
  offset: number;
  /** By cursor: the rows strictly after this position. */
  after: Position | undefined;
  /** Rows to fetch: one more than the page holds. */
  fetch: number;
}

/** A list's total: exact, or COUNT_CAP when more match (`exact` false). */
export interface Total {
  n: number;
  exact: boolean;
}

/**
 * The total of a search (docs/api.md §19): the items before the page (the offset, or what the
 * cursor's pages held) and on it, exact only when nothing follows.
 */
export const THROUGH_PAGE = 'through-page';

interface CursorPagination {
  page: number | null;
  limit: number;
  total: number;
  total_exact: boolean;
  next_cursor: string | null;
}

export interface CursorPage<T> {
  data: T[];
  pagination: CursorPagination;
}

export function pageRequest(query: PagingQuery, codec: CursorCodec, scope: CursorScope): PageRequest {
  const window = pageWindow(query);
  if (query.cursor === undefined) {
    return { page: window.page, limit: window.limit, offset: window.offset, after: undefined, fetch: window.limit + 1 };
  }
  if (query.page !== undefined) throw validationError('cursor', 'cannot be used with page');
  const after = codec.decode(scope, query.cursor);
  return { page: null, limit: window.limit, offset: 0, after, fetch: window.limit + 1 };
}

/** The page's items (the extra row dropped) and its pagination, with the cursor of its last item. */
export function cursorPage<R, T>(
  rows: R[],
  request: PageRequest,
  total: number | Total | typeof THROUGH_PAGE,
  codec: CursorCodec,
  scope: CursorScope,
  positionOf: (row: R) => Position,
  toItem: (row: R) => T,
): CursorPage<T> {
  const more = rows.length > request.limit;
  const kept = more ? rows.slice(0, request.limit) : rows;
  const last = kept.at(-1);
  const through = total === THROUGH_PAGE;
  const seen = through ? (request.after?.seen ?? 0) + request.offset + kept.length : undefined;
  const counted: Total =
    total === THROUGH_PAGE
      ? { n: seen ?? 0, exact: !more }
      : typeof total === 'number'
        ? { n: total, exact: true }
        : total;
  return {
    data: kept.map(toItem),
    pagination: {
      page: request.page,
      limit: request.limit,
      total: counted.n,
      total_exact: counted.exact,
      next_cursor:
        more && last !== undefined
          ? codec.encode(scope, seen === undefined ? positionOf(last) : { ...positionOf(last), seen })
          : null,
    },
  };
}

/** A `*_since` value as stored timestamps are written (UTC, milliseconds), or a 400 naming it. */
export function sinceValue(field: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw validationError(field, 'must be an ISO 8601 timestamp with a time zone');
  return at.toISOString();
}

export type SortKey = '-created_at' | 'created_at' | '-updated_at' | 'updated_at';

/** `sort` (validated by the route's schema) as a column and a direction. */
export function sortOf(raw: SortKey | undefined): { column: 'created_at' | 'updated_at'; desc: boolean } {
  const key = raw ?? '-created_at';
  const desc = key.startsWith('-');
  return { column: (desc ? key.slice(1) : key) as 'created_at' | 'updated_at', desc };
}
