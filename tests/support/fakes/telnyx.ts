/**
 * A local stand-in for Telnyx's REST API v2 (/v2/messages, /v2/phone_numbers, /v2/balance), plus helpers that
 * sign webhooks the way Telnyx does (Ed25519 over `${timestamp}|${body}`), for adapter and end-to-end tests.
 *
 *   const fake = await startTelnyxFake({ numbers: [{ phoneNumber: "+14155550100", messagingProfileId: "mp_1" }] });
 *   const adapter = createTelnyxAdapter(fake.credentials, { baseUrl: fake.url });
 *   fake.failNextRequests(2, { status: 429, retryAfter: 3 });
 *   fake.rejectRecipient("+14155550199", 40300);
 *   const { body, headers } = fake.webhook(telnyxReceivedEvent({ from: "+14155550199", to: "+14155550100", text: "STOP" }));
 *   afterAll(() => fake.stop());
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from "node:crypto";
import { SegmentedMessage } from "sms-segments-calculator";
import { readJsonRequest } from "./json-request";

export type TelnyxFakeNumber = {
  phoneNumber: string;
  /** Numbers attached to a messaging profile can send; null or absent: the number has none. */
  messagingProfileId?: string | null;
  customerReference?: string;
  /** Telnyx's number status (active, purchase-pending, port-pending, deleted...); default active. */
  status?: string;
};

export type TelnyxFakeRequest = {
  method: string;
  /** Path without the query, e.g. /v2/messages */
  path: string;
  /** The query, decoded: { "page[number]": "2", "page[size]": "250" }. */
  query: Record<string, string>;
  /** The Authorization header as sent. */
  authorization: string | null;
  contentType: string | null;
  /** The body parsed as JSON; null when empty or not JSON. */
  json: unknown;
};

export type TelnyxFakeMessage = {
  id: string;
  from: string;
  to: string;
  text: string;
  webhookUrl: string | null;
  useProfileWebhooks: boolean | null;
  parts: number;
};

export type TelnyxFakeOptions = {
  apiKey?: string;
  /** The webhook signing key pair; a fresh one by default. */
  keyPair?: TelnyxKeyPair;
  numbers?: TelnyxFakeNumber[];
  /** What /v2/balance answers, as Telnyx does: decimal strings. */
  balance?: string;
  currency?: string;
  /** The largest page /v2/phone_numbers serves, whatever page[size] asks (Telnyx: 250). */
  maxPageSize?: number;
  /** Delay before every answer, to exercise client timeouts. */
  delayMs?: number;
};

/** Codes a recipient can be refused with at send time: blocked after a STOP, invalid 'to' address. */
export type TelnyxRecipientError = 40300 | 40310;

type ErrorBody = { code: string; title: string; detail: string };

const RECIPIENT_ERRORS: Record<TelnyxRecipientError, ErrorBody> = {
  40300: {
    code: "40300",
    title: "Blocked due to STOP message",
    detail: "Messages cannot be sent to this recipient: they replied STOP to this messaging profile.",
  },
  40310: { code: "40310", title: "Invalid 'to' address", detail: "The 'to' address should be a single valid number." },
};

const AUTH_FAILED: ErrorBody = {
  code: "10009",
  title: "Authentication failed",
  detail: "The required authentication headers were either invalid or not included in the request.",
};

function telnyxError(status: number, error: ErrorBody, headers?: Record<string, string>) {
  const body = { errors: [{ ...error, meta: { url: `https://developers.telnyx.com/api/errors/${error.code}` } }] };
  return Response.json(body, { status, headers });
}

export type TelnyxKeyPair = {
  /** The public key as Mission Control shows it: base64 of the raw 32 bytes. */
  publicKey: string;
  privateKey: KeyObject;
};

export function generateTelnyxKeyPair(): TelnyxKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const x = publicKey.export({ format: "jwk" }).x!;
  return { publicKey: Buffer.from(x, "base64url").toString("base64"), privateKey };
}

