import { createHmac, randomBytes } from "node:crypto";
import { jsonValues } from "../../db/json-array";
import { ready } from "../../db/transaction";
import { allowListOf, webhookAllowList } from "../admin/networks";
import { type CredentialHolder, noticeCredentialMade } from "../auth/session-credentials";
import type { AppContext } from "../context";
import { type AppEvent, advanceCursor, type EventType, lastEventId, onEventsCommitted, readCursor, readEvents } from "../events/events";
import { badRequest, notFound, tooManyRequests } from "../http/errors";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";
import { WEBHOOK_MEDIA_URL_TTL_MS } from "../../shared/media/limits";
import { mediaOfMessages, type MediaRow, signedMediaUrl } from "../media/media";
import { decryptSecret, encryptSecret } from "../secrets/encryption";
import { findUserById, holdAccount } from "../users/queries";
import { type NetworkPolicy, pinnedRequest, resolveTarget } from "./ssrf";

/**
 * Outbound webhooks: the user's endpoints receive the event log's events, signed per Standard Webhooks 1.0.
 *
 * - The feed reads the log after a durable cursor and, in the same transaction, writes one delivery per event
 *   and subscribed endpoint (its payload kept) and queues its first attempt in the jobs table, then moves the
 *   cursor: after a crash it resumes after exactly what it committed. It runs right after a transaction that
 *   appended events commits, a bounded page per turn of the event loop while a backlog lasts, with a job every
 *   minute as a safety net (and at start, catching up after downtime).
 * - A batch event of the engine (one campaign's messages, `messageIds` in the payload) becomes one delivery per
 *   message, each with its own webhook-id, so a receiver sees the same shape whether a message was sent alone or
 *   in a campaign.
 * - A delivery job makes one attempt outside any transaction (leased) and puts itself back on Svix's schedule.
 *   At most ATTEMPTS_PER_ENDPOINT attempts run at once per endpoint, ATTEMPTS_IN_FLIGHT in all, and per account
 *   ATTEMPTS_PER_ACCOUNT or its fair share when other accounts send (the jobs' fairShare: always room for one more
 *   account); the jobs runner leaves the rest pending until a slot frees, so one slow receiver neither floods the
 *   network nor holds up the other endpoints, and slow accounts never take the slots of the other accounts.
 */

export const WEBHOOK_EVENTS = [
  "campaign_sent",
  "message_sent",
  "message_delivered",
  "message_failed",
  "message_replied",
  "keyword_received",
  "contact_created",
  "contact_opted_in",
  "contact_opted_out",
  "link_clicked",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number] | "webhook_test";

/** The log's types each webhook event is made from. */
const FROM_LOG: Partial<Record<EventType, WebhookEvent>> = {
  "campaign.completed": "campaign_sent",
  "message.sent": "message_sent",
  "message.delivered": "message_delivered",
  "message.failed": "message_failed",
  "message.received": "message_replied",
  "keyword.received": "keyword_received",
  "contact.created": "contact_created",
  "contact.opted_in": "contact_opted_in",
  "contact.opted_out": "contact_opted_out",
  "link.clicked": "link_clicked",
};
const LOG_TYPES = Object.keys(FROM_LOG) as EventType[];

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Svix's schedule: the delay before attempt n+1 (the first is immediate); 8 attempts in all. */
export const RETRY_SCHEDULE = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** An endpoint failing this long (no success in between) is disabled and its owner told. */
export const DISABLE_AFTER = 5 * DAY;
/** A rotated secret keeps signing this long, so receivers can switch without losing a delivery. */
export const ROTATION_OVERLAP = DAY;
const TIMEOUT = 15 * SECOND;
const RESPONSE_KEPT = 2048;
const MAX_RETRY_AFTER = DAY;
/** The safety net's pace: the feed otherwise runs when events commit. */
const FEED_EVERY = MINUTE;
/** Events read per transaction at most, and the time one page may take before the feed yields the event loop. */
export const FEED_PAGE = 200;
export const FEED_BUDGET_MS = 10;
/** HTTP attempts running at once, per endpoint, per account (at most; less as more accounts send) and in all. */
export const ATTEMPTS_PER_ENDPOINT = 8;
export const ATTEMPTS_PER_ACCOUNT = 16;
export const ATTEMPTS_IN_FLIGHT = 64;

const FEED = "webhooks.feed";
const DELIVER = "webhooks.deliver";
const CURSOR = "outbound-webhooks";

export type Endpoint = {
  id: string;
  name: string;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  previousSecretUntil: number | null;
  createdAt: number;
  updatedAt: number | null;
};

type EndpointRow = {
  id: string;
  user_id: string;
  name: string;
  url: string;
  events: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  active: number;
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number | null;
  created_by_session: string | null;
};

