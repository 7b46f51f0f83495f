export interface Page<T> {
  data: T[];
  pagination: { page: number | null; limit: number; total: number; total_exact: boolean; next_cursor: string | null };
}

/** Items per page when the caller names no limit, and the most it may ask for (docs/api.md §4). */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/**
 * The most a count without a maintained counter goes to (docs/api.md §19): counting is linear in
 * the matches, so a filtered gallery list counts COUNT_CAP + 1 of them at most.
 */
export const COUNT_CAP = 1000;

const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** page/limit as validated by the route schema (defaults applied) to a LIMIT/OFFSET window. */
export function pageWindow(query: { page?: number | undefined; limit?: number | undefined }): {
  page: number;
  limit: number;
  offset: number;
} {
  const page = query.page ?? 1;
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  // A page far past the end is still a valid page (200, no data), but its offset could overflow
  // the drivers' 64-bit integers; no table holds this many rows, so the cap changes no answer.
  return { page, limit, offset: Math.min((page - 1) * limit, MAX_OFFSET) };
}

/** An unpaged list: one page of every item, nothing after it. */
export interface WholePage<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; total_exact: true; next_cursor: null };
}

/** An unpaged list (all of a gallery's media, all of a client's galleries). */
export const wholeList = <T>(data: T[]): WholePage<T> => ({
  data,
  pagination: { page: 1, limit: data.length, total: data.length, total_exact: true, next_cursor: null },
});
