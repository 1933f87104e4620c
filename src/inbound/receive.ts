import { createFromInbound, findByPhone, optInContact, optOutContact, type ContactRow } from "../contacts/contacts";
import { queueInboundMedia } from "./media-copy";
import { recordReply } from "../contacts/engagement";
import type { AppContext } from "../context";
import { attachToConversations, reserveSeqs } from "../conversations/conversations";
import { clearPossibleOptOut, flagPossibleOptOut } from "../conversations/possible-opt-out";
import { appendEvent } from "../events/events";
import { keywordsOn } from "../keywords/keywords";
import { classify, HELP_WORDS, normalForm, START_WORDS, STOP_WORDS } from "../keywords/matcher";
import { matchPlainOptOut, type PlainOutcome } from "../../shared/keywords/plain-opt-out";
import { hasRoomForContact } from "../licenses/limits";
import { setMessageContact, storeInbound, type MessageRow } from "../messages/messages";
import { segmentCount } from "../messages/segments";
import { sendText } from "../outbound/send-text";
import type { ProviderAccount } from "../providers/accounts";
import type { WebhookEvent } from "../providers/types";
import { recipientPhone } from "../users/default-country";
import { findUserById, helpReplyOf, startReplyOf, stopReplyOf } from "../users/queries";
import { confirmPendingOptIn, handleKeyword } from "./keywords";

/**
 * The inbound flow: a provider's text, verified by the webhook route (./webhook-routes.ts), is stored once, filed
 * in its thread, answered by the compliance words, then by the keywords (./keywords.ts), with the events the
 * readers (automation, drips, outbound webhooks, live sockets) take it from.
 */

/**
 * `keyword` "stop" for STOP's words and for an opt-out in plain words alike; `plain` says what the plain-words
 * matcher made of a text that was no compliance word (shared/keywords/plain-opt-out.ts).
 */
export type InboundOutcome = { message: MessageRow | null; keyword: "stop" | "start" | "help" | null; reply: string | null; plain: PlainOutcome };

/** The sender's contact, looked up once per inbound message and kept as the flow changes it. */
export type Sender = { contact: ContactRow | null };

/**
 * Records an inbound message once (a repeated webhook finds it stored) and applies the compliance keywords:
 * STOP and friends opt the sender out, START/UNSTOP/YES opt back in, HELP/INFO ask for the help text; each gets
 * one confirmation reply, queued like any other message. One transaction: a crash after the message is stored
 * but before its opt-out is applied would leave the STOP ignored for good, since the provider's retry finds the
 * message stored and changes nothing.
 */
export function recordInbound(ctx: AppContext, account: ProviderAccount, e: Extract<WebhookEvent, { type: "inbound" }>): Promise<InboundOutcome> {
  return ctx.withTransaction(async () => recordInboundSteps(ctx, account, e));
}

