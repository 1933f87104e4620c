import { findByPhone } from "../contacts/contacts";
import type { AppContext } from "../context";
import { badRequest, HttpError } from "../http/errors";
import { assertWithinLimit } from "../licenses/limits";
import { attachableMedia } from "../media/media";
import { getMessage, NO_SENDER } from "../messages/messages";
import { enqueue, type NewOutbound } from "../messages/outbox";
import { segmentCount } from "../messages/segments";
import { render } from "../../shared/personalisation/render";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../../shared/providers/mms";
import type { ProviderKind } from "../providers/types";
import { recipientPhone } from "../users/default-country";
import { businessNameOf, findUserById } from "../users/queries";

/**
 * The one door for a text of no campaign: chat and one-off sends, the STOP/START/HELP confirmations, keyword
 * replies, automation rules' messages and drip steps. The caller has checked what its own case asks (consent, the
 * plan, merge fields); this picks the sender and queues the text in the outbox, whose engine paces it with
 * everything else on that number.
 */

/** A text not sent within a day is not sent stale. */
export const TEXT_TTL_MS = 24 * 3600_000;

type Chosen = NonNullable<Awaited<ReturnType<typeof chooseSender>>>;

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
  /** An MMS: uploads checked by `attachableMedia`, from a sender whose provider sends MMS. */
  mediaIds?: string[];
  /** An MMS of attachments held by another (a drip step's), linked to the message, not given to it. */
  sharedMediaIds?: string[];
};

/** The sender a reply goes from: the number that received the text, else the account's default (null: none). */
export async function replySender(ctx: AppContext, userId: string, receivedOn: string): Promise<Chosen | null> {
  try {
    return await chooseSender(ctx, userId, receivedOn || null);
  } catch {
    return chooseSender(ctx, userId, null);
  }
}

/** The outbox row of a text, for a caller that writes many together (a drip pass); null when there is no sender. */
export async function outboundText(ctx: AppContext, t: TextToSend): Promise<NewOutbound | null> {
  const sender = "chosen" in t.from ? t.from.chosen : await replySender(ctx, t.userId, t.from.replyTo);
  if (!sender) return null;
  return {
    ...(t.id ? { id: t.id } : {}),
    userId: t.userId,
    campaignId: null,
    contactId: t.contactId,
    phone: t.phone,
    content: t.content,
    // An MMS is one message however long its text (providers price it per message, shared/providers/mms.ts).
    segments: t.mediaIds?.length || t.sharedMediaIds?.length ? 1 : segmentCount(t.content),
    kind: t.kind,
    sender: { numberId: sender.n.id, providerId: sender.n.providerId, phoneNumber: sender.n.phoneNumber },
    dueAt: t.dueAt ?? 0,
    expiresAt: ctx.now() + TEXT_TTL_MS,
    ...(t.mediaIds?.length ? { mediaIds: t.mediaIds } : {}),
    ...(t.sharedMediaIds?.length ? { sharedMediaIds: t.sharedMediaIds } : {}),
  };
}

/** Queues texts built by outboundText together: one transaction, one wake (a drip pass's steps). Answers their ids. */
export function sendTexts(ctx: AppContext, rows: NewOutbound[]): Promise<string[]> {
  return enqueue(ctx, rows);
}

/**
 * Queues one text, its sender chosen in the transaction that writes it (a savepoint of the caller's); answers its id,
 * or null when the account has no number to send it from.
 */
export async function sendText(ctx: AppContext, t: TextToSend): Promise<string | null> {
  return ctx.withTransaction(async () => {
    const row = await outboundText(ctx, t);
    return row ? ((await enqueue(ctx, [row]))[0] ?? null) : null;
  });
}

/**
 * A text a user sends one recipient (chat and one-off sends): checks consent and the plan, fills the merge fields
 * from the contact, picks the sender (the one named, else the default) and queues it, in one transaction with its
 * checks (a savepoint of the caller's: a chat send's). Answers the message and the plan's 80% notice.
 */
export async function sendSingle(
  ctx: AppContext,
  userId: string,
  input: { phone: string; content: string; fromNumber?: string | null; mediaIds?: string[] },
) {
  const typed = input.content.trim();
  const mediaIds = input.mediaIds ?? [];
  if (!typed && !mediaIds.length) throw badRequest("Message content is required");
  return ctx.withTransaction(async () => singleQueued(ctx, userId, input, typed, mediaIds));
}

async function singleQueued(ctx: AppContext, userId: string, input: { phone: string; fromNumber?: string | null }, typed: string, mediaIds: string[]) {
  const phone = await recipientPhone(ctx, userId, input.phone);
  const contact = await findByPhone(ctx, userId, phone);
  if (contact?.status === "opted_out") {
    throw new HttpError(409, "This contact has opted out of messages. They can opt back in by texting START.", { optedOut: true });
  }
  const sender = await chooseSender(ctx, userId, input.fromNumber);
  if (!sender) throw badRequest(NO_SENDER, { needsProvider: true });
  // An MMS: every upload the account's and unsent, and a provider that sends MMS, before anything is queued.
  if (mediaIds.length) {
    await attachableMedia(ctx, userId, mediaIds);
    const refusal = cannotSendMms(sender.provider as ProviderKind);
    if (refusal) throw badRequest(refusal, { mmsUnsupported: true });
  }
  // Merge fields are filled from the contact (a number that is no contact gets the fallbacks).
  const user = await findUserById(ctx, userId);
  const content = render(typed, {
    firstName: contact?.firstName,
    lastName: contact?.lastName,
    phone,
    email: contact?.email,
    business: user ? businessNameOf(user) : "",
    customFields: contact?.customFields,
  });
  const { notice } = await assertWithinLimit(ctx, userId, "messages", mediaIds.length ? 1 : segmentCount(content));
  const id = await sendText(ctx, {
    userId,
    phone,
    contactId: contact?.id ?? null,
    content,
    kind: "single",
    from: { chosen: sender },
    ...(mediaIds.length ? { mediaIds } : {}),
  });
  return { message: await getMessage(ctx, userId, id!), notice };
}
