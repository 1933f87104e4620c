import { and, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { jsonValues } from "../../db/json-array";
import { preparedPerDb } from "../../db/prepared";
import type { RecordsDb } from "../../db/records";
import { ready, withTransaction } from "../../db/transaction";
import { messages, type MessageStatus } from "../../db/schema";
import type { AppContext } from "../context";
import { mediaOfMessages, mediaView, type MediaView } from "../media/media";
import { notFound } from "../http/errors";
import type { ProviderAccount } from "../providers/accounts";
import type { WebhookEvent } from "../providers/types";
import { appendStatusEvents } from "./outbox";

/** A message's statuses, as the schema declares them: the public API documents them (src/public-api/contract.ts). */
export { MESSAGE_STATUSES } from "../../db/schema";

export type MessageRow = typeof messages.$inferSelect;

/** A message as the API shows it, with its pictures and files (`withMedia` reads them). */
export function messageView(m: MessageRow, media: MediaView[] = []) {
  return {
    id: m.id,
    phone: m.phone,
    content: m.content,
    direction: m.direction,
    status: m.status,
    fromNumber: m.fromNumber,
    segments: m.segments,
    errorCode: m.errorCode,
    errorMessage: m.errorMessage,
    campaignId: m.campaignId,
    contactId: m.contactId,
    createdAt: m.createdAt.toISOString(),
    sentAt: m.sentAt?.toISOString() ?? null,
    deliveredAt: m.deliveredAt?.toISOString() ?? null,
    media,
  };
}

/** The view of one message with its media read. */
export async function withMedia(ctx: AppContext, m: MessageRow) {
  return messageView(m, ((await mediaOfMessages(ctx, [m.id])).get(m.id) ?? []).map(mediaView));
}

export async function listMessages(
  ctx: AppContext,
  userId: string,
  q: { page: number; pageSize: number; phone?: string; campaignId?: string; direction?: "inbound" | "outbound" },
) {
  await ready(ctx.db);
  const conds: SQL[] = [eq(messages.userId, userId)];
  if (q.phone) conds.push(eq(messages.phone, q.phone));
  if (q.campaignId) conds.push(eq(messages.campaignId, q.campaignId));
  if (q.direction) conds.push(eq(messages.direction, q.direction));
  const where = and(...conds);
  const rows = await ctx.records
    .select()
    .from(messages)
    .where(where)
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize)
    .all();
  const total = (await ctx.records.select({ n: count() }).from(messages).where(where).get())!.n;
  const media = await mediaOfMessages(ctx, rows.map((r) => r.id));
  return { data: rows.map((r) => messageView(r, (media.get(r.id) ?? []).map(mediaView))), total, page: q.page, pageSize: q.pageSize };
}

/** A row of GET /api/campaign-logs as the outbox holds it (src/campaigns/campaigns.ts campaignLogs names it). */
export type CampaignLogRow = {
  id: string;
  campaign_id: string;
  contact_id: string | null;
  phone: string;
  status: string;
  kind: string;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  updated_at: number | null;
  next_attempt_at: number;
  hold_reason: string | null;
};

/**
 * A page of the account's campaign messages, newest first, of one campaign and one status when asked. Outbound, so
 * the newest-first read walks the (user, direction, created) index.
 */