const toEndpoint = (r: EndpointRow): Endpoint => ({
  id: r.id,
  name: r.name,
  url: r.url,
  events: JSON.parse(r.events),
  active: r.active === 1,
  disabledReason: r.disabled_reason,
  failingSince: r.failing_since,
  previousSecretUntil: r.previous_secret_until,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Whom webhooks may call: the administrator's allow-list, read at each check (a change applies to the next attempt). */
const networkPolicy = async (ctx: AppContext): Promise<NetworkPolicy> => ({
  allowList: allowListOf(await webhookAllowList(ctx)),
  judgeAs: ctx.webhookTestNetwork?.judgeAs,
});

// ---------------------------------------------------------------------------------------------------------------
// Secrets and signatures (Standard Webhooks 1.0)

const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

export const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the base64 key after `whsec_`. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/**
 * Signing secrets are kept sealed like provider credentials (AES-256-GCM under the data folder's key): the database
 * file alone does not let anyone sign deliveries a receiver trusts.
 */
const sealSecret = (ctx: AppContext, secret: string) => encryptSecret(ctx.keys.secrets, secret);

function openSecret(ctx: AppContext, sealed: string): string {
  try {
    return decryptSecret(ctx.keys.secrets, sealed);
  } catch {
    throw new Error("The webhook's signing secret cannot be opened with this installation's key (was the database restored from another one?): rotate the secret");
  }
}

/**
 * Seals the secrets an older version stored in clear (migration in code: SQL cannot encrypt). Run when the data
 * folder opens and after a restore (a restore's database-replaced hooks, src/backups/: its failure fails the
 * restore), before any request; a no-op once every secret is sealed. Each endpoint's row is sealed by one statement,
 * only while it still holds a clear secret: a run cut short is finished by the next.
 */
export async function sealClearSecrets(ctx: AppContext): Promise<number> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<{ id: string; secret: string; previous_secret: string | null }>(
    `SELECT id, secret, previous_secret FROM webhook_endpoints WHERE secret LIKE 'whsec!_%' ESCAPE '!' OR previous_secret LIKE 'whsec!_%' ESCAPE '!'`,
  );
  const clear = (v: string | null) => (v?.startsWith("whsec_") ? sealSecret(ctx, v) : v);
  // No secret is empty (sealed or clear): coalesce compares a missing previous secret on both engines, where SQLite's
  // `IS ?` has no PostgreSQL spelling for a parameter that may be null.
  for (const row of rows) {
    await ctx.records.$run(`UPDATE webhook_endpoints SET secret = ?, previous_secret = ? WHERE id = ? AND secret = ? AND coalesce(previous_secret, '') = ?`, [
      clear(row.secret), clear(row.previous_secret), row.id, row.secret, row.previous_secret ?? "",
    ]);
  }
  return rows.length;
}

function checkSecret(secret: string) {
  if (!SECRET_FORMAT.test(secret) || Buffer.from(secret.slice(6), "base64").length < 24) {
    throw badRequest("The secret must be whsec_ followed by at least 24 bytes in base64 (leave it empty to generate one)");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoints

export type EndpointInput = { name?: string; url?: string; events?: WebhookEvent[]; secret?: string; active?: boolean };

async function endpointRow(ctx: AppContext, userId: string, id: string): Promise<EndpointRow> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE id = ? AND user_id = ?`, [id, userId]);
  if (!row) throw notFound("Webhook not found");
  return row;
}

export async function listEndpoints(ctx: AppContext, userId: string): Promise<Endpoint[]> {
  await ready(ctx.db);
  const rows = await ctx.records.$rows<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE user_id = ? ORDER BY created_at, id`, [userId]);
  return rows.map(toEndpoint);
}

const MAX_ENDPOINTS = 20;

/**
 * Creates an endpoint; answers it with its secret, the only answer that shows it besides rotation. `beforeCreate`
 * runs (and may refuse) once the endpoint would be made: the route's check that the caller confirmed. `madeBy` is
 * the session making it: the endpoint is turned off when the owner ends that session by a password change
 * (src/auth/session-credentials.ts), and the owner is told by email.
 */
export async function createEndpoint(
  ctx: AppContext,
  userId: string,
  input: EndpointInput,
  beforeCreate?: () => Promise<void>,
  madeBy: string | null = null,
): Promise<Endpoint & { secret: string }> {
  const name = input.name?.trim();
  if (!name) throw badRequest("Give the webhook a name");
  const url = input.url;
  if (!url) throw badRequest("Give the webhook a URL");
  if (!input.events?.length) throw badRequest("Choose at least one event");
  await resolveTarget(url, await networkPolicy(ctx));
  const secret = input.secret || newSecret();
  checkSecret(secret);
  // Counted in the transaction that adds, the account's row held first (on PostgreSQL two transactions would count
  // at once): two creates at once cannot both pass the cap.
  const endpoint = await ctx.withTransaction(async () => {
    await holdAccount(ctx, userId);
    const [count] = await ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM webhook_endpoints WHERE user_id = ?`, [userId]);
    if (count!.n >= MAX_ENDPOINTS) throw badRequest(`An account has at most ${MAX_ENDPOINTS} webhooks`);
    await beforeCreate?.();
    const id = Bun.randomUUIDv7();
    await ctx.records.$run(
      `INSERT INTO webhook_endpoints (id, user_id, name, url, events, secret, active, created_at, created_by_session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, userId, name, url, JSON.stringify([...new Set(input.events)]), sealSecret(ctx, secret), input.active === false ? 0 : 1, ctx.now(), madeBy],
    );
    return toEndpoint(await endpointRow(ctx, userId, id));
  });
  await noticeCredentialMade(ctx, {
    userId,
    sessionId: madeBy,
    what: "webhook",
    details: [`Webhook: ${endpoint.name}`, `URL: ${endpoint.url}`, `Events: ${endpoint.events.join(", ")}`],
    at: endpoint.createdAt,
  });
  return { ...endpoint, secret };
}

