import type { AppContext } from "../context";
import { conflict } from "../http/errors";
import { releaseHeld } from "../messages/due";
import type { User } from "../users/queries";
import { getCampaign, viewOf } from "./campaigns";
import { markAnyHour, sendingCampaignIds } from "./records";

/**
 * Messages held for quiet hours, let go by the user (issue 28 item 7): a campaign's at once ("send held messages
 * now", after the screen's compliance warning), or an account's when its quiet hours change. Either only moves due
 * times (src/messages/due.ts): the outbox's exactly-once marking is untouched.
 */

/**
 * Sends a sending campaign's held messages now, and from now on quiet hours hold none of its messages (a large
 * audience still being written included): `any_hour_since` records when the user chose so. Answers how many were
 * let go and the campaign; a second call keeps the first one's time.
 */
export async function sendHeldNow(ctx: AppContext, user: User, id: string) {
  const now = ctx.now();
  // The status is read in the transaction that lets the messages go.
  const released = await ctx.withTransaction(async () => {
    const c = await getCampaign(ctx, user.id, id);
    if (c.status !== "sending") throw conflict("Only a sending campaign has held messages to send now");
    await markAnyHour(ctx, id, now);
    return releaseHeld(ctx, [id], now);
  });
  ctx.sending.wake();
  return { released, campaign: await viewOf(ctx, await getCampaign(ctx, user.id, id)) };
}

/**
 * After the account's quiet hours changed (turned off, or another window): its sending campaigns' held messages are
 * due now, and the engine checks each against the new setting as it claims it. Answers how many were let go.
 */
export async function releaseAccountHeld(ctx: AppContext, userId: string): Promise<number> {
  const released = await ctx.withTransaction(async () => releaseHeld(ctx, await sendingCampaignIds(ctx, userId), ctx.now()));
  if (released) ctx.sending.wake();
  return released;
}
