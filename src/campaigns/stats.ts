import { and, count, desc, eq, gte, inArray, sql } from "drizzle-orm";
import { campaignMessageCounts, campaigns } from "../../db/schema";
import type { AppContext } from "../context";
import { ready } from "../../db/transaction";

/** Campaigns that will still send: running, paused mid-send, or scheduled. */
export async function countActiveCampaigns(ctx: AppContext, userId: string): Promise<number> {
  await ready(ctx.db);
  return ctx.db
    .select({ n: count() })
    .from(campaigns)
    .where(and(eq(campaigns.userId, userId), inArray(campaigns.status, ["sending", "paused", "scheduled"])))
    .get()!.n;
}

/** Names and statuses of some of a user's campaigns, by id: for lists that need no more (no recipients list parsed). */
export async function campaignLabels(ctx: AppContext, userId: string, ids: string[]) {
  if (!ids.length) return new Map<string, { name: string; status: string }>();
  await ready(ctx.db);
  const rows = ctx.db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(and(eq(campaigns.userId, userId), inArray(campaigns.id, ids)))
    .all();
  return new Map(rows.map((r) => [r.id, { name: r.name, status: r.status }]));
}

export async function campaignsSentSince(ctx: AppContext, userId: string, since: Date, limit: number) {
  await ready(ctx.db);
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
export async function statusCountsByCampaign(ctx: AppContext, campaignIds: string[]) {
  await ready(ctx.db);
  return ctx.db
    .select({ id: campaignMessageCounts.campaignId, status: campaignMessageCounts.status, n: campaignMessageCounts.n, unsent: campaignMessageCounts.unsent })
    .from(campaignMessageCounts)
    .where(inArray(campaignMessageCounts.campaignId, campaignIds))
    .all();
}

/**
 * An account's campaign messages by status (of each, how many never reached a provider), summed from the kept
 * counts of its campaigns (or of those of them given): a few rows per campaign, however many messages they sent.
 */
export async function accountStatusCounts(ctx: AppContext, userId: string, onlyCampaigns: string[] | null = null) {
  await ready(ctx.db);
  return ctx.db
    .select({ status: campaignMessageCounts.status, n: sql<number>`sum(${campaignMessageCounts.n})`, unsent: sql<number>`sum(${campaignMessageCounts.unsent})` })
    .from(campaignMessageCounts)
    .innerJoin(campaigns, eq(campaigns.id, campaignMessageCounts.campaignId))
    .where(and(eq(campaigns.userId, userId), onlyCampaigns ? inArray(campaigns.id, onlyCampaigns) : undefined))
    .groupBy(campaignMessageCounts.status)
    .all();
}

