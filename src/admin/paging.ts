import { pageOf, pagingQuery } from "../http/paging";

export type Page<T> = { data: T[]; total: number; page: number; pageSize: number };

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?page=&pageSize=` as every admin list takes them. */
export const pageQuery = pagingQuery(MAX_PAGE_SIZE);

export const paging = (q: { page?: number; pageSize?: number }) => pageOf(q, DEFAULT_PAGE_SIZE);
