import { errorCode, HttpError } from "./errors";

/** A provider's webhook (POST /api/webhooks/{provider}/sms/{userId}); the user's own /api/webhooks API is not one. */
export const isProviderWebhook = (path: string) => /^\/api\/webhooks\/[^/]+\/sms\/[^/]+\/?$/.test(path);

/**
 * Request body limits per route, enforced before a body is read: a declared Content-Length over the limit is
 * refused at once, and a chunked body is counted as it arrives and dropped at the limit. Only the CSV upload
 * takes large bodies (it streams them to a file); everything else is small JSON or a provider's webhook.
 */

const KB = 1024;
const MB = 1024 * KB;

const TOO_LARGE = "Request body too large";

/** A provider's webhook: one report or message (the simulator batches up to 1,000 events, about 70 KB). */
export const WEBHOOK_BODY_LIMIT = 256 * KB;
/** Every JSON API without an entry below. */
const JSON_BODY_LIMIT = 1 * MB;
/** The largest CSV file a contacts import takes (src/contacts/csv-import.ts counts it as the file streams in). */
export const MAX_CSV_BYTES = 100 * MB;
/** The CSV upload's file plus the multipart framing around it; also the server's global ceiling. */
export const UPLOAD_BODY_LIMIT = MAX_CSV_BYTES + 1 * MB;
/** An uploaded backup archive (src/backups/): bounded by the server's global ceiling. */
export const MAX_BACKUP_BYTES = UPLOAD_BODY_LIMIT;

/** A picture or file uploaded for an MMS (POST /api/media): a phone's photo, resized there to what carriers take. */
export const MAX_MEDIA_UPLOAD_BYTES = 12 * MB;

/** `streamed`: the route reads its own body, counting it (so a chunked body is not buffered before it runs). */
type Limit = { method: string; match: (path: string) => boolean; bytes: number; streamed?: true };

/** Routes whose documented maximum needs more than JSON_BODY_LIMIT; the first match wins. */
const LIMITS: readonly Limit[] = [
  { method: "POST", match: (p) => p === "/api/contacts/import/csv", bytes: UPLOAD_BODY_LIMIT, streamed: true },
  // Takes a whole file as well as its first 64 KB, and reads no more than those 64 KB.
  { method: "POST", match: (p) => p === "/api/contacts/import/preview", bytes: UPLOAD_BODY_LIMIT, streamed: true },
  { method: "POST", match: isProviderWebhook, bytes: WEBHOOK_BODY_LIMIT, streamed: true },
  { method: "POST", match: (p) => p === "/api/admin/backups/upload", bytes: MAX_BACKUP_BYTES, streamed: true },
  { method: "POST", match: (p) => p === "/api/media" || p === "/api/v1/media", bytes: MAX_MEDIA_UPLOAD_BYTES, streamed: true },
  // 5,000 contacts of up to four fields each.
  { method: "POST", match: (p) => p === "/api/contacts/import", bytes: 4 * MB },
  // Up to 100,000 recipients, or a pasted list of 4,000,000 characters.
  { method: "POST", match: (p) => p === "/api/campaigns" || p === "/api/campaigns/preview-delivery", bytes: 8 * MB },
  { method: "PUT", match: (p) => p.startsWith("/api/campaigns/"), bytes: 8 * MB },
];

function limitFor(method: string, path: string): Pick<Limit, "bytes" | "streamed"> {
  return LIMITS.find((l) => l.method === method && l.match(path)) ?? { bytes: JSON_BODY_LIMIT };
}

/** True for the routes that read their own body (uploads, provider webhooks): nothing before them parses it. */
export const readsOwnBody = (method: string, path: string) => limitFor(method, path).streamed === true;

const payloadTooLarge = () => new HttpError(413, TOO_LARGE);

const tooLargeResponse = () => Response.json({ message: TOO_LARGE, code: errorCode(413) }, { status: 413 });

/** True when the request declares a body longer than `limit` (a missing or chunked length declares nothing). */
const declaresMoreThan = (request: Request, limit: number) => Number(request.headers.get("content-length") ?? 0) > limit;

/** Reads a body, at most `limit` bytes of it: 413 (HttpError) past it, having read no more than that. */
async function readBodyWithin(request: Request, limit: number): Promise<Blob> {
  if (declaresMoreThan(request, limit)) throw payloadTooLarge();
  if (!request.body) return new Blob([]);
  // A declared length within the limit is the body's length (the HTTP framing ends it there): read whole. Bun's
  // stream reader takes a 256 KB buffer per request, which at 200 webhooks a second kept the GC busy.
  if (request.headers.has("content-length")) return request.blob();
  const reader = request.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return new Blob(chunks);
}

export async function readBytesWithin(request: Request, limit: number): Promise<Uint8Array> {
  return new Uint8Array(await (await readBodyWithin(request, limit)).arrayBuffer());
}

export async function readTextWithin(request: Request, limit: number): Promise<string> {
  return (await readBodyWithin(request, limit)).text();
}

/**
 * The server's gate, before routing: a request whose declared length is over its route's limit answers 413
 * unread. A chunked body (no length) of a JSON route is read here up to the limit and handed on as a buffered
 * request; the CSV upload and the webhooks count their own chunked bodies as they read them (the webhook route
 * checks the account before it reads anything).
 */
export async function limitRequestBody(request: Request, path: string): Promise<Request | Response> {
  if (!request.body) return request;
  const limit = limitFor(request.method, path);
  if (declaresMoreThan(request, limit.bytes)) return tooLargeResponse();
  if (request.headers.has("content-length") || limit.streamed) return request;
  let body: Blob;
  try {
    body = await readBodyWithin(request, limit.bytes);
  } catch (err) {
    if (err instanceof HttpError) return tooLargeResponse();
    throw err;
  }
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(body.size));
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
}
