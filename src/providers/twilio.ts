import type RequestClient from "twilio/lib/base/RequestClient";
import { DEFAULT_TIMEOUT_MS, errorFromStatus, retryAfterMs, trimBase } from "./http";
import {
  ProviderError,
  WebhookRejected,
  type AdapterOptions,
  type AvailableNumber,
  type OutboundMessage,
  type ProviderAdapter,
  type ProviderStatus,
  type RegistrationQuery,
  type SendResult,
  type SentLookup,
  type SentLookupResult,
  type SentMatch,
  type WebhookEvent,
  type WebhookParseResult,
  type WebhookRequest,
} from "./types";

export const TWILIO_API_ORIGIN = "https://api.twilio.com";

export const TWIML_EMPTY_RESPONSE = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const loadSdk = async () => (await import("twilio")).default;
type Sdk = Awaited<ReturnType<typeof loadSdk>>;
type SdkResponse = Awaited<ReturnType<RequestClient["request"]>>;
type Client = ReturnType<Sdk>;

let sdkPromise: Promise<Sdk> | undefined;

/** Importing the SDK costs about 200 ms, so the server loads it on the first Twilio call, not at start. */
function sdk(): Promise<Sdk> {
  sdkPromise ??= loadSdk().catch((err) => {
    sdkPromise = undefined;
    throw err;
  });
  return sdkPromise;
}

const transports = new Map<string, RequestClient>();

/**
 * One transport per API base and timeout, shared by every adapter so connections are reused. The SDK has no
 * base-URL option, so the transport rewrites the API origin of each request to the configured base.
 * autoRetry stays off: the sending engine owns retries and backoff.
 */
function transportFor(twilio: Sdk, baseUrl: string, timeoutMs: number): RequestClient {
  const base = trimBase(baseUrl);
  const key = `${base} ${timeoutMs}`;
  let transport = transports.get(key);
  if (!transport) {
    class RebasedRequestClient extends twilio.RequestClient {
      override request<TData>(opts: RequestClient.RequestOptions<TData>) {
        const uri = opts.uri.startsWith(TWILIO_API_ORIGIN) ? base + opts.uri.slice(TWILIO_API_ORIGIN.length) : opts.uri;
        return super.request({ ...opts, uri });
      }
    }
    transport = new RebasedRequestClient({ timeout: timeoutMs, autoRetry: false });
    transports.set(key, transport);
  }
  return transport;
}

function networkError(err: unknown): ProviderError {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  // An answer that timed out may follow a message Twilio accepted: code "timeout" tells the engine not to resend.
  if (code === "ECONNABORTED") return new ProviderError("transient", "timeout", "The Twilio API timed out");
  const reason = code === "ETIMEDOUT" ? "timed out while connecting" : `could not be reached (${message ?? err})`;
  return new ProviderError("transient", "network", `The Twilio API ${reason}`);
}

function toHeaders(raw: SdkResponse["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (typeof value === "string" || typeof value === "number") headers.set(name, String(value));
  }
  return headers;
}

/**
 * The SDK's RestException (and its RFC 9457 variant) carries status, code and message but drops the response
 * headers, so the caller passes the headers of the answer that failed (for Retry-After).
 */
function errorFromSdk(err: unknown, headers: Headers): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = (err ?? {}) as { status?: unknown; code?: unknown; message?: string; detail?: string; title?: string };
  if (typeof e.status !== "number") return new ProviderError("permanent", null, e.message || String(err));
  const status = e.status;
  const code = e.code ? String(e.code) : `HTTP ${status}`;
  const message = e.detail || e.message || e.title || `Twilio answered HTTP ${status}`;
  if (code === "20429") return new ProviderError("rate_limited", code, message, status, retryAfterMs(headers));
  if (code === "21610") return new ProviderError("opted_out", code, message, status);
  if (code === "20003") return new ProviderError("auth", code, message, status);
  return errorFromStatus({ status, headers, body: null, text: "" }, code, message);
}

/** Twilio's message statuses in our words; null for those that say nothing about an outbound message. */
export function mapTwilioStatus(status: string | undefined): ProviderStatus | null {
  switch (status) {
    case "accepted":
    case "scheduled":
    case "queued":
    case "sending":
      return "queued";
    case "sent":
      return "sent";
    case "delivered":
    case "read":
    case "partially_delivered":
      return "delivered";
    case "undelivered":
    case "failed":
    case "canceled":
      return "failed";
    default:
      return null;
  }
}

/** Titles of the delivery error codes a status callback carries most often (twilio.com/docs/api/errors). */
const DELIVERY_ERRORS: Record<string, string> = {
  "21610": "Recipient has opted out",
  "30001": "Queue overflow",
  "30002": "Account suspended",
  "30003": "Unreachable destination handset",
  "30004": "Message blocked",
  "30005": "Unknown destination handset",
  "30006": "Landline or unreachable carrier",
  "30007": "Message filtered",
  "30008": "Unknown error",
  "30009": "Missing segment",
  "30010": "Message price exceeds max price",
  "30032": "Toll-free number has not been verified",
  "30034": "Message from an unregistered number",
};

