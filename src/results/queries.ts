/**
 * Reads of message_rollups (migration 0020: hourly counts kept by triggers on messages). A day, a week or a month
 * is a range of hours: an hour belongs to the interval its first instant falls in. Each interval is read by its own
 * range of the primary key (account, hour), so 90 days cost 90 short index scans, whatever the number of messages.
 */
import type { AppContext } from "../context";
import type { Interval } from "./periods";

const HOUR = 3_600_000;

/** Intervals as JSON hour ranges for json_each: [[first hour, hour after the last], ...]. */
const hourRanges = (intervals: Interval[]) => JSON.stringify(intervals.map((i) => [Math.ceil(i.start / HOUR), Math.ceil(i.end / HOUR)]));

export type RollupRow = { i: number; status: string; providerId: string; n: number; sent: number; segments: number };

/** Per interval (its index), status and provider account: messages, how many reached the provider, their segments. */
export function rollupsIn(ctx: AppContext, userId: string, intervals: Interval[]): RollupRow[] {
  // CROSS JOIN keeps json_each outside, so each interval is one range scan of the primary key.
  return ctx.db.$client
    .query(
      `SELECT d.key AS i, r.status AS status, r.provider_id AS providerId, sum(r.n) AS n, sum(r.sent) AS sent, sum(r.segments) AS segments
       FROM json_each(?1) AS d CROSS JOIN message_rollups AS r
       WHERE r.user_id = ?2 AND r.hour >= d.value ->> 0 AND r.hour < d.value ->> 1
       GROUP BY d.key, r.status, r.provider_id`,
    )
    .all(hourRanges(intervals), userId) as RollupRow[];
}

/** Per interval and sender number: messages that reached the provider from it. */
export function sentBySenderIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  return ctx.db.$client
    .query(
      `SELECT d.key AS i, r.phone_number_id AS phoneNumberId, sum(r.sent) AS sent
       FROM json_each(?1) AS d CROSS JOIN message_rollups AS r
       WHERE r.user_id = ?2 AND r.hour >= d.value ->> 0 AND r.hour < d.value ->> 1 AND r.phone_number_id <> '' AND r.sent > 0
       GROUP BY d.key, r.phone_number_id`,
    )
    .all(hourRanges(intervals), userId) as { i: number; phoneNumberId: string; sent: number }[];
}

/** Per interval: how many campaigns had messages reach the provider in it. */
export function campaignsSentIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  return ctx.db.$client
    .query(
      `SELECT d.key AS i, count(DISTINCT r.campaign_id) AS campaigns
       FROM json_each(?1) AS d CROSS JOIN message_rollups AS r
       WHERE r.user_id = ?2 AND r.hour >= d.value ->> 0 AND r.hour < d.value ->> 1 AND r.campaign_id <> '' AND r.sent > 0
       GROUP BY d.key`,
    )
    .all(hourRanges(intervals), userId) as { i: number; campaigns: number }[];
}

export type CampaignRollupRow = { campaignId: string; status: string; providerId: string; n: number; sent: number; segments: number };

/** Per campaign with messages in an interval: its counts there by status and provider account. */
export function campaignRollupsIn(ctx: AppContext, userId: string, interval: Interval): CampaignRollupRow[] {
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, status, provider_id AS providerId, sum(n) AS n, sum(sent) AS sent, sum(segments) AS segments
       FROM message_rollups WHERE user_id = ?1 AND hour >= ?2 AND hour < ?3 AND campaign_id <> ''
       GROUP BY campaign_id, status, provider_id`,
    )
    .all(userId, Math.ceil(interval.start / HOUR), Math.ceil(interval.end / HOUR)) as CampaignRollupRow[];
}

/** Segments that reached the provider, per campaign and provider account, over the campaigns' whole lives. */
export function segmentsByCampaign(ctx: AppContext, userId: string, campaignIds: string[]) {
  if (!campaignIds.length) return [];
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, provider_id AS providerId, sum(segments) AS segments
       FROM message_rollups WHERE campaign_id IN (SELECT value FROM json_each(?1)) AND campaign_id <> '' AND user_id = ?2
       GROUP BY campaign_id, provider_id`,
    )
    .all(JSON.stringify(campaignIds), userId) as { campaignId: string; providerId: string; segments: number }[];
}
