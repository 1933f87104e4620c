import { inArray } from "drizzle-orm";
import { campaigns, type CampaignStatus } from "../../db/schema";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import { cancelJobs } from "../jobs/jobs";
import { campaignHasOpenMessages, campaignsWithParked, cancelAccountMessages, firstWritten, parkCampaign, releaseCampaign } from "../messages/outbox";
import { statusCountsByCampaign } from "./stats";
import { campaignsWithStartJob, cancelCampaignStart, scheduleCampaignStart } from "./start-jobs";

/** What the outbox asks of campaigns at sending: each one's status, and whether quiet hours may hold its messages. */
export function campaignSendStates(ctx: AppContext, ids: string[]): Map<string, { status: CampaignStatus; anyHour: boolean }> {
  if (!ids.length) return new Map();
  const rows = ctx.db
    .select({ id: campaigns.id, status: campaigns.status, anyHourSince: campaigns.anyHourSince })
    .from(campaigns)
    .where(inArray(campaigns.id, ids))
    .all();
  return new Map(rows.map((r) => [r.id, { status: r.status, anyHour: r.anyHourSince !== null }]));
}

/**
 * Pauses a sending or scheduled campaign with the reason shown to the user (null when its owner paused it, `by`
 * "user", which its event says); its queued messages are parked, none is lost. Answers whether it paused it: the
 * conditional update decides, so one that finished or was paused meanwhile is left as it is.
 */
export function pauseCampaign(ctx: AppContext, id: string, reason: string | null, by?: "user"): boolean {
  const db = ctx.db.$client;
  return db.transaction(() => {
    const changed = db
      .query(`UPDATE campaigns SET status = 'paused', pause_reason = ?, updated_at = ? WHERE id = ? AND status IN ('sending', 'scheduled')`)
      .run(reason, ctx.now(), id);
    if (!changed.changes) return false;
    parkCampaign(ctx, id);
    const { user_id } = db.query(`SELECT user_id FROM campaigns WHERE id = ?`).get(id) as { user_id: string };
    appendEvent(ctx, { userId: user_id, type: "campaign.paused", subject: { kind: "campaign", id }, payload: by ? { reason, by } : { reason } });
    return true;
  })();
}

/**
 * A sending campaign with nothing left queued or in flight (and its outbox wholly written) is finished: completed when anything went out,
 * failed when every message failed. Status comes from the rows, so this only records what they say. Answers
 * whether it settled the campaign.
 */
export function settleCampaign(ctx: AppContext, id: string): boolean {
  const db = ctx.db.$client;
  // One whose outbox is still being written has more to send than its rows say; the last chunk settles it. An A/B
  // test whose winner is not picked has the rest of its audience to send (ab-test.ts queues it with the winner).
  if (!db.query(`SELECT 1 FROM campaigns WHERE id = ? AND status = 'sending' AND outbox_writing IS NULL AND (ab_test IS NULL OR ab_winner IS NOT NULL)`).get(id)) {
    return false;
  }
  if (campaignHasOpenMessages(ctx, id)) return false;
  // From the counts the triggers keep (migration 0019): summed over the messages, a million-recipient campaign's
  // end read a million rows on the event loop.
  let out = 0;
  let failed = 0;
  for (const r of statusCountsByCampaign(ctx, [id])) {
    if (r.status === "sent" || r.status === "delivered" || r.status === "unknown") out += r.n;
    else if (r.status === "failed") failed += r.n;
  }
  const status: CampaignStatus = out === 0 && failed > 0 ? "failed" : "completed";
  const now = ctx.now();
  return db.transaction(() => {
    const settled = db
      .query(`UPDATE campaigns SET status = ?, completed_at = ?, updated_at = ? WHERE id = ? AND status = 'sending' RETURNING user_id`)
      .get(status, now, now, id) as { user_id: string } | null;
    if (settled) appendEvent(ctx, { userId: settled.user_id, type: "campaign.completed", subject: { kind: "campaign", id }, payload: { status } });
    return !!settled;
  })();
}

