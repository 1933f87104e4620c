import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { errorFromStatus, providerFetch, retryAfterMs, trimBase, type ProviderResponse } from "./http";
import {
  ProviderError,
  WebhookRejected,
  type AdapterOptions,
  type AvailableNumber,
  type OutboundMessage,
  type ProviderAdapter,
  type ProviderStatus,
  type SendResult,
  type WebhookEvent,
  type WebhookParseResult,
  type WebhookRequest,
  type SentLookupResult,
  type RegistrationQuery,
} from "./types";

/** Telnyx's own SDK refuses webhooks signed more than this far from now; so do we, against replays. */
export const TELNYX_WEBHOOK_TOLERANCE_S = 300;

/** The largest page /v2/phone_numbers serves. */
const PAGE_SIZE = 250;

/** Telnyx error codes that decide the kind whatever the HTTP status (developers.telnyx.com/api/errors). */
const AUTH_FAILED = "10009";
const TOO_MANY_REQUESTS = "10011";
const BLOCKED_BY_STOP = "40300";
/** Messaging codes (40001 not routable, 40310 invalid 'to'...): the message itself is refused, retrying cannot help. */
const MESSAGING_CODE = /^40\d{3}$/;

type TelnyxError = { code?: unknown; title?: unknown; detail?: unknown };

const str = (value: unknown): string | null => (typeof value === "string" && value ? value : null);
const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const firstOf = (value: unknown): Record<string, unknown> => record(Array.isArray(value) ? value[0] : undefined);

function firstError(body: unknown): TelnyxError {
  return firstOf(record(body).errors);
}

/** x-ratelimit-reset is the seconds until the window reopens; used when Telnyx sends no Retry-After. */
function rateLimitDelayMs(headers: Headers): number | null {
  const fromRetryAfter = retryAfterMs(headers);
  if (fromRetryAfter !== null) return fromRetryAfter;
  const reset = headers.get("x-ratelimit-reset");
  const seconds = Number(reset);
  return reset && Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * 1000)) : null;
}

/** The first error of Telnyx's `{errors:[{code, title, detail}]}` envelope, as the ProviderError the engine acts on. */
export function telnyxError(res: ProviderResponse): ProviderError {
  const error = firstError(res.body);
  const code = error.code === undefined || error.code === null ? `HTTP ${res.status}` : String(error.code);
  const message = str(error.detail) ?? str(error.title) ?? `Telnyx answered HTTP ${res.status}`;
  const status = res.status;
  if (code === BLOCKED_BY_STOP) return new ProviderError("opted_out", code, message, status);
  if (status === 429 || code === TOO_MANY_REQUESTS)
    return new ProviderError("rate_limited", code, message, status, rateLimitDelayMs(res.headers));
  if (status >= 500) return errorFromStatus(res, code, message);
  if (status === 401 || code === AUTH_FAILED) return new ProviderError("auth", code, message, status);
  if (MESSAGING_CODE.test(code)) return new ProviderError("permanent", code, message, status);
  return errorFromStatus(res, code, message);
}

/** A recipient status (`to[].status`) in our words; null for one we do not know. */
export function mapTelnyxStatus(status: unknown): ProviderStatus | null {
  switch (status) {
    case "queued":
    case "sending":
      return "queued";
    case "sent":
      return "sent";
    case "delivered":
      return "delivered";
    case "sending_failed":
    case "delivery_failed":
    case "delivery_unconfirmed":
    case "expired":
      return "failed";
    default:
      return null;
  }
}

/** The 32-byte key Mission Control shows, base64, as a key node:crypto can verify with; null when it is not one. */
function ed25519PublicKey(base64: string | undefined): KeyObject | null {
  const raw = Buffer.from(base64 ?? "", "base64");
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  } catch {
    return null;
  }
}

function verifySignature(request: WebhookRequest, key: KeyObject | null): void {
  const signature = request.headers.get("telnyx-signature-ed25519");
  const timestamp = request.headers.get("telnyx-timestamp");
  if (!signature || !timestamp) throw new WebhookRejected("Missing telnyx-signature-ed25519 or telnyx-timestamp header");
  if (!key) throw new WebhookRejected("The account's Telnyx public key is not a base64 Ed25519 key");
  if (!/^\d+$/.test(timestamp)) throw new WebhookRejected("The telnyx-timestamp header is not a unix time");
  if (Math.abs(request.now / 1000 - Number(timestamp)) > TELNYX_WEBHOOK_TOLERANCE_S) {
    throw new WebhookRejected("The webhook timestamp is too far from now");
  }
  let valid = false;
  try {
    valid = verify(null, Buffer.from(`${timestamp}|${request.rawBody}`), key, Buffer.from(signature, "base64"));
  } catch {
    valid = false;
  }
  if (!valid) throw new WebhookRejected("Invalid telnyx-signature-ed25519");
}

