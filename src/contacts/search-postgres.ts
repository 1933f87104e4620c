import { and, eq, sql, type SQL } from "drizzle-orm";
import { contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { COUNT_CAP, searchCondition, type IndexedFilter, type PageQuery } from "./search";

/**
 * A page of the owner's contacts matching a search and conditions, on PostgreSQL (issue 31 item 1): the same rows in
 * the same order as SQLite's searchPage (search.ts), read by one statement for the page and one for the count up to
 * COUNT_CAP, where PostgreSQL's planner chooses between the trigram index (contacts_search_idx), contact_names and
 * the indexes of the list's orders that search.ts chooses between by hand on SQLite. Ties are broken by rowid, and
 * the phone order puts contacts without a phone first going up, as SQLite sorts NULL.
 */
export async function postgresSearchPage(ctx: AppContext, userId: string, p: PageQuery, extra: SQL | undefined, fromIndex?: IndexedFilter) {
  await ready(ctx.db);
  const searched = searchCondition(p.q, userId, "postgres");
  const where = and(eq(contacts.userId, userId), extra, searched ?? fromIndex?.driven)!;
  const dir = sql.raw(p.order === "asc" ? "ASC" : "DESC");
  const limits = sql`LIMIT ${p.pageSize} OFFSET ${(p.page - 1) * p.pageSize}`;
  const page =
    p.sort === "name"
      ? sql`SELECT n.contact_rowid AS r FROM contact_names AS n JOIN ${contacts} ON ${contacts}.rowid = n.contact_rowid
            WHERE n.user_id = ${userId} AND ${where} ORDER BY n.name_key ${dir}, n.contact_rowid ${dir} ${limits}`
      : p.sort === "phone"
        ? sql`SELECT rowid AS r FROM ${contacts} WHERE ${where} ORDER BY phone ${dir} ${sql.raw(p.order === "asc" ? "NULLS FIRST" : "NULLS LAST")}, rowid ${dir} ${limits}`
        : sql`SELECT rowid AS r FROM ${contacts} WHERE ${where} ORDER BY created_at ${dir}, rowid ${dir} ${limits}`;
  const rowids = (await ctx.records.$rows<{ r: number }>(page)).map((x) => x.r);
  const [{ n }] = (await ctx.records.$rows<{ n: number }>(
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM ${contacts} WHERE ${where} LIMIT ${COUNT_CAP + 1}) AS m`,
  )) as [{ n: number }];
  return { rowids, n };
}
