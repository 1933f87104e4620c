import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { registerJobHandler, runDueJobs as runJobs, type Job } from "../jobs/jobs";
import { findUserById } from "../users/queries";
import { startCampaign } from "./campaigns";
import { ACCOUNT_DISABLED, pauseCampaign, stopAccountSending } from "./lifecycle";
import { CAMPAIGN_START } from "./start-jobs";
import { registerAbDecisions } from "./ab-test";
import { findStartRow } from "./records";

/** A scheduled campaign found this late (after downtime) is not sent silently late: it is paused for the user. */
export const MISSED_GRACE_MS = 3600_000;

const fmt = (at: Date, timeZone: string) =>
  new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "medium", timeStyle: "short" }).format(at);

/**
 * Starts (or pauses) a scheduled campaign. It runs inside the transaction that claims its job (its savepoint in the
 * jobs runner's pass), so a crash or an error between the claim and the start leaves the job pending for the next
 * tick rather than done with nothing sent. Its typed list is read only if the start writes it in one go.
 */
async function startScheduledCampaign(ctx: AppContext, job: Job) {
  const campaign = job.refId ? await findStartRow(ctx, null, job.refId) : null;
  const user = campaign && (await findUserById(ctx, campaign.userId));
  if (!campaign || !user || campaign.status !== "scheduled") return;
  // Disabling an account cancels its schedules; one that slipped in since is cancelled the same way, never sent.
  if (user.disabled) {
    await stopAccountSending(ctx, user.id, ACCOUNT_DISABLED);
    return;
  }
  if (ctx.now() - job.runAt > MISSED_GRACE_MS) {
    await pauseCampaign(
      ctx,
      campaign.id,
      `It was scheduled for ${fmt(new Date(job.runAt), user.timezone)}, but the server was not running then. It was not sent late: resume it to send now, or cancel it.`,
    );
    return;
  }
  try {
    await startCampaign(ctx, user, campaign, job.runAt);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    await pauseCampaign(ctx, campaign.id, `It could not start at its scheduled time: ${err.message}`);
  }
}

/**
 * Scheduled campaigns and A/B tests' decisions run from the jobs table. A start that fails (rolled back) is tried again at the next tick,
 * without back-off: after its hour of grace it is paused for the user instead.
 */
export function registerScheduledCampaigns(ctx: AppContext) {
  registerJobHandler(ctx, CAMPAIGN_START, startScheduledCampaign, { transactional: true, firstDelayMs: 0, maxAttempts: Infinity });
  // An A/B test's winner, picked by its rule at its time (ab-test.ts).
  registerAbDecisions(ctx);
}

/** Runs the jobs due now (scheduled campaigns among them); answers how many it handled. */
export async function runDueJobs(ctx: AppContext): Promise<number> {
  return (await runJobs(ctx)).claimed;
}
