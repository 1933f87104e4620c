import { jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { appendEvents, type EventType, type NewEvent } from "../events/events";
import { attachMedia, linkMedia, type MessageMedia } from "../media/media";
import { PARKED } from "./due";

/**
 * The outbox (the messages table's outbound rows) has one writer: this domain. Campaigns, one-off sends and
 * compliance replies queue through `enqueue`; campaigns park, release and cancel their rows through the functions
 * below; the sending engine goes through the store (outbox-store.ts). Every change of message statuses hands the
 * affected campaigns to the campaigns domain's one settle step (`ctx.campaignOutbox.settle`); every message takes its
 * place in its thread through the conversations domain's port (`ctx.threads`).
 */


export type Sender = { numberId: string; providerId: string; phoneNumber: string };

export type NewOutbound = {
  /** The row's id when the caller names it before the row is written (a drip step logs its message's id, and its pass writes the messages together). */
  id?: string;
  userId: string;
  campaignId: string | null;
  contactId: string | null;
  phone: string;
  content: string;
  segments: number;
  kind: "campaign" | "single" | "compliance";
  sender: Sender;
  /** Due from this instant (ms). */
  dueAt: number;
  /** Not sent after this instant (ms), or null. */
  expiresAt: number | null;
  /** An MMS: the uploads it carries (src/media), checked by the caller and given to the row in its transaction. */
  mediaIds?: string[];
  /** An MMS of shared attachments (a campaign's, a drip's: src/media holders), linked to the row in its transaction. */
  sharedMediaIds?: string[];
  /** A campaign's A/B test message: the variant it carries (0 = A); src/messages/ab-variants.ts reads it back. */
  abVariant?: number | null;
};

/**
 * Puts messages in the outbox in one ctx.withTransaction (a savepoint of the caller's when it has one, as every
 * caller does: a campaign's chunk, sendText's, a drip pass's), whose callback awaits records only, one call per chunk
 * for each kind of write (the sequence numbers, the events, the threads, an MMS's attachments; a campaign's thread
 * statement per campaign), never one per row (a chunk writes thousands): its rows are written in one turn. A
 * campaign's rows are unique per campaign and phone, so a repeat adds nobody twice. One `message.queued` event per
 * campaign (per message for the others) in the same transaction, and the engine is woken for their senders. Each row
 * takes its place in its phone's conversation in that transaction too (a campaign's rows in one statement per
 * campaign). Many messages of no campaign (a pass of drip steps) are best queued in one call: one transaction, one
 * range of sequence numbers, one wake. Answers the ids of the rows written.
 */
export async function enqueue(ctx: AppContext, items: NewOutbound[]): Promise<string[]> {
  const ids: string[] = [];
  const perCampaign = new Map<string, { userId: string; places: [string, number][] }>();
  const uploads: MessageMedia[] = [];
  const shared: MessageMedia[] = [];
  const queued: NewEvent[] = [];
  const threads: Parameters<AppContext["threads"]["attach"]>[0] = [];
  await ctx.withTransaction(async () => {
    const first = await ctx.threads.reserve(items.length);
    // The rows, awaiting nothing but their statements (on SQLite they run at once, in one turn).
    const now = ctx.now();
    for (const [i, m] of items.entries()) {
      const id = m.id ?? Bun.randomUUIDv7();
      const seq = first + i;
      const res = await ctx.records.$run(INSERT_OUTBOUND_SQL, [
        id, m.userId, m.campaignId, m.contactId, m.phone, m.content, m.kind, m.sender.providerId, m.sender.numberId, m.sender.phoneNumber,
        m.segments, m.dueAt, m.expiresAt, now, now, seq, m.abVariant ?? null,
        // An MMS is marked as it is written: the triggers of migration 0070 would otherwise rewrite each row as its
        // attachments are linked (scripts/bench/mms-mark.ts: rows and links of 100,000 took 27-34% more CPU, 11-18% marked here).
        m.mediaIds?.length || m.sharedMediaIds?.length ? 1 : 0,
      ]);
      if (!res.changes) continue;
      ids.push(id);
      if (m.mediaIds?.length) uploads.push({ messageId: id, ids: m.mediaIds });
      if (m.sharedMediaIds?.length) shared.push({ messageId: id, ids: m.sharedMediaIds });
      if (!m.campaignId) {
        queued.push({ userId: m.userId, type: "message.queued", subject: { kind: "message", id }, payload: { phone: m.phone, kind: m.kind } });
        threads.push({ userId: m.userId, phone: m.phone, seq, messageId: id, direction: "outbound" });
        continue;
      }
      const c = perCampaign.get(m.campaignId);
      if (c) c.places.push([m.phone, seq]);
      else perCampaign.set(m.campaignId, { userId: m.userId, places: [[m.phone, seq]] });
    }
    for (const [campaignId, { userId, places }] of perCampaign) {
      queued.push({ userId, type: "message.queued", subject: { kind: "campaign", id: campaignId }, payload: { queued: places.length } });
    }
    // The events, then the threads (whose own events follow), then the attachments: one call each for the chunk.
    await appendEvents(ctx, queued);
    if (threads.length) await ctx.threads.attach(threads);
    for (const [campaignId, { userId, places }] of perCampaign) await ctx.threads.attachCampaign({ userId, campaignId, places });
    if (uploads.length) await attachMedia(ctx, uploads);
    if (shared.length) await linkMedia(ctx, shared);
  });
  for (const numberId of new Set(items.map((m) => m.sender.numberId))) ctx.sending.wake(numberId);
  return ids;
}

const INSERT_OUTBOUND_SQL = `INSERT INTO messages (id, user_id, campaign_id, contact_id, phone, content, direction, status, kind, provider_id,
    phone_number_id, from_number, segments, attempts, next_attempt_at, expires_at, created_at, updated_at, seq, ab_variant, mms)
  VALUES (?, ?, ?, ?, ?, ?, 'outbound', 'queued', ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

/** Whether a campaign has written any outbox rows (it has started). */
export async function hasMessages(ctx: AppContext, campaignId: string): Promise<boolean> {
  await ready(ctx.db);
  return (await ctx.records.$rows(`SELECT 1 FROM messages WHERE campaign_id = ? LIMIT 1`, [campaignId])).length > 0;
}

/** A paused campaign's queued rows leave the due range (none is lost: `releaseCampaign` brings them back). */
export async function parkCampaign(ctx: AppContext, campaignId: string) {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE messages SET next_attempt_at = ? WHERE campaign_id = ? AND status = 'queued'`, [PARKED, campaignId]);
}

