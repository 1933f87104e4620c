import { eq, isNotNull, sql } from "drizzle-orm";
import { campaigns, type OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { PARKED } from "../messages/outbox";
import { findUserById } from "../users/queries";
import { audienceContactsInWindow, audienceCountUpTo, lastContactRowid } from "./audiences";
import { contactRecipients, resolveTyped, writeOutbox } from "./outbox";

/**
 * A large campaign's outbox, written in chunks between which the server answers other requests (writing 100,000
 * rows in one go held the event loop for 1.8 s). The campaign is `sending` from the first chunk: the engine paces
 * what is written by each number's rate, as it would the whole. Until the last chunk, `outbox_writing` holds where
 * the next one starts, and the settle step leaves the campaign running (its sent rows are not its whole audience).
 * Each chunk is one transaction (its rows, its skipped counts and the cursor), so after a crash the writing resumes
 * at start-up where it stopped; the outbox's unique (campaign, phone) also keeps a phone from being queued twice
 * across chunks. A chunk reads the campaign first: paused, its rows are written parked (the resume releases them);
 * cancelled (by the user, or the account disabled) or deleted, the writing stops and nothing more is queued.
 */

/** Audiences up to this size are written in one transaction with the start, as before; larger ones in chunks. */
export const CHUNKED_ABOVE = 1_000;

/** How many recipients a campaign has, counted no further than `cap`: typed ones as typed, else its audience. */
export function recipientCountUpTo(ctx: AppContext, campaign: typeof campaigns.$inferSelect, cap: number): number {
  if (campaign.audience.kind === "manual") return Math.min(campaign.recipients.length, cap);
  return audienceCountUpTo(ctx, campaign.userId, campaign.audience, cap);
}

/** The state a chunked write starts from: the first recipient, or the audience from the first contact. */
export const firstChunk = (dueAt: number, sender: OutboxWriting["sender"]): OutboxWriting => ({ cursor: 0, dueAt, sender });

/** Recipients (typed ones) or contact rowids (an audience) a chunk covers; adapted to keep each chunk short. */
const WINDOW = { initial: 250, min: 25, max: 5_000 };
/**
 * A chunk should hold the event loop about this long (a request arriving meanwhile waits for the rest of it); the
 * window doubles below half of it and halves above twice. Short, because on a busy machine a chunk's wall time is
 * several times its CPU time; each costs a few rows' worth of fixed work, so throughput gives little for it.
 */
const CHUNK_TARGET_MS = 5;

/**
 * Writes the next chunk of a campaign's outbox in one transaction. Answers whether the writing is over (the whole
 * audience written, or the campaign stopped or gone) and how many rows it queued.
 */
export function writeNextChunk(ctx: AppContext, campaignId: string, window: number): { done: boolean; queued: number } {
  const db = ctx.db.$client;
  const result = db.transaction(() => {
    const c = ctx.db.select().from(campaigns).where(eq(campaigns.id, campaignId)).get();
    if (!c?.outboxWriting) return { done: true, queued: 0 };
    const user = findUserById(ctx, c.userId);
    if (!user || (c.status !== "sending" && c.status !== "paused")) {
      ctx.db.update(campaigns).set({ outboxWriting: null }).where(eq(campaigns.id, c.id)).run();
      return { done: true, queued: 0 };
    }
    const w = c.outboxWriting;
    const skipped = { optedOut: 0, invalid: 0, duplicate: 0 };
    const seen = new Set<string>();
    let next: number;
    let done: boolean;
    let recipients;
    if (c.audience.kind === "manual") {
      next = Math.min(w.cursor + window, c.recipients.length);
      recipients = resolveTyped(ctx, user, c.recipients.slice(w.cursor, next), seen, skipped);
      done = next >= c.recipients.length;
    } else {
      const last = lastContactRowid(ctx);
      next = Math.min(w.cursor + window, last);
      recipients = contactRecipients(audienceContactsInWindow(ctx, c.userId, c.audience, w.cursor, next), seen, skipped);
      done = next >= last;
    }
    const queued = writeOutbox(ctx, user, c, recipients, w.sender, w.dueAt, c.status === "paused" ? PARKED : w.dueAt);
    // A phone an earlier chunk queued is a repeat too: the outbox's unique (campaign, phone) turned it away.
    skipped.duplicate += recipients.length - queued;
    ctx.db
      .update(campaigns)
      .set({
        skippedOptedOut: sql`${campaigns.skippedOptedOut} + ${skipped.optedOut}`,
        skippedInvalid: sql`${campaigns.skippedInvalid} + ${skipped.invalid}`,
        skippedDuplicate: sql`${campaigns.skippedDuplicate} + ${skipped.duplicate}`,
        outboxWriting: done ? null : { ...w, cursor: next },
      })
      .where(eq(campaigns.id, c.id))
      .run();
    return { done, queued };
  })();
  // Its messages may all have gone out while it was still being written; now it can finish.
  if (result.done) ctx.campaignOutbox.settle([campaignId]);
  return result;
}

const running = new WeakMap<AppContext, Set<string>>();

/** How often the checkpoint thread folds the write-ahead log into the database while chunks are written. */
const CHECKPOINT_EVERY_MS = 250;

/**
 * While chunks are written, the write-ahead log is checkpointed by a worker thread on its own connection instead of
 * by the connection that commits them: a checkpoint ends in an fsync of the database file, which on a busy disk
 * held the event loop for over a second at a time (scripts/bench/results.ts). The connection's own automatic
 * checkpoint is turned off meanwhile and restored when the last writer ends (a crash loses nothing: it is a
 * setting of the connection, and the log is checkpointed at the next start). Answers the release; without a
 * database file, or where no worker can start, the connection keeps checkpointing itself.
 */
function checkpointsOffThread(ctx: AppContext): () => void {
  const db = ctx.db.$client;
  if (!db.filename || db.filename === ":memory:") return () => {};
  const autoWas = (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
  let worker: Worker;
  try {
    // Told to stop, it closes its connection between checkpoints and ends itself: a thread killed mid-checkpoint
    // would leave its locks on the database held for the life of the process ("database is locked").
    const code = `import { Database } from "bun:sqlite";
      const db = new Database(${JSON.stringify(db.filename)});
      db.exec("PRAGMA busy_timeout = 5000");
      const timer = setInterval(() => { try { db.query("PRAGMA wal_checkpoint(PASSIVE)").get(); } catch {} }, ${CHECKPOINT_EVERY_MS});
      self.onmessage = () => { clearInterval(timer); db.close(); self.close(); };`;
    worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  } catch {
    return () => {};
  }
  db.exec("PRAGMA wal_autocheckpoint = 0");
  return () => {
    worker.postMessage("stop");
    db.exec(`PRAGMA wal_autocheckpoint = ${autoWas}`);
  };
}

const checkpointing = new WeakMap<AppContext, { writers: number; release: () => void }>();

function holdCheckpoints(ctx: AppContext): () => void {
  const held = checkpointing.get(ctx) ?? { writers: 0, release: () => {} };
  if (held.writers++ === 0) held.release = checkpointsOffThread(ctx);
  checkpointing.set(ctx, held);
  return () => {
    if (--held.writers === 0) held.release();
  };
}

/**
 * Writes a campaign's outbox chunk by chunk until it is complete, yielding to the event loop after each chunk
 * (so requests are answered between them) and sizing chunks to about CHUNK_TARGET_MS. One writer per campaign per
 * process: a second call while one runs does nothing. Stops with the server.
 */
export async function writeInChunks(ctx: AppContext, campaignId: string): Promise<void> {
  const mine = running.get(ctx) ?? new Set<string>();
  running.set(ctx, mine);
  if (mine.has(campaignId)) return;
  mine.add(campaignId);
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  ctx.onStop.push(stop);
  const releaseCheckpoints = holdCheckpoints(ctx);
  try {
    let window = WINDOW.initial;
    for (;;) {
      const started = performance.now();
      const { done } = writeNextChunk(ctx, campaignId, window);
      if (done) return;
      const took = performance.now() - started;
      if (took < CHUNK_TARGET_MS / 2) window = Math.min(WINDOW.max, window * 2);
      else if (took > CHUNK_TARGET_MS * 2) window = Math.max(WINDOW.min, Math.floor(window / 2));
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped) return;
    }
  } catch (err) {
    ctx.log(`campaigns: writing the outbox of campaign ${campaignId} stopped: ${(err as Error).message}; it resumes at the next start`);
  } finally {
    mine.delete(campaignId);
    const at = ctx.onStop.indexOf(stop);
    if (at >= 0) ctx.onStop.splice(at, 1);
    releaseCheckpoints();
  }
}

/** At start-up: every campaign whose outbox a stop or crash left half-written carries on from its cursor. */
export function resumeOutboxWriting(ctx: AppContext): number {
  const ids = ctx.db.select({ id: campaigns.id }).from(campaigns).where(isNotNull(campaigns.outboxWriting)).all();
  for (const { id } of ids) void writeInChunks(ctx, id);
  return ids.length;
}
