import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { nextTurn } from "../time/next-turn";

/** What /metrics (src/metrics/) reads of the outbox, in one pass over the messages table. */
export type OutboxMetrics = {
  byStatus: { direction: string; status: string; count: number }[];
  /** Queued messages per sender number, with the creation time of the oldest. */
  queued: { number: string; count: number; oldestCreatedAt: number }[];
  /** Messages handed to the provider per sender number since `since`. */
  sentSince: { number: string; count: number }[];
};

/**
 * Messages read per statement, with a turn of the event loop between: the figures need every message (no kept count
 * holds them by status and number), and three whole-table passes in one go held the server about 0.7 s per scrape
 * at 1,000,000 messages, every account's requests and sending with it. Ranges of rowid are read straight from the
 * table's own tree. Between two ranges messages may change status: each figure is as exact as a scrape needs, not a
 * snapshot of one instant.
 */
export const METRICS_RANGE = 25_000;

type Group = { direction: string; status: string; number: string; count: number; oldest: number; sent: number };

const GROUPS = `SELECT direction, status, coalesce(from_number, '') AS number, count(*) AS count, min(created_at) AS oldest,
    count(CASE WHEN direction = 'outbound' AND sent_at >= ? THEN 1 END) AS sent
  FROM messages`;

/**
 * The groups, a range of rowid at a time on SQLite (see METRICS_RANGE). PostgreSQL reads the table on its own server,
 * holding no event loop of ours, and has no rowid: one statement there.
 */
async function* groupsOf(ctx: AppContext, since: number): AsyncGenerator<Group[]> {
  await ready(ctx.db);
  if (ctx.records.$engine === "postgres") {
    yield await ctx.records.$rows<Group>(`${GROUPS} GROUP BY direction, status, number`, [since]);
    return;
  }
  const [{ last }] = (await ctx.records.$rows<{ last: number }>("SELECT coalesce(max(rowid), 0) AS last FROM messages")) as [{ last: number }];
  for (let from = 0; from < last; from += METRICS_RANGE) {
    if (from) {
      await nextTurn();
      await ready(ctx.db);
    }
    yield await ctx.records.$rows<Group>(`${GROUPS} WHERE rowid > ? AND rowid <= ? GROUP BY direction, status, number`, [since, from, from + METRICS_RANGE]);
  }
}

export async function outboxMetrics(ctx: AppContext, since: number): Promise<OutboxMetrics> {
  const byStatus = new Map<string, OutboxMetrics["byStatus"][number]>();
  const queued = new Map<string, OutboxMetrics["queued"][number]>();
  const sent = new Map<string, number>();
  for await (const groups of groupsOf(ctx, since)) {
    for (const g of groups) {
      const key = `${g.direction}\u0000${g.status}`;
      const s = byStatus.get(key) ?? { direction: g.direction, status: g.status, count: 0 };
      s.count += g.count;
      byStatus.set(key, s);
      if (g.direction === "outbound" && g.status === "queued") {
        const q = queued.get(g.number) ?? { number: g.number, count: 0, oldestCreatedAt: g.oldest };
        q.count += g.count;
        q.oldestCreatedAt = Math.min(q.oldestCreatedAt, g.oldest);
        queued.set(g.number, q);
      }
      if (g.sent) sent.set(g.number, (sent.get(g.number) ?? 0) + g.sent);
    }
  }
  const by = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return {
    byStatus: [...byStatus.values()].sort(by((s) => `${s.direction}\u0000${s.status}`)),
    queued: [...queued.values()].sort(by((q) => q.number)),
    sentSince: [...sent].map(([number, count]) => ({ number, count })).sort(by((s) => s.number)),
  };
}