export async function campaignMessagePage(
  ctx: AppContext,
  userId: string,
  q: { campaignId?: string; status?: string; limit: number; offset: number },
): Promise<CampaignLogRow[]> {
  await ready(ctx.db);
  const where: string[] = ["user_id = ?", "direction = 'outbound'", "campaign_id IS NOT NULL"];
  const args: (string | number)[] = [userId];
  if (q.campaignId) {
    where.push("campaign_id = ?");
    args.push(q.campaignId);
  }
  if (q.status) {
    where.push("status = ?");
    args.push(q.status);
  }
  return ctx.records.$rows<CampaignLogRow>(
    `SELECT id, campaign_id, contact_id, phone, status, kind, error_code, error_message, created_at, sent_at, delivered_at, updated_at,
       next_attempt_at, hold_reason
     FROM messages WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
    [...args, q.limit, q.offset],
  );
}

export async function getMessage(ctx: AppContext, userId: string, id: string): Promise<MessageRow> {
  await ready(ctx.db);
  const row = await ctx.records.select().from(messages).where(and(eq(messages.userId, userId), eq(messages.id, id))).get();
  if (!row) throw notFound("Message not found");
  return row;
}

export const NO_SENDER =
  "No SMS provider or phone number is set up. Go to Phone Settings, add your provider's API credentials (or the simulator), then add at least one phone number.";

/** Later states never go back: a repeated or late report changes nothing. */
const RANK: Partial<Record<MessageStatus, number>> = { queued: 0, sending: 1, unknown: 1, sent: 2, delivered: 3, failed: 3 };

type StatusEvent = Extract<WebhookEvent, { type: "status" }>;

/** Reports kept per account (user) for messages not recorded yet; the oldest goes first beyond it. */
export const EARLY_REPORTS_PER_ACCOUNT = 10_000;
/** A report whose message has not been recorded within this long never will be: the send returns in seconds. */
export const EARLY_REPORT_TTL_MS = 10 * 60_000;

/**
 * Delivery reports that arrive before the engine has recorded the provider's id for that message (a fast provider
 * can call back before `send` returns here) are kept in `early_reports` and applied when the id is recorded, by
 * whichever process records it. Kept per account (user), at most EARLY_REPORTS_PER_ACCOUNT (the oldest go first)
 * and for EARLY_REPORT_TTL_MS: a tenant posting reports for ids we never sent can neither slow the server nor grow
 * this without bound. A report for a message already held replaces it (the provider's last word).
 */
/** A batch's held reports, `[providerMessageId, status, errorCode, errorMessage]` in JSON: one statement a batch. */
export const PUT_EARLY_SQL = `INSERT INTO early_reports (user_id, provider_id, provider_message_id, status, error_code, error_message, received_at)
  SELECT ?, ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), ?
  FROM json_each(?) WHERE true
  ON CONFLICT (provider_id, provider_message_id) DO UPDATE SET status = excluded.status,
  error_code = excluded.error_code, error_message = excluded.error_message, received_at = excluded.received_at`;
/** PUT_EARLY_SQL on PostgreSQL, which reads JSON with its own functions. */
export const PUT_EARLY_SQL_POSTGRES = `INSERT INTO early_reports (user_id, provider_id, provider_message_id, status, error_code, error_message, received_at)
  SELECT ?, ?, r->>0, r->>1, r->>2, r->>3, ? FROM jsonb_array_elements(CAST(? AS text)::jsonb) AS r
  ON CONFLICT (provider_id, provider_message_id) DO UPDATE SET status = excluded.status,
  error_code = excluded.error_code, error_message = excluded.error_message, received_at = excluded.received_at`;
/** An account's expired reports and those beyond its newest EARLY_REPORTS_PER_ACCOUNT, once per batch that held any. */
export const TRIM_EARLY_SQL = `DELETE FROM early_reports WHERE user_id = ? AND (received_at < ?
  OR id <= (SELECT id FROM early_reports WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?))`;
const REPORT_COLUMNS = `provider_id AS "providerId", provider_message_id AS "providerMessageId", status, error_code AS "errorCode", error_message AS "errorMessage"`;
/** Takes the unexpired reports of a batch's messages, `[providerId, providerMessageId]` pairs in JSON: one statement a batch. */
export const TAKE_EARLY_SQL = `DELETE FROM early_reports WHERE received_at >= ?
  AND (provider_id, provider_message_id) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))
  RETURNING ${REPORT_COLUMNS}`;
/**
 * The reports of a batch just held whose messages have their provider ids now: another process may have recorded one
 * between this batch's look and its commit, and taken the reports before this one's were there.
 */
const recorded = (take: string) =>
  take.replace("RETURNING", `AND EXISTS (SELECT 1 FROM messages m WHERE m.provider_id = early_reports.provider_id
    AND m.provider_message_id = early_reports.provider_message_id) RETURNING`);
const TAKE_RECORDED_SQL = recorded(TAKE_EARLY_SQL);
/** TAKE_EARLY_SQL on PostgreSQL, which reads JSON with its own functions. */
export const TAKE_EARLY_SQL_POSTGRES = `DELETE FROM early_reports WHERE received_at >= ?
  AND (provider_id, provider_message_id) IN (SELECT r->>0, r->>1 FROM jsonb_array_elements(CAST(? AS text)::jsonb) AS r)
  RETURNING ${REPORT_COLUMNS}`;
export const TAKE_RECORDED_SQL_POSTGRES = recorded(TAKE_EARLY_SQL_POSTGRES);

type EarlyRow = { providerId: string; providerMessageId: string; status: StatusEvent["status"]; errorCode: string | null; errorMessage: string | null };

/**
 * Takes the reports held for messages whose provider ids were just recorded (after the commit that recorded them):
 * per provider account, the status events to apply. `recordedOnly`: those whose message has its id now.
 */
export async function takeEarlyReports(
  ctx: AppContext,
  messages: { providerId: string; providerMessageId: string }[],
  { recordedOnly = false } = {},
): Promise<Map<string, StatusEvent[]>> {
  const found = new Map<string, StatusEvent[]>();
  if (!messages.length) return found;
  await ready(ctx.db);
  const pairs = JSON.stringify(messages.map((m) => [m.providerId, m.providerMessageId]));
  const postgres = ctx.records.$engine === "postgres";
  const take = recordedOnly ? (postgres ? TAKE_RECORDED_SQL_POSTGRES : TAKE_RECORDED_SQL) : postgres ? TAKE_EARLY_SQL_POSTGRES : TAKE_EARLY_SQL;
  for (const r of await ctx.records.$rows<EarlyRow>(take, [ctx.now() - EARLY_REPORT_TTL_MS, pairs])) {
    const event: StatusEvent = { type: "status", providerMessageId: r.providerMessageId, status: r.status, errorCode: r.errorCode, errorMessage: r.errorMessage };
    const events = found.get(r.providerId);
    if (events) events.push(event);
    else found.set(r.providerId, [event]);
  }
  return found;
}

/** The report held for one message, taken (undefined when none, or expired). */
export async function takeEarlyReport(ctx: AppContext, providerId: string, providerMessageId: string): Promise<StatusEvent | undefined> {
  return (await takeEarlyReports(ctx, [{ providerId, providerMessageId }])).get(providerId)?.[0];
}

/** Reports an account holds for messages not recorded yet (bounded by EARLY_REPORTS_PER_ACCOUNT), unexpired. */
export async function earlyReportCount(ctx: AppContext, userId: string): Promise<number> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM early_reports WHERE user_id = ? AND received_at >= ?`, [userId, ctx.now() - EARLY_REPORT_TTL_MS]);
  return Number(row!.n);
}