/** The headers Telnyx sends with a webhook `body` signed at `timestamp` (unix seconds). */
export function signTelnyxWebhook(privateKey: KeyObject, body: string, timestamp: number = Math.floor(Date.now() / 1000)) {
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`), privateKey).toString("base64");
  return {
    "content-type": "application/json",
    "telnyx-signature-ed25519": signature,
    "telnyx-timestamp": String(timestamp),
  };
}

/** A webhook request, signed, ready to POST: `fetch(url, { method: "POST", ...signedTelnyxWebhook(...) })`. */
export function signedTelnyxWebhook(privateKey: KeyObject, event: unknown, timestamp?: number) {
  const body = JSON.stringify(event);
  return { body, headers: signTelnyxWebhook(privateKey, body, timestamp) };
}

function envelope(eventType: string, payload: Record<string, unknown>, occurredAt = new Date()) {
  return {
    data: { event_type: eventType, id: randomUUID(), occurred_at: occurredAt.toISOString(), payload, record_type: "event" },
    meta: { attempt: 1, delivered_to: "https://sms.example.com/api/webhooks/telnyx" },
  };
}

/** An inbound message webhook (`message.received`). */
export function telnyxReceivedEvent(p: { from: string; to: string; text: string; id?: string; media?: string[] }) {
  return envelope("message.received", {
    id: p.id ?? randomUUID(),
    record_type: "message",
    direction: "inbound",
    type: p.media?.length ? "MMS" : "SMS",
    messaging_profile_id: "mp_fake",
    from: { phone_number: p.from, carrier: "T-Mobile USA", line_type: "Wireless" },
    to: [{ phone_number: p.to, status: "webhook_delivered", carrier: "Telnyx", line_type: "Wireless" }],
    text: p.text,
    media: (p.media ?? []).map((url) => ({ url, content_type: "image/jpeg", size: 1024, hash_sha256: null })),
    parts: new SegmentedMessage(p.text).segmentsCount,
    received_at: new Date().toISOString(),
    errors: [],
  });
}

type OutboundEvent = { id: string; from: string; to: string; text?: string };

function outboundPayload(p: OutboundEvent, status: string, errors: ErrorBody[] = []) {
  return {
    id: p.id,
    record_type: "message",
    direction: "outbound",
    type: "SMS",
    messaging_profile_id: "mp_fake",
    from: { phone_number: p.from, carrier: "Telnyx", line_type: "Wireless" },
    to: [{ phone_number: p.to, status, carrier: "T-Mobile USA", line_type: "Wireless" }],
    text: p.text ?? "Hello",
    parts: 1,
    errors,
  };
}

/** The report Telnyx posts when the carrier took the message (`message.sent`). */
export function telnyxSentEvent(p: OutboundEvent) {
  return envelope("message.sent", outboundPayload(p, "sent"));
}

/** The terminal report (`message.finalized`), with the delivery error when it failed. */
export function telnyxFinalizedEvent(
  p: OutboundEvent & {
    status: "delivered" | "delivery_failed" | "sending_failed" | "expired" | "delivery_unconfirmed";
    error?: ErrorBody;
  },
) {
  return envelope("message.finalized", outboundPayload(p, p.status, p.error ? [p.error] : []));
}

export async function startTelnyxFake(opts: TelnyxFakeOptions = {}) {
  const apiKey = opts.apiKey ?? `KEY${randomBytes(16).toString("hex").toUpperCase()}`;
  const keyPair = opts.keyPair ?? generateTelnyxKeyPair();
  const numbers: (TelnyxFakeNumber & { id: string })[] = (opts.numbers ?? []).map((n) => ({
    ...n,
    id: String(1_000_000 + Math.floor(Math.random() * 9_000_000)),
  }));
  const balance = { balance: opts.balance ?? "12.50", currency: opts.currency ?? "USD" };
  const maxPageSize = opts.maxPageSize ?? 250;
  const requests: TelnyxFakeRequest[] = [];
  const messages: TelnyxFakeMessage[] = [];
  const refused = new Map<string, { code: TelnyxRecipientError; status: number }>();
  const failures: { status: 429 | 500; retryAfter: number | null; rateLimitReset: number | null }[] = [];

  function failure(): Response | null {
    const next = failures.shift();
    if (!next) return null;
    if (next.status === 500) {
      return telnyxError(500, { code: "10007", title: "Unexpected error", detail: "An unexpected error occured." });
    }
    const headers: Record<string, string> = { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0" };
    if (next.retryAfter !== null) headers["Retry-After"] = String(next.retryAfter);
    if (next.rateLimitReset !== null) headers["x-ratelimit-reset"] = String(next.rateLimitReset);
    return telnyxError(
      429,
      { code: "10011", title: "Too many requests", detail: "You have exceeded the maximum number of allowed requests." },
      headers,
    );
  }

  function sendMessage(json: unknown): Response {
    if (!json || typeof json !== "object") {
      return telnyxError(400, {
        code: "10015",
        title: "Bad Request",
        detail: "The request failed because it was not well-formed.",
      });
    }
    const body = json as Record<string, unknown>;
    const to = typeof body.to === "string" ? body.to : "";
    const from = typeof body.from === "string" ? body.from : "";
    const text = typeof body.text === "string" ? body.text : "";
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return telnyxError(400, RECIPIENT_ERRORS[40310]);
    const refusal = refused.get(to);
    if (refusal) return telnyxError(refusal.status, RECIPIENT_ERRORS[refusal.code]);
    const sender = numbers.find((n) => n.phoneNumber === from);
    if (!sender?.messagingProfileId) {
      return telnyxError(400, {
        code: "40305",
        title: "Invalid 'from' address",
        detail: "The 'from' address should be a number on your account with a messaging profile.",
      });
    }
    if (!text)
      return telnyxError(422, {
        code: "10004",
        title: "Missing required parameter",
        detail: "The 'text' parameter is required.",
      });
    const message: TelnyxFakeMessage = {
      id: randomUUID(),
      from,
      to,
      text,
      webhookUrl: typeof body.webhook_url === "string" ? body.webhook_url : null,
      useProfileWebhooks: typeof body.use_profile_webhooks === "boolean" ? body.use_profile_webhooks : null,
      parts: new SegmentedMessage(text).segmentsCount,
    };
    messages.push(message);
    const now = new Date();
    return Response.json({
      data: {
        record_type: "message",
        direction: "outbound",
        id: message.id,
        type: "SMS",
        messaging_profile_id: sender.messagingProfileId,
        organization_id: "org_fake",
        from: { phone_number: from, carrier: "Telnyx", line_type: "Wireless" },
        to: [{ phone_number: to, status: "queued", carrier: "T-Mobile USA", line_type: "Wireless" }],
        text,
        media: [],
        webhook_url: message.webhookUrl,
        webhook_failover_url: null,
        encoding: "GSM-7",
        parts: message.parts,
        tags: [],
        cost: null,
        received_at: now.toISOString(),
        sent_at: null,
        completed_at: null,
        valid_until: new Date(now.getTime() + 14_400_000).toISOString(),
        errors: [],
      },
    });
  }

  function listNumbers(query: URLSearchParams): Response {
    const size = Math.min(Math.max(Number(query.get("page[size]")) || 20, 1), maxPageSize);
    const page = Math.max(Number(query.get("page[number]")) || 1, 1);
    const slice = numbers.slice((page - 1) * size, page * size);
    return Response.json({
      data: slice.map((n) => ({
        id: n.id,
        record_type: "phone_number",
        phone_number: n.phoneNumber,
        status: n.status ?? "active",
        messaging_profile_id: n.messagingProfileId ?? null,
        messaging_profile_name: n.messagingProfileId ? "Fake profile" : null,
        customer_reference: n.customerReference ?? null,
        connection_id: null,
        tags: [],
        phone_number_type: "local",
        purchased_at: new Date(0).toISOString(),
      })),
      meta: { page_number: page, page_size: size, total_pages: Math.ceil(numbers.length / size), total_results: numbers.length },
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const recorded = await readJsonRequest(req);
      const json = recorded.json;
      const authorization = req.headers.get("authorization");
      requests.push({ ...recorded, authorization });
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      const failed = failure();
      if (failed) return failed;
      if (authorization !== `Bearer ${apiKey}`) return telnyxError(401, AUTH_FAILED);
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /v2/messages") return sendMessage(json);
      if (route === "GET /v2/phone_numbers") return listNumbers(url.searchParams);
      if (route === "GET /v2/balance") {
        return Response.json({
          data: {
            record_type: "balance",
            balance: balance.balance,
            credit_limit: "0.00",
            available_credit: balance.balance,
            pending: "0.00",
            currency: balance.currency,
          },
        });
      }
      return telnyxError(404, {
        code: "10005",
        title: "Resource not found",
        detail: "The requested resource or URL could not be found.",
      });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    apiKey,
    publicKey: keyPair.publicKey,
    privateKey: keyPair.privateKey,
    /** What an adapter needs to talk to this fake and verify its webhooks. */
    credentials: { apiKey, publicKey: keyPair.publicKey },
    balance,
    numbers,
    requests,
    messages,
    /**
     * The next `count` requests (any endpoint) answer 429 (code 10011, with Retry-After and x-ratelimit-reset when
     * given) or 500 (code 10007).
     */
    failNextRequests(count: number, failure: { status: 429 | 500; retryAfter?: number | null; rateLimitReset?: number | null }) {
      for (let i = 0; i < count; i++) {
        failures.push({
          status: failure.status,
          retryAfter: failure.retryAfter ?? null,
          rateLimitReset: failure.rateLimitReset ?? null,
        });
      }
    },
    /** Sends to `to` answer this Telnyx code (40300 blocked by STOP, 40310 invalid 'to'), with HTTP 400 unless told. */
    rejectRecipient(to: string, code: TelnyxRecipientError, httpStatus = 400) {
      refused.set(to, { code, status: httpStatus });
    },
    /** A webhook signed with this fake's key, as Telnyx would post it (timestamp in unix seconds, default now). */
    webhook(event: unknown, timestamp?: number) {
      return signedTelnyxWebhook(keyPair.privateKey, event, timestamp);
    },
    stop() {
      server.stop(true);
    },
  };
}

export type TelnyxFake = Awaited<ReturnType<typeof startTelnyxFake>>;