/**
 * `beforeChange` runs (and may refuse) when a valid new URL or secret is to be saved: the route's check that the
 * caller confirmed. A new URL or secret makes the endpoint anew: it is then `madeBy` that session, and a new URL
 * is told to the owner as a new endpoint is.
 */
export async function updateEndpoint(
  ctx: AppContext,
  userId: string,
  id: string,
  input: EndpointInput,
  beforeChange?: (what: "URL" | "secret") => Promise<void>,
  madeBy: string | null = null,
): Promise<Endpoint> {
  const before = await endpointRow(ctx, userId, id);
  if (input.name !== undefined && !input.name.trim()) throw badRequest("Give the webhook a name");
  if (input.events && !input.events.length) throw badRequest("Choose at least one event");
  if (input.url !== undefined && input.url !== before.url) await resolveTarget(input.url, await networkPolicy(ctx));
  if (input.secret) checkSecret(input.secret);
  // The row is read again in the transaction that writes it, after the URL's check awaited the network: a change
  // made meanwhile (another edit, the endpoint turned off by failures) is kept where this edit leaves it alone.
  const { endpoint, row, urlChanges } = await ctx.withTransaction(async () => {
    const row = await endpointRow(ctx, userId, id);
    const urlChanges = input.url !== undefined && input.url !== row.url;
    if (urlChanges) await beforeChange?.("URL");
    else if (input.secret && input.secret !== openSecret(ctx, row.secret)) await beforeChange?.("secret");
    const reactivated = input.active === true && row.active === 0;
    const remade = urlChanges || (!!input.secret && input.secret !== openSecret(ctx, row.secret));
    await ctx.records.$run(
      `UPDATE webhook_endpoints SET name = ?, url = ?, events = ?, secret = ?, active = ?, disabled_reason = ?, failing_since = ?, updated_at = ?,
         created_by_session = ? WHERE id = ?`,
      [
        input.name === undefined ? row.name : input.name.trim(),
        input.url ?? row.url,
        input.events ? JSON.stringify([...new Set(input.events)]) : row.events,
        input.secret ? sealSecret(ctx, input.secret) : row.secret,
        input.active === undefined ? row.active : input.active ? 1 : 0,
        reactivated || input.active === false ? null : row.disabled_reason,
        reactivated ? null : row.failing_since,
        ctx.now(),
        remade ? madeBy : row.created_by_session,
        id,
      ],
    );
    return { endpoint: toEndpoint(await endpointRow(ctx, userId, id)), row, urlChanges };
  });
  if (urlChanges) {
    await noticeCredentialMade(ctx, {
      userId,
      sessionId: madeBy,
      what: "webhook URL",
      details: [`Webhook: ${endpoint.name}`, `URL: ${endpoint.url} (was ${row.url})`, `Events: ${endpoint.events.join(", ")}`],
      at: ctx.now(),
    });
  }
  return endpoint;
}

/**
 * Webhooks as credentials their sessions made (src/auth/session-credentials.ts): ending those sessions turns them
 * off, the reason shown in the list; the owner can turn one back on or delete it.
 */
export const webhookHolder: CredentialHolder = {
  kind: "webhook",
  async madeBy(ctx, userId, sessionIds) {
    await ready(ctx.db);
    const rows = await ctx.records.$rows<{ id: string; name: string; created_by_session: string }>(
      `SELECT id, name, created_by_session FROM webhook_endpoints
       WHERE user_id = ? AND active = 1 AND created_by_session IN (${jsonValues(ctx.records)}) ORDER BY created_at, id`,
      [userId, JSON.stringify(sessionIds)],
    );
    return rows.map((r) => ({ kind: "webhook" as const, id: r.id, name: r.name, sessionId: r.created_by_session }));
  },
  async end(ctx, userId, ids, reason) {
    await ready(ctx.db);
    await ctx.records.$run(
      `UPDATE webhook_endpoints SET active = 0, disabled_reason = ?, updated_at = ?
       WHERE user_id = ? AND id IN (${jsonValues(ctx.records)})`,
      [reason, ctx.now(), userId, JSON.stringify(ids)],
    );
  },
};

