import type { AppContext } from "../context";

/** What /metrics (src/metrics/) reads of the outbox; each is one pass over the messages table. */
export type OutboxMetrics = {
  byStatus: { direction: string; status: string; count: number }[];
  /** Queued messages per sender number, with the creation time of the oldest. */
  queued: { number: string; count: number; oldestCreatedAt: number }[];
  /** Messages handed to the provider per sender number since `since`. */
  sentSince: { number: string; count: number }[];
};

export function outboxMetrics(ctx: AppContext, since: number): OutboxMetrics {
  const db = ctx.db.$client;
  const byStatus = db.query("SELECT direction, status, count(*) AS count FROM messages GROUP BY direction, status ORDER BY direction, status").all() as OutboxMetrics["byStatus"];
  const queued = db
    .query(
      `SELECT coalesce(from_number, '') AS number, count(*) AS count, min(created_at) AS oldestCreatedAt
       FROM messages WHERE status = 'queued' AND direction = 'outbound' GROUP BY from_number ORDER BY number`,
    )
    .all() as OutboxMetrics["queued"];
  const sentSince = db
    .query(
      `SELECT coalesce(from_number, '') AS number, count(*) AS count FROM messages
       WHERE direction = 'outbound' AND sent_at >= ? GROUP BY from_number ORDER BY number`,
    )
    .all(since) as OutboxMetrics["sentSince"];
  return { byStatus, queued, sentSince };
}
