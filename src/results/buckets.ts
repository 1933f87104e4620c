/**
 * How many quarter hours an account's rollup buckets span (migration 0034): the coarsest that keeps every local
 * midnight of its zone on a bucket's edge. 4 (an hour) for zones whose offsets are whole hours, most accounts; 2
 * for half hours (Kolkata, Adelaide, St John's); 1 for Kathmandu's +05:45. Fewer, wider buckets are fewer rows to
 * read: a year of quarter hours is four times a year of hours.
 */
import type { AppContext } from "../context";
import { zoneOffset } from "../time/zones";

const WEEK = 7 * 86_400_000;
// The offsets a zone has had since 2000 and has scheduled to 2040: no account has messages from before.
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

/**
 * Makes the account's buckets those its zone needs before its days or months are read. Until a first read an
 * account's buckets are hours; a first read in a zone needing others, or the first after a move to one (Chicago to
 * Kolkata), stores the span, and migration 0034's triggers rebuild the account's rollups in it from its messages
 * and contacts, in the same transaction.
 */
export function ensureBuckets(ctx: AppContext, user: { id: string; timezone: string }) {
  const quarters = bucketQuarters(user.timezone);
  const db = ctx.db.$client;
  const stored = db.query(`SELECT quarters FROM rollup_granularity WHERE user_id = ?`).get(user.id) as { quarters: number } | null;
  if (stored?.quarters === quarters) return;
  db.query(`INSERT INTO rollup_granularity (user_id, quarters) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET quarters = excluded.quarters`).run(
    user.id,
    quarters,
  );
}