export async function deleteEndpoint(ctx: AppContext, userId: string, id: string): Promise<void> {
  await ready(ctx.db);
  const deleted = (await ctx.records.$run(`DELETE FROM webhook_endpoints WHERE id = ? AND user_id = ?`, [id, userId])).changes;
  if (!deleted) throw notFound("Webhook not found");
}

/**
 * A new secret; the old one keeps signing (a second signature) for ROTATION_OVERLAP. `beforeRotate` runs (and may
 * refuse) once the rotation would be made: the route's check that the caller confirmed. The endpoint is then
 * `madeBy` the rotating session, as a new endpoint is.
 */
export async function rotateSecret(
  ctx: AppContext,
  userId: string,
  id: string,
  given?: string,
  beforeRotate?: () => Promise<void>,
  madeBy: string | null = null,
): Promise<{ secret: string; previousSecretUntil: number }> {
  const secret = given || newSecret();
  checkSecret(secret);
  // The endpoint and the confirmation (sudo mode, which awaits its records) are read in the transaction that writes.
  return ctx.withTransaction(async () => {
    await endpointRow(ctx, userId, id);
    await beforeRotate?.();
    const until = ctx.now() + ROTATION_OVERLAP;
    // The secret it replaces is the one the row holds as it is written (two rotations at once: the second keeps the first's).
    await ctx.records.$run(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_until = ?, updated_at = ?, created_by_session = ? WHERE id = ?`,
      [sealSecret(ctx, secret), until, ctx.now(), madeBy, id],
    );
    return { secret, previousSecretUntil: until };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Deliveries

export type Delivery = {
  id: string;
  eventType: string;
  eventId: number | null;
  payload: unknown;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  responseStatus: number | null;
  responseBody: string | null;
  /** The receiver is on a non-public network: its answer is kept but not shown (it may be an internal service's). */
  responseHidden: boolean;
  error: string | null;
  latencyMs: number | null;
  lastAttemptAt: number | null;
  createdAt: number;
};

type DeliveryRow = {
  id: string;
  endpoint_id: string;
  user_id: string;
  event_id: number | null;
  event_type: string;
  payload: string;
  status: Delivery["status"];
  attempts: number;
  rounds: number;
  response_status: number | null;
  response_body: string | null;
  response_hidden: number;
  error: string | null;
  latency_ms: number | null;
  last_attempt_at: number | null;
  created_at: number;
};

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  eventType: r.event_type,
  eventId: r.event_id,
  payload: JSON.parse(r.payload),
  status: r.status,
  attempts: r.attempts,
  responseStatus: r.response_status,
  responseBody: r.response_hidden ? null : r.response_body,
  responseHidden: r.response_hidden === 1,
  error: r.error,
  latencyMs: r.latency_ms,
  lastAttemptAt: r.last_attempt_at,
  createdAt: r.created_at,
});

/** Writes a delivery and queues its first attempt; inside the caller's transaction. */
async function insertDelivery(
  ctx: AppContext,
  endpoint: { id: string; user_id: string },
  d: { source: string | null; eventId: number | null; type: WebhookEvent; data: Record<string, unknown>; at: number },
): Promise<string | null> {
  const id = `msg_${Bun.randomUUIDv7().replaceAll("-", "")}`;
  const payload = JSON.stringify({ type: d.type, timestamp: new Date(d.at).toISOString(), data: d.data });
  const inserted = (
    await ctx.records.$run(
      `INSERT INTO webhook_deliveries (id, endpoint_id, user_id, event_id, source, event_type, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint_id, source) DO NOTHING`,
      [id, endpoint.id, endpoint.user_id, d.eventId, d.source, d.type, payload, ctx.now()],
    )
  ).changes;
  if (!inserted) return null;
  await enqueueJob(ctx, { kind: DELIVER, key: `${DELIVER}:${id}:0`, runAt: ctx.now(), userId: endpoint.user_id, refId: endpoint.id, payload: { deliveryId: id } });
  return id;
}

export { WEBHOOK_MEDIA_URL_TTL_MS };

/** A message's picture or file as a webhook carries it. */
export type WebhookMedia = {
  id: string;
  /** Null while the item is not stored (see status). */
  contentType: string | null;
  filename: string | null;
  size: number | null;
  /**
   * stored: the file is here; pending: a received item still being copied from the provider; failed: given up.
   * message_replied is made from the inbound message's event, written in the same transaction as its items'
   * pending rows, and the feed runs as soon as that commits, before the copy job has fetched anything: a received
   * MMS's webhook therefore carries its items as pending, their type and size unknown yet. Their URL serves the
   * file once the copy is done (404 until then); GET /api/v1/messages/{id} tells when it is.
   */
  status: "stored" | "pending" | "failed";
  /** Signed, fetched without a key or session until urlExpiresAt; null for an item that failed to copy. */
  url: string | null;
  urlExpiresAt: string | null;
};

export function webhookMedia(ctx: AppContext, row: MediaRow): WebhookMedia {
  const status = row.status === "orphaned" ? "failed" : row.status;
  const stored = status === "stored";
  const url = status === "failed" ? null : signedMediaUrl(ctx, row.id, WEBHOOK_MEDIA_URL_TTL_MS);
  return {
    id: row.id,
    contentType: stored ? row.content_type : null,
    filename: stored ? row.filename : null,
    size: stored ? row.size : null,
    status,
    url,
    urlExpiresAt: url ? new Date(Number(new URL(url).searchParams.get("expires"))).toISOString() : null,
  };
}

/**
 * The deliveries one event makes: one per message of a batch event, else one. A message event carries the
 * message's pictures and files (`media`, empty for a plain SMS), read when the delivery is written.
 */
async function webhookDataOf(ctx: AppContext, event: AppEvent): Promise<{ source: string; data: Record<string, unknown> }[]> {
  const { messageIds, ...rest } = event.payload as { messageIds?: unknown } & Record<string, unknown>;
  const batch = event.subject.kind === "campaign" && Array.isArray(messageIds) && event.type.startsWith("message.");
  const messages = !event.type.startsWith("message.") ? [] : batch ? (messageIds as string[]) : event.subject.kind === "message" ? [event.subject.id] : [];
  const media = await mediaOfMessages(ctx, messages);
  const mediaOf = (id: string) => ({ media: (media.get(id) ?? []).map((m) => webhookMedia(ctx, m)) });
  if (batch) {
    return (messageIds as string[]).map((messageId) => ({ source: `${event.id}:${messageId}`, data: { messageId, campaignId: event.subject.id, ...rest, ...mediaOf(messageId) } }));
  }
  const data = { [`${event.subject.kind}Id`]: event.subject.id, ...rest };
  return [{ source: String(event.id), data: messages.length ? { ...data, ...mediaOf(event.subject.id) } : data }];
}

/** Pages the feed read, their events and the largest page, per app (tests assert the bound). */
const feedPages = new WeakMap<AppContext, { pages: number; events: number; largestPage: number }>();
export function feedStats(ctx: AppContext) {
  let stats = feedPages.get(ctx);
  if (!stats) feedPages.set(ctx, (stats = { pages: 0, events: 0, largestPage: 0 }));
  return stats;
}

/**
 * Turns one page of the events after the cursor (at most FEED_PAGE, stopping after FEED_BUDGET_MS) into
 * deliveries, in one transaction with the cursor's move. Endpoints receive only events created after they were (a
 * new endpoint does not replay the log). Answers the deliveries made and whether events may be left.
 */
export async function feedDeliveries(ctx: AppContext): Promise<{ made: number; more: boolean }> {
  return ctx.withTransaction(async () => {
    const started = performance.now();
    // The event records answer at once underneath: the callback awaits nothing else, so no event lands between the
    // read and the cursor's move, and the deliveries are written with them.
    const head = await lastEventId(ctx);
    const after = await readCursor(ctx, CURSOR);
    const endpoints = (await ctx.records.$rows<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE active = 1`)).map((row) => ({
      row,
      events: new Set(JSON.parse(row.events) as string[]),
    }));
    // Only the types some active endpoint takes are read: with none subscribed to link_clicked, a burst of people's
    // clicks (a campaign's first minutes) costs the feed no read, and the cursor moves past it to the head.
    const types = LOG_TYPES.filter((t) => endpoints.some((e) => e.events.has(FROM_LOG[t]!)));
    const events = await readEvents(ctx, { afterId: after, types, limit: FEED_PAGE });
    let made = 0;
    let read = 0;
    for (const event of events) {
      if (read && performance.now() - started >= FEED_BUDGET_MS) break;
      const type = FROM_LOG[event.type]!;
      let deliveries: Awaited<ReturnType<typeof webhookDataOf>> | undefined; // made once per event, for its first endpoint
      for (const { row, events: subscribed } of endpoints) {
        if (row.user_id !== event.userId || row.created_at > event.createdAt || !subscribed.has(type)) continue;
        for (const { source, data } of (deliveries ??= await webhookDataOf(ctx, event))) {
          if (await insertDelivery(ctx, row, { source, eventId: event.id, type, data, at: event.createdAt })) made++;
        }
      }
      read++;
    }
    const stats = feedStats(ctx);
    stats.pages++;
    stats.events += read;
    stats.largestPage = Math.max(stats.largestPage, read);
    // A page read to its end and short of FEED_PAGE: every deliverable event up to the head was read (in this
    // transaction), so the cursor skips the types we do not deliver too. Otherwise it stands at the last one read.
    const more = events.length === FEED_PAGE || read < events.length;
    await advanceCursor(ctx, CURSOR, more ? events[read - 1]!.id : Math.max(after, head));
    return { made, more };
  });
}

