import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { findByPhone, optOutContact } from "../contacts/contacts";
import { appendEvent } from "../events/events";
import { conflict, notFound } from "../http/errors";
import { messagesAt } from "../messages/threads";
import { sendText } from "../outbound/send-text";
import { findUserById, stopReplyOf } from "../users/queries";
import { getConversation } from "./conversations";
import type { ConversationView } from "../../shared/conversations/types";

/**
 * Possible opt-outs (issue 34 item 3): an inbound text the plain-words matcher (shared/keywords/plain-opt-out.ts) was
 * unsure of marks its thread, which Chat lists first with a "Possible opt-out" badge until the owner opts the
 * contact out in one click or dismisses the mark. A later opt-out by any means takes the mark off the screen.
 */

/** The FCC lets one confirmation of an opt-out go out within 5 minutes of the request; later, none is sent. */
export const CONFIRMATION_WINDOW_MS = 5 * 60_000;

export const NOTHING_TO_OPT_OUT = "This conversation has no possible opt-out to act on";

/** Marks the phone's thread with its inbound message `seq` (in the inbound flow's transaction). */
export async function flagPossibleOptOut(ctx: AppContext, m: { userId: string; phone: string; seq: number }): Promise<void> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ id: number }>(
    `UPDATE conversations SET possible_opt_out_seq = ?, updated_at = ? WHERE user_id = ? AND phone = ? RETURNING id`,
    [m.seq, ctx.now(), m.userId, m.phone],
  );
  if (row) await changed(ctx, m.userId, row.id, m.seq);
}

/** Takes the mark off the phone's thread: the contact opted out (STOP or plain words) in the inbound flow. */
export async function clearPossibleOptOut(ctx: AppContext, userId: string, phone: string): Promise<void> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ id: number }>(
    `UPDATE conversations SET possible_opt_out_seq = NULL, updated_at = ? WHERE user_id = ? AND phone = ? AND possible_opt_out_seq IS NOT NULL RETURNING id`,
    [ctx.now(), userId, phone],
  );
  if (row) await changed(ctx, userId, row.id, null);
}

type Marked = { id: number; phone: string; possible_opt_out_seq: number | null };

async function markedRow(ctx: AppContext, userId: string, id: number): Promise<Marked> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<Marked>(
    `SELECT id, phone, possible_opt_out_seq FROM conversations WHERE id = ? AND user_id = ? AND state != 'deleted'`,
    [id, userId],
  );
  if (!row) throw notFound("Conversation not found");
  return row;
}

/** Dismisses the mark: the owner read the text and it was no opt-out. */
export async function dismissPossibleOptOut(ctx: AppContext, userId: string, id: number): Promise<ConversationView> {
  await ctx.withTransaction(async () => {
    const row = await markedRow(ctx, userId, id);
    if (row.possible_opt_out_seq === null) throw conflict(NOTHING_TO_OPT_OUT);
    await clearPossibleOptOut(ctx, userId, row.phone);
  });
  return getConversation(ctx, userId, id);
}

const CONFIRMED = "Opted out. The opt-out confirmation was sent.";

export type OptOutAnswer = { conversation: ConversationView; confirmationSent: boolean; message: string };

/**
 * The owner's one click on a possible opt-out: the contact is opted out as STOP does (the consent log keeps their
 * words and that the owner confirmed them in Chat), and STOP's confirmation goes from the number they texted when
 * the click comes within 5 minutes of their text; later the law allows none, so none is sent.
 */
export async function optOutPossible(ctx: AppContext, userId: string, id: number): Promise<OptOutAnswer> {
  const outcome = await ctx.withTransaction(async (): Promise<string> => {
    const row = await markedRow(ctx, userId, id);
    if (row.possible_opt_out_seq === null) throw conflict(NOTHING_TO_OPT_OUT);
    const [message] = await messagesAt(ctx, userId, [{ phone: row.phone, seq: row.possible_opt_out_seq }]);
    const wasOut = (await findByPhone(ctx, userId, row.phone))?.status === "opted_out";
    const words = message ? `: “${message.content.trim()}”` : "";
    await optOutContact(ctx, userId, row.phone, "manual", `Possible opt-out confirmed in Chat${words}`);
    await clearPossibleOptOut(ctx, userId, row.phone);
    if (wasOut) return "Already opted out: nothing else was sent.";
    if (!message || ctx.now() - message.created_at > CONFIRMATION_WINDOW_MS) {
      return "Opted out. No confirmation was sent: one may only go within 5 minutes of their text.";
    }
    const text = stopReplyOf((await findUserById(ctx, userId))!);
    const sent = await sendText(ctx, {
      userId,
      phone: row.phone,
      contactId: null,
      content: text,
      kind: "compliance",
      from: { replyTo: message.from_number ?? "" },
    });
    return sent ? CONFIRMED : "Opted out. No confirmation was sent: the account has no number to send it from.";
  });
  return { conversation: await getConversation(ctx, userId, id), confirmationSent: outcome === CONFIRMED, message: outcome };
}

function changed(ctx: AppContext, userId: string, id: number, seq: number | null) {
  return appendEvent(ctx, {
    userId,
    type: "conversation.updated",
    subject: { kind: "conversation", id: String(id) },
    payload: { possibleOptOutSeq: seq },
  });
}