/** The one settle step: the messages domain hands it every campaign whose messages changed status. */
export function settleCampaigns(ctx: AppContext, ids: Iterable<string>) {
  for (const id of ids) settleCampaign(ctx, id);
}

export const ACCOUNT_DISABLED = "Account disabled by an administrator";

/**
 * Stops everything an account still has to send, in one transaction: campaigns that may still send (scheduled,
 * sending, paused) are cancelled with the reason, their pending start jobs too, and every queued message ends
 * cancelled with the reason. Rows already handed to a provider ('sending') keep their outcome. Nested inside a
 * caller's transaction (disabling the user) it commits or rolls back with it.
 */
export function stopAccountSending(ctx: AppContext, userId: string, reason: string) {
  const db = ctx.db.$client;
  const now = ctx.now();
  return db.transaction(() => {
    const campaignsCancelled = db
      .query(
        `UPDATE campaigns SET status = 'cancelled', pause_reason = ?, completed_at = ?, updated_at = ?
         WHERE user_id = ? AND status IN ('scheduled', 'sending', 'paused')`,
      )
      .run(reason, now, now, userId).changes;
    cancelJobs(ctx, { userId });
    const messagesCancelled = cancelAccountMessages(ctx, userId, reason);
    return { campaignsCancelled, messagesCancelled };
  })();
}

/**
 * Start-up repair of what a crash in an older version could leave half-written, run before the sending manager
 * and the scheduler look at anything (today each of these writes is one transaction, so none arises anew):
 * - outbox rows written but the campaign's status not: a draft, scheduled or paused campaign that never started
 *   (no sent time) yet has messages was being started; it becomes `sending` from when its rows were written (they
 *   still expire at their own time, so nothing goes out stale) and its pending start job is dropped;
 * - a sending campaign with parked rows (rows parked while its status said it had not started): they are due again;
 * - a scheduled campaign whose start job was claimed but never run: it gets its job back at its scheduled time
 *   (the scheduler then pauses it for the user when that time is more than an hour past);
 * - a sending campaign with nothing left queued or in flight (its last outcomes were recorded, its status not):
 *   settled as completed or failed.
 * Answers how many campaigns it repaired.
 */
export function repairInterruptedCampaigns(ctx: AppContext): number {
  const db = ctx.db.$client;
  const now = ctx.now();
  const repaired = new Set<string>();
  db.transaction(() => {
    const notStarted = db.query(`SELECT id FROM campaigns WHERE status IN ('draft', 'scheduled', 'paused') AND sent_at IS NULL`).all() as { id: string }[];
    for (const [id, written] of firstWritten(ctx, notStarted.map((c) => c.id))) {
      db.query(`UPDATE campaigns SET status = 'sending', sent_at = ?, pause_reason = NULL, updated_at = ? WHERE id = ?`).run(written, now, id);
      cancelCampaignStart(ctx, id);
      repaired.add(id);
    }
    const sendingIds = (db.query(`SELECT id FROM campaigns WHERE status = 'sending'`).all() as { id: string }[]).map((c) => c.id);
    for (const id of campaignsWithParked(ctx, sendingIds)) {
      releaseCampaign(ctx, id, now, true);
      repaired.add(id);
    }
    const scheduled = db.query(`SELECT id, user_id, coalesce(scheduled_at, ?) AS at FROM campaigns WHERE status = 'scheduled'`).all(now) as {
      id: string;
      user_id: string;
      at: number;
    }[];
    const withJob = campaignsWithStartJob(ctx, scheduled.map((c) => c.id));
    for (const c of scheduled) {
      if (withJob.has(c.id)) continue;
      scheduleCampaignStart(ctx, c.user_id, c.id, c.at);
      repaired.add(c.id);
    }
  })();
  const sending = db.query(`SELECT id FROM campaigns WHERE status = 'sending'`).all() as { id: string }[];
  for (const { id } of sending) if (settleCampaign(ctx, id)) repaired.add(id);
  return repaired.size;
}
