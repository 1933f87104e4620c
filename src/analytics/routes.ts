import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import { campaignsSentSince, countActiveCampaigns } from "../campaigns/stats";
import { contactsAddedByDay, countContacts } from "../contacts/stats";
import type { AppContext } from "../context";
import { repliesByDay } from "../messages/stats";
import { allTimeFigures } from "../results/dashboard";
import { ensureBuckets } from "../results/buckets";
import { lastDays } from "../results/periods";

const ACTIVITY_DAYS = 30;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A campaign is "sent" only once every message has gone; until then it has started (it may wait for quiet hours). */
const CAMPAIGN_OUTCOME: Partial<Record<string, string>> = { completed: "was sent", failed: "failed", cancelled: "was cancelled", paused: "is paused" };

export type ActivityItem = {
  type: "campaign_sent" | "new_replies" | "new_contacts";
  message: string;
  timestamp: string;
};

export function analyticsRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/analytics" })
    .use(authGuard(ctx))
    // GET /api/analytics/summary
    .get(
      "/summary",
      async ({ user }) => {
        // From the rollups the messages triggers keep (src/results/), not a count of every message.
        const all = await allTimeFigures(ctx, user);
        const totalMessagesSent = all.sent;
        const totalResponses = all.replies;
        return {
          totalContacts: await countContacts(ctx, user.id),
          totalMessagesSent,
          totalResponses,
          activeCampaigns: await countActiveCampaigns(ctx, user.id),
          responseRate: totalMessagesSent > 0 ? Math.round((totalResponses / totalMessagesSent) * 100) : null,
        };
      },
      { auth: true },
    )
    // GET /api/analytics/recent-activity
    .get(
      "/recent-activity",
      async ({ user, query }) => {
        const limit = query.limit ?? 10;
        // Replies and new contacts are told per day of the account's zone (a UTC day ran from 05:30 to 05:30 in Kolkata).
        await ensureBuckets(ctx, user);
        const days = lastDays(user.timezone, ctx.now(), ACTIVITY_DAYS);
        const since = new Date(days[0]!.start);
        const items: ActivityItem[] = [
          ...(await campaignsSentSince(ctx, user.id, since, limit)).map((c) => ({
            type: "campaign_sent" as const,
            message: `Campaign "${c.name}" ${CAMPAIGN_OUTCOME[c.status] ?? "started"}`,
            timestamp: c.sentAt!.toISOString(),
          })),
          ...(await repliesByDay(ctx, user.id, days)).map((d) => ({
            type: "new_replies" as const,
            message: `${plural(d.count, "new reply", "new replies")} from customers`,
            timestamp: new Date(Number(d.latest)).toISOString(),
          })),
          ...(await contactsAddedByDay(ctx, user.id, days)).map((d) => ({
            type: "new_contacts" as const,
            message: `${plural(d.count, "new customer", "new customers")} added`,
            timestamp: new Date(Number(d.latest)).toISOString(),
          })),
        ];
        return items.sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, limit);
      },
      { auth: true, query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 50 })) }) },
    );
}