export type StatusChange = { id: string; userId: string; campaignId: string | null; status: MessageStatus };

/**
 * Applies delivery reports in one transaction with their events, one indexed lookup each, then hands the campaigns
 * touched to the settle step; answers the messages whose status changed.
 */
export async function applyStatusEvents(ctx: AppContext, account: ProviderAccount, events: StatusEvent[]): Promise<StatusChange[]> {
  const changed: StatusChange[] = [];
  const held: StatusEvent[] = [];
  // One transaction whose callback awaits records only; a repeated or late report changes nothing (RANK, read in it).
  await withTransaction(ctx.db, async () => {
    const now = ctx.now();
    for (const e of events) {
      const [row] = await ctx.records.$rows<{ id: string; user_id: string; campaign_id: string | null; status: MessageStatus }>(FIND_REPORTED_SQL, [
        account.id,
        e.providerMessageId,
      ]);
      if (!row) {
        held.push(e);
        continue;
      }
      if ((RANK[e.status] ?? 0) <= (RANK[row.status] ?? 3)) continue;
      await ctx.records.$run(APPLY_STATUS_SQL, [e.status, e.errorCode ?? null, e.errorMessage ?? null, e.status, now, now, row.id]);
      changed.push({ id: row.id, userId: row.user_id, campaignId: row.campaign_id, status: e.status });
    }
    if (held.length) {
      // One row per message, the last report for it (one statement may not write a row twice on PostgreSQL).
      const last = new Map(held.map((e) => [e.providerMessageId, [e.providerMessageId, e.status, e.errorCode ?? null, e.errorMessage ?? null]]));
      const put = ctx.records.$engine === "postgres" ? PUT_EARLY_SQL_POSTGRES : PUT_EARLY_SQL;
      await ctx.records.$run(put, [account.userId, account.id, now, JSON.stringify([...last.values()])]);
      await ctx.records.$run(TRIM_EARLY_SQL, [account.userId, now - EARLY_REPORT_TTL_MS, account.userId, EARLY_REPORTS_PER_ACCOUNT]);
    }
    for (const status of ["sent", "delivered", "failed"] as const) {
      const reached = changed.filter((c) => c.status === status);
      if (reached.length) await appendStatusEvents(ctx, `message.${status}`, reached);
    }
  });
  // A report held while another process was recording its message's id, whose look for held reports came before
  // this hold committed: it is this batch's to apply (the take answers each report to one caller only).
  if (held.length) {
    const pairs = held.map((e) => ({ providerId: account.id, providerMessageId: e.providerMessageId }));
    const recorded = (await takeEarlyReports(ctx, pairs, { recordedOnly: true })).get(account.id);
    if (recorded) changed.push(...(await applyStatusEvents(ctx, account, recorded)));
  }
  const campaigns = new Set(changed.flatMap((c) => (c.campaignId ? [c.campaignId] : [])));
  if (campaigns.size) {
    await ready(ctx.db);
    await ctx.campaignOutbox.settle(campaigns);
  }
  return changed;
}

