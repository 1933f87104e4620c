import type { AppContext } from "../context";
import { detachMessages } from "../messages/detach";
import { DELETABLE, deletableCampaigns, deleteCampaigns } from "./campaigns";

/**
 * Deleting finished campaigns (POST /api/campaigns/bulk-delete): their messages are detached a chunk at a time
 * first (src/messages/detach.ts), then the campaigns go. A draft has no messages; one started while this runs is
 * left alone (its outbox is being written) and, no longer a draft, not deleted.
 */
export async function deleteFinishedCampaigns(ctx: AppContext, userId: string, ids: string[]): Promise<number> {
  const deletable = await deletableCampaigns(ctx, userId, ids, DELETABLE.finished);
  if (!deletable.length) return 0;
  const sent = deletable.filter((c) => c.status !== "draft").map((c) => c.id);
  await detachMessages(ctx, "campaign", sent, "these campaigns");
  // The status is checked again: nothing finished starts again, but a draft may have been started meanwhile.
  return deleteCampaigns(
    ctx,
    userId,
    deletable.map((c) => c.id),
    false,
  );
}
