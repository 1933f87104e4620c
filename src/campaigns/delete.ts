import { holdCheckpoints } from "../../db/checkpoints";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { detachFromCampaign } from "../messages/outbox";
import { nextTurn } from "../time/next-turn";
import { DELETABLE, deletableCampaigns, deleteCampaigns } from "./campaigns";

/**
 * Deleting finished campaigns (POST /api/campaigns/bulk-delete). Their messages stay: the account's totals, each
 * contact's thread and the history keep them. The foreign key's ON DELETE SET NULL used to detach them inside the
 * DELETE itself, every message at once, each firing the campaign counts' and the rollups' triggers: 200,000 messages
 * held the event loop 1.8 s, every account's requests and sending with it. Here they are detached DETACH_CHUNK per
 * transaction with a turn of the event loop between, the log checkpointed off the thread as the outbox writer does,
 * and the campaigns are deleted once nothing points at them.
 * Cut off (a stop, a crash), a campaign stays with some of its messages already detached (still in the account's
 * totals, no longer in its own counts); deleting it again finishes the work.
 */
export const DETACH_CHUNK = 1_000;
const STOPPING = "The server is stopping: delete these campaigns again once it is back";
/** Messages detached between two checkpoints the deletion waits for (see CHECKPOINT_AFTER_ROWS in outbox-writer.ts). */
const CHECKPOINT_AFTER_ROWS = 10_000;

/** Deletes those of `ids` that are the owner's and finished (or drafts); answers how many were deleted. */
export async function deleteFinishedCampaigns(ctx: AppContext, userId: string, ids: string[]): Promise<number> {
  const deletable = deletableCampaigns(ctx, userId, ids, DELETABLE.finished);
  if (!deletable.length) return 0;
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  ctx.onStop.push(stop);
  const checkpoints = holdCheckpoints(ctx.db.$client, ctx.log);
  try {
    let sinceCheckpoint = 0;
    // A draft has no messages; one started while this runs is left alone (its outbox is being written).
    for (const { id } of deletable.filter((c) => c.status !== "draft")) {
      for (;;) {
        const detached = detachFromCampaign(ctx, id, DETACH_CHUNK);
        sinceCheckpoint += detached;
        if (detached < DETACH_CHUNK) break;
        if (sinceCheckpoint >= CHECKPOINT_AFTER_ROWS) {
          await checkpoints.checkpoint();
          sinceCheckpoint = 0;
        } else await nextTurn();
        if (stopped) throw new HttpError(503, STOPPING);
      }
    }
    // The connection's own checkpoint, back after the last run, would otherwise fold the rest on this thread.
    if (sinceCheckpoint) await checkpoints.checkpoint();
    if (stopped) throw new HttpError(503, STOPPING);
    // The status is checked again: nothing finished starts again, but a draft may have been started meanwhile.
    return deleteCampaigns(
      ctx,
      userId,
      deletable.map((c) => c.id),
      false,
    );
  } finally {
    const at = stopped ? -1 : ctx.onStop.indexOf(stop);
    if (at >= 0) ctx.onStop.splice(at, 1);
    checkpoints.release();
  }
}