/**
 * A campaign's queued rows are due again at `at` (they still expire at their own time); `onlyParked` leaves rows
 * deferred for their own reasons (quiet hours, a retry) as they are. Then the campaign is settled (nothing may be
 * left to send) and the engine woken.
 */
export async function releaseCampaign(ctx: AppContext, campaignId: string, at: number, onlyParked = false) {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE messages SET next_attempt_at = ? WHERE campaign_id = ? AND status = 'queued' AND next_attempt_at >= ?`, [
    at,
    campaignId,
    onlyParked ? PARKED : 0,
  ]);
  await ctx.campaignOutbox.settle([campaignId]);
  ctx.sending.wake();
}

/** A cancelled campaign's queued rows end cancelled; rows already handed to a provider keep their outcome. */
export async function cancelCampaignMessages(ctx: AppContext, campaignId: string, reason = "The campaign was cancelled") {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE messages SET status = 'cancelled', error_message = ?, updated_at = ? WHERE campaign_id = ? AND status = 'queued'`, [
    reason,
    ctx.now(),
    campaignId,
  ]);
}

/** Every queued outbound message of an account ends cancelled with the reason; answers how many. */
export async function cancelAccountMessages(ctx: AppContext, userId: string, reason: string): Promise<number> {
  await ready(ctx.db);
  const { changes } = await ctx.records.$run(
    `UPDATE messages SET status = 'cancelled', error_message = ?, updated_at = ? WHERE user_id = ? AND direction = 'outbound' AND status = 'queued'`,
    [reason, ctx.now(), userId],
  );
  return changes;
}

/**
 * Whether any of a campaign's messages is still waiting, in flight or cut off by a crash and not reconciled yet
 * (src/messages/reconcile.ts): one indexed lookup, since the settle step asks after every batch.
 */
export async function campaignHasOpenMessages(ctx: AppContext, campaignId: string): Promise<boolean> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows(
    `SELECT 1 FROM messages WHERE campaign_id = ? AND status IN ('queued','sending','unknown') AND (status <> 'unknown' OR error_code = 'reconciling') LIMIT 1`,
    [campaignId],
  );
  return rows.length > 0;
}

/** When each campaign's first outbox row was written, for the campaigns that have any. */
export async function firstWritten(ctx: AppContext, campaignIds: string[]): Promise<Map<string, number>> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string; at: number }>(
    `SELECT campaign_id AS id, min(created_at) AS at FROM messages WHERE campaign_id IN (${jsonValues(ctx.records)}) GROUP BY campaign_id`,
    [JSON.stringify(campaignIds)],
  );
  return new Map(rows.map((r) => [r.id, r.at]));
}

/** The campaigns, of those given, with parked rows. */
export async function campaignsWithParked(ctx: AppContext, campaignIds: string[]): Promise<string[]> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string }>(
    `SELECT DISTINCT campaign_id AS id FROM messages WHERE campaign_id IN (${jsonValues(ctx.records)}) AND status = 'queued' AND next_attempt_at >= ?`,
    [JSON.stringify(campaignIds), PARKED],
  );
  return rows.map((r) => r.id);
}

/** The account's campaigns that messaged a phone (one indexed lookup by phone), for searching campaigns by recipient. */
export async function campaignsMessaging(ctx: AppContext, userId: string, phone: string): Promise<string[]> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string }>(
    `SELECT DISTINCT campaign_id AS id FROM messages WHERE user_id = ? AND phone = ? AND campaign_id IS NOT NULL`,
    [userId, phone],
  );
  return rows.map((r) => r.id);
}

export type StatusEventRow = { id: string; userId: string; campaignId: string | null };

/**
 * Appends the events of messages that reached a status, inside the caller's transaction: a campaign's messages are
 * carried many to one (one event per campaign and batch, their ids in the payload), so the engine keeps its speed;
 * a message of no campaign gets its own event.
 */
export async function appendStatusEvents(ctx: AppContext, type: Extract<EventType, `message.${string}`>, rows: StatusEventRow[]): Promise<void> {
  const events: NewEvent[] = [];
  const byCampaign = new Map<string, { userId: string; ids: string[] }>();
  for (const r of rows) {
    if (!r.campaignId) {
      events.push({ userId: r.userId, type, subject: { kind: "message", id: r.id } });
      continue;
    }
    const c = byCampaign.get(r.campaignId);
    if (c) c.ids.push(r.id);
    else byCampaign.set(r.campaignId, { userId: r.userId, ids: [r.id] });
  }
  for (const [campaignId, { userId, ids }] of byCampaign) {
    events.push({ userId, type, subject: { kind: "campaign", id: campaignId }, payload: { messageIds: ids } });
  }
  await appendEvents(ctx, events);
}
