// List iterators: every item of a list, page after page, until a page says nothing follows.
// Pages are fetched one at a time, as the loop asks for items. After the first page the walk
// follows `next_cursor` (docs/api.md §19): every item that exists for the whole walk, and
// whose sort field does not change meanwhile, is seen exactly once, in the list's order, whatever
// is created, changed or deleted during the walk; each page costs the same at any depth.
import type { Page } from './types.ts';

/** The largest page the API serves: the fewest requests for a full walk. */
export const ITERATE_PAGE_SIZE = 100;

/** Where a page starts: a page number (the first page only) or the previous page's cursor. */
export interface PagePosition {
  page?: number;
  cursor?: string;
}

export async function* iteratePages<T>(
  fetchPage: (at: PagePosition, limit: number) => Promise<Page<T>>,
  start: { page?: number | undefined; limit?: number | undefined; cursor?: string | undefined } = {},
): AsyncGenerator<T, void, undefined> {
  const limit = start.limit ?? ITERATE_PAGE_SIZE;
  let at: PagePosition =
    start.cursor !== undefined ? { cursor: start.cursor } : start.page !== undefined ? { page: start.page } : {};
  for (;;) {
    const { data, pagination } = await fetchPage(at, limit);
    yield* data;
    const next = pagination.next_cursor;
    if (data.length === 0 || next === null || next === undefined) return;
    at = { cursor: next };
  }
}

/** A list's parameters at a position: the caller's filters, without their own page or cursor. */
export function at<P extends { page?: number; cursor?: string; limit?: number }>(
  params: P,
  position: PagePosition,
  limit: number,
): P {
  const rest: P = { ...params };
  delete rest.page;
  delete rest.cursor;
  return { ...rest, ...position, limit };
}

export function segment(id: string): string {
  return encodeURIComponent(id);
}
