import type { SQL } from "bun";
import { afterTransaction, ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";

/**
 * The durable event log. Every change worth reacting to (the WebSocket, outbound webhooks, automation) appends one
 * event in the same transaction as the change, so a reader never sees an event without its change, nor a change
 * without its event. Readers page by id; ids only grow and are never reused (AUTOINCREMENT), so a cursor is a
 * plain "last id seen".
 */

export const EVENT_TYPES = [
  "message.queued",
  "message.sent",
  "message.delivered",
  "message.failed",
  "message.unknown",
  "message.received",
  "keyword.received",
  "contact.created",
  "contact.opted_in",
  "contact.opted_out",
  "contact.tagged",
  "contact.purchased",
  "campaign.started",
  "campaign.paused",
  "campaign.completed",
  "conversation.updated",
  /** A person's click of a short link (src/links/clicks.ts): bots, previews and repeats never append it. */
  "link.clicked",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What an event is about. Message statuses of one campaign may be carried many to one ('campaign' subject, the
 * message ids in the payload), so the engine writes one event per batch, not one per message.
 */
export type EventSubject = { kind: "message" | "contact" | "campaign" | "import" | "conversation"; id: string };

export type NewEvent = {
  /** The owner: only this account's readers see it. */
  userId: string;
  type: EventType;
  subject: EventSubject;
  payload?: Record<string, unknown>;
};

export type AppEvent = {
  id: number;
  userId: string | null;
  type: EventType;
  subject: EventSubject;
  payload: Record<string, unknown>;
  createdAt: number;
};

/**
 * Appends an event on the context's connection. Call it inside the transaction that makes the change
 * (ctx.withTransaction): if the change rolls back, so does the event. Answers the event's id.
 */
export async function appendEvent(ctx: AppContext, event: NewEvent): Promise<number> {
  await ready(ctx.db);
  return (await insertEvents(ctx, [event]))[0]!;
}

/**
 * Appends events in order, as appendEvent does, in one call: a writer of many rows (a chunk of the outbox, a bulk
 * action) appends their events with one await, not one per row. Answers their ids in order.
 */
export async function appendEvents(ctx: AppContext, events: NewEvent[]): Promise<number[]> {
  if (!events.length) return [];
  await ready(ctx.db);
  return insertEvents(ctx, events);
}

/** Events one insert statement appends, at most: a statement's text per count and engine, each compiled once. */
const INSERT_ROWS = 64;
/**
 * A row of the insert. On PostgreSQL its id is the identity's next value taken once the transaction has an id of its
 * own (pg_current_xact_id() gives it one; a CASE evaluates its condition before its result): an event's id is never
 * taken by a transaction the snapshots do not yet count as running, which settledEventId relies on.
 */
const INSERT_ROW = {
  sqlite: { columns: "", row: "(?, ?, ?, ?, ?, ?)" },
  postgres: { columns: "id, ", row: "(CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('events_id_seq') END, ?, ?, ?, ?, ?, ?)" },
} as const;
const insertTexts = { sqlite: [] as string[], postgres: [] as string[] };
const insertText = (engine: keyof typeof INSERT_ROW, n: number) =>
  (insertTexts[engine][n] ??= `INSERT INTO events (${INSERT_ROW[engine].columns}user_id, type, subject_kind, subject_id, payload, created_at) VALUES ${Array(n)
    .fill(INSERT_ROW[engine].row)
    .join(", ")} RETURNING id`);

/**
 * The events' rows, in statements of up to INSERT_ROWS rows (one round trip each on PostgreSQL), and the listeners
 * told once the transaction has ended. A statement's ids grow in the order of its rows on both engines (SQLite's
 * AUTOINCREMENT, PostgreSQL's identity taken row by row), though RETURNING may list them in any order: sorted, they
 * are the events' in order.
 */
async function insertEvents(ctx: AppContext, events: NewEvent[]): Promise<number[]> {
  const now = ctx.now();
  const ids: number[] = [];
  for (let at = 0; at < events.length; at += INSERT_ROWS) {
    const slice = events.slice(at, at + INSERT_ROWS);
    const params: unknown[] = [];
    for (const e of slice) params.push(e.userId, e.type, e.subject.kind, e.subject.id, JSON.stringify(e.payload ?? {}), now);
    const rows = await ctx.records.$rows<{ id: number }>(insertText(ctx.records.$engine, slice.length), params);
    ids.push(...rows.map((r) => r.id).sort((a, b) => a - b));
  }
  const listeners = committedListeners.get(ctx);
  if (listeners?.size && !notifyScheduled.has(ctx)) {
    // After the transaction ends (or rolls back, and then the listener finds nothing new; with none open, in a
    // microtask: db/transaction.ts tells when). One per burst of appends, however many the transaction made.
    notifyScheduled.add(ctx);
    afterTransaction(ctx.db, () => {
      notifyScheduled.delete(ctx);
      for (const listener of [...listeners.values()]) listener();
    });
  }
  return ids;
}

// The listeners per connection told that events were appended, one per consumer (the WebSocket hub while sockets
// are connected, automation rules): with none set, appendEvent pays a single map lookup.
// Per app, not per connection: a restore (src/backups/) replaces ctx.db, and the readers must go on hearing.
const committedListeners = new WeakMap<AppContext, Map<string, () => void>>();
const notifyScheduled = new WeakSet<AppContext>();

/**
 * Sets (or, with null, removes) the listener called after a transaction that appended events has ended, so a
 * reader pages the log at once instead of polling it.
 */
export function onEventsCommitted(ctx: AppContext, listener: (() => void) | null, consumer = "live") {
  let listeners = committedListeners.get(ctx);
  if (!listeners) committedListeners.set(ctx, (listeners = new Map()));
  if (listener) listeners.set(consumer, listener);
  else listeners.delete(consumer);
}

/** The channel the event log's trigger notifies on PostgreSQL (migration 0081): the newest id a statement appended. */
export const EVENTS_CHANNEL = "smsdesk_events";

/**
 * Across the processes of an installation (PostgreSQL, issue 31 item 2): this process's readers of the log (the live
 * hub) hear of events any process appended, as they hear of their own (`onEventsCommitted`), and read the log after
 * their cursors as ever. Told again each time the listening connection is (re)established: notifications sent while
 * it was down are lost, the events are not. Bun.sql's `listen` keeps one connection of its own and reconnects it.
 */
export function listenForEvents(ctx: AppContext, sql: SQL): Promise<{ unlisten(): Promise<void> }> {
  const tell = () => tellReaders(ctx);
  return sql.listen(EVENTS_CHANNEL, tell, tell);
}

/** Tells this process's readers of the log to read after their cursors. */
function tellReaders(ctx: AppContext) {
  for (const listener of [...(committedListeners.get(ctx)?.values() ?? [])]) listener();
}

type EventRow = {
  id: number;
  user_id: string | null;
  type: EventType;
  subject_kind: EventSubject["kind"];
  subject_id: string;
  payload: string;
  created_at: number;
};

const toEvent = (r: EventRow): AppEvent => ({
  id: r.id,
  userId: r.user_id,
  type: r.type,
  subject: { kind: r.subject_kind, id: r.subject_id },
  payload: JSON.parse(r.payload),
  createdAt: r.created_at,
});

export const MAX_READ = 1000;

/**
 * On PostgreSQL, how far the log may be read (issue 31 item 2). An event's id is taken when its row is inserted and
 * seen when its transaction commits, and transactions append at once (processes, and each process's connections): an
 * id may become visible after a greater one did, and a reader whose cursor had passed it would never read it. So the
 * readers read up to the settled id only: every id up to it is visible, or never will be (rolled back). Ids are
 * settled once there is no gap below them, or once no transaction is running at all; or, for the newest id visible
 * when a gap was seen, once every transaction running then has ended: each took its ids after it had a transaction id
 * (INSERT_ROW), so one still missing then was rolled back. On SQLite one writer commits at a time, in id order.
 */
type Settled = { id: number; pending: { id: number; xmax: bigint } | null; recheck: ReturnType<typeof setTimeout> | null };
const settledOf = new WeakMap<AppContext, Settled>();
/** Ids walked per look for the gaps above the settled id; and how soon (ms) readers look again while one is open. */
const SETTLE_WALK = 1000;
const SETTLE_RECHECK_MS = 20;

const SETTLE_SQL = `SELECT (SELECT string_agg(CAST(id AS text), ',' ORDER BY id) FROM (SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ${SETTLE_WALK}) AS above) AS ids,
  CAST(pg_snapshot_xmin(pg_current_snapshot()) AS text) AS xmin, CAST(pg_snapshot_xmax(pg_current_snapshot()) AS text) AS xmax,
  pg_current_xact_id_if_assigned() IS NOT NULL AS writing`;

async function settledEventId(ctx: AppContext): Promise<number> {
  let s = settledOf.get(ctx);
  if (!s) {
    // A process starting: the walk begins a page below the newest id (a transaction holding an id older than that
    // when a process starts is not waited for).
    const [newest] = await ctx.records.$rows<{ id: number | null }>(`SELECT max(id) AS id FROM events`);
    s = settledOf.get(ctx) ?? { id: Math.max(0, (newest?.id ?? 0) - SETTLE_WALK), pending: null, recheck: null };
    settledOf.set(ctx, s);
  }
  const from = s.id;
  const [row] = await ctx.records.$rows<{ ids: string | null; xmin: string; xmax: string; writing: boolean }>(SETTLE_SQL, [from]);
  const ids = row!.ids ? row!.ids.split(",").map(Number) : [];
  const [xmin, xmax] = [BigInt(row!.xmin), BigInt(row!.xmax)];
  if (s.pending && xmin >= s.pending.xmax) {
    s.id = Math.max(s.id, s.pending.id);
    s.pending = null;
  }
  // A transaction that wrote sees its own events, which the others do not: what it sees settles nothing.
  if (!row!.writing && ids.length) {
    let contiguous = from;
    for (const id of ids) {
      if (id !== contiguous + 1) break;
      contiguous = id;
    }
    const newest = ids[ids.length - 1]!;
    s.id = Math.max(s.id, xmin === xmax ? newest : contiguous);
    if (newest > s.id && !s.pending) s.pending = { id: newest, xmax };
  }
  if (s.pending && !s.recheck) {
    // Nothing may be appended after the gap closes: the readers are told to look again.
    s.recheck = setTimeout(() => {
      s.recheck = null;
      tellReaders(ctx);
    }, SETTLE_RECHECK_MS);
    s.recheck.unref?.();
  }
  return s.id;
}

/** Events after `afterId` in id order, of one account and of some types when given; at most `limit` (<= 1000). */
export async function readEvents(
  ctx: AppContext,
  q: { afterId: number; userId?: string; types?: readonly EventType[]; limit: number },
): Promise<AppEvent[]> {
  await ready(ctx.db);
  const where = ["id > ?"];
  const args: (string | number)[] = [q.afterId];
  if (q.userId !== undefined) {
    where.push("user_id = ?");
    args.push(q.userId);
  }
  if (q.types) {
    if (!q.types.length) return [];
    where.push(`type IN (${q.types.map(() => "?").join(", ")})`);
    args.push(...q.types);
  }
  if (ctx.records.$engine === "postgres") {
    where.push("id <= ?");
    args.push(await settledEventId(ctx));
  }
  args.push(Math.max(1, Math.min(MAX_READ, Math.floor(q.limit))));
  const rows = await ctx.records.$rows<EventRow>(`SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY id LIMIT ?`, args);
  return rows.map(toEvent);
}

/** messageIdsSince's statement: each engine reads a payload's JSON array its own way (json_each, jsonb's functions). */
const MESSAGE_IDS_SINCE = {
  sqlite: (types: string) =>
    `SELECT j.value AS id FROM events e, json_each(e.payload, '$.messageIds') j
       WHERE e.created_at >= ? AND e.type IN (${types}) AND e.subject_kind = 'campaign'
     UNION
     SELECT subject_id FROM events WHERE created_at >= ? AND type IN (${types}) AND subject_kind = 'message'`,
  postgres: (types: string) =>
    `SELECT j.id FROM events e, jsonb_array_elements_text(CAST(e.payload AS jsonb) -> 'messageIds') AS j(id)
       WHERE e.created_at >= ? AND e.type IN (${types}) AND e.subject_kind = 'campaign'
     UNION
     SELECT subject_id FROM events WHERE created_at >= ? AND type IN (${types}) AND subject_kind = 'message'`,
};

/**
 * The messages named by the events of these types since `since` (a campaign's payload.messageIds, or the message
 * the event is about), through the log's time index: the recent tail, however long the log.
 */
export async function messageIdsSince(ctx: AppContext, since: number, types: readonly EventType[]): Promise<string[]> {
  if (!types.length) return [];
  await ready(ctx.db);
  const marks = types.map(() => "?").join(", ");
  const rows = await ctx.records.$rows<{ id: string }>(MESSAGE_IDS_SINCE[ctx.records.$engine](marks), [since, ...types, since, ...types]);
  return rows.map((r) => r.id);
}

/** An account's events in (afterId, upTo], counted up to `atMost` (enough to tell "more than a bound"). */
export async function countEvents(ctx: AppContext, q: { userId: string; afterId: number; upTo: number; atMost: number }): Promise<number> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE user_id = ? AND id > ? AND id <= ? LIMIT ?) AS bounded`,
    [q.userId, q.afterId, q.upTo, q.atMost],
  );
  return row!.n;
}

/**
 * The newest event id (0 for an empty log): where a new consumer starts when it wants only what comes next. On
 * SQLite the last id AUTOINCREMENT gave (pruned or not); on PostgreSQL the settled id (settledEventId), so an event
 * still in flight below it is not passed over.
 */
export async function lastEventId(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  if (ctx.records.$engine === "postgres") return settledEventId(ctx);
  const [row] = await ctx.records.$rows<{ seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`);
  return row?.seq ?? 0;
}

