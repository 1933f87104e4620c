import type { CampaignStatus } from "../../db/schema";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import { cancelJobs } from "../jobs/jobs";
import { campaignHasOpenMessages, campaignsWithParked, cancelAccountMessages, firstWritten, parkCampaign, releaseCampaign } from "../messages/outbox";
import { statusCountsByCampaign } from "./stats";
import { campaignsWithStartJob, cancelCampaignStart, scheduleCampaignStart } from "./start-jobs";
import {
  cancelAccountCampaigns,
  finishIfSending,
  markStartedAt,
  neverStartedIds,
  pauseIfRunning,
  scheduledCampaigns,
  sendingCampaignIds,
  sendStatesOf,
  settleable,
} from "./records";

/** What the outbox asks of campaigns at sending: each one's status, and whether quiet hours may hold its messages. */
export function campaignSendStates(ctx: AppContext, ids: string[]): Promise<Map<string, { status: CampaignStatus; anyHour: boolean }>> {
  return sendStatesOf(ctx, ids);
}

/**
 * Pauses a sending or scheduled campaign with the reason shown to the user (null when its owner paused it, `by`
 * "user", which its event says); its queued messages are parked, none is lost. Answers whether it paused it: the
 * conditional update decides, so one that finished or was paused meanwhile is left as it is. In its caller's
 * transaction: the engine's (ctx.campaignOutbox.pause, after a failure run), a job's pass (a scheduled start or an
 * A/B decision that cannot go), or the user's (pauseByUser, ctx.withTransaction).
 */
export async function pauseCampaign(ctx: AppContext, id: string, reason: string | null, by?: "user"): Promise<boolean> {
  const userId = await pauseIfRunning(ctx, id, reason);
  if (!userId) return false;
  await parkCampaign(ctx, id);
  await appendEvent(ctx, { userId, type: "campaign.paused", subject: { kind: "campaign", id }, payload: by ? { reason, by } : { reason } });
  return true;
}

/**
 * A sending campaign with nothing left queued or in flight (and its outbox wholly written) is finished: completed when anything went out,
 * failed when every message failed. Status comes from the rows, so this only records what they say. Answers
 * whether it settled the campaign.
 */
export async function settleCampaign(ctx: AppContext, id: string): Promise<boolean> {
  // One whose outbox is still being written has more to send than its rows say; the last chunk settles it. An A/B
  // test whose winner is not picked has the rest of its audience to send (ab-test.ts queues it with the winner).
  if (!(await settleable(ctx, id))) return false;
  if (await campaignHasOpenMessages(ctx, id)) return false;
  // From the counts the triggers keep (migration 0019): summed over the messages, a million-recipient campaign's
  // end read a million rows on the event loop.
  let out = 0;
  let failed = 0;
  for (const r of await statusCountsByCampaign(ctx, [id])) {
    if (r.status === "sent" || r.status === "delivered" || r.status === "unknown") out += r.n;
    else if (r.status === "failed") failed += r.n;
  }
  // Its status and campaign.completed event, together (records.ts finishIfSending).
  return await finishIfSending(ctx, id, out === 0 && failed > 0 ? "failed" : "completed", ctx.now());
}

/** The one settle step: the messages domain hands it every campaign whose messages changed status. */
export async function settleCampaigns(ctx: AppContext, ids: Iterable<string>) {
  for (const id of ids) await settleCampaign(ctx, id);
}

export const ACCOUNT_DISABLED = "Account disabled by an administrator";

/**
 * Stops everything an account still has to send, in its caller's transaction: campaigns that may still send
 * (scheduled, sending, paused) are cancelled with the reason, their pending start jobs too, and every queued message
 * ends cancelled with the reason. Rows already handed to a provider ('sending') keep their outcome. A scheduled
 * start's job (the jobs runner's pass) stops an account disabled since; the administrator's disabling runs it in
 * ctx.withTransaction (stopAccountSendingNow).
 */
export async function stopAccountSending(ctx: AppContext, userId: string, reason: string) {
  const campaignsCancelled = await cancelAccountCampaigns(ctx, userId, reason, ctx.now());
  await cancelJobs(ctx, { userId });
  const messagesCancelled = await cancelAccountMessages(ctx, userId, reason);
  return { campaignsCancelled, messagesCancelled };
}

/** stopAccountSending in a transaction of its own (nested in the caller's, when it has one: disabling the user). */
export async function stopAccountSendingNow(ctx: AppContext, userId: string, reason: string) {
  return ctx.withTransaction(() => stopAccountSending(ctx, userId, reason));
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
export async function repairInterruptedCampaigns(ctx: AppContext): Promise<number> {
  const now = ctx.now();
  const repaired = new Set<string>();
  await ctx.withTransaction(async () => {
    for (const [id, written] of await firstWritten(ctx, await neverStartedIds(ctx))) {
      await markStartedAt(ctx, id, written, now);
      await cancelCampaignStart(ctx, id);
      repaired.add(id);
    }
    for (const id of await campaignsWithParked(ctx, await sendingCampaignIds(ctx, null))) {
      await releaseCampaign(ctx, id, now, true);
      repaired.add(id);
    }
    const scheduled = await scheduledCampaigns(ctx, now);
    const withJob = await campaignsWithStartJob(ctx, scheduled.map((c) => c.id));
    for (const c of scheduled) {
      if (withJob.has(c.id)) continue;
      await scheduleCampaignStart(ctx, c.user_id, c.id, c.at);
      repaired.add(c.id);
    }
  });
  for (const id of await sendingCampaignIds(ctx, null)) {
    await ctx.withTransaction(async () => {
      if (await settleCampaign(ctx, id)) repaired.add(id);
    });
  }
  return repaired.size;
}