function eventFrom(body: Record<string, unknown>): WebhookEvent | null {
  const data = record(body.data);
  const payload = record(data.payload);
  const id = str(payload.id);
  if (!id) return null;
  switch (data.event_type) {
    case "message.received": {
      const from = str(record(payload.from).phone_number);
      const to = str(firstOf(payload.to).phone_number);
      if (!from || !to) return null;
      const media = (Array.isArray(payload.media) ? payload.media : []).map((m) => str(record(m).url)).filter((u) => u !== null);
      return {
        type: "inbound",
        providerMessageId: id,
        from,
        to,
        body: str(payload.text) ?? "",
        ...(media.length ? { media } : {}),
      };
    }
    case "message.sent":
      return { type: "status", providerMessageId: id, status: "sent", errorCode: null, errorMessage: null };
    case "message.finalized": {
      const status = mapTelnyxStatus(firstOf(payload.to).status);
      if (!status) return null;
      const error = status === "failed" ? firstOf(payload.errors) : {};
      const errorCode = error.code === undefined || error.code === null ? null : String(error.code);
      return { type: "status", providerMessageId: id, status, errorCode, errorMessage: str(error.detail) ?? str(error.title) };
    }
    default:
      return null;
  }
}

export function createTelnyxAdapter(
  credentials: { apiKey: string; publicKey: string },
  options: AdapterOptions,
): ProviderAdapter {
  const base = trimBase(options.baseUrl);
  // A malformed key must not stop sending; it only makes every webhook fail verification.
  const webhookKey = ed25519PublicKey(credentials.publicKey);

  async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await providerFetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${credentials.apiKey}`,
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: options.timeoutMs,
    });
    if (res.status < 200 || res.status >= 300) throw telnyxError(res);
    return record(res.body);
  }

  return {
    kind: "telnyx",
    webhookAuth: "signature",
    async registrations(numbers: RegistrationQuery[]) {
      const { readTelnyxRegistrations } = await import("./telnyx-registration");
      return readTelnyxRegistrations((path) => call("GET", path), numbers);
    },

    async send(message: OutboundMessage): Promise<SendResult> {
      const answer = await call("POST", "/v2/messages", {
        from: message.from,
        to: message.to,
        text: message.body,
        ...(message.mediaUrls?.length ? { media_urls: message.mediaUrls, type: "MMS" } : {}),
        webhook_url: message.statusCallbackUrl,
        // Without this, reports go to the messaging profile's URL instead of the one that names this account.
        use_profile_webhooks: false,
      });
      const data = record(answer.data);
      const id = str(data.id);
      // Telnyx accepted something it did not name: resending could text the recipient twice.
      if (!id) throw new ProviderError("permanent", null, "Telnyx accepted the message but answered without a message id");
      const parts = Number(data.parts);
      return {
        providerMessageId: id,
        status: mapTelnyxStatus(firstOf(data.to).status) ?? "queued",
        ...(Number.isInteger(parts) && parts > 0 ? { segments: parts } : {}),
      };
    },

    async findSent(): Promise<SentLookupResult> {
      return { kind: "cannot_tell", reason: "Telnyx offers no way to search sent messages (only to fetch one by the id it answered, which never reached us)" };
    },

    async listNumbers(): Promise<AvailableNumber[]> {
      const numbers: AvailableNumber[] = [];
      for (let page = 1; ; page++) {
        const answer = await call("GET", `/v2/phone_numbers?page[number]=${page}&page[size]=${PAGE_SIZE}`);
        const rows = Array.isArray(answer.data) ? answer.data.map(record) : [];
        for (const row of rows) {
          const phoneNumber = str(row.phone_number);
          // Numbers being bought, ported or released are listed too, but cannot send yet (or any more).
          if (!phoneNumber || (row.status !== undefined && row.status !== "active")) continue;
          numbers.push({
            phoneNumber,
            displayName: str(row.customer_reference) ?? phoneNumber,
            // Telnyx sends from any number attached to a messaging profile; the rest cannot send until one is set.
            capabilities: str(row.messaging_profile_id) ? ["sms"] : [],
          });
        }
        const totalPages = Number(record(answer.meta).total_pages);
        if (!rows.length || !Number.isFinite(totalPages) || page >= totalPages) return numbers;
      }
    },

    async testConnection(): Promise<string> {
      const data = record((await call("GET", "/v2/balance")).data);
      const balance = Number(data.balance);
      const currency = str(data.currency) ?? "";
      if (!Number.isFinite(balance)) return "Connected to Telnyx";
      return `Balance ${balance.toFixed(2)} ${currency}`.trim();
    },

    parseWebhook(request: WebhookRequest): WebhookParseResult {
      verifySignature(request, webhookKey);
      let body: unknown;
      try {
        body = JSON.parse(request.rawBody);
      } catch {
        throw new WebhookRejected("The webhook body is not valid JSON");
      }
      if (!body || typeof body !== "object" || Array.isArray(body))
        throw new WebhookRejected("The webhook body is not a JSON object");
      const event = eventFrom(body as Record<string, unknown>);
      return { events: event ? [event] : [] };
    },
  };
}
