import { t } from "elysia";

/** The last page any list serves; a deeper page would only make the database skip rows for nothing. */
export const MAX_PAGE = 100_000;

/**
 * `?page=&pageSize=` of a paged list, spread into the route's query schema: whole numbers, page from 1 to
 * MAX_PAGE, pageSize from 1 to the list's own maximum. Anything else (1.5, 1e309, -1, abc, a 20-digit number)
 * answers 400 with the message below before the route runs.
 */
export function pagingQuery(maxPageSize: number) {
  return {
    page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, error: `page must be a whole number from 1 to ${MAX_PAGE}` })),
    pageSize: t.Optional(t.Integer({ minimum: 1, maximum: maxPageSize, error: `pageSize must be a whole number from 1 to ${maxPageSize}` })),
  };
}

/** The page asked for, with the list's default page size. */
export function pageOf(query: { page?: number; pageSize?: number }, defaultPageSize: number) {
  return { page: query.page ?? 1, pageSize: query.pageSize ?? defaultPageSize };
}
