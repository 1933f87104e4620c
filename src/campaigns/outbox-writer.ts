import type { OutboxWriting } from "../../db/schema";
import type { AppContext } from "../context";
import { PARKED } from "../messages/due";
import { findUserById } from "../users/queries";
import { lastContactRowid } from "../contacts/audience";
import { audienceContactsInWindow, audienceCountUpTo } from "./audiences";
import { contactRecipients, resolveTyped, writeOutbox } from "./outbox";
import { afterSplit, keepForSplit, writeAbChunk } from "./ab-split";
import { addSkipped, campaignsWriting, checkpointsOf, findStartRow, setWriting, typedCountOf, typedRecipientsOf, type StartRow } from "./records";

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

export type { StartRow } from "./records";

/** How many recipients a campaign has, counted no further than `cap`: typed ones as typed, else its audience. */
export async function recipientCountUpTo(ctx: AppContext, campaign: StartRow, cap: number): Promise<number> {
  if (campaign.audience.kind === "manual") return Math.min(campaign.recipients?.length ?? (await typedCountOf(ctx, campaign.id)), cap);
  return audienceCountUpTo(ctx, campaign.userId, campaign.audience, cap);
}


/**
 * The state a chunked write starts from: the first recipient, or the audience from the first contact (an A/B
 * test's, to its split).
 */
export const firstChunk = (dueAt: number, sender: OutboxWriting["sender"], abTest: boolean): OutboxWriting =>
  abTest ? { cursor: 0, dueAt, sender, ab: { step: "split" } } : { cursor: 0, dueAt, sender };

/**
 * Recipients (typed ones) or contact rowids (an audience) a chunk covers; adapted to keep each chunk short. The first
 * chunk of a writing (and of an A/B test's next step) is small: it runs in the turn after the call that started it
 * (the A/B winner's pick, whose report is 10-30 ms), and 250 rendered, shortened and queued rows were 60 ms of the
 * loop's own work on top of it (scripts/bench/ab-start.ts, winner to 80,000); cheap rows double it back in a few.
 */
const WINDOW = { initial: 50, min: 25, max: 5_000 };
/**
 * A chunk should hold the event loop about this long (a request arriving meanwhile waits for the rest of it); the
 * window doubles below half of it and halves above twice. Short, because on a busy machine a chunk's wall time is
 * several times its CPU time; each costs a few rows' worth of fixed work, so throughput gives little for it.
 */
const CHUNK_TARGET_MS = 5;

/**
 * Writes the next chunk of a campaign's outbox in one transaction (ctx.withTransaction, whose callback awaits only
 * the campaign's row; the outbox's records then run synchronously, with nothing awaited). Answers whether the
 * writing is over (the whole audience written, or the campaign stopped or gone) and how many rows it queued.
 */
export async function writeNextChunk(ctx: AppContext, campaignId: string, window: number, typed: Typed): Promise<{ done: boolean; queued: number; newStep?: boolean }> {
  const result = await ctx.withTransaction(async (): Promise<{ done: boolean; queued: number; newStep?: boolean }> => {
    const row = await findStartRow(ctx, null, campaignId);
    if (!row?.outboxWriting) return { done: true, queued: 0 };
    const w = row.outboxWriting;
    const c = { ...row, recipients: row.audience.kind === "manual" ? await typed.list(campaignId) : [] };
    const user = await findUserById(ctx, c.userId);
    if (!user || (c.status !== "sending" && c.status !== "paused")) {
      await setWriting(ctx, c.id, null);
      return { done: true, queued: 0 };
    }
    const skipped = { optedOut: 0, invalid: 0, duplicate: 0 };
    const record = (after: OutboxWriting | null) => addSkipped(ctx, c.id, skipped, after);
    // An A/B test's writing after its split: from the audience kept in campaign_ab_rest (ab-split.ts).
    if (w.ab && w.ab.step !== "split") {
      const { queued, duplicate, next } = await writeAbChunk(ctx, user, c, w, window, skipped);
      skipped.duplicate += duplicate;
      await record(next);
      return { done: next === null, queued };
    }
    const seen = new Set<string>();
    let next: number;
    let done: boolean;
    let recipients;
    if (c.audience.kind === "manual") {
      next = Math.min(w.cursor + window, c.recipients.length);
      recipients = await resolveTyped(ctx, user, c.recipients.slice(w.cursor, next), seen, skipped);
      done = next >= c.recipients.length;
    } else {
      const last = await lastContactRowid(ctx);
      next = Math.min(w.cursor + window, last);
      recipients = contactRecipients(await audienceContactsInWindow(ctx, c.userId, c.audience, w.cursor, next), seen, skipped);
      done = next >= last;
    }
    if (w.ab) {
      // An A/B test's split step: the chunk kept under its split order; a phone an earlier chunk kept is a repeat.
      skipped.duplicate += recipients.length - (await keepForSplit(ctx, c.id, recipients));
      await record(done ? await afterSplit(ctx, c, w) : { ...w, cursor: next });
      // The test's rows cost several times a kept one's: the next chunk is sized afresh.
      return done ? { done: false, queued: 0, newStep: true } : { done: false, queued: 0 };
    }
    const queued = await writeOutbox(ctx, user, c, recipients, w.sender, w.dueAt, c.status === "paused" ? PARKED : w.dueAt);
    // A phone an earlier chunk queued is a repeat too: the outbox's unique (campaign, phone) turned it away.
    skipped.duplicate += recipients.length - queued;
    await record(done ? null : { ...w, cursor: next });
    return { done, queued };
  });
  // Its messages may all have gone out while it was still being written; now it can finish.
  if (result.done) await ctx.campaignOutbox.settle([campaignId]);
  return result;
}

