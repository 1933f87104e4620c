import { and, eq, inArray } from "drizzle-orm";
import { campaigns, type CampaignStatus } from "../../db/schema";
import type { AppContext } from "../context";

/** Queued rows of a paused campaign wait here, out of the outbox's due range, until it resumes. */
export const PARKED = 8_000_000_000_000_000;

export function campaignStatuses(ctx: AppContext, ids: string[]): Map<string, CampaignStatus> {
  if (!ids.length) return new Map();
  const rows = ctx.db.select({ id: campaigns.id, status: campaigns.status }).from(campaigns).where(inArray(campaigns.id, ids)).all();
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** Pauses a sending campaign with the reason shown to the user; its queued messages are parked, none is lost. */
export function pauseCampaign(ctx: AppContext, id: string, reason: string | null) {
  const db = ctx.db.$client;
  db.transaction(() => {
    const changed = db
      .query(`UPDATE campaigns SET status = 'paused', pause_reason = ?, updated_at = ? WHERE id = ? AND status IN ('sending', 'scheduled')`)
      .run(reason, ctx.now(), id);
    if (changed.changes) db.query(`UPDATE messages SET next_attempt_at = ? WHERE campaign_id = ? AND status = 'queued'`).run(PARKED, id);
  })();
}

/**
 * A sending campaign with nothing left queued or in flight is finished: completed when anything went out,
 * failed when every message failed. Status comes from the rows, so this only records what they say.
 */
export function settleCampaign(ctx: AppContext, id: string) {
  const db = ctx.db.$client;
  if (!db.query(`SELECT 1 FROM campaigns WHERE id = ? AND status = 'sending'`).get(id)) return;
  if (db.query(`SELECT 1 FROM messages WHERE campaign_id = ? AND status IN ('queued','sending') LIMIT 1`).get(id)) return;
  const counts = db
    .query(`SELECT sum(status IN ('sent','delivered','unknown')) AS out, sum(status = 'failed') AS failed FROM messages WHERE campaign_id = ?`)
    .get(id) as { out: number | null; failed: number | null };
  const status: CampaignStatus = (counts.out ?? 0) === 0 && (counts.failed ?? 0) > 0 ? "failed" : "completed";
  ctx.db
    .update(campaigns)
    .set({ status, completedAt: new Date(ctx.now()), updatedAt: new Date(ctx.now()) })
    .where(and(eq(campaigns.id, id), eq(campaigns.status, "sending")))
    .run();
}
