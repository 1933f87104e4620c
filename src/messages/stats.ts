import { and, count, eq, gte, max, sql } from "drizzle-orm";
import { messages } from "../../db/schema";
import type { AppContext } from "../context";

export function countMessages(ctx: AppContext, userId: string, direction: "inbound" | "outbound"): number {
  return ctx.db
    .select({ n: count() })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.direction, direction)))
    .get()!.n;
}

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

/** Outbound messages created at or after `since` (the plan's monthly message count). */
export function countOutboundSince(ctx: AppContext, userId: string, since: Date): number {
  return ctx.db
    .select({ n: count() })
    .from(messages)
    .where(and(eq(messages.userId, userId), eq(messages.direction, "outbound"), gte(messages.createdAt, since)))
    .get()!.n;
}