/** Test events per endpoint per minute, and the pending deliveries past which an account's test sends wait. */
export const TEST_SENDS_PER_MINUTE = 5;
export const MAX_PENDING_PER_ACCOUNT = 100;

/**
 * Queues a test event to one endpoint, delivered like any other. A test send makes an HTTP call to a URL of the
 * user's choosing: at most TEST_SENDS_PER_MINUTE a minute per endpoint, and none while the account has
 * MAX_PENDING_PER_ACCOUNT deliveries pending (429 with Retry-After), so it cannot be made a request cannon.
 */
export async function sendTestEvent(ctx: AppContext, userId: string, id: string): Promise<Delivery> {
  // The caps are read in the transaction that adds: two test sends at once cannot both pass them.
  return ctx.withTransaction(() => testEvent(ctx, userId, id));
}

async function testEvent(ctx: AppContext, userId: string, id: string): Promise<Delivery> {
  const row = await endpointRow(ctx, userId, id);
  const now = ctx.now();
  const recent = await ctx.records.$rows<{ at: number }>(
    `SELECT created_at AS at FROM webhook_deliveries WHERE endpoint_id = ? AND event_type = 'webhook_test' AND created_at > ? ORDER BY created_at LIMIT ?`,
    [id, now - MINUTE, TEST_SENDS_PER_MINUTE],
  );
  if (recent.length >= TEST_SENDS_PER_MINUTE) {
    const wait = Math.max(1, Math.ceil((recent[0]!.at + MINUTE - now) / SECOND));
    throw tooManyRequests(`At most ${TEST_SENDS_PER_MINUTE} test events a minute per webhook: try again in ${wait} s`, wait);
  }
  // The subquery is named: PostgreSQL 15 refuses one without a name.
  const [pending] = await ctx.records.$rows<{ n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE user_id = ? AND status = 'pending' LIMIT ?) AS waiting`,
    [userId, MAX_PENDING_PER_ACCOUNT],
  );
  if (pending!.n >= MAX_PENDING_PER_ACCOUNT) {
    throw tooManyRequests(`${MAX_PENDING_PER_ACCOUNT} deliveries are waiting to be sent for this account: send a test event once they have gone`, 60);
  }
  const deliveryId = (await insertDelivery(ctx, row, { source: null, eventId: null, type: "webhook_test", data: { message: "A test event from smsdesk", endpointId: id }, at: ctx.now() }))!;
  return deliveryOf(ctx, userId, id, deliveryId);
}

async function deliveryRowOf(ctx: AppContext, userId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  await ready(ctx.db);
  const [row] = await ctx.records.$rows<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE id = ? AND endpoint_id = ? AND user_id = ?`, [
    deliveryId, endpointId, userId,
  ]);
  if (!row) throw notFound("Delivery not found");
  return row;
}

