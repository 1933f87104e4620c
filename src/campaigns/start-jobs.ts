import type { AppContext } from "../context";
import { cancelJobs, pendingRefs, rescheduleJob } from "../jobs/jobs";

/**
 * A scheduled campaign's one start job in the jobs table: put, moved, dropped and looked up here, below the
 * campaign's lifecycle that calls these; the job's handler, which starts the campaign, is in scheduler.ts.
 */

export const CAMPAIGN_START = "campaign_start";

/** Puts a campaign's one start job at `at` (moving it when it had one). Call it in the scheduling transaction. */
export function scheduleCampaignStart(ctx: AppContext, userId: string, campaignId: string, at: number): Promise<void> {
  return rescheduleJob(ctx, { kind: CAMPAIGN_START, key: `${CAMPAIGN_START}:${campaignId}`, runAt: at, userId, refId: campaignId });
}

/** Drops a campaign's pending start job (it starts now, goes back to draft, or is cancelled). */
export function cancelCampaignStart(ctx: AppContext, campaignId: string): Promise<number> {
  return cancelJobs(ctx, { refId: campaignId });
}

/** Which of these campaigns have a pending start job. */
export function campaignsWithStartJob(ctx: AppContext, campaignIds: string[]): Promise<Set<string>> {
  return pendingRefs(ctx, CAMPAIGN_START, campaignIds);
}