/** The last event id a consumer has handled (0 when it never ran). */
export async function readCursor(ctx: AppContext, consumer: string): Promise<number> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<{ last_id: number }>(`SELECT last_id FROM event_cursors WHERE consumer = ?`, [consumer]);
  return row?.last_id ?? 0;
}

/** Whether a consumer has a cursor at all (one at 0 exists once it started on an empty log). */
export async function hasCursor(ctx: AppContext, consumer: string): Promise<boolean> {
  await ready(ctx.db);
  return (await ctx.records.$rows(`SELECT 1 AS found FROM event_cursors WHERE consumer = ?`, [consumer])).length > 0;
}

/**
 * Records that a consumer has handled every event up to `lastId`. Call it in the transaction that records the
 * consumer's own work, so after a crash it resumes exactly after what it committed. A cursor never moves back (a
 * CASE rather than SQLite's scalar max(), the same text on both engines).
 */
export async function advanceCursor(ctx: AppContext, consumer: string, lastId: number): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(
    `INSERT INTO event_cursors (consumer, last_id, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (consumer) DO UPDATE SET last_id = CASE WHEN excluded.last_id > event_cursors.last_id THEN excluded.last_id ELSE event_cursors.last_id END,
       updated_at = excluded.updated_at`,
    [consumer, lastId, ctx.now()],
  );
}

