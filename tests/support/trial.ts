import type { AppContext } from "../../src/context";
import { startTrial } from "../../src/licenses/licenses";

/**
 * The trial's plan, in force from `from` for the trial's length too (a test on a clock set in the past). An account
 * has one trial (migration 0077), which sign-up starts at the real time, so startTrial(from) answers that one: the
 * same plan for the same days from `from` is written beside it as an administrator's grant, and the account has a
 * license at either clock, as it had with two trials.
 */
export async function trialFrom(ctx: AppContext, userId: string, from: Date) {
  const trial = await startTrial(ctx, userId, from);
  if (trial.startsAt.getTime() === from.getTime()) return;
  const days = (trial.expiresAt?.getTime() ?? from.getTime()) - trial.startsAt.getTime();
  ctx.db.$client
    .query(`INSERT INTO licenses (id, user_id, plan_id, source, starts_at, expires_at, created_at) VALUES (?, ?, ?, 'admin', ?, ?, ?)`)
    .run(crypto.randomUUID(), userId, trial.planId, from.getTime(), from.getTime() + days, Date.now());
}
