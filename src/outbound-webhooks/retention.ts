import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";

/** Deliveries one run of the pruning job deletes at most. */
export const DELIVERY_PRUNE_BATCH = 5_000;
const PRUNE = "webhooks.prune";
const DAY = 86_400_000;

/**
 * Deletes finished deliveries (succeeded or failed) created before `before` (ms), at most `limit`, an endpoint at a
 * time through its (endpoint, created) index, oldest first. Pending ones stay: their attempts are still due.
 * Answers how many it deleted.
 */
export async function pruneDeliveries(ctx: AppContext, before: number, limit = DELIVERY_PRUNE_BATCH): Promise<number> {
  await ready(ctx.db);
  const endpoints = await ctx.records.$rows<{ id: string }>(`SELECT id FROM webhook_endpoints ORDER BY id`);
  // SQLite deletes by rowid, the table's own order; PostgreSQL's table has no rowid, and its id is the key.
  const key = ctx.records.$engine === "sqlite" ? "rowid" : "id";
  const prune = `DELETE FROM webhook_deliveries WHERE ${key} IN (
       SELECT ${key} FROM webhook_deliveries WHERE endpoint_id = ? AND created_at < ? AND status <> 'pending' ORDER BY created_at LIMIT ?)`;
  let deleted = 0;
  for (const { id } of endpoints) {
    if (deleted >= limit) break;
    deleted += (await ctx.records.$run(prune, [id, before, limit - deleted])).changes;
  }
  return deleted;
}

/**
 * Keeps the delivery log (what each endpoint was sent, its answers) as long as the event log it was made from:
 * `retentionDays()` days, read at each run (the administrator's event retention). Without it, every delivery ever
 * made stayed: up to two rows a message per endpoint of a busy account. Pruned once a day from the jobs table, one
 * batch a run, due again at once while batches come back full, like the event log (events/events.ts).
 */
export async function scheduleDeliveryPruning(ctx: AppContext, retentionDays: () => Promise<number>) {
  registerJobHandler(ctx, PRUNE, async () => {
    const deleted = await pruneDeliveries(ctx, ctx.now() - (await retentionDays()) * DAY);
    return { result: { deleted }, runAgainAt: deleted === DELIVERY_PRUNE_BATCH ? ctx.now() : ctx.now() + DAY };
  }, { maxAttempts: Infinity, firstDelayMs: 60_000 });
  await enqueueJob(ctx, { kind: PRUNE, key: PRUNE, runAt: ctx.now() });
}
