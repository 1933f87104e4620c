import { and, count, eq, sql, type SQL } from "drizzle-orm";
import { contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { contactCounters } from "./contacts";

/**
 * contact_rollups count per bucket keyed by its first quarter hour (ms / 900000, migration 0034; as wide as the
 * account's zone allows, src/results/buckets.ts): every local day is a whole range of them.
 */
const QUARTER_HOUR = 900_000;

/** The user's number of contacts, kept by triggers in `contact_totals` (plan limits check it on every create). */
export async function countContacts(ctx: AppContext, userId: string): Promise<number> {
  return (await contactCounters(ctx, userId)).total;
}

/**
 * Contacts added in each of the given days (the account's local days, [start, end) in ms) that had any, with the
 * latest addition of each: the days' counts per bucket (contact_rollups), then one index seek per such day.
 */
export async function contactsAddedByDay(ctx: AppContext, userId: string, days: { start: number; end: number }[]) {
  await ready(ctx.db);
  const added = await addedIn(ctx, userId, days);
  const out: { count: number; latest: number }[] = [];
  for (const [i, d] of days.entries()) {
    const count = added.get(i) ?? 0;
    if (count <= 0) continue;
    const [{ at }] = (await ctx.records.$rows<{ at: number }>(
      "SELECT max(created_at) AS at FROM contacts WHERE user_id = ? AND created_at >= ? AND created_at < ?",
      [userId, d.start, d.end],
    )) as [{ at: number }];
    out.push({ count, latest: at });
  }
  return out;
}

/**
 * The user's contacts that meet a condition over the contacts table (a segment's, from compileConditions). byTag: the
 * condition lists a tag's contacts (compileConditions with byTag): the owner test is then kept from the index of
 * owners (unary +), so that SQLite reads the contacts from that list rather than every contact of the owner.
 */
export async function countContactsWhere(ctx: AppContext, userId: string, condition: SQL, byTag = false): Promise<number> {
  await ready(ctx.db);
  const owner = byTag ? sql`+${contacts.userId} = ${userId}` : eq(contacts.userId, userId);
  return (await ctx.records.select({ n: count() }).from(contacts).where(and(owner, condition)).get())!.n;
}


/**
 * Contacts added in each of the intervals ([start, end) in ms), by interval index, from the counts per bucket the
 * contacts triggers keep (contact_rollups, migrations 0020, 0034): a bucket belongs to the interval its
 * first instant falls in (a local midnight in Kolkata or Kathmandu is one's first instant too), so a million-contact
 * import costs the dashboards a few rows per day, not a million index entries.
 */
export async function contactsAddedIn(ctx: AppContext, userId: string, intervals: { start: number; end: number }[]): Promise<Map<number, number>> {
  await ready(ctx.db);
  return await addedIn(ctx, userId, intervals);
}

async function addedIn(ctx: AppContext, userId: string, intervals: { start: number; end: number }[]): Promise<Map<number, number>> {
  // One range scan of the primary key per interval: a statement over all of them grouped by interval sorted every
  // bucket it read (a 90-day chart after an import is 2,160 to 8,640 of them).
  const added = new Map<number, number>();
  for (const [i, interval] of intervals.entries()) {
    const [{ n }] = (await ctx.records.$rows<{ n: number }>(
      "SELECT coalesce(sum(n), 0) AS n FROM contact_rollups WHERE user_id = ? AND quarter_hour >= ? AND quarter_hour < ?",
      [userId, Math.ceil(interval.start / QUARTER_HOUR), Math.ceil(interval.end / QUARTER_HOUR)],
    )) as [{ n: number }];
    added.set(i, n);
  }
  return added;
}

/** Opt-outs recorded in each of the intervals, by interval index: one range scan each of (user, kind, created_at). */
export async function optOutsIn(ctx: AppContext, userId: string, intervals: { start: number; end: number }[]): Promise<Map<number, number>> {
  await ready(ctx.db);
  const counted = new Map<number, number>();
  for (const [i, interval] of intervals.entries()) {
    const [{ n }] = (await ctx.records.$rows<{ n: number }>(
      "SELECT count(*) AS n FROM contact_consents WHERE user_id = ? AND kind = 'opt_out' AND created_at >= ? AND created_at < ?",
      [userId, interval.start, interval.end],
    )) as [{ n: number }];
    if (n > 0) counted.set(i, n);
  }
  return counted;
}
