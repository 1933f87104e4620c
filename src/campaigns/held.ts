import { and, eq, isNull } from "drizzle-orm";
import { campaigns } from "../../db/schema";
import type { AppContext } from "../context";
import { conflict } from "../http/errors";
import { releaseHeld } from "../messages/due";
import type { User } from "../users/queries";
import { getCampaign, viewOf } from "./campaigns";

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
export function sendHeldNow(ctx: AppContext, user: User, id: string) {
  const c = getCampaign(ctx, user.id, id);
  if (c.status !== "sending") throw conflict("Only a sending campaign has held messages to send now");
  const now = ctx.now();
  const released = ctx.db.$client.transaction(() => {
    ctx.db
      .update(campaigns)
      .set({ anyHourSince: new Date(now), updatedAt: new Date(now) })
      .where(and(eq(campaigns.id, id), isNull(campaigns.anyHourSince)))
      .run();
    return releaseHeld(ctx, [id], now);
  })();
  ctx.sending.wake();
  return { released, campaign: viewOf(ctx, getCampaign(ctx, user.id, id)) };
}

/**
 * After the account's quiet hours changed (turned off, or another window): its sending campaigns' held messages are
 * due now, and the engine checks each against the new setting as it claims it. Answers how many were let go.
 */
export function releaseAccountHeld(ctx: AppContext, userId: string): number {
  const sending = ctx.db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.userId, userId), eq(campaigns.status, "sending")))
    .all();
  const released = releaseHeld(ctx, sending.map((c) => c.id), ctx.now());
  if (released) ctx.sending.wake();
  return released;
}
