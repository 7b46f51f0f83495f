// List iterators: every item of a list, page after page (page numbers, as the API pages), until a
// page comes back empty or the pagination's total is reached. Pages are fetched one at a time, as
// the loop asks for items. Offset pages are newest first: items created during the walk shift
// later pages, so an item can be seen twice; none is skipped unless items are deleted meanwhile.
import type { Page } from './types.ts';

/** The largest page the API serves: the fewest requests for a full walk. */
export const ITERATE_PAGE_SIZE = 100;

export async function* iteratePages<T>(
  fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  start: { page?: number | undefined; limit?: number | undefined } = {},
): AsyncGenerator<T, void, undefined> {
  const limit = start.limit ?? ITERATE_PAGE_SIZE;
  for (let page = start.page ?? 1; ; page += 1) {
    const { data, pagination } = await fetchPage(page, limit);
    yield* data;
    if (data.length === 0 || page * pagination.limit >= pagination.total) return;
  }
}

export function segment(id: string): string {
  return encodeURIComponent(id);
}
