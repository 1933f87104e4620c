import { and, eq, gte, notInArray, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { messages, type MessageStatus } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/** Outbound messages that never used any of the plan: skipped at send time, expired or cancelled before going. */
const NEVER_SENT: MessageStatus[] = ["skipped", "expired", "cancelled"];

/**
 * How many texts a phone sent the account since an instant (ms), as a subquery of a condition over another table:
 * `phone` is the outer query's column (the loyal audience, src/campaigns/audiences.ts, counts its contacts' texts).
 */
export function inboundCountSince(userId: string, phone: AnyColumn, since: number): SQL {
  return sql`(SELECT count(*) FROM messages m WHERE m.user_id = ${userId} AND m.phone = ${phone}
              AND m.direction = 'inbound' AND m.created_at >= ${since})`;
}

/** Inbound messages in each of the given days (the account's local days, [start, end) in ms) that had any, with the latest arrival of each. */
export async function repliesByDay(ctx: AppContext, userId: string, days: { start: number; end: number }[]) {
  await ready(ctx.db);
  // One range of the (user, direction, created_at) index per day.
  const out: { count: number; latest: number }[] = [];
  for (const d of days) {
    const [r] = (await ctx.records.$rows<{ count: number; latest: number }>(
      `SELECT count(*) AS count, max(created_at) AS latest FROM messages WHERE user_id = ? AND direction = 'inbound' AND created_at >= ? AND created_at < ?`,
      [userId, d.start, d.end],
    )) as [{ count: number; latest: number }];
    if (r.count > 0) out.push(r);
  }
  return out;
}

/**
 * The SMS (segments) of the outbound messages created at or after `since`: the plan's monthly count, in the unit
 * the plan sells and providers bill (a text over one segment's 160 GSM-7 or 70 UCS-2 characters is several).
 * Every outbound message counts (campaigns, chats, drips, automation, keyword and compliance replies); queued
 * ones too, so a send cannot overbook the plan; ones that never went (skipped, expired, cancelled) are given back.
 */
export async function segmentsOutboundSince(ctx: AppContext, userId: string, since: Date): Promise<number> {
  await ready(ctx.db);
  // Read as a number: PostgreSQL's sum of bigints is a numeric, which its client answers as text.
  const row = await ctx.records
    .select({ n: sql<number>`coalesce(sum(${messages.segments}), 0)`.mapWith(Number) })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.direction, "outbound"), gte(messages.createdAt, since), notInArray(messages.status, NEVER_SENT)))
    .get();
  return row!.n;
}
