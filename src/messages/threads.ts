import { ready } from "../../db/transaction";
import type { AppContext } from "../context";

/**
 * The messages of a conversation's thread, for src/conversations: a thread is every message of one account and
 * phone (both directions), in `seq` order, read through the (user_id, phone, seq) index.
 */

export type ThreadRow = {
  id: string;
  seq: number;
  phone: string;
  content: string;
  direction: "inbound" | "outbound";
  status: string;
  kind: "campaign" | "single" | "compliance";
  from_number: string | null;
  segments: number;
  error_code: string | null;
  error_message: string | null;
  campaign_id: string | null;
  created_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  /** When a queued message is due (a message held for quiet hours is due when they end: src/messages/due.ts). */
  next_attempt_at: number;
  /** Which rule holds it, while it is held (migration 0054). */
  hold_reason: string | null;
};

const COLUMNS = `id, seq, phone, content, direction, status, kind, from_number, segments, error_code, error_message, campaign_id, created_at, sent_at,
  delivered_at, next_attempt_at, hold_reason`;

/**
 * Up to `limit` messages with `after < seq < before`: the oldest of them when `oldestFirst` (what came after a
 * cursor), else the newest (the latest page, or history before a cursor). Always answered oldest first.
 */
export async function threadMessages(
  ctx: AppContext,
  q: { userId: string; phone: string; after: number; before: number | null; limit: number; oldestFirst: boolean },
): Promise<ThreadRow[]> {
  await ready(ctx.db);
  const rows = ctx.db.$client
    .query(
      `SELECT ${COLUMNS} FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND seq < ?
       ORDER BY seq ${q.oldestFirst ? "ASC" : "DESC"} LIMIT ?`,
    )
    .all(q.userId, q.phone, q.after, q.before ?? Number.MAX_SAFE_INTEGER, q.limit) as ThreadRow[];
  return q.oldestFirst ? rows : rows.reverse();
}

/** The messages at these (phone, seq) places of an account: the newest message of each conversation on a page. */
export async function messagesAt(ctx: AppContext, userId: string, places: { phone: string; seq: number }[]): Promise<ThreadRow[]> {
  if (!places.length) return [];
  await ready(ctx.db);
  return ctx.db.$client
    .query(
      `SELECT ${COLUMNS} FROM messages WHERE user_id = ?
         AND (phone, seq) IN (SELECT value ->> 'phone', value ->> 'seq' FROM json_each(?))`,
    )
    .all(userId, JSON.stringify(places)) as ThreadRow[];
}

/** Inbound messages of a thread after `seq` (its unread count from a last-read marker). */
export async function inboundAfter(ctx: AppContext, userId: string, phone: string, seq: number): Promise<number> {
  await ready(ctx.db);
  const r = ctx.db.$client
    .query(`SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND direction = 'inbound'`)
    .get(userId, phone, seq) as { n: number };
  return r.n;
}

/** The seq of a thread's newest inbound message after `seq`, or null (a thread marked unread starts before it). */
export async function newestInboundAfter(ctx: AppContext, userId: string, phone: string, seq: number): Promise<number | null> {
  await ready(ctx.db);
  const r = ctx.db.$client
    .query(`SELECT max(seq) AS seq FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND direction = 'inbound'`)
    .get(userId, phone, seq) as { seq: number | null };
  return r.seq;
}

/** Phones of an account whose messages contain `text` (case-insensitive for ASCII), at most `limit`. */
export async function phonesWithText(ctx: AppContext, userId: string, text: string, limit: number): Promise<string[]> {
  await ready(ctx.db);
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = ctx.db.$client
    .query(`SELECT DISTINCT phone FROM messages WHERE user_id = ? AND content LIKE ? ESCAPE '\\' LIMIT ?`)
    .all(userId, pattern, limit) as { phone: string }[];
  return rows.map((r) => r.phone);
}

/**
 * An account's phones after `after` in phone order, at most `limit`, each with the time (ms) of its last message
 * either way: the automation rules' `inactive` trigger pages through them (the (user_id, phone, created_at) index).
 */
export async function lastMessagePerPhone(ctx: AppContext, userId: string, after: string, limit: number): Promise<{ phone: string; last: number }[]> {
  await ready(ctx.db);
  return ctx.db.$client
    .query(`SELECT phone, max(created_at) AS last FROM messages WHERE user_id = ? AND phone > ? GROUP BY phone ORDER BY phone LIMIT ?`)
    .all(userId, after, limit) as { phone: string; last: number }[];
}
