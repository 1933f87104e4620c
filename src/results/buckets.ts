/**
 * How many quarter hours an account's rollup buckets span (migration 0034): the coarsest that keeps every local
 * midnight of its zone on a bucket's edge. 4 (an hour) for zones whose offsets are whole hours, most accounts; 2
 * for half hours (Kolkata, Adelaide, St John's); 1 for Kathmandu's +05:45. Fewer, wider buckets are fewer rows to
 * read: a year of quarter hours is four times a year of hours.
 */
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";
import { zoneOffset } from "../time/zones";
import { midnight } from "./periods";

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const QUARTER_HOUR = 900_000;
// The offsets a zone has had since 2000 and has scheduled to 2040: no account has messages from before. The same
// span's local midnights are the days of the day rows (migration 0038).
const FROM = Date.UTC(2000, 0, 1);
const TO = Date.UTC(2040, 0, 1);
const byZone = new Map<string, number>();

/** Quarter hours per bucket for a zone: 4, 2 or 1 (computed once per zone from its offsets, a week apart). */
export function bucketQuarters(zone: string): number {
  const known = byZone.get(zone);
  if (known) return known;
  let quarters = 4;
  for (let t = FROM; t < TO && quarters > 1; t += WEEK) {
    const minutes = zoneOffset(zone, t) / 60_000;
    if (minutes % 30 !== 0) quarters = 1;
    else if (minutes % 60 !== 0) quarters = 2;
  }
  byZone.set(zone, quarters);
  return quarters;
}

/** Local days from FROM to TO, every date: the rows of rollup_days a zone has once all are stored. */
const ZONE_DAYS = Math.floor((TO - FROM) / DAY) + 1;
/** Weeks of a zone's days worked out and stored at a time, with a turn of the event loop between: ~1,050 days. */
const WEEKS_A_SLICE = 150;

/**
 * The local midnights of a zone as quarter hours, [one, the next) being a local day, of the weeks [fromWeek, toWeek)
 * after FROM up to TO. The offset is looked up once a week and each date's midnight worked out exactly only in a
 * week it changes in (a lookup per date took 200 ms per zone). The figures do not depend on these being the zone's
 * midnights, only how many rows a day costs: a day row is only ever read whole, between two of these edges.
 */
function zoneMidnights(zone: string, fromWeek = 0, toWeek = Infinity): number[] {
  const first = new Date(FROM);
  const [y, m, d] = [first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate()];
  const midnights: number[] = [];
  for (let week = fromWeek; week < toWeek && week * 7 * DAY < TO - FROM + DAY; week++) {
    const start = FROM + week * WEEK;
    const offset = zoneOffset(zone, start - DAY);
    const steady = offset === zoneOffset(zone, start + WEEK + DAY);
    for (let day = week * 7; day < week * 7 + 7 && day * DAY <= TO - FROM; day++) {
      midnights.push(Math.ceil((steady ? FROM + day * DAY - offset : midnight(zone, y, m, d + day)) / QUARTER_HOUR));
    }
  }
  return midnights;
}

const zoneDaysStored = (db: AppContext["db"]["$client"], zone: string) =>
  (db.query(`SELECT count(*) AS n FROM rollup_days WHERE zone = ?`).get(zone) as { n: number }).n;

function storeZoneDays(db: AppContext["db"]["$client"], zone: string, midnights: number[]) {
  const insert = db.query(`INSERT OR IGNORE INTO rollup_days (zone, quarter_hour) VALUES (?, ?)`);
  for (const quarterHour of midnights) insert.run(zone, quarterHour);
}

/**
 * Stores a zone's days (rollup_days) a slice of weeks at a time, each in its own transaction with a turn of the
 * event loop between: all 14,611 and the offsets to find them held the loop ~50 ms of CPU in one go, on the first
 * read of an account in a zone no account had. The rows are the zone's whoever writes them (INSERT OR IGNORE): two
 * first reads at once, or a stop midway, leave them whole; the zone is done when it has ZONE_DAYS rows.
 */
async function storeZoneDaysInSlices(ctx: AppContext, zone: string) {
  await ready(ctx.db);
  if (zoneDaysStored(ctx.db.$client, zone) >= ZONE_DAYS) return;
  for (let week = 0; week * 7 * DAY < TO - FROM + DAY; week += WEEKS_A_SLICE) {
    const midnights = zoneMidnights(zone, week, week + WEEKS_A_SLICE);
    await ctx.withTransaction(async () => storeZoneDays(ctx.db.$client, zone, midnights));
    await nextTurn();
  }
}

/**
 * Makes the account's buckets and day rows those its zone needs before its days or months are read. Until a first
 * read an account's buckets are hours and it has no day rows; a first read in a zone needing other buckets, or the
 * first after a move to one (Chicago to Kolkata), stores the span, and migration 0034's triggers rebuild the
 * account's fine rollups in it from its messages and contacts, in the same transaction. Its day rows (migration 0038)
 * are then built from the fine rollups in the zone's days, on a first read and after any change of zone (Chicago to
 * New York moves every local midnight by an hour). The zone's days are stored first, in slices.
 */
export async function ensureBuckets(ctx: AppContext, user: { id: string; timezone: string }) {
  const quarters = bucketQuarters(user.timezone);
  const stored = () =>
    ctx.db.$client.query(`SELECT quarters, zone FROM rollup_granularity WHERE user_id = ?`).get(user.id) as { quarters: number; zone: string | null } | null;
  const current = (s: ReturnType<typeof stored>) => s?.quarters === quarters && s.zone === user.timezone;
  await ready(ctx.db);
  if (current(stored())) return;
  await storeZoneDaysInSlices(ctx, user.timezone);
  await ctx.withTransaction(async () => {
    // Read again in the transaction that rebuilds, after the turns: another read may have rebuilt them meanwhile
    // (it then holds), or a restore replaced the database.
    if (current(stored())) return;
    const db = ctx.db.$client;
    // The slices stored them; whole here too should the database have been replaced meanwhile.
    if (zoneDaysStored(db, user.timezone) < ZONE_DAYS) storeZoneDays(db, user.timezone, zoneMidnights(user.timezone));
    // No zone while the fine rollups are rebuilt in a new width: their triggers would otherwise carry each of a
    // million messages into the day rows one at a time, rows rebuilt from the fine ones below in one statement.
    db.query(
      `INSERT INTO rollup_granularity (user_id, quarters, zone) VALUES (?1, ?2, NULL)
       ON CONFLICT (user_id) DO UPDATE SET quarters = excluded.quarters, zone = NULL`,
    ).run(user.id, quarters);
    db.query(`DELETE FROM message_day_rollups WHERE user_id = ?`).run(user.id);
    db.query(
      `INSERT INTO message_day_rollups (user_id, day, status, phone_number_id, campaign_id, n, sent, segments, spend_micros, mms, mms_sent, mms_spend_micros)
       SELECT ?1, day, status, phone_number_id, campaign_id, sum(n), sum(sent), sum(segments), sum(spend_micros), sum(mms), sum(mms_sent), sum(mms_spend_micros)
       FROM (SELECT r.*, (SELECT max(d.quarter_hour) FROM rollup_days d WHERE d.zone = ?2 AND d.quarter_hour <= r.quarter_hour) AS day
             FROM message_rollups r WHERE r.user_id = ?1)
       WHERE day IS NOT NULL GROUP BY day, status, phone_number_id, campaign_id`,
    ).run(user.id, user.timezone);
    db.query(`UPDATE rollup_granularity SET zone = ?2 WHERE user_id = ?1`).run(user.id, user.timezone);
  });
}
