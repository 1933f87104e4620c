/**
 * Reads of message_rollups (migrations 0020, 0034: counts kept by triggers on messages, in buckets keyed by their
 * first quarter hour and as wide as the account's zone allows, src/results/buckets.ts). A day, a week or a month is
 * a range of quarter hours: a bucket belongs to the interval its first instant falls in. Every local midnight being
 * a bucket's edge, a local day is exactly its buckets, in Kolkata (+05:30) and Kathmandu (+05:45) as in Chicago.
 * Each interval is read by its own range of the primary key (account, quarter hour), so 90 days cost 90 short index
 * scans, whatever the number of messages.
 */
import type { AppContext } from "../context";
import type { Interval } from "./periods";

const QUARTER_HOUR = 900_000;

/** Intervals as JSON quarter-hour ranges for json_each: [[first, the one after the last], ...]. */
const quarterRanges = (intervals: Interval[]) =>
  JSON.stringify(intervals.map((i) => [Math.ceil(i.start / QUARTER_HOUR), Math.ceil(i.end / QUARTER_HOUR)]));

export type RollupRow = { i: number; status: string; n: number; sent: number; segments: number; spendMicros: number };

/** Per interval (its index) and status: messages, how many reached the provider, their segments and their cost. */
export function rollupsIn(ctx: AppContext, userId: string, intervals: Interval[]): RollupRow[] {
  // One range scan of the primary key per interval, grouped on its own: a single statement over json_each grouped by
  // (interval, status) sorted every row it read in one temporary b-tree, twice as slow on a year of buckets.
  const read = ctx.db.$client.query(
    `SELECT status, sum(n) AS n, sum(sent) AS sent, sum(segments) AS segments, sum(spend_micros) AS spendMicros
     FROM message_rollups WHERE user_id = ?1 AND quarter_hour >= ?2 AND quarter_hour < ?3 GROUP BY status`,
  );
  return intervals.flatMap((interval, i) =>
    (read.all(userId, Math.ceil(interval.start / QUARTER_HOUR), Math.ceil(interval.end / QUARTER_HOUR)) as Omit<RollupRow, "i">[]).map((r) => ({ i, ...r })),
  );
}

/** Per interval and sender number: messages that reached the provider from it. */
export function sentBySenderIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  return ctx.db.$client
    .query(
      `SELECT d.key AS i, r.phone_number_id AS phoneNumberId, sum(r.sent) AS sent
       FROM json_each(?1) AS d CROSS JOIN message_rollups AS r
       WHERE r.user_id = ?2 AND r.quarter_hour >= d.value ->> 0 AND r.quarter_hour < d.value ->> 1 AND r.phone_number_id <> '' AND r.sent > 0
       GROUP BY d.key, r.phone_number_id`,
    )
    .all(quarterRanges(intervals), userId) as { i: number; phoneNumberId: string; sent: number }[];
}

/** Per interval: how many campaigns had messages reach the provider in it. */
export function campaignsSentIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  return ctx.db.$client
    .query(
      `SELECT d.key AS i, count(DISTINCT r.campaign_id) AS campaigns
       FROM json_each(?1) AS d CROSS JOIN message_rollups AS r
       WHERE r.user_id = ?2 AND r.quarter_hour >= d.value ->> 0 AND r.quarter_hour < d.value ->> 1 AND r.campaign_id <> '' AND r.sent > 0
       GROUP BY d.key`,
    )
    .all(quarterRanges(intervals), userId) as { i: number; campaigns: number }[];
}

export type CampaignRollupRow = { campaignId: string; status: string; n: number; sent: number; segments: number; spendMicros: number };

/** Per campaign with messages in an interval: its counts there by status. */
export function campaignRollupsIn(ctx: AppContext, userId: string, interval: Interval): CampaignRollupRow[] {
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, status, sum(n) AS n, sum(sent) AS sent, sum(segments) AS segments, sum(spend_micros) AS spendMicros
       FROM message_rollups WHERE user_id = ?1 AND quarter_hour >= ?2 AND quarter_hour < ?3 AND campaign_id <> ''
       GROUP BY campaign_id, status`,
    )
    .all(userId, Math.ceil(interval.start / QUARTER_HOUR), Math.ceil(interval.end / QUARTER_HOUR)) as CampaignRollupRow[];
}

/** Segments that reached the provider and what they cost, per campaign, over the campaigns' whole lives. */
export function spendByCampaign(ctx: AppContext, userId: string, campaignIds: string[]) {
  if (!campaignIds.length) return [];
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, sum(segments) AS segments, sum(spend_micros) AS spendMicros
       FROM message_rollups WHERE campaign_id IN (SELECT value FROM json_each(?1)) AND campaign_id <> '' AND user_id = ?2
       GROUP BY campaign_id`,
    )
    .all(JSON.stringify(campaignIds), userId) as { campaignId: string; segments: number; spendMicros: number }[];
}
