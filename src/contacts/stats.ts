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
