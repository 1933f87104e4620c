import { holdCheckpoints, type Checkpoints } from "../../db/checkpoints";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { nextTurn } from "../time/next-turn";

/**
 * Messages outlive what they were sent through: deleting a finished campaign, a sender number or a provider account
 * keeps its messages (the account's totals, each contact's thread, the history) and detaches them. The foreign keys'
 * ON DELETE SET NULL did that inside the DELETE itself, every message at once, each firing the campaign counts' and
 * the rollups' triggers: 200,000 messages held the event loop 1.8 s, every account's requests and sending with it.
 * Here they are detached DETACH_CHUNK per transaction with a turn of the event loop between, the log checkpointed off
 * the thread as the outbox writer does; the caller deletes the row once nothing points at it (the foreign key then
 * detaches only what arrived meanwhile). Cut off by a stop, it throws a 503 and what it did stays done: the row is
 * still there, some of its messages detached, and deleting it again finishes the work.
 */
export const DETACH_CHUNK = 1_000;
/** Messages detached between two checkpoints waited for (see CHECKPOINT_AFTER_ROWS in campaigns/outbox-writer.ts). */
const CHECKPOINT_AFTER_ROWS = 10_000;

/**
 * What a message points at that may be deleted before it, each with its detaching statement, found through an index
 * (messages_campaign_status_idx, messages_outbox_idx, messages_provider_idx). A provider account's numbers are deleted
 * with it (their foreign key cascades): each of their messages loses both the number and the account; then what is
 * left pointing at the account (messages of a number deleted earlier) loses the account. A chunk's rows are named by
 * SQLite's rowid, the table's own tree; PostgreSQL has none, and names them by their primary key.
 */
export type MessageLink = "campaign" | "number" | "provider's number" | "provider";
const DETACH: Record<MessageLink, (key: "rowid" | "id") => string> = {
  campaign: (k) => `UPDATE messages SET campaign_id = NULL WHERE ${k} IN (SELECT ${k} FROM messages WHERE campaign_id = ? LIMIT ?)`,
  number: (k) => `UPDATE messages SET phone_number_id = NULL WHERE ${k} IN (SELECT ${k} FROM messages WHERE phone_number_id = ? LIMIT ?)`,
  "provider's number": (k) =>
    `UPDATE messages SET phone_number_id = NULL, provider_id = NULL WHERE ${k} IN (SELECT ${k} FROM messages WHERE phone_number_id = ? LIMIT ?)`,
  provider: (k) => `UPDATE messages SET provider_id = NULL WHERE ${k} IN (SELECT ${k} FROM messages WHERE provider_id = ? LIMIT ?)`,
};

/** Up to `limit` of the messages pointing at `id` through `link` no longer do; answers how many. */
async function detachSome(ctx: AppContext, link: MessageLink, id: string, limit: number): Promise<number> {
  await ready(ctx.db);
  const statement = DETACH[link](ctx.records.$engine === "sqlite" ? "rowid" : "id");
  return (await ctx.records.$run(statement, [id, limit])).changes;
}

/** PostgreSQL checkpoints its own log, on its own server: nothing here holds an event loop for it. */
const NO_CHECKPOINTS: Checkpoints = { checkpoint: () => Promise.resolve(), release: () => {} };

/** Detaches every message pointing at one of `ids` through `link`, a chunk per transaction (see above). */
export async function detachMessages(ctx: AppContext, link: MessageLink, ids: string[], what: string): Promise<void> {
  if (!ids.length) return;
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  ctx.onStop.push(stop);
  const checkpoints = ctx.records.$engine === "sqlite" ? holdCheckpoints(ctx.db.$client, ctx.log) : NO_CHECKPOINTS;
  const stopping = () => new HttpError(503, `The server is stopping: delete ${what} again once it is back`);
  try {
    let sinceCheckpoint = 0;
    for (const id of ids) {
      for (;;) {
        const detached = await detachSome(ctx, link, id, DETACH_CHUNK);
        sinceCheckpoint += detached;
        if (detached < DETACH_CHUNK) break;
        if (sinceCheckpoint >= CHECKPOINT_AFTER_ROWS) {
          await checkpoints.checkpoint();
          sinceCheckpoint = 0;
        } else await nextTurn();
        if (stopped) throw stopping();
      }
    }
    // The connection's own checkpoint, back after the last run, would otherwise fold the rest on this thread.
    if (sinceCheckpoint) await checkpoints.checkpoint();
    if (stopped) throw stopping();
  } finally {
    // Not while the server runs its stop hooks: taken out of the list they walk, it would make them skip the next.
    const at = stopped ? -1 : ctx.onStop.indexOf(stop);
    if (at >= 0) ctx.onStop.splice(at, 1);
    checkpoints.release();
  }
}
