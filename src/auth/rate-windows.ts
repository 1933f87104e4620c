import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * The rate limits' fixed windows, held in `rate_windows` so that every process of an installation counts a client's
 * calls together and a restart forgets nothing (issue 31 item 2). One statement per hit: the window is started
 * (or restarted, once it ended) and counted in the same upsert, so two processes counting at once never lose a
 * hit (on PostgreSQL, ON CONFLICT DO UPDATE takes the row's lock and counts on the value last committed). Windows
 * that ended are deleted every SWEEP_EVERY hits of a process. The SQL is the same text on both engines: `?`
 * parameters in order, CASE rather than SQLite's scalar max().
 */
const SWEEP_EVERY = 1000;
const hitsSinceSweep = new WeakMap<AppContext, number>();

/**
 * One hit: parameters key, the end of a window begun now, now, now. The same text runs on PostgreSQL (its test:
 * tests/api/shared-limits-postgres.test.ts).
 */
export const HIT_SQL = `INSERT INTO rate_windows (key, hits, resets_at) VALUES (?, 1, ?)
 ON CONFLICT (key) DO UPDATE SET
   hits = CASE WHEN rate_windows.resets_at <= ? THEN 1 ELSE rate_windows.hits + 1 END,
   resets_at = CASE WHEN rate_windows.resets_at <= ? THEN excluded.resets_at ELSE rate_windows.resets_at END
 RETURNING hits, resets_at`;

export type RateWindowHit = { hits: number; resetsAt: number };

/** Counts one hit of `key` in its window of `windowMs`: the hits so far in the window and when it ends. */
export async function hitRateWindow(ctx: AppContext, key: string, windowMs: number): Promise<RateWindowHit> {
  await ready(ctx.db);
  const now = ctx.now();
  const since = (hitsSinceSweep.get(ctx) ?? 0) + 1;
  hitsSinceSweep.set(ctx, since % SWEEP_EVERY);
  if (since === SWEEP_EVERY) await ctx.records.$run(`DELETE FROM rate_windows WHERE resets_at <= ?`, [now]);
  const [row] = await ctx.records.$rows<{ hits: number; resets_at: number }>(HIT_SQL, [key, now + windowMs, now, now]);
  return { hits: row!.hits, resetsAt: row!.resets_at };
}

/** Forgets every window whose key starts with `prefix` (the tests' reset between cases). */
export async function clearRateWindows(ctx: AppContext, prefix: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(`DELETE FROM rate_windows WHERE substr(key, 1, ?) = ?`, [prefix.length, prefix]);
}

/** The rate limiter's store (RateWindows of src/http/rate-limit.ts), handed to it by app.ts. */
export const rateWindowsOf = (ctx: AppContext) => ({
  hit: (key: string, windowMs: number) => hitRateWindow(ctx, key, windowMs),
  clear: (prefix: string) => clearRateWindows(ctx, prefix),
});
