import { and, count, desc, eq, gte, inArray } from "drizzle-orm";
import { campaignMessageCounts, campaigns } from "../../db/schema";
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

/**
 * Messages per campaign and status; `unsent` counts those never accepted by a provider (no sent time). Read from the
 * counts the messages triggers keep (migration 0019): a few primary-key rows per campaign, never its messages.
 */
export function statusCountsByCampaign(ctx: AppContext, campaignIds: string[]) {
  return ctx.db
    .select({ id: campaignMessageCounts.campaignId, status: campaignMessageCounts.status, n: campaignMessageCounts.n, unsent: campaignMessageCounts.unsent })
    .from(campaignMessageCounts)
    .where(inArray(campaignMessageCounts.campaignId, campaignIds))
    .all();
}
