import type { AppContext } from "../context";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";
import { MAX_INBOUND_ITEMS as MAX_ITEMS, MAX_INBOUND_MEDIA_BYTES } from "../../shared/media/limits";
import { completePendingMedia, markMediaFailure, pendingMediaOf, safeFilename, savePendingMedia } from "../media/media";
import { sniffMediaType, UNKNOWN_TYPE } from "../../shared/media/sniff";
import { findProviderById } from "../providers/accounts";
import { adapterFor } from "../providers/registry";

/**
 * An inbound MMS's pictures and files are copied into our storage at once, every item: the provider's URLs may
 * expire or need its credentials, and the screens must never load a provider's URL. Each item's row is written
 * `pending` with the message (the thread shows it as being copied); a job copies them straight away and, when a
 * copy fails, again with back-off from the jobs table, the thread showing the latest failure meanwhile.
 */

const KIND = "inbound_media";
export { MAX_INBOUND_MEDIA_BYTES };
const FETCH_TIMEOUT_MS = 30_000;
const ATTEMPTS = 8;

/** In the inbound message's transaction: its items as pending rows, and the job that copies them (due now). */
export async function queueInboundMedia(ctx: AppContext, m: { userId: string; providerId: string; messageId: string; urls: string[] }): Promise<void> {
  for (const [position, sourceUrl] of m.urls.slice(0, MAX_ITEMS).entries()) {
    await savePendingMedia(ctx, m.userId, { messageId: m.messageId, position, sourceUrl, error: "Being copied from the provider" });
  }
  await enqueueJob(ctx, { kind: KIND, key: `${KIND}:${m.messageId}`, runAt: ctx.now(), userId: m.userId, refId: m.messageId, payload: { providerId: m.providerId } });
}

/** Reads a response's body, refusing one over the cap (declared or counted) without reading further. */
async function boundedBytes(res: Response, cap: number): Promise<Uint8Array> {
  if (Number(res.headers.get("content-length") ?? 0) > cap) throw new Error(`larger than the ${cap / (1024 * 1024)} MB an item may be`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > cap) throw new Error(`larger than the ${cap / (1024 * 1024)} MB an item may be`);
  return bytes;
}

async function copyItems(ctx: AppContext, messageId: string, providerId: string, last: boolean) {
  const account = await findProviderById(ctx, providerId);
  const items = await pendingMediaOf(ctx, messageId);
  if (!account) {
    for (const item of items) await markMediaFailure(ctx, item.id, "The provider account was deleted before this item could be copied", true);
    return;
  }
  const adapter = await adapterFor(ctx, account);
  const failures: string[] = [];
  for (const item of items) {
    try {
      const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
      const res = adapter.fetchMedia ? await adapter.fetchMedia(item.source_url!, signal) : await fetch(item.source_url!, { signal });
      if (!res.ok) throw new Error(`the provider answered HTTP ${res.status}`);
      const bytes = await boundedBytes(res, MAX_INBOUND_MEDIA_BYTES);
      if (!bytes.length) throw new Error("the provider sent an empty file");
      // The type is read from the bytes, never taken from the provider's header: what is none of ours is a download.
      const type = sniffMediaType(bytes);
      await completePendingMedia(ctx, item, {
        bytes,
        contentType: type?.contentType ?? UNKNOWN_TYPE,
        filename: safeFilename(`received-${item.position + 1}`, type?.extension ?? "bin"),
      });
    } catch (err) {
      const reason = `Could not copy it from the provider yet: ${(err as Error).message}`;
      await markMediaFailure(ctx, item.id, last ? `Could not copy it from the provider: ${(err as Error).message}` : reason, last);
      failures.push(reason);
    }
  }
  // Thrown so the jobs table retries the items left, with its back-off.
  if (failures.length && !last) throw new Error(failures.join("; "));
}

export function startInboundMediaCopies(ctx: AppContext) {
  registerJobHandler(ctx, KIND, (_ctx, job) => copyItems(ctx, job.refId!, job.payload.providerId as string, job.attempts >= ATTEMPTS), {
    firstDelayMs: 30_000,
    maxDelayMs: 30 * 60_000,
    maxAttempts: ATTEMPTS,
    leaseMs: 5 * 60_000,
  });
}
