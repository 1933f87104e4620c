import { and, count, desc, eq, gte, inArray } from "drizzle-orm";
import { campaigns } from "../../db/schema";
import type { AppContext } from "../context";

/** Campaigns that will still send: running, paused mid-send, or scheduled. */
export function countActiveCampaigns(ctx: AppContext, userId: string): number {
  return ctx.db
    .select({ n: count() })
    .from(campaigns)
    .where(and(eq(campaigns.userId, userId), inArray(campaigns.status, ["sending", "paused", "scheduled"])))
    .get()!.n;
}

export function campaignsSentSince(ctx: AppContext, userId: string, since: Date, limit: number) {
  return ctx.db
    .select({ id: campaigns.id, name: campaigns.name, sentAt: campaigns.sentAt, status: campaigns.status })
    .from(campaigns)
    .where(and(eq(campaigns.userId, userId), gte(campaigns.sentAt, since)))
    .orderBy(desc(campaigns.sentAt))
    .limit(limit)
    .all();
}
