import { createHmac, timingSafeEqual } from "node:crypto";
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import type { MediaView } from "../../shared/media/types";
import type { AppContext } from "../context";
import { HttpError, badRequest } from "../http/errors";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";
import { deriveKey } from "../secrets/secret-key";
import { MAX_MEDIA_PER_MESSAGE } from "../../shared/media/limits";
import { UNKNOWN_TYPE } from "../../shared/media/sniff";

/**
 * The media record: one row per picture or file of an MMS (table `media`, migration 0061), its bytes in the data
 * folder under media/<user>/<id>. Uploads wait unattached until a message takes them (`attachMedia`, in the
 * outbox writer's transaction); received items are written with their message. Files are served only with the
 * headers of `mediaHeaders` (never as a page), to the signed-in account and, by signed expiring URLs, to providers.
 */

export type MediaStatus = "stored" | "pending" | "failed" | "orphaned";

export type MediaRow = {
  id: string;
  user_id: string;
  message_id: string | null;
  position: number;
  content_type: string;
  filename: string;
  size: number;
  status: MediaStatus;
  source_url: string | null;
  error: string | null;
  created_at: number;
  held_by: string | null;
};

/** What holds shared attachments: a campaign, a template or a drip (its steps' pictures), by id. */
export type MediaHolder = `${"campaign" | "template" | "drip"}:${string}`;

export type { MediaView };

export { MAX_MEDIA_PER_MESSAGE };
/** A signed URL handed to a provider is good for a day: it fetches at once, and may retry for some hours. */
export const SIGNED_URL_TTL_MS = 24 * 3600_000;

const mediaDir = (ctx: AppContext, userId: string) => join(ctx.config.dataDir, "media", userId);
export const mediaPath = (ctx: AppContext, row: Pick<MediaRow, "user_id" | "id">) => join(mediaDir(ctx, row.user_id), row.id);

/** A name safe in a header and a file system: letters, digits, dot, dash and underscore, with its type's extension. */
export function safeFilename(name: string | null | undefined, extension: string | null): string {
  const base = (name ?? "").replace(/\.[A-Za-z0-9]{1,5}$/, "").replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 80) || "attachment";
  return extension ? `${base}.${extension}` : base;
}

/** Writes the bytes (to a temporary name, then renamed, so a reader never sees half a file) and the row. */
export async function saveMedia(
  ctx: AppContext,
  userId: string,
  item: { bytes: Uint8Array; contentType: string; filename: string; messageId?: string | null; position?: number; sourceUrl?: string | null },
): Promise<MediaRow> {
  const id = Bun.randomUUIDv7();
  const dir = mediaDir(ctx, userId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, id);
  writeFileSync(`${path}.part`, item.bytes, { mode: 0o600 });
  renameSync(`${path}.part`, path);
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<MediaRow>(
    `INSERT INTO media (id, user_id, message_id, position, content_type, filename, size, status, source_url, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'stored', ?, ?) RETURNING *`,
    [id, userId, item.messageId ?? null, item.position ?? 0, item.contentType, item.filename, item.bytes.length, item.sourceUrl ?? null, ctx.now()],
  );
  return row!;
}

/**
 * A received item not copied yet: its row says so (the thread shows it) until a retry stores the file. Written in the
 * inbound flow's transaction (inbound/media-copy.ts queueInboundMedia).
 */
export async function savePendingMedia(ctx: AppContext, userId: string, item: { messageId: string; position: number; sourceUrl: string; error: string }): Promise<MediaRow> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<MediaRow>(
    `INSERT INTO media (id, user_id, message_id, position, content_type, filename, size, status, source_url, error, created_at)
     VALUES (?, ?, ?, ?, ?, 'attachment', 0, 'pending', ?, ?, ?) RETURNING *`,
    [Bun.randomUUIDv7(), userId, item.messageId, item.position, UNKNOWN_TYPE, item.sourceUrl, item.error, ctx.now()],
  );
  return row!;
}