async function recordInboundSteps(ctx: AppContext, account: ProviderAccount, e: Extract<WebhookEvent, { type: "inbound" }>): Promise<InboundOutcome> {
  const userId = account.userId;
  const from = e.from.startsWith("+") ? e.from : await recipientOrRaw(ctx, userId, e.from);
  const sender: Sender = { contact: (await findByPhone(ctx, userId, from)) ?? null };
  const contact = sender.contact;
  const now = ctx.now();
  const seq = await reserveSeqs(ctx, 1);
  const inserted = await storeInbound(ctx, {
    id: Bun.randomUUIDv7(),
    seq,
    userId,
    contactId: contact?.id ?? null,
    phone: from,
    content: e.body,
    providerId: account.id,
    providerMessageId: e.providerMessageId,
    fromNumber: e.to || null,
    segments: segmentCount(e.body),
    at: new Date(now),
  });
  if (!inserted) return { message: null, keyword: null, reply: null, plain: "none" };
  await appendEvent(ctx, { userId, type: "message.received", subject: { kind: "message", id: inserted.id }, payload: { phone: from, contactId: contact?.id ?? null } });
  await attachToConversations(ctx, [{ userId, phone: from, seq, messageId: inserted.id, direction: "inbound", receivedOn: e.to || null }]);
  if (e.media?.length) await queueInboundMedia(ctx, { userId, providerId: account.id, messageId: inserted.id, urls: e.media });
  if (contact) await recordReply(ctx, contact.id, now);

  const word = normalForm(e.body).toUpperCase();
  let keyword: InboundOutcome["keyword"] = null;
  let reply: string | null = null;
  // Read only for a confirmation: most inbound messages are no keyword. The provider account is the owner's (deleted
  // with them), so the owner is there.
  const owner = async () => (await findUserById(ctx, userId))!;
  const inbound = { userId, messageId: inserted.id, from, sender, to: e.to, body: e.body };
  const compliance = STOP_WORDS.has(word) || word === "STOP ALL" || START_WORDS.has(word) || HELP_WORDS.has(word);
  // Plain words ("please stop texting me") are read only when the text is no compliance word, and yield to a
  // keyword the text fires on this number (a business may run BAJA as a keyword): the keyword's rules then apply.
  let plain: PlainOutcome = compliance ? "none" : matchPlainOptOut(e.body).outcome;
  if (plain !== "none" && classify(e.body, await keywordsOn(ctx, userId, e.to, { activeOnly: true })).rule === "keyword") plain = "none";
  if (STOP_WORDS.has(word) || word === "STOP ALL" || plain === "opt-out") {
    const wasOut = contact?.status === "opted_out";
    sender.contact = await optOutContact(ctx, userId, from, "keyword", e.body.trim());
    keyword = "stop";
    if (!wasOut && !e.optOutConfirmed) reply = await complianceReply(ctx, userId, from, e.to, stopReplyOf(await owner()));
    await clearPossibleOptOut(ctx, userId, from);
  } else if (START_WORDS.has(word)) {
    keyword = "start";
    // YES (or START) while a keyword's double opt-in waits for its answer confirms it: the keyword's welcome is the
    // one reply, and the consent log keeps it. Should the month's SMS have no room for the welcome, START's own
    // confirmation follows below, as STOP/START/HELP are answered past the limit.
    reply = await confirmPendingOptIn(ctx, inbound);
    // A new number's START creates a contact, which counts against the plan. At the limit the message above stays
    // recorded (the owner sees it in the inbox) but no contact is created and no confirmation is sent, since
    // nobody was subscribed. An existing contact's START always works: it is the only way back after a STOP.
    if (!reply && (contact || (await hasRoomForContact(ctx, userId)))) {
      const text = startReplyOf(await owner());
      sender.contact = await optInContact(ctx, userId, from, "keyword", text, { number: e.to || null });
      reply = await complianceReply(ctx, userId, from, e.to, text);
    }
  } else if (HELP_WORDS.has(word)) {
    keyword = "help";
    reply = await complianceReply(ctx, userId, from, e.to, helpReplyOf(await owner()));
  }
  // Unsure: the thread is marked for the owner, unless the contact is out already.
  if (plain === "possible" && contact?.status !== "opted_out") await flagPossibleOptOut(ctx, { userId, phone: from, seq });
  await handleKeyword(ctx, { ...inbound, compliance: keyword });
  // A phone that is not a contact (and did not become one above) becomes one, if the plan has room for it.
  if (!sender.contact && (await hasRoomForContact(ctx, userId))) {
    const created = await createFromInbound(ctx, userId, from);
    await setMessageContact(ctx, inserted.id, created.id);
  }
  return { message: inserted, keyword, reply, plain };
}

async function recipientOrRaw(ctx: AppContext, userId: string, raw: string): Promise<string> {
  try {
    return await recipientPhone(ctx, userId, raw);
  } catch {
    return raw;
  }
}

/**
 * The confirmation reply to STOP/START/HELP goes from the number that received the keyword (so it reaches the
 * contact even though they may now be opted out: carriers expect exactly this one message). Answers the text.
 */
async function complianceReply(ctx: AppContext, userId: string, to: string, receivedOn: string, text: string): Promise<string> {
  await sendText(ctx, { userId, phone: to, contactId: null, content: text, kind: "compliance", from: { replyTo: receivedOn } });
  return text;
}
