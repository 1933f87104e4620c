import { Cron } from "croner";
import { and, eq, lte } from "drizzle-orm";
import { campaigns, jobs } from "../../db/schema";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { findUserById } from "../users/queries";
import { startCampaign } from "./campaigns";
import { ACCOUNT_DISABLED, pauseCampaign, stopAccountSending } from "./lifecycle";

/** A scheduled campaign found this late (after downtime) is not sent silently late: it is paused for the user. */
export const MISSED_GRACE_MS = 3600_000;

const fmt = (at: Date, timeZone: string) =>
  new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "medium", timeStyle: "short" }).format(at);

/**
 * Runs one due job: claims it and starts (or pauses) its campaign in one transaction, so a crash between the
 * claim and the start leaves the job pending for the next start-up rather than done with nothing sent.
 */
function runJob(ctx: AppContext, job: typeof jobs.$inferSelect, now: number, graceMs: number) {
  ctx.db.$client.transaction(() => {
    const claimed = ctx.db.update(jobs).set({ state: "done", doneAt: new Date(now) }).where(and(eq(jobs.id, job.id), eq(jobs.state, "pending"))).returning().get();
    if (!claimed) return;
    const campaign = ctx.db.select().from(campaigns).where(eq(campaigns.id, job.refId)).get();
    const user = campaign && findUserById(ctx, campaign.userId);
    if (!campaign || !user || campaign.status !== "scheduled") return;
    // Disabling an account cancels its schedules; one that slipped in since is cancelled the same way, never sent.
    if (user.disabled) {
      stopAccountSending(ctx, user.id, ACCOUNT_DISABLED);
      return;
    }
    const runAt = job.runAt.getTime();
    if (now - runAt > graceMs) {
      pauseCampaign(
        ctx,
        campaign.id,
        `It was scheduled for ${fmt(job.runAt, user.timezone)}, but the server was not running then. It was not sent late: resume it to send now, or cancel it.`,
      );
      return;
    }
    try {
      startCampaign(ctx, user, campaign, runAt);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      pauseCampaign(ctx, campaign.id, `It could not start at its scheduled time: ${err.message}`);
    }
  })();
}

/** Starts every scheduled campaign whose time has come; answers how many jobs it handled. */
export function runDueJobs(ctx: AppContext, graceMs = MISSED_GRACE_MS): number {
  const now = ctx.now();
  const due = ctx.db.select().from(jobs).where(and(eq(jobs.state, "pending"), lte(jobs.runAt, new Date(now)))).all();
  for (const job of due) {
    try {
      runJob(ctx, job, now, graceMs);
    } catch (err) {
      // Rolled back: the job stays pending and is tried again at the next tick; the other due jobs still run.
      ctx.log(`scheduler: job ${job.id} failed: ${(err as Error)?.stack ?? err}`);
    }
  }
  return due.length;
}

/** Checks for due jobs every few seconds, and once at start (catching up after downtime). */
export function startScheduler(ctx: AppContext) {
  const tick = () => {
    try {
      runDueJobs(ctx);
    } catch (err) {
      ctx.log(`scheduler: ${(err as Error)?.stack ?? err}`);
    }
  };
  const cron = new Cron("*/5 * * * * *", { protect: true }, tick);
  ctx.onStop.unshift(() => cron.stop());
  tick();
}