const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

/** Twilio's clock and ours may differ: a message's date_created is compared with the window this much wider. */
const LOOKUP_SKEW_MS = 60_000;
/** Pages of a recipient's history read at most (newest first) before the lookup gives up as "cannot tell". */
const LOOKUP_PAGES = 5;
const LOOKUP_PAGE_SIZE = 100;

type Params = Record<string, string | string[]>;

function formParams(rawBody: string): Params {
  const params: Params = {};
  for (const [key, value] of new URLSearchParams(rawBody)) {
    const seen = params[key];
    params[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return params;
}

function jsonParams(rawBody: string): Params {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new WebhookRejected("The webhook body is not valid JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new WebhookRejected("The webhook body is not a JSON object");
  const params: Params = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== null && value !== undefined) params[key] = typeof value === "object" ? JSON.stringify(value) : String(value);
  }
  return params;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function eventFrom(params: Params): WebhookEvent | null {
  const get = (name: string) => first(params[name]);
  const messageSid = get("MessageSid") ?? get("SmsSid") ?? get("SmsMessageSid") ?? "";
  const messageStatus = get("MessageStatus");
  // Inbound messages carry SmsStatus=received (and sometimes MessageStatus=received); only outbound ones are reports.
  if (messageStatus && messageStatus !== "received" && messageStatus !== "receiving") {
    const status = mapTwilioStatus(messageStatus);
    if (!status || !messageSid) return null;
    const errorCode = get("ErrorCode") || null;
    const errorMessage = get("ErrorMessage") || (errorCode ? (DELIVERY_ERRORS[errorCode] ?? null) : null);
    return { type: "status", providerMessageId: messageSid, status, errorCode, errorMessage };
  }
  const from = get("From");
  const to = get("To");
  if (!from || !to || !messageSid) return null;
  const media: string[] = [];
  const numMedia = Number(get("NumMedia") ?? 0);
  for (let i = 0; i < numMedia; i++) {
    const url = get(`MediaUrl${i}`);
    if (url) media.push(url);
  }
  return {
    type: "inbound",
    providerMessageId: messageSid,
    from,
    to,
    body: get("Body") ?? "",
    ...(media.length ? { media } : {}),
  };
}

export function createTwilioAdapter(
  credentials: { accountSid: string; authToken: string },
  options: AdapterOptions,
): ProviderAdapter {
  const { accountSid, authToken } = credentials;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  /**
   * Runs one SDK operation with a client of its own, whose httpClient keeps the headers of the last answer:
   * the SDK's exceptions drop them, and a shared recorder would mix up concurrent sends.
   */
  async function call<T>(operation: (client: Client) => Promise<T>): Promise<T> {
    const twilio = await sdk();
    const transport = transportFor(twilio, options.baseUrl, timeoutMs);
    let lastHeaders = new Headers();
    const recorder = {
      async request<TData>(opts: RequestClient.RequestOptions<TData>) {
        let response: SdkResponse;
        try {
          response = await transport.request(opts);
        } catch (err) {
          throw networkError(err);
        }
        lastHeaders = toHeaders(response.headers);
        return response;
      },
    };
    try {
      // The SDK only ever calls request() on its httpClient.
      const client = twilio(accountSid, authToken, {
        httpClient: recorder as RequestClient,
        autoRetry: false,
        timeout: timeoutMs,
      });
      return await operation(client);
    } catch (err) {
      throw errorFromSdk(err, lastHeaders);
    }
  }

  return {
    kind: "twilio",
    async prepare() {
      // The SDK also loads its API modules on first use: touch the messages resource now, not on the first paced send.
      const twilio = await sdk();
      void twilio(accountSid, authToken, { autoRetry: false }).messages;
    },
    webhookAuth: "signature",

    // Twilio's media URLs answer the account's Basic auth; the credentials go only to Twilio's API origin (or the
    // configured base), never to another host a URL might name.
    fetchMedia(url: string, signal: AbortSignal) {
      const target = new URL(url);
      const trusted = new Set([new URL(TWILIO_API_ORIGIN).origin, new URL(trimBase(options.baseUrl)).origin]);
      const headers: Record<string, string> = trusted.has(target.origin)
        ? { authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}` }
        : {};
      return fetch(target, { headers, signal });
    },

    async send(message: OutboundMessage): Promise<SendResult> {
      const sender = MESSAGING_SERVICE_SID.test(message.from) ? { messagingServiceSid: message.from } : { from: message.from };
      const created = await call((client) =>
        client.messages.create({
          to: message.to,
          body: message.body,
          statusCallback: message.statusCallbackUrl,
          // The SDK repeats the MediaUrl key once per URL, as Twilio's API takes them.
          ...(message.mediaUrls?.length ? { mediaUrl: message.mediaUrls } : {}),
          ...sender,
        }),
      );
      const segments = Number.parseInt(created.numSegments, 10);
      return {
        providerMessageId: created.sid,
        status: mapTwilioStatus(created.status) ?? "queued",
        ...(Number.isFinite(segments) && segments > 0 ? { segments } : {}),
      };
    },

    /**
     * Twilio keeps no reference of ours, so the lookup reads the messages from our sender to the recipient
     * (GET Messages.json?To=&From=, newest first) and keeps those with our body created in the window. No DateSent
     * filter: a message Twilio accepted but still holds in its queue has no sent date yet and would be missed.
     * The list is sorted by sent date, newest first, so a page reaching sends older than the window is the last.
     */
    async findSent(lookup: SentLookup): Promise<SentLookupResult> {
      const viaService = MESSAGING_SERVICE_SID.test(lookup.from);
      const from = lookup.after - LOOKUP_SKEW_MS;
      const until = lookup.before + LOOKUP_SKEW_MS;
      return call(async (client) => {
        const matches: SentMatch[] = [];
        type Page = { instances: Awaited<ReturnType<Client["messages"]["page"]>>["instances"]; nextPage(): Promise<Page> | undefined };
        let page: Page = await client.messages.page({ to: lookup.to, ...(viaService ? {} : { from: lookup.from }), pageSize: LOOKUP_PAGE_SIZE });
        for (let read = 1; ; read++) {
          let older = false;
          for (const m of page.instances) {
            const created = m.dateCreated?.getTime() ?? Number.NaN;
            if ((m.dateSent?.getTime() ?? created) < from) older = true;
            if (!(created >= from && created <= until) || !m.direction?.startsWith("outbound") || m.body !== lookup.body) continue;
            if (viaService && m.messagingServiceSid !== lookup.from) continue;
            matches.push({ providerMessageId: m.sid, status: mapTwilioStatus(m.status) ?? "queued" });
          }
          const next = older ? undefined : page.nextPage();
          if (!next) return { kind: "matches", matches };
          if (read === LOOKUP_PAGES) {
            return { kind: "cannot_tell", reason: `Twilio holds more than ${LOOKUP_PAGES * LOOKUP_PAGE_SIZE} recent messages to this recipient to look through` };
          }
          page = await next;
        }
      });
    },

    async listNumbers(): Promise<AvailableNumber[]> {
      const numbers = await call((client) => client.incomingPhoneNumbers.list({ pageSize: 1000 }));
      return numbers.map((n) => ({
        phoneNumber: n.phoneNumber,
        displayName: n.friendlyName || n.phoneNumber,
        capabilities: (["sms", "mms", "voice"] as const).filter((c) => n.capabilities?.[c]),
      }));
    },

    async testConnection(): Promise<string> {
      const account = await call((client) => client.api.v2010.accounts(accountSid).fetch());
      const name = account.friendlyName || account.sid;
      if (account.status === "active") return `Account '${name}' is active`;
      throw new ProviderError(
        "auth",
        null,
        `Twilio account '${name}' is ${account.status}: it cannot send messages until it is reactivated in the Twilio Console`,
      );
    },

    async registrations(numbers: RegistrationQuery[]) {
      // Plain REST calls: the messaging API lives on another host than the SDK's transport rewrites.
      const { readTwilioRegistrations } = await import("./twilio-registration");
      return readTwilioRegistrations(credentials, options.baseUrl, numbers, timeoutMs);
    },

    async parseWebhook(request: WebhookRequest): Promise<WebhookParseResult> {
      const signature = request.headers.get("x-twilio-signature");
      if (!signature) throw new WebhookRejected("Missing X-Twilio-Signature header");
      const twilio = await sdk();
      let bodyHash: string | null;
      try {
        bodyHash = new URL(request.url).searchParams.get("bodySHA256");
      } catch {
        throw new WebhookRejected("The webhook URL is not a valid URL");
      }
      // Twilio signs JSON bodies by hashing them into the URL (bodySHA256) and signing that URL with no params.
      const params = bodyHash === null ? formParams(request.rawBody) : null;
      let valid: boolean;
      try {
        valid = params
          ? twilio.validateRequest(authToken, signature, request.url, params)
          : twilio.validateRequestWithBody(authToken, signature, request.url, request.rawBody);
      } catch {
        valid = false;
      }
      if (!valid) throw new WebhookRejected("Invalid X-Twilio-Signature");
      const event = eventFrom(params ?? jsonParams(request.rawBody));
      return { events: event ? [event] : [], reply: { body: TWIML_EMPTY_RESPONSE, contentType: "text/xml" } };
    },
  };
}