/** A pending item copied at last: its file written and its row completed. */
export async function completePendingMedia(ctx: AppContext, row: MediaRow, item: { bytes: Uint8Array; contentType: string; filename: string }): Promise<void> {
  const dir = mediaDir(ctx, row.user_id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, row.id);
  writeFileSync(`${path}.part`, item.bytes, { mode: 0o600 });
  renameSync(`${path}.part`, path);
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE media SET status = 'stored', content_type = ?, filename = ?, size = ?, error = NULL WHERE id = ? AND status = 'pending'`, [
    item.contentType,
    item.filename,
    item.bytes.length,
    row.id,
  ]);
}

/** A pending item's latest failure (or, `final`, the last: it stays failed). */
export async function markMediaFailure(ctx: AppContext, id: string, error: string, final: boolean): Promise<void> {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE media SET status = ?, error = ? WHERE id = ? AND status = 'pending'`, [final ? "failed" : "pending", error, id]);
}

/** The item of that id, whoever's it is, or null. */
export async function findMedia(ctx: AppContext, id: string): Promise<MediaRow | null> {
  await ready(ctx.db);
  return mediaRow(ctx, id);
}

/** findMedia in the caller's turn on the connection (the checks below). */
const mediaRow = async (ctx: AppContext, id: string) => (await ctx.records.$rows<MediaRow>(`SELECT * FROM media WHERE id = ?`, [id]))[0] ?? null;

/** An item of the account's, stored or not; 404 otherwise (another account's is not told apart from none). */
export async function getMedia(ctx: AppContext, userId: string, id: string): Promise<MediaRow> {
  await ready(ctx.db);
  return ownMedia(ctx, userId, id);
}

async function ownMedia(ctx: AppContext, userId: string, id: string): Promise<MediaRow> {
  const row = await mediaRow(ctx, id);
  if (!row || row.user_id !== userId || row.status === "orphaned") throw new HttpError(404, "Media not found");
  return row;
}

export function mediaView(row: MediaRow): MediaView {
  return {
    id: row.id,
    contentType: row.content_type,
    filename: row.filename,
    size: row.size,
    status: row.status === "orphaned" ? "failed" : row.status,
    error: row.error,
    url: `/api/media/${row.id}`,
  };
}

/**
 * The items of each message given, in their order (messages with none are absent): its own (a chat upload, a
 * received item) and the shared ones it is linked to (a campaign's, a template's, a drip's).
 */
export async function mediaOfMessages(ctx: AppContext, messageIds: string[]): Promise<Map<string, MediaRow[]>> {
  const out = new Map<string, MediaRow[]>();
  if (!messageIds.length) return out;
  await ready(ctx.db);
  const ids = JSON.stringify(messageIds);
  const rows = await ctx.records.$rows<MediaRow & { of_message: string; place: number }>(
    `SELECT media.*, media.message_id AS of_message, media.position AS place FROM media WHERE message_id IN (${jsonValues(ctx.records)})
     UNION ALL
     SELECT media.*, l.message_id AS of_message, l.position AS place FROM message_media l JOIN media ON media.id = l.media_id
     WHERE l.message_id IN (${jsonValues(ctx.records)}) AND media.status = 'stored'
     ORDER BY of_message, place`,
    [ids, ids],
  );
  for (const { of_message, place: _place, ...r } of rows) {
    const list = out.get(of_message);
    if (list) list.push(r);
    else out.set(of_message, [r]);
  }
  return out;
}

/** The pending items of a message (for its retry). */
export async function pendingMediaOf(ctx: AppContext, messageId: string): Promise<MediaRow[]> {
  await ready(ctx.db);
  return ctx.records.$rows<MediaRow>(`SELECT * FROM media WHERE message_id = ? AND status = 'pending' ORDER BY position`, [messageId]);
}

/**
 * Checks, before a message is queued, that the ids name the account's uploads, stored and not sent with another
 * message: 400 naming the problem. Answers them in the order given.
 */
export async function attachableMedia(ctx: AppContext, userId: string, ids: string[]): Promise<MediaRow[]> {
  if (ids.length > MAX_MEDIA_PER_MESSAGE) throw badRequest(`A message carries at most ${MAX_MEDIA_PER_MESSAGE} attachments`);
  if (new Set(ids).size !== ids.length) throw badRequest("The same attachment is listed twice");
  await ready(ctx.db);
  const rows: MediaRow[] = [];
  for (const id of ids) {
    const row = await mediaRow(ctx, id);
    if (!row || row.user_id !== userId || row.status !== "stored") throw badRequest(`Attachment ${id} was not found: upload it with POST /api/media first`);
    if (row.message_id || row.held_by || (await isLinked(ctx, id))) throw badRequest(`Attachment ${id} was already sent with another message: upload it again`);
    rows.push(row);
  }
  return rows;
}

