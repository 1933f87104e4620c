import { bulkTag, optInContact } from "../contacts/contacts";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import { businessOf, confirmRequestText, findKeyword, keywordsOn, type KeywordRow } from "../keywords/keywords";
import { classify, CONFIRM_WORD, normalForm } from "../keywords/matcher";
import { latestPending, markConfirmed, markPending, markReplied, optInOf, withdrawPending } from "../keywords/opt-ins";
import { hasRoomForContact, hasRoomForMessages } from "../licenses/limits";
import { segmentCount } from "../messages/segments";
import { render } from "../../shared/personalisation/render";
import { sendText } from "../outbound/send-text";
import { DEFAULT_EXPIRY_DAYS, expiryAt, linkDomainOf, shortenText } from "../links/links";
import { withShortLinkLengths } from "../../shared/links/text";
import { findUserById } from "../users/queries";
import type { Sender } from "./receive";

/** A double opt-in waits this long for its Y; a later Y confirms nothing. */
export const CONFIRM_WINDOW_MS = 24 * 3600_000;

export type KeywordOutcome =
  | { outcome: "subscribed" | "pending" | "confirmed" | "already" | "limit"; keywordId: string; reply: string | null }
  | { outcome: "replied" | "none"; keywordId: null; reply: null };

export type InboundText = {
  userId: string;
  /** The inbound message, already recorded in this transaction. */
  messageId: string;
  /** The sender, E.164, and their contact as the inbound flow last saw it (looked up once, kept as it changes). */
  from: string;
  sender: Sender;
  /** The account's number it was sent to ("" when the provider does not say). */
  to: string;
  body: string;
  /** The compliance rule the inbound flow already applied to it, if any. */
  compliance: "stop" | "start" | "help" | null;
};

/**
 * The keywords' part of an inbound message, inside the inbound transaction and after STOP/START/HELP (which always
 * win): a Y confirms a pending double opt-in, a keyword subscribes the sender (or asks them to confirm), and any
 * other message from a subscriber counts as a reply for the keyword's response rate.
 */
export async function handleKeyword(ctx: AppContext, m: InboundText): Promise<KeywordOutcome> {
  const none = { outcome: "none", keywordId: null, reply: null } as const;
  // A STOP withdraws a question not yet answered: a later Y must not subscribe someone who said stop since.
  if (m.compliance === "stop") await withdrawPending(ctx, m.userId, m.from);
  if (m.compliance) return none;
  if (normalForm(m.body) === CONFIRM_WORD) {
    const pending = await latestPending(ctx, m.userId, m.from, ctx.now() - CONFIRM_WINDOW_MS);
    if (pending) return confirm(ctx, m, (await findKeyword(ctx, m.userId, pending.keyword_id))!);
  }
  const match = classify(m.body, await keywordsOn(ctx, m.userId, m.to, { activeOnly: true }));
  if (match.rule === "keyword") {
    const outcome = await subscribe(ctx, m, match.keyword);
    // In the inbound transaction, so the log holds a keyword match exactly when the message and its effects do.
    await appendEvent(ctx, {
      userId: m.userId,
      type: "keyword.received",
      subject: { kind: "message", id: m.messageId },
      payload: {
        keywordId: match.keyword.id,
        keyword: match.keyword.keyword,
        phone: m.from,
        number: m.to || null,
        contactId: m.sender.contact?.id ?? null,
        outcome: outcome.outcome,
      },
    });
    return outcome;
  }
  return (await markReplied(ctx, m.userId, m.from, ctx.now())) ? { outcome: "replied", keywordId: null, reply: null } : none;
}

/**
 * YES, START or UNSTOP (read by the inbound flow before its own START reply) answering a double opt-in's
 * question: confirms the sender's newest pending one as Y does, with the keyword's welcome. Answers the welcome as
 * sent, or null when nothing was pending or the month's SMS had no room for it (START's confirmation then follows).
 */
export async function confirmPendingOptIn(ctx: AppContext, m: Omit<InboundText, "compliance">): Promise<string | null> {
  const pending = await latestPending(ctx, m.userId, m.from, ctx.now() - CONFIRM_WINDOW_MS);
  if (!pending) return null;
  const outcome = await confirm(ctx, m, (await findKeyword(ctx, m.userId, pending.keyword_id))!);
  return outcome.outcome === "limit" ? null : outcome.reply;
}