/** Events one prune deletes in a statement; the daily job deletes one such batch per run. */
export const PRUNE_BATCH = 5_000;

/**
 * Deletes events created before `before` (ms), in batches so the engine's writes are not held up by one long
 * delete, at most `batches` of them. Answers how many it deleted.
 */
export async function pruneEvents(ctx: AppContext, before: number, batches = Infinity): Promise<number> {
  await ready(ctx.db);
  let total = 0;
  for (let i = 0; i < batches; i++) {
    const { changes: n } = await ctx.records.$run(
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
      [before, PRUNE_BATCH],
    );
    total += n;
    if (n < PRUNE_BATCH) break;
  }
  return total;
}

export const DEFAULT_RETENTION_DAYS = 30;
const DAY = 86_400_000;
const PRUNE = "events.prune";

/**
 * Prunes the log once a day from the jobs table, keeping `retentionDays()` days (read at each run, so a changed
 * setting applies at the next one), a batch per run until done. Queued once per installation; it puts itself
 * back on the schedule.
 */
export async function scheduleEventPruning(ctx: AppContext, retentionDays: () => Promise<number>) {
  registerJobHandler(ctx, PRUNE, async () => {
    // One batch per run: a month of a busy log is deleted over the jobs runner's next turns, each short, rather
    // than in one stretch that holds up every request.
    const deleted = await pruneEvents(ctx, ctx.now() - (await retentionDays()) * DAY, 1);
    return { result: { deleted }, runAgainAt: deleted === PRUNE_BATCH ? ctx.now() : ctx.now() + DAY };
  }, { maxAttempts: Infinity, firstDelayMs: 60_000 });
  await enqueueJob(ctx, { kind: PRUNE, key: PRUNE, runAt: ctx.now() });
}