const deliveryOf = async (ctx: AppContext, userId: string, endpointId: string, deliveryId: string): Promise<Delivery> =>
  toDelivery(await deliveryRowOf(ctx, userId, endpointId, deliveryId));

export async function listDeliveries(ctx: AppContext, userId: string, endpointId: string, page: { page: number; pageSize: number }) {
  await endpointRow(ctx, userId, endpointId);
  const rows = await ctx.records.$rows<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
    endpointId, page.pageSize, (page.page - 1) * page.pageSize,
  ]);
  const [total] = await ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?`, [endpointId]);
  return { deliveries: rows.map(toDelivery), total: total!.n, page: page.page, pageSize: page.pageSize };
}

/**
 * Sends a delivery again (same webhook-id, so a receiver that already has it can drop it), a new round of attempts,
 * in the caller's transaction. Only a delivery no longer pending starts a round (a conditional update): two asks at
 * once queue one round. Answers whether it did.
 */
async function requeue(ctx: AppContext, row: DeliveryRow): Promise<boolean> {
  const round = row.rounds + 1;
  const { changes: changed } = await ctx.records.$run(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, rounds = ? WHERE id = ? AND rounds = ? AND status <> 'pending'`,
    [round, row.id, row.rounds],
  );
  if (!changed) return false;
  await enqueueJob(ctx, { kind: DELIVER, key: `${DELIVER}:${row.id}:${round}`, runAt: ctx.now(), userId: row.user_id, refId: row.endpoint_id, payload: { deliveryId: row.id } });
  return true;
}

