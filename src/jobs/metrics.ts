import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/** Jobs per state, and how late the due pending ones are (/metrics, src/metrics/). */
export async function jobMetrics(ctx: AppContext, now: number): Promise<{ byState: { state: string; count: number }[]; due: number; oldestDueAt: number | null }> {
  await ready(ctx.db);
  const db = ctx.db.$client;
  const byState = db.query("SELECT state, count(*) AS count FROM jobs GROUP BY state ORDER BY state").all() as { state: string; count: number }[];
  const due = db.query("SELECT count(*) AS n, min(next_attempt_at) AS oldest FROM jobs WHERE state = 'pending' AND next_attempt_at <= ?").get(now) as { n: number; oldest: number | null };
  return { byState, due: due.n, oldestDueAt: due.oldest };
}