const FIND_REPORTED_SQL = `SELECT id, user_id, campaign_id, status FROM messages WHERE provider_id = ? AND provider_message_id = ?`;
const APPLY_STATUS_SQL = `UPDATE messages SET status = ?, error_code = coalesce(?, error_code), error_message = coalesce(?, error_message),
  delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END, updated_at = ? WHERE id = ?`;

/** Reports applied per transaction when a webhook carries many; other requests run between two batches. */
const REPORT_BATCH = 250;

/** A webhook's delivery reports, a batch per transaction, yielding to the event loop between batches. */
export async function applyStatusEventsInBatches(ctx: AppContext, account: ProviderAccount, events: StatusEvent[]) {
  const changed: StatusChange[] = [];
  for (let i = 0; i < events.length; i += REPORT_BATCH) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    changed.push(...(await applyStatusEvents(ctx, account, events.slice(i, i + REPORT_BATCH))));
  }
  return changed;
}

// The inbound path's writes, prepared once per connection (200 webhooks a second must not build and compile them
// each time): the message, stored once per provider id (a retried webhook inserts nothing).
const insertInbound = preparedPerDb((db: RecordsDb) =>
  db
    .insert(messages)
    .values({
      id: sql.placeholder("id"),
      seq: sql.placeholder("seq"),
      userId: sql.placeholder("userId"),
      contactId: sql.placeholder("contactId"),
      phone: sql.placeholder("phone"),
      content: sql.placeholder("content"),
      direction: "inbound",
      status: "received",
      providerId: sql.placeholder("providerId"),
      providerMessageId: sql.placeholder("providerMessageId"),
      fromNumber: sql.placeholder("fromNumber"),
      segments: sql.placeholder("segments"),
      createdAt: sql.placeholder("at"),
      updatedAt: sql.placeholder("at"),
    })
    .onConflictDoNothing()
    .returning()
    .prepare(),
);

export type NewInbound = {
  id: string;
  seq: number;
  userId: string;
  contactId: string | null;
  phone: string;
  content: string;
  providerId: string;
  providerMessageId: string;
  fromNumber: string | null;
  segments: number;
  at: Date;
};

/** Stores an inbound message once per provider id: answers the row, or null when a retried webhook finds it stored. */
export async function storeInbound(ctx: AppContext, m: NewInbound): Promise<MessageRow | null> {
  await ready(ctx.db);
  return (await insertInbound(ctx.records).get(m)) ?? null;
}

/** Names the contact a message came from (one created after the message was stored). */
export async function setMessageContact(ctx: AppContext, messageId: string, contactId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.update(messages).set({ contactId }).where(eq(messages.id, messageId)).run();
}

/**
 * A contact merge's messages (src/contacts/contacts.ts mergeContacts, through ctx.contactMessages): those of the
 * merged contacts become the primary's, in the merge's transaction.
 */
export async function moveContactMessages(ctx: AppContext, userId: string, fromIds: string[], toId: string): Promise<void> {
  await ready(ctx.db);
  await ctx.records.update(messages).set({ contactId: toId }).where(and(eq(messages.userId, userId), inArray(messages.contactId, fromIds))).run();
}

/**
 * What the click classifier needs of the messages that carried clicked short links (src/links/clicks.ts): when each
 * was reported delivered (the scanner window), if it was, and its contact now (after a merge, the one kept).
 */
export async function clickedMessages(ctx: AppContext, ids: string[]): Promise<Map<string, { deliveredAt: number | null; contactId: string | null }>> {
  if (!ids.length) return new Map();
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string; deliveredAt: number | null; contactId: string | null }>(
    `SELECT id, delivered_at AS "deliveredAt", contact_id AS "contactId" FROM messages WHERE id IN (${jsonValues(ctx.records)})`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, { deliveredAt: r.deliveredAt, contactId: r.contactId }]));
}
