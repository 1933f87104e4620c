/**
 * Reads of message_rollups (migrations 0020, 0034: counts kept by triggers on messages, in buckets keyed by their
 * first quarter hour and as wide as the account's zone allows, src/results/buckets.ts) and of message_day_rollups
 * (migration 0038: the same counts summed per local day of the account's zone). A day, a week or a month is a range
 * of quarter hours: a bucket belongs to the interval its first instant falls in. Every local midnight being a
 * bucket's edge, a local day is exactly its buckets, in Kolkata (+05:30) and Kathmandu (+05:45) as in Chicago, and
 * exactly its day rows. So each interval is read as three ranges of primary keys: its whole local days from the day
 * rows, and from the fine buckets what comes before its first local midnight and after its last (a week counted
 * back from now, the month so far). A year is then about 365 day rows per status, sender and campaign instead of
 * up to 35,040 buckets (Kathmandu's overview read 1.7 years of them: 107 ms at p95).
 */
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import type { Interval } from "./periods";

const QUARTER_HOUR = 900_000;

/**
 * The ranges an interval is read as, the parameters ?2 to ?7 of `rollupsOf`: fine buckets from ?2 to ?3 and from
 * ?4 to ?5, day rows from ?6 to ?7 (each [first, the one after the last), in quarter hours). Its local days are
 * those of the zone the account's day rows were built in; an account with none yet (never read since migration
 * 0038) is read from the fine buckets alone.
 */
function ranges(ctx: AppContext, userId: string, interval: Interval): number[] {
  const from = Math.ceil(interval.start / QUARTER_HOUR);
  const to = Math.ceil(interval.end / QUARTER_HOUR);
  const days = ctx.db.$client
    .query(
      `SELECT (SELECT min(d.quarter_hour) FROM rollup_days d WHERE d.zone = g.zone AND d.quarter_hour >= ?2) AS first,
              (SELECT max(d.quarter_hour) FROM rollup_days d WHERE d.zone = g.zone AND d.quarter_hour <= ?3) AS last
       FROM rollup_granularity g WHERE g.user_id = ?1`,
    )
    .get(userId, from, to) as { first: number | null; last: number | null } | null;
  if (days?.first == null || days.last == null || days.first >= days.last) return [from, to, 0, 0, 0, 0];
  return [from, days.first, days.last, to, days.first, days.last];
}

/** The rows of an interval's three ranges (see `ranges`), with the given columns, for ?1's account. */
const rollupsOf = (columns: string) =>
  `(SELECT ${columns} FROM message_rollups WHERE user_id = ?1 AND quarter_hour >= ?2 AND quarter_hour < ?3
    UNION ALL SELECT ${columns} FROM message_rollups WHERE user_id = ?1 AND quarter_hour >= ?4 AND quarter_hour < ?5
    UNION ALL SELECT ${columns} FROM message_day_rollups WHERE user_id = ?1 AND day >= ?6 AND day < ?7)`;

/** Of a row's messages, mms were MMS, mmsSent of them reached the provider, costing mmsSpendMicros (migration 0070). */
export type RollupRow = { i: number; status: string; n: number; sent: number; segments: number; spendMicros: number; mms: number; mmsSent: number; mmsSpendMicros: number };

/** Per interval (its index) and status: messages, how many reached the provider, their segments and their cost. */
export async function rollupsIn(ctx: AppContext, userId: string, intervals: Interval[]): Promise<RollupRow[]> {
  await ready(ctx.db);
  // A statement per interval: one over json_each grouped by (interval, status) sorted every row it read in one
  // temporary b-tree, twice as slow on a year of buckets.
  const read = ctx.db.$client.query(
    `SELECT status, sum(n) AS n, sum(sent) AS sent, sum(segments) AS segments, sum(spend_micros) AS spendMicros,
            sum(mms) AS mms, sum(mms_sent) AS mmsSent, sum(mms_spend_micros) AS mmsSpendMicros
     FROM ${rollupsOf("status, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros")} GROUP BY status`,
  );
  return intervals.flatMap((interval, i) =>
    (read.all(userId, ...ranges(ctx, userId, interval)) as Omit<RollupRow, "i">[]).map((r) => ({ i, ...r })),
  );
}

/**
 * Per interval and sender number: messages that reached the provider from it; '' for those whose number has been
 * removed since (their messages are kept, detached from it).
 */
export async function sentBySenderIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  await ready(ctx.db);
  const read = ctx.db.$client.query(
    `SELECT phone_number_id AS phoneNumberId, sum(sent) AS sent FROM ${rollupsOf("phone_number_id, sent")}
     WHERE sent > 0 GROUP BY phone_number_id`,
  );
  return intervals.flatMap((interval, i) =>
    (read.all(userId, ...ranges(ctx, userId, interval)) as { phoneNumberId: string; sent: number }[]).map((r) => ({ i, ...r })),
  );
}

/** Per interval: how many campaigns had messages reach the provider in it. */
export async function campaignsSentIn(ctx: AppContext, userId: string, intervals: Interval[]) {
  await ready(ctx.db);
  const read = ctx.db.$client.query(
    `SELECT count(DISTINCT campaign_id) AS campaigns FROM ${rollupsOf("campaign_id, sent")} WHERE campaign_id <> '' AND sent > 0`,
  );
  return intervals.map((interval, i) => ({ i, campaigns: (read.get(userId, ...ranges(ctx, userId, interval)) as { campaigns: number }).campaigns }));
}

export type CampaignRollupRow = Omit<RollupRow, "i"> & { campaignId: string };

/** Per campaign with messages in an interval: its counts there by status. */
export async function campaignRollupsIn(ctx: AppContext, userId: string, interval: Interval): Promise<CampaignRollupRow[]> {
  await ready(ctx.db);
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, status, sum(n) AS n, sum(sent) AS sent, sum(segments) AS segments, sum(spend_micros) AS spendMicros,
              sum(mms) AS mms, sum(mms_sent) AS mmsSent, sum(mms_spend_micros) AS mmsSpendMicros
       FROM ${rollupsOf("campaign_id, status, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros")} WHERE campaign_id <> '' GROUP BY campaign_id, status`,
    )
    .all(userId, ...ranges(ctx, userId, interval)) as CampaignRollupRow[];
}

/** Segments that reached the provider and what they cost, per campaign, over the campaigns' whole lives. */
export async function spendByCampaign(ctx: AppContext, userId: string, campaignIds: string[]) {
  if (!campaignIds.length) return [];
  await ready(ctx.db);
  return ctx.db.$client
    .query(
      `SELECT campaign_id AS campaignId, sum(segments) AS segments, sum(spend_micros) AS spendMicros
       FROM message_rollups WHERE campaign_id IN (SELECT value FROM json_each(?1)) AND campaign_id <> '' AND user_id = ?2
       GROUP BY campaign_id`,
    )
    .all(JSON.stringify(campaignIds), userId) as { campaignId: string; segments: number; spendMicros: number }[];
}
