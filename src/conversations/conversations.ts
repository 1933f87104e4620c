import { createHash } from "node:crypto";
import { jsonElements, jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { contactsByPhone, phonesOfContactsMatching } from "../contacts/contacts";
import { appendEvent, appendEvents, type NewEvent } from "../events/events";
import { badRequest, conflict, notFound } from "../http/errors";
import { sendSingle } from "../outbound/send-text";
import { quietHoldOf } from "../messages/due";
import { inboundAfter, messagesAt, newestInboundAfter, phonesWithText, threadMessages, type ThreadRow } from "../messages/threads";
import { mediaOfMessages, mediaView, type MediaView } from "../media/media";
import { chooseSender } from "../phone-numbers/numbers";
import { recipientPhone } from "../users/default-country";
import { findUserById } from "../users/queries";
import type {
  BulkResult,
  ConversationFilter,
  ConversationPage,
  ConversationState,
  ConversationView,
  SentChatMessage,
  ThreadMessage,
  UnreadTotals,
} from "../../shared/conversations/types";

/**
 * Conversations: one thread per contact phone per account. The messages domain writes every message (both
 * directions) and, in the same transaction, reserves its `seq` here and attaches it to its thread; this domain
 * keeps the thread's state, its newest `seq`, the last-read marker and unread count, and the sticky sender.
 */

type Row = {
  id: number;
  user_id: string;
  phone: string;
  state: ConversationState | "deleted";
  last_seq: number;
  last_read_seq: number;
  unread_count: number;
  cleared_seq: number;
  reply_from: string | null;
  possible_opt_out_seq: number | null;
  created_at: number;
  updated_at: number;
};

/** Reserves `n` consecutive message sequence numbers inside the caller's transaction; answers the first. */
export async function reserveSeqs(ctx: AppContext, n: number): Promise<number> {
  await ready(ctx.db);
  const [r] = await ctx.records.$rows<{ value: number }>(`UPDATE conversation_sequence SET value = value + ? WHERE id = 1 RETURNING value`, [n]);
  return r!.value - n + 1;
}

export type Attach = {
  userId: string;
  phone: string;
  seq: number;
  messageId: string;
  direction: "inbound" | "outbound";
  /** An inbound message's receiving number: the thread's replies go out from it. */
  receivedOn?: string | null;
};

/**
 * Puts messages just written (in the caller's transaction) at the end of their phones' threads, in order, creating a
 * thread on its first message: one call for a chunk of messages of no campaign (a drip pass's), its statements run
 * with no await between. An inbound message counts as unread and reopens a closed or archived thread; a deleted one
 * comes back (showing only what follows the deletion). One `conversation.updated` event per message.
 */
export async function attachToConversations(ctx: AppContext, messages: Attach[]): Promise<void> {
  if (!messages.length) return;
  await ready(ctx.db);
  const now = ctx.now();
  const events: NewEvent[] = [];
  for (const m of messages) {
    const inbound = m.direction === "inbound" ? 1 : 0;
    const [row] = (await ctx.records.$rows<{ id: number; state: string; unread_count: number }>(ATTACH_SQL, [
      m.userId,
      m.phone,
      m.seq,
      inbound,
      inbound ? (m.receivedOn ?? null) : null,
      now,
      now,
    ])) as [{ id: number; state: string; unread_count: number }];
    events.push({
      userId: m.userId,
      type: "conversation.updated",
      subject: { kind: "conversation", id: String(row.id) },
      payload: { phone: m.phone, seq: m.seq, messageId: m.messageId, direction: m.direction, state: row.state, unreadCount: row.unread_count },
    });
  }
  await appendEvents(ctx, events);
}

// The existing row's columns named with their table: PostgreSQL finds a bare name ambiguous beside `excluded`.
const ATTACH_SQL = `INSERT INTO conversations (user_id, phone, state, last_seq, unread_count, reply_from, created_at, updated_at)
  VALUES (?, ?, 'open', ?, ?, ?, ?, ?)
  ON CONFLICT (user_id, phone) DO UPDATE SET
    last_seq = excluded.last_seq,
    unread_count = conversations.unread_count + excluded.unread_count,
    reply_from = coalesce(excluded.reply_from, conversations.reply_from),
    state = CASE WHEN excluded.unread_count > 0 OR conversations.state = 'deleted' THEN 'open' ELSE conversations.state END,
    updated_at = excluded.updated_at
  RETURNING id, state, unread_count`;

/**
 * A campaign's new messages join their threads in one statement (a campaign writes up to a million rows in one
 * transaction: no per-row work here). `places` are [phone, seq] pairs; one event for the batch.
 */
export async function attachCampaignMessages(ctx: AppContext, m: { userId: string; campaignId: string; places: [string, number][] }): Promise<void> {
  if (!m.places.length) return;
  await ready(ctx.db);
  const now = ctx.now();
  // A CASE rather than SQLite's scalar max(), which PostgreSQL lacks (its greatest() SQLite lacks).
  await ctx.records.$run(
    `INSERT INTO conversations (user_id, phone, state, last_seq, created_at, updated_at)
     SELECT ?, value ->> 0, 'open', cast(value ->> 1 as integer), ?, ? FROM ${jsonElements(ctx.records)} WHERE true
     ON CONFLICT (user_id, phone) DO UPDATE SET
       last_seq = CASE WHEN excluded.last_seq > conversations.last_seq THEN excluded.last_seq ELSE conversations.last_seq END,
       state = CASE WHEN conversations.state = 'deleted' THEN 'open' ELSE conversations.state END,
       updated_at = excluded.updated_at`,
    [m.userId, now, now, JSON.stringify(m.places)],
  );
  await appendEvent(ctx, {
    userId: m.userId,
    type: "conversation.updated",
    subject: { kind: "campaign", id: m.campaignId },
    payload: { conversations: m.places.length },
  });
}

async function rowById(ctx: AppContext, userId: string, id: number): Promise<Row> {
  const [row] = await ctx.records.$rows<Row>(`SELECT * FROM conversations WHERE id = ? AND user_id = ? AND state != 'deleted'`, [id, userId]);
  if (!row) throw notFound("Conversation not found");
  return row;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The account's clock and locale, which say until when a message held for quiet hours waits. */
type Account = { timezone: string; locale: string; now: number };

async function accountOf(ctx: AppContext, userId: string): Promise<Account> {
  const user = await findUserById(ctx, userId);
  return { timezone: user?.timezone ?? "UTC", locale: user?.locale ?? "en-US", now: ctx.now() };
}

function threadMessage(r: ThreadRow, conversationId: number, account: Account, possibleOptOutSeq: number | null = null, media: MediaView[] = []): ThreadMessage {
  const hold = r.direction === "outbound" ? quietHoldOf(r, account.now, account) : null;
  return {
    id: r.id,
    seq: r.seq,
    conversationId,
    phone: r.phone,
    content: r.content,
    direction: r.direction,
    status: r.status,
    kind: r.kind,
    fromNumber: r.from_number,
    segments: r.segments,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    campaignId: r.campaign_id,
    createdAt: iso(r.created_at)!,
    timestamp: iso(r.created_at)!,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    quietHold: hold ? { until: iso(hold.until)!, clock: hold.clock, reason: hold.reason } : null,
    possibleOptOut: r.seq === possibleOptOutSeq,
    media,
  };
}

/** The views of a page of threads: their contacts (by phone) and newest messages, a few indexed reads each. */
async function views(ctx: AppContext, userId: string, rows: Row[]): Promise<ConversationView[]> {
  const places = rows.filter((r) => r.last_seq > r.cleared_seq).map((r) => ({ phone: r.phone, seq: r.last_seq }));
  const marked = rows.filter((r) => r.possible_opt_out_seq !== null && r.possible_opt_out_seq !== r.last_seq);
  const read = new Map(
    (await messagesAt(ctx, userId, [...places, ...marked.map((r) => ({ phone: r.phone, seq: r.possible_opt_out_seq! }))])).map((m) => [`${m.phone} ${m.seq}`, m]),
  );
  const contacts = await contactsByPhone(ctx, userId, rows.map((r) => r.phone));
  return rows.map((r) => {
    const contact = contacts.get(r.phone);
    const last = read.get(`${r.phone} ${r.last_seq}`);
    const flagged = r.possible_opt_out_seq === null || contact?.status === "opted_out" ? undefined : read.get(`${r.phone} ${r.possible_opt_out_seq}`);
    const name = contact ? `${contact.firstName} ${contact.lastName}`.trim() : "";
    return {
      id: r.id,
      phone: r.phone,
      contactId: contact?.id ?? null,
      contactName: name || r.phone,
      contact: contact ? { firstName: contact.firstName, lastName: contact.lastName } : null,
      state: r.state === "deleted" ? "open" : r.state,
      unreadCount: r.unread_count,
      lastSeq: r.last_seq,
      lastReadSeq: r.last_read_seq,
      lastMessage: last ? last.content.slice(0, 160) : null,
      lastDirection: last?.direction ?? null,
      lastStatus: last?.status ?? null,
      lastMessageAt: last ? iso(last.created_at) : null,
      replyFrom: r.reply_from,
      optedOut: contact?.status === "opted_out",
      possibleOptOut: flagged ? { seq: flagged.seq, content: flagged.content.slice(0, 160), at: iso(flagged.created_at)! } : null,
      createdAt: iso(r.created_at)!,
    };
  });
}

const STATES_OF: Record<ConversationFilter, string> = {
  all: "state IN ('open','closed')",
  open: "state = 'open'",
  closed: "state = 'closed'",
  unread: "state IN ('open','closed') AND unread_count > 0",
  archived: "state = 'archived'",
};

/** Matches per kind a search looks through (contacts by name, messages by text); a search is meant to narrow. */
const SEARCH_MATCHES = 1000;

/**
 * A page of threads, newest activity first. `q` finds a thread by its phone's digits, its contact's name or phone
 * (the contacts search) or any of its messages' text.
 */
export async function listConversations(
  ctx: AppContext,
  userId: string,
  q: { page: number; pageSize: number; filter: ConversationFilter; q?: string },
): Promise<ConversationPage> {
  const text = q.q?.trim();
  // The messages' and contacts' records first: the statements below run with no await between them, after ready.
  const withText = text ? await phonesWithText(ctx, userId, text, SEARCH_MATCHES) : [];
  const byContact = text ? await phonesOfContactsMatching(ctx, userId, text, SEARCH_MATCHES) : [];
  const marked = await livePossibleOptOuts(ctx, userId);
  await ready(ctx.db);
  const where = [`user_id = ?`, STATES_OF[q.filter]];
  const args: (string | number)[] = [userId];
  if (text) {
    const phones = [...byContact, ...withText];
    const digits = text.replace(/[\s().+\-]/g, "");
    const byDigits = /^\d{3,}$/.test(digits);
    where.push(`(phone IN (${jsonValues(ctx.records)})${byDigits ? " OR phone LIKE ?" : ""})`);
    args.push(JSON.stringify(phones));
    if (byDigits) args.push(`%${digits}%`);
  }
  const sqlWhere = where.join(" AND ");
  // Possible opt-outs first (the owner must answer them), then the newest activity.
  const rows = await ctx.records.$rows<Row>(
    `SELECT * FROM conversations WHERE ${sqlWhere}
     ORDER BY id IN (${jsonValues(ctx.records, "bigint")}) DESC, last_seq DESC, id DESC LIMIT ? OFFSET ?`,
    [...args, JSON.stringify(marked), q.pageSize, (q.page - 1) * q.pageSize],
  );
  const [{ n: total }] = (await ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM conversations WHERE ${sqlWhere}`, args)) as [{ n: number }];
  const { unreadTotal } = await totalsOf(ctx, userId);
  return { data: await views(ctx, userId, rows), total, page: q.page, pageSize: q.pageSize, unreadTotal };
}

/**
 * The account's threads marked as possible opt-outs (./possible-opt-out.ts) whose contacts are not opted out: a
 * contact opted out since, from Contacts or the API, leaves its mark unshown. Few, found by a partial index.
 */
async function livePossibleOptOuts(ctx: AppContext, userId: string): Promise<number[]> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: number; phone: string }>(
    `SELECT id, phone FROM conversations WHERE user_id = ? AND possible_opt_out_seq IS NOT NULL AND state != 'deleted'`,
    [userId],
  );
  const contacts = await contactsByPhone(ctx, userId, rows.map((r) => r.phone));
  return rows.filter((r) => contacts.get(r.phone)?.status !== "opted_out").map((r) => r.id);
}

/** Unread messages and threads with any, over the threads not archived. */
export async function unreadTotals(ctx: AppContext, userId: string): Promise<UnreadTotals> {
  await ready(ctx.db);
  return totalsOf(ctx, userId);
}

// The sum cast back to an integer: PostgreSQL's sum of bigints is a numeric, which its client answers as text.
async function totalsOf(ctx: AppContext, userId: string): Promise<UnreadTotals> {
  const [r] = await ctx.records.$rows<{ total: number; threads: number }>(
    `SELECT cast(coalesce(sum(unread_count), 0) as integer) AS total, count(*) FILTER (WHERE unread_count > 0) AS threads
     FROM conversations WHERE user_id = ? AND state IN ('open','closed') AND unread_count > 0`,
    [userId],
  );
  return { unreadTotal: r!.total, unreadConversations: r!.threads };
}

export async function getConversation(ctx: AppContext, userId: string, id: number): Promise<ConversationView> {
  await ready(ctx.db);
  return (await views(ctx, userId, [await rowById(ctx, userId, id)]))[0]!;
}

/** Messages a thread page holds by default and at most. */
export const THREAD_PAGE = 50;
export const THREAD_PAGE_MAX = 200;

/**
 * A thread's messages, oldest first: with `after`, the first `limit` after that seq (what a client has not seen
 * yet); else the newest `limit`, before `before` when given (history). A deleted thread's older messages stay
 * hidden.
 */
export async function threadOf(ctx: AppContext, userId: string, id: number, q: { after?: number; before?: number; limit?: number }): Promise<ThreadMessage[]> {
  await ready(ctx.db);
  const row = await rowById(ctx, userId, id);
  const rows = await threadMessages(ctx, {
    userId,
    phone: row.phone,
    after: Math.max(row.cleared_seq, q.after ?? 0),
    before: q.before ?? null,
    limit: q.limit ?? THREAD_PAGE,
    oldestFirst: q.after !== undefined,
  });
  const media = await mediaOfMessages(ctx, rows.map((r) => r.id));
  const account = await accountOf(ctx, userId);
  return rows.map((r) => threadMessage(r, row.id, account, row.possible_opt_out_seq, (media.get(r.id) ?? []).map(mediaView)));
}

/**
 * Moves the last-read marker forward to `upTo` (the newest message when omitted; never back), and counts what is
 * left unread after it.
 */
export async function markRead(ctx: AppContext, userId: string, id: number, upTo?: number): Promise<ConversationView> {
  await ctx.withTransaction(async () => {
    const row = await rowById(ctx, userId, id);
    const marker = Math.min(upTo ?? row.last_seq, row.last_seq);
    if (marker <= row.last_read_seq) return;
    const unread = marker === row.last_seq ? 0 : await inboundAfter(ctx, userId, row.phone, marker);
    await ctx.records.$run(`UPDATE conversations SET last_read_seq = ?, unread_count = ?, updated_at = ? WHERE id = ?`, [marker, unread, ctx.now(), id]);
    await changed(ctx, userId, id, { lastReadSeq: marker, unreadCount: unread });
  });
  return getConversation(ctx, userId, id);
}

/** A thread with nothing from its contact has nothing to leave unread. */
export const NOTHING_TO_MARK_UNREAD = "This conversation has no message from the contact to mark unread";

/**
 * Marks a thread unread, as a reminder to come back to it: the last-read marker moves back to just before the
 * contact's newest message, which counts as unread again (one). A thread with unread messages is left as it is.
 */
export async function markUnread(ctx: AppContext, userId: string, id: number): Promise<ConversationView> {
  await ctx.withTransaction(async () => {
    if (!(await leaveUnread(ctx, userId, await rowById(ctx, userId, id)))) throw conflict(NOTHING_TO_MARK_UNREAD);
  });
  return getConversation(ctx, userId, id);
}

/** Moves a read thread's marker back before its newest inbound message; false when it has none to show. */
async function leaveUnread(ctx: AppContext, userId: string, row: Pick<Row, "id" | "phone" | "cleared_seq" | "unread_count">): Promise<boolean> {
  if (row.unread_count > 0) return true;
  const newest = await newestInboundAfter(ctx, userId, row.phone, row.cleared_seq);
  if (newest === null) return false;
  const marker = newest - 1;
  await ctx.records.$run(`UPDATE conversations SET last_read_seq = ?, unread_count = 1, updated_at = ? WHERE id = ?`, [marker, ctx.now(), row.id]);
  await changed(ctx, userId, row.id, { lastReadSeq: marker, unreadCount: 1 });
  return true;
}

/**
 * Marks the account's threads among `ids` read (every message) or, with `read` false, unread (as markUnread; a
 * thread with no message from its contact is left and counted apart). Others' and unknown ids are left out.
 */
export async function bulkRead(ctx: AppContext, userId: string, ids: number[], read: boolean): Promise<BulkResult> {
  return ctx.withTransaction(async () => {
    const rows = await ctx.records.$rows<Pick<Row, "id" | "phone" | "last_seq" | "cleared_seq" | "unread_count">>(
      `SELECT id, phone, last_seq, cleared_seq, unread_count FROM conversations
       WHERE user_id = ? AND state != 'deleted' AND id IN (${jsonValues(ctx.records, "bigint")})`,
      [userId, JSON.stringify(ids)],
    );
    if (read) {
      const unread = rows.filter((r) => r.unread_count > 0);
      for (const r of unread) {
        await ctx.records.$run(`UPDATE conversations SET last_read_seq = ?, unread_count = 0, updated_at = ? WHERE id = ?`, [r.last_seq, ctx.now(), r.id]);
      }
      await appendEvents(ctx, unread.map((r) => changeOf(userId, r.id, { lastReadSeq: r.last_seq, unreadCount: 0 })));
      return { message: `${plural(unread.length)} marked read`, count: unread.length };
    }
    const readOnes = rows.filter((r) => r.unread_count === 0);
    let marked = 0;
    for (const r of readOnes) if (await leaveUnread(ctx, userId, r)) marked++;
    const left = readOnes.length - marked;
    const apart = left ? ` (${plural(left)} with no message from the contact left as ${left === 1 ? "it was" : "they were"})` : "";
    return { message: `${plural(marked)} marked unread${apart}`, count: marked };
  });
}

const changeOf = (userId: string, id: number, payload: Record<string, unknown>): NewEvent => ({
  userId,
  type: "conversation.updated",
  subject: { kind: "conversation", id: String(id) },
  payload,
});

const changed = (ctx: AppContext, userId: string, id: number, payload: Record<string, unknown>) => appendEvent(ctx, changeOf(userId, id, payload));

/** Closes, reopens or archives one thread. */
export async function setState(ctx: AppContext, userId: string, id: number, state: ConversationState): Promise<ConversationView> {
  await ctx.withTransaction(async () => {
    const row = await rowById(ctx, userId, id);
    if (row.state === state) return;
    await ctx.records.$run(`UPDATE conversations SET state = ?, updated_at = ? WHERE id = ?`, [state, ctx.now(), id]);
    await changed(ctx, userId, id, { state });
  });
  return getConversation(ctx, userId, id);
}

/** The account's threads among `ids` (others' and unknown ids are left out), with their current state. */
function ownRows(ctx: AppContext, userId: string, ids: number[]) {
  return ctx.records.$rows<{ id: number; state: string }>(
    `SELECT id, state FROM conversations WHERE user_id = ? AND state != 'deleted' AND id IN (${jsonValues(ctx.records, "bigint")})`,
    [userId, JSON.stringify(ids)],
  );
}

const plural = (n: number) => `${n} conversation${n === 1 ? "" : "s"}`;

/** Archives the account's threads among `ids`, or with `archive` false brings archived ones back open. */
export async function bulkArchive(ctx: AppContext, userId: string, ids: number[], archive: boolean): Promise<BulkResult> {
  return ctx.withTransaction(async () => {
    const target = archive ? "archived" : "open";
    const rows = (await ownRows(ctx, userId, ids)).filter((r) => (archive ? r.state !== "archived" : r.state === "archived"));
    for (const r of rows) await ctx.records.$run(`UPDATE conversations SET state = ?, updated_at = ? WHERE id = ?`, [target, ctx.now(), r.id]);
    await appendEvents(ctx, rows.map((r) => changeOf(userId, r.id, { state: target })));
    return { message: `${plural(rows.length)} ${archive ? "archived" : "moved back to the inbox"}`, count: rows.length };
  });
}

/**
 * Deletes the account's threads among `ids`: they leave every list and their messages leave the thread (a new
 * message starts it again, empty before it). The message rows stay: campaign results and the outbox keep them.
 */
export async function bulkDelete(ctx: AppContext, userId: string, ids: number[]): Promise<BulkResult> {
  return ctx.withTransaction(async () => {
    const rows = await ownRows(ctx, userId, ids);
    for (const r of rows) {
      await ctx.records.$run(
        `UPDATE conversations SET state = 'deleted', cleared_seq = last_seq, last_read_seq = last_seq, unread_count = 0, updated_at = ? WHERE id = ?`,
        [ctx.now(), r.id],
      );
    }
    await appendEvents(ctx, rows.map((r) => changeOf(userId, r.id, { state: "deleted" })));
    return { message: `${plural(rows.length)} deleted`, count: rows.length };
  });
}

/** The sticky sender: the number the contact last wrote to, while it is still one of the account's active numbers. */
async function replyFromFor(ctx: AppContext, userId: string, phone: string): Promise<string | null> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ reply_from: string | null }>(`SELECT reply_from FROM conversations WHERE user_id = ? AND phone = ?`, [userId, phone]);
  if (!row?.reply_from) return null;
  try {
    return (await chooseSender(ctx, userId, row.reply_from)) ? row.reply_from : null;
  } catch {
    return null;
  }
}

async function conversationIdOf(ctx: AppContext, userId: string, phone: string): Promise<number> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ id: number }>(`SELECT id FROM conversations WHERE user_id = ? AND phone = ?`, [userId, phone]);
  return row!.id;
}

/** The refusal of a known Idempotency-Key with another message (the public API answers it as 422). */
export const KEY_REUSED = "This Idempotency-Key was already used for a different message. Use a new key for a new message.";
/** Its machine code (the error body's `code`), which the public API tells it by: never by the message's words. */
export const KEY_REUSED_CODE = "idempotency_key_reused";

/** How long an Idempotency-Key's answer is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

export type ChatSend = { phone: string; content: string; fromNumber?: string | null; mediaIds?: string[] };

/**
 * Runs `run` once per account and Idempotency-Key for 24 h (POST /api/messages, and every POST of /api/v1 through
 * src/public-api): its answer is stored with its change, in one transaction; the same key again answers the stored
 * status and body without running (`replayed`); the same key with another request is refused (KEY_REUSED). A run
 * that throws stores nothing, so fixing the cause and retrying works. The key's row is the (user_id, key) primary
 * key: two runs of one key cannot both store an answer. A `run` that answers at once (not a Promise) commits with
 * nothing awaited in the transaction.
 */
export async function onceByKey<T>(
  ctx: AppContext,
  userId: string,
  key: string,
  request: unknown,
  run: () => { status: number; body: T } | Promise<{ status: number; body: T }>,
): Promise<{ status: number; body: T; replayed: boolean }> {
  if (!key.trim()) throw badRequest("Idempotency-Key must not be blank");
  const hash = createHash("sha256").update(JSON.stringify(request)).digest("hex");
  return ctx.withTransaction(async () => {
    const now = ctx.now();
    await ctx.records.$run(`DELETE FROM idempotency_keys WHERE created_at <= ?`, [now - IDEMPOTENCY_TTL_MS]);
    const [prior] = await ctx.records.$rows<{ request_hash: string; status: number; response: string }>(
      `SELECT request_hash, status, response FROM idempotency_keys WHERE user_id = ? AND key = ?`,
      [userId, key],
    );
    if (prior) {
      if (prior.request_hash !== hash) throw conflict(KEY_REUSED, { code: KEY_REUSED_CODE });
      return { status: prior.status, body: JSON.parse(prior.response) as T, replayed: true };
    }
    const ran = run();
    const answer = ran instanceof Promise ? await ran : ran;
    await ctx.records.$run(`INSERT INTO idempotency_keys (user_id, key, request_hash, status, response, created_at) VALUES (?, ?, ?, ?, ?, ?)`, [
      userId,
      key,
      hash,
      answer.status,
      JSON.stringify(answer.body),
      now,
    ]);
    return { ...answer, replayed: false };
  });
}

/**
 * Sends a chat message through the outbox (consent, plan and sender checks of sendSingle), from the sticky
 * sender unless `fromNumber` names one. With an Idempotency-Key it runs once per key (onceByKey).
 */
export async function sendChat(ctx: AppContext, userId: string, input: ChatSend, key?: string): Promise<{ body: SentChatMessage; replayed: boolean }> {
  // In a transaction (the key's, or one of its own): what follows the message's read runs in it.
  const send = async (): Promise<SentChatMessage> => {
    const phone = await recipientPhone(ctx, userId, input.phone);
    const fromNumber = input.fromNumber || (await replyFromFor(ctx, userId, phone));
    const { message, notice } = await sendSingle(ctx, userId, { phone, content: input.content, fromNumber, mediaIds: input.mediaIds });
    const conversationId = await conversationIdOf(ctx, userId, phone);
    const [row] = await messagesAt(ctx, userId, [{ phone, seq: message.seq! }]);
    const media = ((await mediaOfMessages(ctx, [row!.id])).get(row!.id) ?? []).map(mediaView);
    return { ...threadMessage(row!, conversationId, await accountOf(ctx, userId), null, media), notice };
  };
  if (key === undefined) return { body: await ctx.withTransaction(send), replayed: false };
  const { body, replayed } = await onceByKey(ctx, userId, key, [input.phone.trim(), input.content, input.fromNumber ?? null, ...(input.mediaIds?.length ? [input.mediaIds] : [])], async () => ({ status: 202, body: await send() }));
  return { body, replayed };
}