export async function redeliver(ctx: AppContext, userId: string, endpointId: string, deliveryId: string): Promise<Delivery> {
  return ctx.withTransaction(async () => {
    const endpoint = await endpointRow(ctx, userId, endpointId);
    if (!endpoint.active) throw badRequest("The webhook is disabled: enable it before sending deliveries again");
    const delivery = await deliveryRowOf(ctx, userId, endpointId, deliveryId);
    if (delivery.status === "pending") throw badRequest("This delivery is still being attempted");
    await requeue(ctx, delivery);
    return deliveryOf(ctx, userId, endpointId, deliveryId);
  });
}

const MAX_REDELIVER = 10_000;

/** Sends again every failed delivery of an endpoint created in [from, to]. */
export async function redeliverRange(ctx: AppContext, userId: string, endpointId: string, from: number, to: number): Promise<{ queued: number }> {
  return ctx.withTransaction(async () => {
    const endpoint = await endpointRow(ctx, userId, endpointId);
    if (!endpoint.active) throw badRequest("The webhook is disabled: enable it before sending deliveries again");
    if (to < from) throw badRequest("'to' must not be before 'from'");
    const rows = await ctx.records.$rows<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'failed' AND created_at BETWEEN ? AND ? ORDER BY created_at LIMIT ?`,
      [endpointId, from, to, MAX_REDELIVER],
    );
    let queued = 0;
    for (const row of rows) if (await requeue(ctx, row)) queued++;
    return { queued };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Attempts

/** Seconds of a Retry-After header (seconds or an HTTP date), or null. */
function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER) : null;
}

/**
 * The start of a receiver's answer, read no further than RESPONSE_KEPT bytes, then the rest cancelled: a receiver
 * answering without end (up to 64 attempts at once) must not fill the server's memory.
 */
async function readKept(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_KEPT) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } catch {
    // A receiver that broke off mid-answer: what came is kept.
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, RESPONSE_KEPT)).slice(0, RESPONSE_KEPT);
}

type Attempt = { status: number | null; body: string | null; hidden: boolean; error: string | null; latencyMs: number; retryAfter: number | null };

async function attempt(ctx: AppContext, endpoint: EndpointRow, delivery: DeliveryRow): Promise<Attempt> {
  const started = performance.now();
  const now = ctx.now();
  try {
    const target = await resolveTarget(endpoint.url, await networkPolicy(ctx));
    const timestamp = Math.floor(now / 1000);
    const signatures = [sign(openSecret(ctx, endpoint.secret), delivery.id, timestamp, delivery.payload)];
    if (endpoint.previous_secret && (endpoint.previous_secret_until ?? 0) > now) {
      signatures.push(sign(openSecret(ctx, endpoint.previous_secret), delivery.id, timestamp, delivery.payload));
    }
    const { url, init } = pinnedRequest(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "smsdesk-webhooks",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatures.join(" "),
      },
      body: delivery.payload,
      signal: AbortSignal.timeout(TIMEOUT),
    });
    const res = await fetch(url, init);
    const text = await readKept(res);
    return { status: res.status, body: text, hidden: !target.public, error: null, latencyMs: Math.round(performance.now() - started), retryAfter: retryAfterMs(res.headers.get("retry-after"), now) };
  } catch (err) {
    return { status: null, body: null, hidden: false, error: (err as Error)?.message ?? String(err), latencyMs: Math.round(performance.now() - started), retryAfter: null };
  }
}

async function disableEndpoint(ctx: AppContext, endpoint: EndpointRow, reason: string) {
  await ready(ctx.db);
  await ctx.records.$run(`UPDATE webhook_endpoints SET active = 0, disabled_reason = ?, updated_at = ? WHERE id = ?`, [reason, ctx.now(), endpoint.id]);
  const owner = await findUserById(ctx, endpoint.user_id);
  if (!owner) return;
  await ctx.mailer
    .send({
      to: owner.email,
      subject: `Your webhook "${endpoint.name}" was disabled`,
      text: `smsdesk disabled the webhook "${endpoint.name}" (${endpoint.url}): ${reason}\n\nNo event is lost: the deliveries are kept. Enable the webhook in Integrations > Webhooks, then send the failed deliveries again from its delivery log.`,
      purpose: "webhook-disabled",
    })
    .catch((err) => ctx.log(`webhooks: could not tell ${owner.email} that a webhook was disabled: ${(err as Error)?.message ?? err}`));
}

/** One attempt of a delivery, then its record and the next step: done, the next retry, or failed for good. */
async function deliver(ctx: AppContext, deliveryId: string): Promise<{ result: unknown; runAgainAt?: number }> {
  await ready(ctx.db);
  const [delivery] = await ctx.records.$rows<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE id = ?`, [deliveryId]);
  const [endpoint] = delivery ? await ctx.records.$rows<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE id = ?`, [delivery.endpoint_id]) : [];
  if (!delivery || !endpoint || delivery.status !== "pending") return { result: "gone" };
  if (!endpoint.active) {
    // Kept with its payload: sent again from the log once the endpoint is enabled.
    await ctx.records.$run(`UPDATE webhook_deliveries SET status = 'failed', error = ? WHERE id = ?`, ["The webhook is disabled", deliveryId]);
    return { result: "endpoint disabled" };
  }
  const a = await attempt(ctx, endpoint, delivery);
  await ready(ctx.db);
  const now = ctx.now();
  const attempts = delivery.attempts + 1;
  const ok = a.status !== null && a.status >= 200 && a.status < 300;
  const error = ok ? null : a.error ?? (a.status! >= 300 && a.status! < 400 ? `Redirect ${a.status} not followed` : `HTTP ${a.status}`);
  const more = !ok && a.status !== 410 && attempts < RETRY_SCHEDULE.length;
  await ctx.records.$run(
    `UPDATE webhook_deliveries SET status = ?, attempts = ?, response_status = ?, response_body = ?, response_hidden = ?, error = ?, latency_ms = ?,
       last_attempt_at = ? WHERE id = ?`,
    [ok ? "succeeded" : more ? "pending" : "failed", attempts, a.status, a.body, a.hidden ? 1 : 0, error, a.latencyMs, now, deliveryId],
  );
  if (ok) {
    await ctx.records.$run(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?`, [endpoint.id]);
    return { result: { status: a.status, attempts } };
  }
  const failingSince = endpoint.failing_since ?? now;
  if (endpoint.failing_since === null) await ctx.records.$run(`UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?`, [now, endpoint.id]);
  if (a.status === 410) await disableEndpoint(ctx, endpoint, "the endpoint answered 410 Gone");
  else if (now - failingSince >= DISABLE_AFTER) await disableEndpoint(ctx, endpoint, "every delivery failed for 5 days");
  if (!more) return { result: { status: a.status, attempts, error } };
  return { result: { status: a.status, attempts, error }, runAgainAt: now + Math.max(RETRY_SCHEDULE[attempts]!, a.retryAfter ?? 0) };
}

