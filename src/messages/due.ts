import { jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { zoneForRecipient } from "../sending/quiet-hours";

/** Queued rows of a paused campaign wait here, out of the outbox's due range, until it resumes. */
export const PARKED = 8_000_000_000_000_000;

/**
 * Marketing messages held for quiet hours: the sending engine claimed them inside the recipient's quiet window and
 * put them off to its end (src/messages/outbox-store.ts). Such a row is queued, of kind 'campaign', due later than
 * now, not parked by a pause (PARKED) and not waiting out a provider error (a retry carries the error's code, a
 * message a crash cut off carries reconcile.ts's). Letting them go only moves their due time: the engine still marks
 * each one 'sending' in a committed transaction before its one call (`status = 'queued'` in that update), so a
 * release, repeated or cut off by a crash, never sends a message twice.
 */
const HELD = `status = 'queued' AND kind = 'campaign' AND error_code IS NULL AND next_attempt_at > ? AND next_attempt_at < ${PARKED}`;

/**
 * The held messages of these campaigns become due at `now`; answers how many. Held messages belong to campaigns that
 * are sending (a pause parks them), so an account's are its sending campaigns'. The engine checks each again against
 * the account's quiet hours as it claims it (a window changed, not turned off, holds it again until its new end), and
 * the caller wakes it.
 */
export async function releaseHeld(ctx: AppContext, campaignIds: string[], now: number): Promise<number> {
  if (!campaignIds.length) return 0;
  await ready(ctx.db);
  const { changes } = await ctx.records.$run(
    `UPDATE messages SET next_attempt_at = ?, updated_at = ? WHERE campaign_id IN (${jsonValues(ctx.records)}) AND ${HELD}`,
    [now, now, JSON.stringify(campaignIds), now],
  );
  return changes;
}

/**
 * Per campaign of an account (of those given): how many of its messages are held, how many of them by a state's law
 * (its reason says "<State> law allows": src/sending/state-rules.ts), and the latest time one is due.
 */
export async function heldByCampaign(ctx: AppContext, userId: string, campaignIds: string[], now: number): Promise<{ id: string; n: number; byLaw: number; last: number }[]> {
  await ready(ctx.db);
  // A count of LIKE's matches: PostgreSQL has no instr() and sums no booleans; "byLaw" quoted, or it folds to lower case.
  return ctx.records.$rows<{ id: string; n: number; byLaw: number; last: number }>(
    `SELECT campaign_id AS id, count(*) AS n, count(CASE WHEN hold_reason LIKE '% law allows %' THEN 1 END) AS "byLaw", max(next_attempt_at) AS last
     FROM messages WHERE campaign_id IN (${jsonValues(ctx.records)}) AND user_id = ? AND ${HELD}
     GROUP BY campaign_id`,
    [JSON.stringify(campaignIds), userId, now],
  );
}

export type HeldRow = { phone: string; status: string; kind: string; error_code: string | null; next_attempt_at: number; hold_reason: string | null };

/** A held message's rule, as the sending engine wrote it; a message held before migration 0054 names quiet hours. */
const reasonOf = (row: HeldRow) => row.hold_reason ?? "Held: quiet hours";

/**
 * When a message of a thread is held for quiet hours or a state's rule (the same test as HELD), the instant it is
 * due, that time on the recipient's clock in the account's locale ("8:00 AM") and the rule that holds it; else null.
 */
export function quietHoldOf(row: HeldRow, now: number, account: { timezone: string; locale: string }): { until: number; clock: string; reason: string } | null {
  const held = row.status === "queued" && row.kind === "campaign" && row.error_code === null && row.next_attempt_at > now && row.next_attempt_at < PARKED;
  if (!held) return null;
  const timeZone = zoneForRecipient(row.phone, account.timezone);
  let clock: string;
  try {
    clock = new Intl.DateTimeFormat(account.locale, { timeStyle: "short", timeZone }).format(row.next_attempt_at);
  } catch {
    clock = new Intl.DateTimeFormat("en-US", { timeStyle: "short", timeZone: "UTC" }).format(row.next_attempt_at);
  }
  return { until: row.next_attempt_at, clock, reason: reasonOf(row) };
}