/**
 * A campaign's typed recipients, read once per writer: a sending campaign's list no longer changes, and read with
 * the row for every chunk, 100,000 of them (1.7 MB of JSON) were parsed again for each chunk of a few hundred.
 */
type Typed = { list(campaignId: string): string[] | Promise<string[]> };
const typedOnce = (ctx: AppContext): Typed => {
  let list: Promise<string[]> | null = null;
  return {
    list: (id) => (list ??= typedRecipientsOf(ctx, id)),
  };
};

/** The campaigns whose writer runs, each with whether it was asked to write again meanwhile. */
const running = new WeakMap<AppContext, Map<string, { again: boolean }>>();

/**
 * How many rows are written between two checkpoints the writer waits for (db/checkpoints.ts): without them the
 * write-ahead log never started again from its beginning and grew by about 6 KB a row (1.8 GB at 300,000); with
 * them it stays at what these rows write, about 12 MB, for 10 to 15% of the writing's time. A chunk counts as at
 * least WINDOW.min rows: one that queues none (its contacts all opted out, or another account's) still commits.
 */
const CHECKPOINT_AFTER_ROWS = 2_000;

/**
 * Writes a campaign's outbox chunk by chunk until it is complete, yielding to the event loop after each chunk
 * (so requests are answered between them) and sizing chunks to about CHUNK_TARGET_MS; after every
 * CHECKPOINT_AFTER_ROWS rows and at the end, it waits for a checkpoint. One writer per campaign per process: a second
 * call while one runs has it read the campaign's writing again once it is over. Stops with the server.
 */
export async function writeInChunks(ctx: AppContext, campaignId: string): Promise<void> {
  const mine = running.get(ctx) ?? new Map<string, { again: boolean }>();
  running.set(ctx, mine);
  const other = mine.get(campaignId);
  if (other) {
    // A new writing set while the last one ends (an A/B winner picked as its test's last chunk is checkpointed):
    // that writer goes on with it rather than leave it to the next start.
    other.again = true;
    return;
  }
  const me = { again: false };
  mine.set(campaignId, me);
  let stopped = false;
  let over!: () => void;
  const ended = new Promise<void>((resolve) => (over = resolve));
  // The server closes the connection after its stop hooks: this one answers once the writer has let go of it (a
  // checkpoint it waits for, the connection's setting restored).
  const stop = () => {
    stopped = true;
    return ended;
  };
  ctx.onStop.push(stop);
  const checkpoints = await checkpointsOf(ctx);
  try {
    let window = WINDOW.initial;
    let sinceCheckpoint = 0;
    const typed = typedOnce(ctx);
    for (;;) {
      const started = performance.now();
      const { done, queued, newStep } = await writeNextChunk(ctx, campaignId, window, typed);
      // The connection's own checkpoint, back after the last writer, would otherwise fold the rest on this thread.
      if (done) {
        await checkpoints.checkpoint();
        if (!me.again || stopped) return;
        me.again = false;
        window = WINDOW.initial;
        continue;
      }
      const took = performance.now() - started;
      // A new step (an A/B test's split done, its test next) starts again from the first window: a window grown on
      // cheap rows held the loop 90 ms on the first chunk of dearer ones (scripts/bench/ab-start.ts, 10,000).
      if (newStep) window = WINDOW.initial;
      else if (took < CHUNK_TARGET_MS / 2) window = Math.min(WINDOW.max, window * 2);
      else if (took > CHUNK_TARGET_MS * 2) window = Math.max(WINDOW.min, Math.floor(window / 2));
      sinceCheckpoint += Math.max(queued, WINDOW.min);
      if (sinceCheckpoint < CHECKPOINT_AFTER_ROWS) await new Promise((resolve) => setImmediate(resolve));
      else {
        await checkpoints.checkpoint();
        sinceCheckpoint = 0;
      }
      if (stopped) return;
    }
  } catch (err) {
    ctx.log(`campaigns: writing the outbox of campaign ${campaignId} stopped: ${(err as Error).message}; it resumes at the next start`);
  } finally {
    mine.delete(campaignId);
    // Not while the server runs its stop hooks: taken out of the list they walk, it would make them skip the next.
    const at = stopped ? -1 : ctx.onStop.indexOf(stop);
    if (at >= 0) ctx.onStop.splice(at, 1);
    checkpoints.release();
    over();
  }
}

/** At start-up: every campaign whose outbox a stop or crash left half-written carries on from its cursor. */
export async function resumeOutboxWriting(ctx: AppContext): Promise<number> {
  const ids = await campaignsWriting(ctx);
  for (const id of ids) void writeInChunks(ctx, id);
  return ids.length;
}