/**
 * Feeds deliveries when events commit, a page per turn of the event loop until the backlog is gone; registers the
 * feed's safety-net job and the delivery jobs, and queues the former once per installation (it puts itself back).
 */
export async function startOutboundWebhooks(ctx: AppContext) {
  let scheduled = false;
  let stopped = false;
  const wake = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    // The next turn, not this microtask: the request whose transaction appended the events is answered first, and a
    // burst of commits in one turn makes one page.
    setImmediate(() => void run());
  };
  const run = async () => {
    scheduled = false;
    if (stopped) return;
    try {
      // The page is a transaction of its own (ctx.withTransaction waits its turn): its cursor move never commits or
      // rolls back with someone else's work.
      if ((await feedDeliveries(ctx)).more) wake();
    } catch (err) {
      ctx.log(`webhooks: feed: ${(err as Error)?.stack ?? err}`);
    }
  };
  onEventsCommitted(ctx, wake, CURSOR);
  ctx.onStop.unshift(() => {
    stopped = true;
    onEventsCommitted(ctx, null, CURSOR);
  });
  registerJobHandler(
    ctx,
    FEED,
    async () => {
      // One page here, the rest a page per turn as above. Leased, not in the runner's pass: the page is a
      // transaction of its own, and a second run (a lease run out) reads on from the cursor the first moved.
      if ((await feedDeliveries(ctx)).more) wake();
      return { runAgainAt: ctx.now() + FEED_EVERY };
    },
    { maxAttempts: Infinity, firstDelayMs: FEED_EVERY },
  );
  // Retries are the handler's own (Svix's schedule, answered as runAgainAt); a throw is a bug, retried by the jobs
  // table's back-off. The lease covers one attempt and its timeout: a delivery waiting for a slot is not claimed.
  registerJobHandler(ctx, DELIVER, (_ctx, job) => deliver(ctx, job.payload.deliveryId as string), {
    leaseMs: TIMEOUT + MINUTE,
    maxAttempts: 20,
    concurrency: { total: ATTEMPTS_IN_FLIGHT, perRef: ATTEMPTS_PER_ENDPOINT, perUser: ATTEMPTS_PER_ACCOUNT, fairShare: true },
  });
  await enqueueJob(ctx, { kind: FEED, key: FEED, runAt: ctx.now() });
  wake();
}
