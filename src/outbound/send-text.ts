import type { AppContext } from "../context";
import { enqueue, type NewOutbound } from "../messages/outbox";
import { segmentCount } from "../messages/segments";
import { chooseSender } from "../phone-numbers/numbers";

/**
 * The one door for a text of no campaign: chat and one-off sends, the STOP/START/HELP confirmations, keyword
 * replies, automation rules' messages and drip steps. The caller has checked what its own case asks (consent, the
 * plan, merge fields); this picks the sender and queues the text in the outbox, whose engine paces it with
 * everything else on that number.
 */

/** A text not sent within a day is not sent stale. */
export const TEXT_TTL_MS = 24 * 3600_000;

type Chosen = NonNullable<ReturnType<typeof chooseSender>>;

export type TextToSend = {
  /** The row's id when the caller names it before the row is written (a drip step logs its message's id). */
  id?: string;
  userId: string;
  phone: string;
  contactId: string | null;
  content: string;
  /** "compliance": the one answer to the recipient's own text, sent even to a number opted out. */
  kind: "single" | "compliance";
  /**
   * The sender: a number already chosen (chat's sticky or typed sender, a drip pass's), or `replyTo`, the number
   * the answered text came in on ("" when the provider does not say), else the account's default.
   */
  from: { chosen: Chosen } | { replyTo: string };
  /** Due from this instant (ms); now when not given. */
  dueAt?: number;
};

/** The sender a reply goes from: the number that received the text, else the account's default (null: none). */
export function replySender(ctx: AppContext, userId: string, receivedOn: string): Chosen | null {
  try {
    return chooseSender(ctx, userId, receivedOn || null);
  } catch {
    return chooseSender(ctx, userId, null);
  }
}

/** The outbox row of a text, for a caller that writes many together (a drip pass); null when there is no sender. */
export function outboundText(ctx: AppContext, t: TextToSend): NewOutbound | null {
  const sender = "chosen" in t.from ? t.from.chosen : replySender(ctx, t.userId, t.from.replyTo);
  if (!sender) return null;
  return {
    ...(t.id ? { id: t.id } : {}),
    userId: t.userId,
    campaignId: null,
    contactId: t.contactId,
    phone: t.phone,
    content: t.content,
    segments: segmentCount(t.content),
    kind: t.kind,
    sender: { numberId: sender.n.id, providerId: sender.n.providerId, phoneNumber: sender.n.phoneNumber },
    dueAt: t.dueAt ?? 0,
    expiresAt: ctx.now() + TEXT_TTL_MS,
  };
}

/** Queues one text; answers its id, or null when the account has no number to send it from. */
export function sendText(ctx: AppContext, t: TextToSend): string | null {
  const row = outboundText(ctx, t);
  return row ? (enqueue(ctx, [row])[0] ?? null) : null;
}