async function subscribe(ctx: AppContext, m: InboundText, k: KeywordRow): Promise<KeywordOutcome> {
  const contact = m.sender.contact;
  const optIn = await optInOf(ctx, k.id, m.from);
  if (optIn?.status === "confirmed" && contact?.status === "subscribed") {
    // Texting the keyword again subscribes nobody twice: the separate reply (within the month's SMS), or none.
    const again = k.alreadyReply ? await linksOf(ctx, m, k, await personalised(ctx, m, k.alreadyReply)) : null;
    const reply = again && (await hasRoomForMessages(ctx, m.userId, again.segments)) ? await again.send() : null;
    if (reply) await sendReply(ctx, m, reply.text, reply.messageId);
    return { outcome: "already", keywordId: k.id, reply: reply?.text ?? null };
  }
  // A new number counts against the plan, and the reply against the month's SMS (checked where it is written): at
  // either limit the message stays in the inbox and nothing else happens, so nobody is subscribed without the
  // confirmation the consent log records as sent. (STOP, START and HELP are answered even past the limit.)
  if (!contact && !(await hasRoomForContact(ctx, m.userId))) return { outcome: "limit", keywordId: k.id, reply: null };
  if (!k.doubleOptIn) return confirm(ctx, m, k);
  if (optIn?.status === "pending" && optIn.created_at >= ctx.now() - CONFIRM_WINDOW_MS) {
    // The question was asked within the window: asking again on every repeat would be the spam it guards against.
    return { outcome: "pending", keywordId: k.id, reply: null };
  }
  const question = confirmRequestText(await businessOf(ctx, m.userId), k);
  if (!(await hasRoomForMessages(ctx, m.userId, segmentCount(question)))) return { outcome: "limit", keywordId: k.id, reply: null };
  await markPending(ctx, { userId: m.userId, keywordId: k.id, phone: m.from, number: m.to || null, at: ctx.now() });
  await sendReply(ctx, m, question);
  return { outcome: "pending", keywordId: k.id, reply: question };
}

/**
 * Subscribes the sender through a keyword: the contact created (counted against the plan) or updated, tagged,
 * opted in with the consent log's time, number texted, keyword and the confirmation exactly as sent, and that
 * auto-reply sent. Nothing happens when the month's SMS have no room for it.
 */
async function confirm(ctx: AppContext, m: Omit<InboundText, "compliance">, k: KeywordRow): Promise<KeywordOutcome> {
  if (!m.sender.contact && !(await hasRoomForContact(ctx, m.userId))) return { outcome: "limit", keywordId: k.id, reply: null };
  // The consent log keeps the confirmation exactly as sent: rendered for this contact (a new one has no name yet,
  // so {firstName|there} says "there").
  const welcome = await linksOf(ctx, m, k, await personalised(ctx, m, k.autoReply));
  if (!(await hasRoomForMessages(ctx, m.userId, welcome.segments))) return { outcome: "limit", keywordId: k.id, reply: null };
  const { text, messageId } = await welcome.send();
  // A new contact's short links count for them: a click's contact is its message's, written below for this contact.
  const contact = await optInContact(ctx, m.userId, m.from, "keyword", text, { number: m.to || null, keyword: k.keyword });
  m.sender.contact = contact;
  if (k.tags.length) await bulkTag(ctx, m.userId, [contact.id], k.tags, "add");
  await markConfirmed(ctx, { userId: m.userId, keywordId: k.id, phone: m.from, number: m.to || null, at: ctx.now() });
  await sendReply(ctx, m, text, messageId);
  return { outcome: k.doubleOptIn ? "confirmed" : "subscribed", keywordId: k.id, reply: text };
}

/** A reply's merge fields filled for the sender (shared/personalisation/render.ts). */
async function personalised(ctx: AppContext, m: Pick<InboundText, "userId" | "from" | "sender">, text: string): Promise<string> {
  const c = m.sender.contact;
  return render(text, {
    firstName: c?.firstName,
    lastName: c?.lastName,
    phone: m.from,
    email: c?.email,
    business: await businessOf(ctx, m.userId),
    customFields: c?.customFields,
  });
}

/**
 * A keyword's reply goes from the number that received the text (else the account's default), like STOP's: the
 * one answer to the sender's own text, sent even to a number still opted out, since the double opt-in's question
 * is how they come back.
 */
async function sendReply(ctx: AppContext, m: Pick<InboundText, "userId" | "from" | "to" | "sender">, text: string, id?: string): Promise<void> {
  await sendText(ctx, { ...(id ? { id } : {}), userId: m.userId, phone: m.from, contactId: m.sender.contact?.id ?? null, content: text, kind: "compliance", from: { replyTo: m.to } });
}

/**
 * A keyword's reply as it goes out (issue 32 item 1): its links as short links of the account's link domain, one per
 * link for this message and sender (no UTM parameters; they expire after the default days), unless the keyword's
 * switch is off. `segments` counts it at that length before anything is written, for the plan's check; `send`
 * makes the links and answers the text with the message's id they belong to.
 */
async function linksOf(ctx: AppContext, m: Pick<InboundText, "userId" | "from" | "sender">, k: KeywordRow, text: string) {
  const user = k.shortenLinks ? await findUserById(ctx, m.userId) : undefined;
  const domain = user ? linkDomainOf(ctx, user) : null;
  return {
    segments: segmentCount(domain ? withShortLinkLengths(text, domain) : text),
    send: async () => {
      const messageId = Bun.randomUUIDv7();
      const source = { userId: m.userId, campaignId: null, source: `keyword:${k.id}`, messageId, utm: null, expiresAt: expiryAt(ctx.now(), DEFAULT_EXPIRY_DAYS) };
      const sent = domain ? await shortenText(ctx, domain, text, source) : text;
      return { text: sent, messageId };
    },
  };
}