const isLinked = async (ctx: AppContext, id: string) => (await ctx.records.$rows(`SELECT 1 FROM message_media WHERE media_id = ? LIMIT 1`, [id])).length > 0;

// --- Attachments held by a campaign, a template or a drip, shared by the messages that carry them --------------------

/**
 * Checks, before a campaign, template or drip is saved with them, that the ids name the account's uploads, stored,
 * not a message's and held by nobody else (`holder`: by this one already, or null for one not written yet): 400
 * naming the problem.
 */
export async function assertHoldable(ctx: AppContext, userId: string, holder: MediaHolder | null, ids: string[]): Promise<MediaRow[]> {
  if (ids.length > MAX_MEDIA_PER_MESSAGE) throw badRequest(`A message carries at most ${MAX_MEDIA_PER_MESSAGE} attachments`);
  if (new Set(ids).size !== ids.length) throw badRequest("The same attachment is listed twice");
  await ready(ctx.db);
  const rows: MediaRow[] = [];
  for (const id of ids) {
    const row = await mediaRow(ctx, id);
    if (!row || row.user_id !== userId || row.status !== "stored") throw badRequest(`Attachment ${id} was not found: upload it with POST /api/media first`);
    if (row.message_id || (row.held_by && row.held_by !== holder)) throw badRequest(`Attachment ${id} belongs to another message: upload it again`);
    rows.push(row);
  }
  return rows;
}

/**
 * The holder's attachments become exactly `ids`, in that order (checked by assertHoldable first), in the caller's
 * transaction. Those it no longer lists are let go: the sweep removes them once no message carries them.
 */
export async function holdMedia(ctx: AppContext, userId: string, holder: MediaHolder, ids: string[]) {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE media SET held_by = NULL WHERE held_by = ? AND id NOT IN (${jsonValues(ctx.records)})`, [holder, JSON.stringify(ids)]);
  for (const [position, id] of ids.entries()) {
    await ctx.records.$run(`UPDATE media SET held_by = ?, position = ? WHERE id = ? AND user_id = ? AND message_id IS NULL`, [holder, position, id, userId]);
  }
}

/** The holders' attachments are let go (the holder was deleted): the sweep removes them once no message carries them. */
export async function releaseMedia(ctx: AppContext, holders: MediaHolder[]) {
  if (!holders.length) return;
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE media SET held_by = NULL WHERE held_by IN (${jsonValues(ctx.records)})`, [JSON.stringify(holders)]);
}

