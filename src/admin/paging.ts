import { t } from "elysia";

export type Page<T> = { data: T[]; total: number; page: number; pageSize: number };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?page=&pageSize=` as every admin list takes them. */
export const pageQuery = {
  page: t.Optional(t.Numeric({ minimum: 1, error: "page must be a number from 1" })),
  pageSize: t.Optional(t.Numeric({ minimum: 1, maximum: MAX_PAGE_SIZE, error: `pageSize must be between 1 and ${MAX_PAGE_SIZE}` })),
};

export function paging(q: { page?: number; pageSize?: number }) {
  return { page: Math.floor(q.page ?? 1), pageSize: Math.floor(q.pageSize ?? DEFAULT_PAGE_SIZE) };
}
