import { and, count, desc, eq, getTableColumns, inArray, isNotNull, isNull, like, or, sql, type SQL } from "drizzle-orm";
import { holdCheckpoints, type Checkpoints } from "../../db/checkpoints";
import { preparedPerDb } from "../../db/prepared";
import { ready } from "../../db/transaction";
import { campaignMessageCounts, campaigns, type CampaignStatus, type OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import type { HistorySort } from "./history";

/**
 * The campaigns domain's records (issue 30 item 2): the one file of the flows' folder that speaks SQL, on the tables
 * it owns (campaigns, campaign_ab_rest; campaign_message_counts, kept by triggers, is read in stats.ts). The flows
 * (campaigns.ts, lifecycle.ts, the outbox writer, the A/B test, held messages, the scheduler) ask these.
 *
 * Each awaits `ready` and runs its statements with nothing awaited between; records that commit together run in
 * their caller's ctx.withTransaction (a start, a pause, a winner; a scheduled start's or an A/B decision's job in
 * the jobs runner's pass).
 */

export type CampaignRow = typeof campaigns.$inferSelect;

/**
 * A campaign's row as a start takes it: its typed list (up to 100,000 numbers, 1.7 MB of JSON to parse) may be left
 * unread, and is then counted in SQL and read only when the start writes it in one go.
 */
export type StartRow = Omit<CampaignRow, "recipients"> & { recipients?: string[] };

type Skipped = { optedOut: number; invalid: number; duplicate: number };
type Sender = OutboxWriting["sender"];

const { recipients: _recipients, ...withoutRecipients } = getTableColumns(campaigns);
const campaignOf = (userId: string | null, id: string) => (userId === null ? eq(campaigns.id, id) : and(eq(campaigns.userId, userId), eq(campaigns.id, id)));

/** How many numbers a campaign's typed list holds, counted by SQLite without making the list. */
export async function typedCountOf(ctx: AppContext, campaignId: string): Promise<number> {
  await ready(ctx.db);
  return ctx.db.select({ n: sql<number>`json_array_length(${campaigns.recipients})` }).from(campaigns).where(eq(campaigns.id, campaignId)).get()?.n ?? 0;
}

/** A campaign's typed recipients (parsed: 100,000 numbers are 10-30 ms of the event loop). */
export async function typedRecipientsOf(ctx: AppContext, campaignId: string): Promise<string[]> {
  await ready(ctx.db);
  return ctx.db.select({ r: campaigns.recipients }).from(campaigns).where(eq(campaigns.id, campaignId)).get()?.r ?? [];
}

/**
 * The start's status: `sending` from now, from the sender's number, with what the start counted out (`skipped`) and,
 * for a campaign written in chunks, where its writing starts. In the start's transaction.
 */
export async function markSending(ctx: AppContext, id: string, sender: Sender, skipped: Skipped, outboxWriting: OutboxWriting | null) {
  await ready(ctx.db);
  const now = new Date(ctx.now());
  ctx.db
    .update(campaigns)
    .set({
      status: "sending",
      fromNumber: sender.phoneNumber,
      sentAt: now,
      updatedAt: now,
      pauseReason: null,
      skippedOptedOut: skipped.optedOut,
      skippedInvalid: skipped.invalid,
      skippedDuplicate: skipped.duplicate,
      outboxWriting,
    })
    .where(eq(campaigns.id, id))
    .run();
}

// Prepared once, the ids as one JSON array: the engine asks for every batch it admits.
const sendStates = preparedPerDb((db) =>
  db
    .select({ id: campaigns.id, status: campaigns.status, anyHourSince: campaigns.anyHourSince })
    .from(campaigns)
    .where(sql`${campaigns.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`)
    .prepare(),
);

/** Each campaign's status and whether quiet hours may hold its messages (the engine's port: ctx.campaignOutbox.states). */
export async function sendStatesOf(ctx: AppContext, ids: string[]): Promise<Map<string, { status: CampaignStatus; anyHour: boolean }>> {
  if (!ids.length) return new Map();
  await ready(ctx.db);
  const rows = sendStates(ctx.db).all({ ids: JSON.stringify(ids) });
  return new Map(rows.map((r) => [r.id, { status: r.status, anyHour: r.anyHourSince !== null }]));
}

/** Paused with the reason, only while sending or scheduled: answers its account, null when it was not changed. */
export async function pauseIfRunning(ctx: AppContext, id: string, reason: string | null): Promise<string | null> {
  await ready(ctx.db);
  const row = ctx.db.$client
    .query(`UPDATE campaigns SET status = 'paused', pause_reason = ?, updated_at = ? WHERE id = ? AND status IN ('sending', 'scheduled') RETURNING user_id`)
    .get(reason, ctx.now(), id) as { user_id: string } | null;
  return row?.user_id ?? null;
}

/** Sending, its outbox wholly written and, an A/B test, its winner picked: what its rows say is all it sends. */
export async function settleable(ctx: AppContext, id: string): Promise<boolean> {
  await ready(ctx.db);
  return !!ctx.db.$client
    .query(`SELECT 1 FROM campaigns WHERE id = ? AND status = 'sending' AND outbox_writing IS NULL AND (ab_test IS NULL OR ab_winner IS NOT NULL)`)
    .get(id);
}

/**
 * Completed or failed, only while sending, with its campaign.completed event; answers whether it was. The status and
 * its event commit together in a transaction of their own (a savepoint inside the caller's): the engine's port
 * settles inside the outbox store's transactions and after them (a delivery report's, a reconciliation's).
 */
export async function finishIfSending(ctx: AppContext, id: string, status: "completed" | "failed", now: number): Promise<boolean> {
  return ctx.withTransaction(async () => {
    const row = ctx.db.$client
      .query(`UPDATE campaigns SET status = ?, completed_at = ?, updated_at = ? WHERE id = ? AND status = 'sending' RETURNING user_id`)
      .get(status, now, now, id) as { user_id: string } | null;
    if (row) await appendEvent(ctx, { userId: row.user_id, type: "campaign.completed", subject: { kind: "campaign", id }, payload: { status } });
    return !!row;
  });
}

/** Every campaign of the account that may still send (scheduled, sending, paused) cancelled with the reason. */
export async function cancelAccountCampaigns(ctx: AppContext, userId: string, reason: string, now: number): Promise<number> {
  await ready(ctx.db);
  return ctx.db.$client
    .query(`UPDATE campaigns SET status = 'cancelled', pause_reason = ?, completed_at = ?, updated_at = ? WHERE user_id = ? AND status IN ('scheduled', 'sending', 'paused')`)
    .run(reason, now, now, userId).changes;
}

/**
 * An A/B test's winner set, only while none is, its test wholly written and the campaign sending or paused: answers
 * the status it has, null when it was not set (picked meanwhile).
 */
export async function setWinnerOnce(ctx: AppContext, id: string, winner: number, by: "rule" | "user", now: number): Promise<CampaignStatus | null> {
  await ready(ctx.db);
  const row = ctx.db.$client
    .query(
      `UPDATE campaigns SET ab_winner = ?, ab_decided_at = ?, ab_decided_by = ?, updated_at = ?
       WHERE id = ? AND ab_winner IS NULL AND outbox_writing IS NULL AND status IN ('sending', 'paused') RETURNING status`,
    )
    .get(winner, now, by, now, id) as { status: CampaignStatus } | null;
  return row?.status ?? null;
}

/** Where a campaign's chunked writing starts (null: none). */
export async function setWriting(ctx: AppContext, id: string, writing: OutboxWriting | null) {
  await ready(ctx.db);
  ctx.db.update(campaigns).set({ outboxWriting: writing }).where(eq(campaigns.id, id)).run();
}

// Prepared once, with and without the writing's move: every chunk of a campaign's outbox ends with one.
const skippedCounts = {
  skippedOptedOut: sql`${campaigns.skippedOptedOut} + ${sql.placeholder("optedOut")}`,
  skippedInvalid: sql`${campaigns.skippedInvalid} + ${sql.placeholder("invalid")}`,
  skippedDuplicate: sql`${campaigns.skippedDuplicate} + ${sql.placeholder("duplicate")}`,
};
const addSkippedOnly = preparedPerDb((db) => db.update(campaigns).set(skippedCounts).where(eq(campaigns.id, sql.placeholder("id"))).prepare());
const addSkippedAndMove = preparedPerDb((db) =>
  db
    .update(campaigns)
    // A placeholder is bound as given: the JSON column's value is written as its text (null stays NULL).
    .set({ ...skippedCounts, outboxWriting: sql`${sql.placeholder("writing")}` })
    .where(eq(campaigns.id, sql.placeholder("id")))
    .prepare(),
);

/** Adds what a write counted out to the campaign's skipped counts, and moves its writing (`after`; undefined: left). */
export async function addSkipped(ctx: AppContext, id: string, skipped: Skipped, after?: OutboxWriting | null) {
  await ready(ctx.db);
  const counts = { id, optedOut: skipped.optedOut, invalid: skipped.invalid, duplicate: skipped.duplicate };
  if (after === undefined) addSkippedOnly(ctx.db).run(counts);
  else addSkippedAndMove(ctx.db).run({ ...counts, writing: after === null ? null : JSON.stringify(after) });
}

// campaign_ab_rest: an A/B test's audience kept for the split and the winner (ab-split.ts), written by the start and
// the winner (the jobs' pass, synchronous) and the chunks.

/** Recipients kept at their positions in the split order (a position already taken keeps its first); answers how many were new. */
export async function keepAbRest(ctx: AppContext, campaignId: string, kept: { position: number | bigint; phone: string; contactId: string | null }[]): Promise<number> {
  await ready(ctx.db);
  const insert = ctx.db.$client.prepare(`INSERT OR IGNORE INTO campaign_ab_rest (campaign_id, position, phone, contact_id) VALUES (?, ?, ?, ?)`);
  let n = 0;
  for (const r of kept) n += insert.run(campaignId, r.position, r.phone, r.contactId).changes;
  return n;
}

/**
 * The next `n` of a test's kept audience in split order (all of it: `n` null), taken off the rest: in the
 * transaction that writes them, so a chunk run again after a crash starts where the last committed one ended.
 */
export async function takeKept(ctx: AppContext, campaignId: string, n: number | null): Promise<{ phone: string; contactId: string | null }[]> {
  await ready(ctx.db);
  const rows = ctx.db.$client
    .query(`SELECT rowid AS id, phone, contact_id AS contactId FROM campaign_ab_rest WHERE campaign_id = ? ORDER BY position LIMIT ?`)
    .all(campaignId, n ?? -1) as { id: number; phone: string; contactId: string | null }[];
  if (rows.length) ctx.db.$client.query(`DELETE FROM campaign_ab_rest WHERE rowid IN (SELECT value FROM json_each(?))`).run(JSON.stringify(rows.map((r) => r.id)));
  return rows.map(({ phone, contactId }) => ({ phone, contactId }));
}

/** How many recipients a campaign keeps for its winner (or, while its test is written in chunks, for the split). */
export async function abRestCount(ctx: AppContext, campaignId: string): Promise<number> {
  await ready(ctx.db);
  return (ctx.db.$client.query(`SELECT count(*) AS n FROM campaign_ab_rest WHERE campaign_id = ?`).get(campaignId) as { n: number }).n;
}

/** A campaign's whole row (its typed list parsed), null when it is not the account's. */
export async function findCampaign(ctx: AppContext, userId: string, id: string): Promise<CampaignRow | null> {
  await ready(ctx.db);
  return ctx.db.select().from(campaigns).where(campaignOf(userId, id)).get() ?? null;
}

// Prepared once, any account's and one account's: every chunk of a campaign's outbox reads its row first.
const startRowById = preparedPerDb((db) => db.select(withoutRecipients).from(campaigns).where(eq(campaigns.id, sql.placeholder("id"))).prepare());
const startRowOfUser = preparedPerDb((db) =>
  db
    .select(withoutRecipients)
    .from(campaigns)
    .where(and(eq(campaigns.userId, sql.placeholder("userId")), eq(campaigns.id, sql.placeholder("id"))))
    .prepare(),
);

/** A campaign's row but its typed list, null when it is not the account's. */
export async function findStartRow(ctx: AppContext, userId: string | null, id: string): Promise<StartRow | null> {
  await ready(ctx.db);
  return (userId === null ? startRowById(ctx.db).get({ id }) : startRowOfUser(ctx.db).get({ userId, id })) ?? null;
}

/** A campaign's typed list as stored (JSON text, not parsed), null when it is not the account's. */
export async function typedListText(ctx: AppContext, userId: string, id: string): Promise<string | null> {
  await ready(ctx.db);
  return ctx.db.$client.query<{ r: string }, [string, string]>(`SELECT recipients AS r FROM campaigns WHERE user_id = ? AND id = ?`).get(userId, id)?.r ?? null;
}

/** Whether a campaign's typed list is still `text` (compared by SQLite, nothing parsed). */
export async function typedListIs(ctx: AppContext, id: string, text: string): Promise<boolean> {
  await ready(ctx.db);
  return ctx.db.$client.query<{ same: number }, [string, string]>(`SELECT recipients = ? AS same FROM campaigns WHERE id = ?`).get(text, id)?.same === 1;
}

/** When a campaign went out (or, not yet sent, was made): the time the history shows, filters and sorts on. */
const campaignTime = sql`coalesce(${campaigns.sentAt}, ${campaigns.createdAt})`;

/** How many messages a campaign queued, from the counts kept by the messages triggers (a few rows per campaign). */
const recipientCount = sql`(SELECT coalesce(sum(${campaignMessageCounts.n}), 0) FROM ${campaignMessageCounts} WHERE ${campaignMessageCounts.campaignId} = ${campaigns.id})`;

/** The ORDER BY of a sort; each ends on the id, so pages never repeat or skip a campaign. */
function historyOrder(sort: HistorySort): SQL[] {
  switch (sort) {
    case "newest":
      return [sql`${campaignTime} DESC`, sql`${campaigns.id} DESC`];
    case "oldest":
      return [sql`${campaignTime} ASC`, sql`${campaigns.id} ASC`];
    case "recipients":
      return [sql`${recipientCount} DESC`, sql`${campaignTime} DESC`, sql`${campaigns.id} DESC`];
    case "name":
      return [sql`${campaigns.name} COLLATE NOCASE ASC`, sql`${campaigns.id} ASC`];
  }
}

export type CampaignFilter = {
  q?: string;
  status?: CampaignStatus;
  archived?: boolean;
  type?: "sms" | "email";
  /** Only campaigns that started sending (the Sent Messages history). */
  sent?: boolean;
  /** Went out (or, unsent, were made) within [from, to), ms. */
  bounds?: { from: number | null; to: number | null };
  /** Campaigns the search also matches: those that messaged the phone searched for. */
  alsoIds?: string[];
};

function listWhere(userId: string, q: CampaignFilter) {
  const conds: SQL[] = [eq(campaigns.userId, userId)];
  if (q.status) conds.push(eq(campaigns.status, q.status));
  if (q.type) conds.push(eq(campaigns.type, q.type));
  if (q.archived !== undefined) conds.push(q.archived ? isNotNull(campaigns.archivedAt) : isNull(campaigns.archivedAt));
  if (q.sent) conds.push(isNotNull(campaigns.sentAt));
  if (q.bounds?.from != null) conds.push(sql`${campaignTime} >= ${q.bounds.from}`);
  if (q.bounds?.to != null) conds.push(sql`${campaignTime} < ${q.bounds.to}`);
  const term = q.q?.trim();
  if (term) {
    const pattern = `%${term.replace(/[%_\\]/g, (m) => `\\${m}`)}%`;
    conds.push(
      or(
        sql`${campaigns.name} LIKE ${pattern} ESCAPE '\\'`,
        sql`${campaigns.content} LIKE ${pattern} ESCAPE '\\'`,
        like(campaigns.recipients, pattern),
        q.alsoIds?.length ? inArray(campaigns.id, q.alsoIds) : undefined,
      )!,
    );
  }
  return and(...conds);
}

/** A page of the account's campaigns the filter keeps, in the sort's order (default: newest made first), and how many it keeps. */
export async function campaignPage(ctx: AppContext, userId: string, q: CampaignFilter & { sort?: HistorySort; limit: number; offset: number }) {
  await ready(ctx.db);
  const where = listWhere(userId, q);
  const order = q.sort ? historyOrder(q.sort) : [desc(campaigns.createdAt), desc(campaigns.id)];
  const rows = ctx.db.select().from(campaigns).where(where).orderBy(...order).limit(q.limit).offset(q.offset).all();
  const total = ctx.db.select({ n: count() }).from(campaigns).where(where).get()!.n;
  return { rows, total };
}

/** A new campaign's row (a draft, or a copy); answered without its typed list (not read back). */
export async function insertCampaign(ctx: AppContext, values: typeof campaigns.$inferInsert): Promise<StartRow> {
  await ready(ctx.db);
  return ctx.db.insert(campaigns).values(values).returning(withoutRecipients).get();
}

/** An edit's fields written. */
export async function updateFields(ctx: AppContext, id: string, values: Partial<typeof campaigns.$inferInsert>) {
  await ready(ctx.db);
  ctx.db.update(campaigns).set(values).where(eq(campaigns.id, id)).run();
}

/** Those of `ids` that are the owner's campaigns in one of `statuses`, with their status. */
export async function campaignsInStatus(ctx: AppContext, userId: string, ids: string[], statuses: CampaignStatus[]) {
  if (!ids.length) return [];
  await ready(ctx.db);
  return ctx.db.$client
    .query<{ id: string; status: CampaignStatus }, [string, string, string]>(
      `SELECT id, status FROM campaigns WHERE user_id = ? AND id IN (SELECT value FROM json_each(?)) AND status IN (SELECT value FROM json_each(?))`,
    )
    .all(userId, JSON.stringify(ids), JSON.stringify(statuses));
}

/** Deletes those of `ids` that are the owner's and in one of `statuses`; answers the ids deleted. */
export async function deleteInStatus(ctx: AppContext, userId: string, ids: string[], statuses: CampaignStatus[]): Promise<string[]> {
  await ready(ctx.db);
  const deleted = ctx.db.$client
    .prepare(`DELETE FROM campaigns WHERE user_id = ? AND id IN (SELECT value FROM json_each(?)) AND status IN (SELECT value FROM json_each(?)) RETURNING id`)
    .all(userId, JSON.stringify(ids), JSON.stringify(statuses)) as { id: string }[];
  return deleted.map((d) => d.id);
}

export async function archiveRows(ctx: AppContext, userId: string, ids: string[], archive: boolean): Promise<number> {
  await ready(ctx.db);
  return ctx.db.$client
    .prepare(`UPDATE campaigns SET archived_at = ?, updated_at = ? WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))`)
    .run(archive ? ctx.now() : null, ctx.now(), userId, JSON.stringify(ids)).changes;
}

/** Scheduled for `at`. */
export async function markScheduled(ctx: AppContext, id: string, at: number) {
  await ready(ctx.db);
  ctx.db.update(campaigns).set({ status: "scheduled", scheduledAt: new Date(at), pauseReason: null, updatedAt: new Date(ctx.now()) }).where(eq(campaigns.id, id)).run();
}

/** Sending again after a pause. */
export async function markResumed(ctx: AppContext, id: string, now: number) {
  await ready(ctx.db);
  ctx.db.$client.prepare(`UPDATE campaigns SET status = 'sending', pause_reason = NULL, updated_at = ? WHERE id = ?`).run(now, id);
}

/** Cancelled by its owner. */
export async function markCancelled(ctx: AppContext, id: string, now: number) {
  await ready(ctx.db);
  ctx.db.$client.prepare(`UPDATE campaigns SET status = 'cancelled', updated_at = ?, completed_at = ? WHERE id = ?`).run(now, now, id);
}

/** From now on quiet hours hold none of its messages (the first such choice's time is kept). */
export async function markAnyHour(ctx: AppContext, id: string, now: number) {
  await ready(ctx.db);
  ctx.db
    .update(campaigns)
    .set({ anyHourSince: new Date(now), updatedAt: new Date(now) })
    .where(and(eq(campaigns.id, id), isNull(campaigns.anyHourSince)))
    .run();
}

/** The names of these campaigns, by id. */
export async function campaignNames(ctx: AppContext, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  await ready(ctx.db);
  const rows = ctx.db.select({ id: campaigns.id, name: campaigns.name }).from(campaigns).where(inArray(campaigns.id, [...new Set(ids)])).all();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The account's sending campaigns. */
export async function sendingCampaignIds(ctx: AppContext, userId: string | null): Promise<string[]> {
  await ready(ctx.db);
  const rows = await ctx.records
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(userId === null ? undefined : eq(campaigns.userId, userId), eq(campaigns.status, "sending")))
    .all();
  return rows.map((c) => c.id);
}

/** Campaigns whose outbox a stop or crash left half-written. */
export async function campaignsWriting(ctx: AppContext): Promise<string[]> {
  await ready(ctx.db);
  return ctx.db.select({ id: campaigns.id }).from(campaigns).where(isNotNull(campaigns.outboxWriting)).all().map((c) => c.id);
}

/** Draft, scheduled or paused campaigns that never started (no sent time): the repair's candidates. */
export async function neverStartedIds(ctx: AppContext): Promise<string[]> {
  await ready(ctx.db);
  return (ctx.db.$client.query(`SELECT id FROM campaigns WHERE status IN ('draft', 'scheduled', 'paused') AND sent_at IS NULL`).all() as { id: string }[]).map((c) => c.id);
}

/** Started after all, from when its rows were written (the repair of a crash in an older version). */
export async function markStartedAt(ctx: AppContext, id: string, startedAt: number, now: number) {
  await ready(ctx.db);
  ctx.db.$client.query(`UPDATE campaigns SET status = 'sending', sent_at = ?, pause_reason = NULL, updated_at = ? WHERE id = ?`).run(startedAt, now, id);
}

/** Scheduled campaigns with their time (now when none is set). */
export async function scheduledCampaigns(ctx: AppContext, now: number): Promise<{ id: string; user_id: string; at: number }[]> {
  await ready(ctx.db);
  return ctx.db.$client.query(`SELECT id, user_id, coalesce(scheduled_at, ?) AS at FROM campaigns WHERE status = 'scheduled'`).all(now) as {
    id: string;
    user_id: string;
    at: number;
  }[];
}

/**
 * Resolves once the caller may run statements on the connection (db/transaction.ts `ready`): a flow awaits it before
 * it reads through records of folders still synchronous (messages, contacts, links, media...), so they run in a turn
 * with no other caller's transaction open, with nothing awaited between.
 */
export async function onConnection(ctx: AppContext): Promise<void> {
  await ready(ctx.db);
}

/**
 * The write-ahead log's checkpoints a writer of many rows waits for (db/checkpoints.ts), on the connection: a setting
 * of the raw client, taken after ready (no other caller's transaction open on it).
 */
export async function checkpointsOf(ctx: AppContext): Promise<Checkpoints> {
  await ready(ctx.db);
  return holdCheckpoints(ctx.db.$client, ctx.log);
}