/** Each holder's attachments, in order (holders with none are absent). */
export async function heldMedia(ctx: AppContext, holders: MediaHolder[]): Promise<Map<MediaHolder, MediaRow[]>> {
  const out = new Map<MediaHolder, MediaRow[]>();
  if (!holders.length) return out;
  await ready(ctx.db);
  const rows = await ctx.records.$rows<MediaRow>(`SELECT * FROM media WHERE held_by IN (${jsonValues(ctx.records)}) ORDER BY held_by, position`, [
    JSON.stringify(holders),
  ]);
  for (const r of rows) {
    const key = r.held_by as MediaHolder;
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
}

/** The ids of a holder's attachments, in order (what each of its messages carries). */
export async function heldMediaIds(ctx: AppContext, holder: MediaHolder): Promise<string[]> {
  return ((await heldMedia(ctx, [holder])).get(holder) ?? []).map((r) => r.id);
}

/**
 * New uploads with the bytes of the account's items given (a template's, attached to a reply or a campaign: each
 * holder keeps its own, so deleting the template leaves what was sent with it). Answers them in order.
 */
export async function copyMedia(ctx: AppContext, userId: string, ids: string[]): Promise<MediaRow[]> {
  await ready(ctx.db);
  const copies: MediaRow[] = [];
  for (const id of ids) {
    const from = await ownMedia(ctx, userId, id);
    if (from.status !== "stored") throw badRequest(`Attachment ${id} is not stored`);
    const copy = Bun.randomUUIDv7();
    const path = join(mediaDir(ctx, userId), copy);
    copyFileSync(mediaPath(ctx, from), `${path}.part`);
    renameSync(`${path}.part`, path);
    const [row] = await ctx.records.$rows<MediaRow>(
      `INSERT INTO media (id, user_id, position, content_type, filename, size, status, created_at) VALUES (?, ?, 0, ?, ?, ?, 'stored', ?) RETURNING *`,
      [copy, userId, from.content_type, from.filename, from.size, ctx.now()],
    );
    copies.push(row!);
  }
  return copies;
}

/** Messages just written and the attachments each carries, in order. */
export type MessageMedia = { messageId: string; ids: string[] };

/**
 * Links shared attachments to messages, each message's in order, in the caller's transaction (the outbox writer's):
 * one call for a chunk's messages (an MMS campaign's chunk links thousands), its statements run with no await between.
 */
export async function linkMedia(ctx: AppContext, messages: MessageMedia[]) {
  if (!messages.length) return;
  await ready(ctx.db);
  for (const m of messages) {
    for (const [position, id] of m.ids.entries()) {
      await ctx.records.$run(`INSERT INTO message_media (message_id, position, media_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, [m.messageId, position, id]);
    }
  }
}

/** Gives uploads to messages, each message's in order, in the caller's transaction (the outbox writer's): one call a chunk. */
export async function attachMedia(ctx: AppContext, messages: MessageMedia[]) {
  if (!messages.length) return;
  await ready(ctx.db);
  for (const m of messages) {
    for (const [position, id] of m.ids.entries()) {
      await ctx.records.$run(`UPDATE media SET message_id = ?, position = ? WHERE id = ? AND message_id IS NULL`, [m.messageId, position, id]);
    }
  }
}

/**
 * Removes the items whose message was deleted (marked by the trigger of migration 0061) and their files; answers
 * how many, a batch at a time (scheduleMediaSweep).
 */
export async function sweepOrphanedMedia(ctx: AppContext, limit = 1000): Promise<number> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<Pick<MediaRow, "id" | "user_id">>(`SELECT id, user_id FROM media WHERE status = 'orphaned' LIMIT ?`, [limit]);
  return removeMedia(ctx, rows);
}

/**
 * An upload is kept this long unattached (the composer, the wizard or a template form may still send it); after
 * that, an item no message, campaign, template or drip holds is removed with its file: an upload never sent, a
 * deleted campaign's picture once its messages are gone.
 */
export const LOOSE_UPLOAD_GRACE_MS = 24 * 3600_000;

/** Removes up to `limit` loose items older than the grace period (see LOOSE_UPLOAD_GRACE_MS); answers how many. */
export async function sweepLooseMedia(ctx: AppContext, limit = 1000): Promise<number> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<Pick<MediaRow, "id" | "user_id">>(
    `SELECT id, user_id FROM media WHERE message_id IS NULL AND held_by IS NULL AND created_at < ? AND status <> 'pending'
     AND NOT EXISTS (SELECT 1 FROM message_media WHERE media_id = media.id) LIMIT ?`,
    [ctx.now() - LOOSE_UPLOAD_GRACE_MS, limit],
  );
  return removeMedia(ctx, rows);
}

/** In the caller's turn on the connection, after its read: the files, then the rows. */
async function removeMedia(ctx: AppContext, rows: Pick<MediaRow, "id" | "user_id">[]): Promise<number> {
  for (const r of rows) rmSync(mediaPath(ctx, r), { force: true });
  if (rows.length) await ctx.records.$run(`DELETE FROM media WHERE id IN (${jsonValues(ctx.records)})`, [JSON.stringify(rows.map((r) => r.id))]);
  return rows.length;
}

const SWEEP = "media.sweep";
const HOUR = 3_600_000;

/**
 * The sweep from the jobs table: at start, then hourly, again at once while batches come back full, so a deleted
 * message's pictures leave the disk within the hour, and uploads never attached a day after they were made.
 */
export async function scheduleMediaSweep(ctx: AppContext, batch = 1000) {
  registerJobHandler(ctx, SWEEP, async () => {
    const removed = await sweepOrphanedMedia(ctx, batch);
    const loose = await sweepLooseMedia(ctx, batch);
    return { result: { removed, loose }, runAgainAt: removed === batch || loose === batch ? ctx.now() : ctx.now() + HOUR };
  }, { maxAttempts: Infinity, firstDelayMs: 60_000 });
  await enqueueJob(ctx, { kind: SWEEP, key: SWEEP, runAt: ctx.now() });
}

// --- Signed URLs for providers ---------------------------------------------------------------------------------

const urlKey = (ctx: AppContext) => deriveKey(ctx.keys.webhooks, "media-urls");

const signatureOf = (ctx: AppContext, id: string, expires: number) =>
  createHmac("sha256", urlKey(ctx)).update(`${id}.${expires}`).digest("base64url");

/** A URL on PUBLIC_URL a provider fetches the item from without signing in: HMAC of its id and expiry, expiring. */
export function signedMediaUrl(ctx: AppContext, id: string, ttlMs = SIGNED_URL_TTL_MS): string {
  const expires = ctx.now() + ttlMs;
  return `${ctx.config.publicUrl}/api/media/${id}/signed?expires=${expires}&signature=${signatureOf(ctx, id, expires)}`;
}

/** The item a signed URL names: 403 for a bad signature, 410 once expired, 404 when it is gone. */
export async function verifySignedMedia(ctx: AppContext, id: string, expires: string | undefined, signature: string | undefined): Promise<MediaRow> {
  const at = Number(expires);
  if (!expires || !/^\d{1,15}$/.test(expires) || !signature) throw new HttpError(403, "This media link is not valid");
  const expected = Buffer.from(signatureOf(ctx, id, at));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new HttpError(403, "This media link is not valid");
  if (ctx.now() > at) throw new HttpError(410, "This media link has expired");
  const row = await findMedia(ctx, id);
  if (!row || row.status !== "stored") throw new HttpError(404, "Media not found");
  return row;
}

/** Signed URLs of the account's stored items (a simulated MMS reply fetches them): 400 for an id not theirs. */
export async function signedUrlsOfUploads(ctx: AppContext, userId: string, ids: string[]): Promise<string[]> {
  if (ids.length > MAX_MEDIA_PER_MESSAGE) throw badRequest(`A message carries at most ${MAX_MEDIA_PER_MESSAGE} attachments`);
  await ready(ctx.db);
  const urls: string[] = [];
  for (const id of ids) {
    const row = await mediaRow(ctx, id);
    if (!row || row.user_id !== userId || row.status !== "stored") throw badRequest(`Attachment ${id} was not found: upload it with POST /api/media first`);
    urls.push(signedMediaUrl(ctx, id));
  }
  return urls;
}

// --- Serving --------------------------------------------------------------------------------------------------------

const INLINE = new Set(["image/jpeg", "image/png", "image/gif"]);

/**
 * The headers every served item carries: its sniffed type, never guessed again by the browser (nosniff), a CSP
 * under which nothing in it can run or load (default-src 'none', sandbox), and a Content-Disposition: pictures
 * inline (a thumbnail, or full size in a tab), everything else a download.
 */
export function mediaHeaders(row: MediaRow): Record<string, string> {
  const inline = INLINE.has(row.content_type);
  return {
    "content-type": inline || row.content_type === "application/pdf" || row.content_type === "text/vcard" ? row.content_type : UNKNOWN_TYPE,
    "content-disposition": `${inline ? "inline" : "attachment"}; filename="${row.filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "same-site",
    "cache-control": "private, max-age=86400, immutable",
  };
}

export function mediaResponse(ctx: AppContext, row: MediaRow, extra: Record<string, string> = {}): Response {
  if (row.status !== "stored") throw new HttpError(404, row.status === "pending" ? "This attachment is still being copied from the provider" : "This attachment could not be copied from the provider");
  const file = Bun.file(mediaPath(ctx, row));
  return new Response(file, { headers: { ...mediaHeaders(row), ...extra } });
}
