import { and, count, eq, gte, max, sql, type SQL } from "drizzle-orm";
import { contacts } from "../../db/schema";
import type { AppContext } from "../context";
import { storedTotal } from "./contacts";

/** The user's number of contacts, kept by triggers in `contact_totals` (plan limits check it on every create). */
export function countContacts(ctx: AppContext, userId: string): number {
  return storedTotal(ctx, userId);
}

/** Contacts added per UTC day since a time, with the latest addition of each day. */
export function contactsAddedByDay(ctx: AppContext, userId: string, since: Date) {
  const day = sql<string>`date(${contacts.createdAt} / 1000, 'unixepoch')`;
  return ctx.db
    .select({ day, count: count(), latest: max(contacts.createdAt) })
    .from(contacts)
    .where(and(eq(contacts.userId, userId), gte(contacts.createdAt, since)))
    .groupBy(day)
    .all();
}

/** The user's contacts that meet a condition over the contacts table (a segment's, from compileConditions). */
export function countContactsWhere(ctx: AppContext, userId: string, condition: SQL): number {
  return ctx.db.select({ n: count() }).from(contacts).where(and(eq(contacts.userId, userId), condition)).get()!.n;
}

/**
 * Contacts added, and opt-outs recorded, in each of the intervals ([start, end) in ms), by interval index: one
 * range scan per interval of (user, created_at) and (user, kind, created_at) (the dashboards' figures).
 */
export function contactsAddedIn(ctx: AppContext, userId: string, intervals: { start: number; end: number }[]): Map<number, number> {
  const rows = ctx.db.$client
    .query(
      `SELECT d.key AS i, count(*) AS n FROM json_each(?1) AS d CROSS JOIN contacts AS c
       WHERE c.user_id = ?2 AND c.created_at >= d.value ->> 0 AND c.created_at < d.value ->> 1 GROUP BY d.key`,
    )
    .all(JSON.stringify(intervals.map((i) => [i.start, i.end])), userId) as { i: number; n: number }[];
  return new Map(rows.map((r) => [r.i, r.n]));
}

export function optOutsIn(ctx: AppContext, userId: string, intervals: { start: number; end: number }[]): Map<number, number> {
  const rows = ctx.db.$client
    .query(
      `SELECT d.key AS i, count(*) AS n FROM json_each(?1) AS d CROSS JOIN contact_consents AS c
       WHERE c.user_id = ?2 AND c.kind = 'opt_out' AND c.created_at >= d.value ->> 0 AND c.created_at < d.value ->> 1 GROUP BY d.key`,
    )
    .all(JSON.stringify(intervals.map((i) => [i.start, i.end])), userId) as { i: number; n: number }[];
  return new Map(rows.map((r) => [r.i, r.n]));
}
