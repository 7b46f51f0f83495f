export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number };
}

/** page/limit as validated by the route schema (defaults applied) to a LIMIT/OFFSET window. */
export function pageWindow(query: { page?: number | undefined; limit?: number | undefined }): {
  page: number;
  limit: number;
  offset: number;
} {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  return { page, limit, offset: (page - 1) * limit };
}

/** An unpaged list (all of a gallery's media, all of a client's galleries). */
export const wholeList = <T>(data: T[]): Page<T> => ({
  data,
  pagination: { page: 1, limit: data.length, total: data.length },
});
