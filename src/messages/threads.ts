import { jsonElements } from "../../db/json-array";
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
  const rows = await ctx.records.$rows<ThreadRow>(
    `SELECT ${COLUMNS} FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND seq < ?
     ORDER BY seq ${q.oldestFirst ? "ASC" : "DESC"} LIMIT ?`,
    [q.userId, q.phone, q.after, q.before ?? Number.MAX_SAFE_INTEGER, q.limit],
  );
  return q.oldestFirst ? rows : rows.reverse();
}

/** The messages at these (phone, seq) places of an account: the newest message of each conversation on a page. */
export async function messagesAt(ctx: AppContext, userId: string, places: { phone: string; seq: number }[]): Promise<ThreadRow[]> {
  if (!places.length) return [];
  await ready(ctx.db);
  return ctx.records.$rows<ThreadRow>(
    `SELECT ${COLUMNS} FROM messages WHERE user_id = ?
       AND (phone, seq) IN (SELECT value ->> 'phone', cast(value ->> 'seq' as integer) FROM ${jsonElements(ctx.records)})`,
    [userId, JSON.stringify(places)],
  );
}

/** Inbound messages of a thread after `seq` (its unread count from a last-read marker). */
export async function inboundAfter(ctx: AppContext, userId: string, phone: string, seq: number): Promise<number> {
  await ready(ctx.db);
  const [r] = await ctx.records.$rows<{ n: number }>(
    `SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND direction = 'inbound'`,
    [userId, phone, seq],
  );
  return r!.n;
}

/** The seq of a thread's newest inbound message after `seq`, or null (a thread marked unread starts before it). */
export async function newestInboundAfter(ctx: AppContext, userId: string, phone: string, seq: number): Promise<number | null> {
  await ready(ctx.db);
  const [r] = await ctx.records.$rows<{ seq: number | null }>(
    `SELECT max(seq) AS seq FROM messages WHERE user_id = ? AND phone = ? AND seq > ? AND direction = 'inbound'`,
    [userId, phone, seq],
  );
  return r!.seq;
}

/**
 * Phones of an account whose messages contain `text` (case-insensitive: SQLite's LIKE for ASCII, PostgreSQL's
 * ILIKE, its LIKE telling case apart), at most `limit`.
 */
export async function phonesWithText(ctx: AppContext, userId: string, text: string, limit: number): Promise<string[]> {
  await ready(ctx.db);
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const like = ctx.records.$engine === "postgres" ? "ILIKE" : "LIKE";
  const rows = await ctx.records.$rows<{ phone: string }>(
    `SELECT DISTINCT phone FROM messages WHERE user_id = ? AND content ${like} ? ESCAPE '\\' LIMIT ?`,
    [userId, pattern, limit],
  );
  return rows.map((r) => r.phone);
}

/**
 * An account's phones after `after` in phone order, at most `limit`, each with the time (ms) of its last message
 * either way: the automation rules' `inactive` trigger pages through them (the (user_id, phone, created_at) index).
 */
export async function lastMessagePerPhone(ctx: AppContext, userId: string, after: string, limit: number): Promise<{ phone: string; last: number }[]> {
  await ready(ctx.db);
  return ctx.records.$rows<{ phone: string; last: number }>(
    `SELECT phone, max(created_at) AS last FROM messages WHERE user_id = ? AND phone > ? GROUP BY phone ORDER BY phone LIMIT ?`,
    [userId, after, limit],
  );
}
