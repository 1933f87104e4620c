import { and, count, eq, gte, max, notInArray, sql } from "drizzle-orm";
import { messages, type MessageStatus } from "../../db/schema";
import type { AppContext } from "../context";

/** Outbound messages that never used any of the plan: skipped at send time, expired or cancelled before going. */
const NEVER_SENT: MessageStatus[] = ["skipped", "expired", "cancelled"];

/** Inbound messages per UTC day since a time, with the latest arrival of each day. */
export function repliesByDay(ctx: AppContext, userId: string, since: Date) {
  const day = sql<string>`date(${messages.createdAt} / 1000, 'unixepoch')`;
  return ctx.db
    .select({ day, count: count(), latest: max(messages.createdAt) })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.direction, "inbound"), gte(messages.createdAt, since)))
    .groupBy(day)
    .all();
}

/**
 * The SMS (segments) of the outbound messages created at or after `since`: the plan's monthly count, in the unit
 * the plan sells and providers bill (a text over one segment's 160 GSM-7 or 70 UCS-2 characters is several).
 * Every outbound message counts (campaigns, chats, drips, automation, keyword and compliance replies); queued
 * ones too, so a send cannot overbook the plan; ones that never went (skipped, expired, cancelled) are given back.
 */
export function segmentsOutboundSince(ctx: AppContext, userId: string, since: Date): number {
  return ctx.db
    .select({ n: sql<number>`coalesce(sum(${messages.segments}), 0)` })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.direction, "outbound"), gte(messages.createdAt, since), notInArray(messages.status, NEVER_SENT)))
    .get()!.n;
}
