/**
 * A local stand-in for Brevo's REST API v3 (POST /v3/transactionalSMS/sms, GET /v3/account), plus helpers that
 * build the transactional SMS webhook Brevo posts (unsigned JSON), for adapter and end-to-end tests.
 *
 *   const fake = await startBrevoFake({ smsCredits: 250 });
 *   const adapter = createBrevoAdapter(fake.credentials, { baseUrl: fake.url });
 *   fake.failNextRequests(2, { status: 429, retryAfter: 3 });
 *   fake.rejectRecipient("+33612345678", "invalid_parameter");
 *   const { body, headers } = fake.webhook(brevoSmsEvent({ messageId: 123, to: "+33612345678", event: "delivered" }));
 *   afterAll(() => fake.stop());
 */
import { randomBytes, randomUUID } from "node:crypto";
import { SegmentedMessage } from "sms-segments-calculator";
import { readJsonRequest } from "./json-request";

export type BrevoFakeRequest = {
  method: string;
  /** Path without the query, e.g. /v3/transactionalSMS/sms */
  path: string;
  query: Record<string, string>;
  /** The api-key header as sent. */
  apiKey: string | null;
  contentType: string | null;
  /** The body parsed as JSON; null when empty or not JSON. */
  json: unknown;
};

export type BrevoFakeMessage = {
  messageId: number;
  sender: string;
  recipient: string;
  content: string;
  type: string | null;
  webUrl: string | null;
  unicodeEnabled: boolean | null;
  smsCount: number;
};

export type BrevoFakeOptions = {
  apiKey?: string;
  /** Credits of the account's "sms" plan; a send that costs more answers 402 not_enough_credits. */
  smsCredits?: number;
  /** Omit the "sms" plan from /v3/account (an account that never bought SMS credits). */
  withoutSmsPlan?: boolean;
  delayMs?: number;
};

type BrevoErrorBody = { code: string; message: string };

/** Refusals a recipient can be answered with: Brevo's `{code, message}` and the HTTP status it comes with. */
export const BREVO_REFUSALS = {
  invalid_parameter: { status: 400, code: "invalid_parameter", message: "Invalid phone number" },
  not_enough_credits: { status: 402, code: "not_enough_credits", message: "Not enough credits to send the SMS" },
} as const;

export type BrevoRefusal = keyof typeof BREVO_REFUSALS;

const brevoError = (status: number, error: BrevoErrorBody, headers?: Record<string, string>) =>
  Response.json(error, { status, headers });

/** Brevo's rule for `sender`: up to 11 alphanumeric characters, or up to 15 digits. */
const VALID_SENDER = /^(?:[A-Za-z0-9 ]{1,11}|\d{1,15})$/;

export type BrevoEventName =
  | "sent"
  | "accepted"
  | "delivered"
  | "replied"
  | "softBounce"
  | "soft_bounce"
  | "hardBounce"
  | "hard_bounce"
  | "subscribe"
  | "unsubscribe"
  | "skip"
  | "rejected"
  | "blocked";

/**
 * One transactional SMS webhook event as Brevo posts it (`msg_status`; `event` instead when `eventField` says so).
 * `to` is the contact's number, which Brevo gives without '+'. A "replied" event carries the reply in `reply`.
 */
export function brevoSmsEvent(p: {
  messageId: number | string;
  to: string;
  event: BrevoEventName;
  date?: string;
  reply?: string;
  replyField?: "reply" | "text" | "content";
  eventField?: "msg_status" | "event";
  reference?: string;
}) {
  return {
    id: 1234,
    to: p.to.replace(/^\+/, ""),
    sms_count: 1,
    credits_used: 1,
    messageId: p.messageId,
    remaining_credit: 249,
    [p.eventField ?? "msg_status"]: p.event,
    date: p.date ?? "2025-06-01 14:00:00",
    type: "sms",
    reference: p.reference ?? randomUUID(),
    tag: "",
    ...(p.reply === undefined ? {} : { [p.replyField ?? "reply"]: p.reply }),
  };
}

/** A webhook request Brevo would post: unsigned JSON (the account's secret is in the URL). */
export function brevoWebhook(event: unknown) {
  return { body: JSON.stringify(event), headers: { "content-type": "application/json" } };
}

export async function startBrevoFake(opts: BrevoFakeOptions = {}) {
  const apiKey = opts.apiKey ?? `xkeysib-${randomBytes(32).toString("hex")}-${randomBytes(8).toString("hex")}`;
  const account = { smsCredits: opts.smsCredits ?? 250 };
  const requests: BrevoFakeRequest[] = [];
  const messages: BrevoFakeMessage[] = [];
  const refused = new Map<string, BrevoRefusal>();
  const failures: { status: 429 | 500; retryAfter: number | null; rateLimitReset: number | null }[] = [];
  let nextMessageId = 1_000_000 + Math.floor(Math.random() * 1_000_000);

  function failure(): Response | null {
    const next = failures.shift();
    if (!next) return null;
    if (next.status === 500) return brevoError(500, { code: "internal_error", message: "Internal server error" });
    const headers: Record<string, string> = { "x-sib-ratelimit-limit": "150", "x-sib-ratelimit-remaining": "0" };
    if (next.retryAfter !== null) headers["Retry-After"] = String(next.retryAfter);
    if (next.rateLimitReset !== null) headers["x-sib-ratelimit-reset"] = String(next.rateLimitReset);
    return brevoError(429, { code: "too_many_requests", message: "The expected rate limit is exceeded." }, headers);
  }

  function sendSms(json: unknown): Response {
    const body = json && typeof json === "object" ? (json as Record<string, unknown>) : {};
    const missing = ["sender", "recipient", "content"].find((f) => typeof body[f] !== "string" || !body[f]);
    if (missing) return brevoError(400, { code: "missing_parameter", message: `${missing} is missing` });
    const sender = body.sender as string;
    const recipient = body.recipient as string;
    const content = body.content as string;
    if (!VALID_SENDER.test(sender)) {
      return brevoError(400, {
        code: "invalid_parameter",
        message: "sender should be at most 11 alphanumeric characters or 15 digits",
      });
    }
    // Brevo takes the number with its country code; the '+' is not part of it.
    if (!/^[1-9]\d{6,14}$/.test(recipient)) return brevoError(400, BREVO_REFUSALS.invalid_parameter);
    const refusal = refused.get(recipient);
    if (refusal) {
      const { status, ...error } = BREVO_REFUSALS[refusal];
      return brevoError(status, error);
    }
    const smsCount = new SegmentedMessage(content).segmentsCount;
    if (smsCount > account.smsCredits) {
      const { status, ...error } = BREVO_REFUSALS.not_enough_credits;
      return brevoError(status, error);
    }
    account.smsCredits -= smsCount;
    const message: BrevoFakeMessage = {
      messageId: nextMessageId++,
      sender,
      recipient,
      content,
      type: typeof body.type === "string" ? body.type : null,
      webUrl: typeof body.webUrl === "string" ? body.webUrl : null,
      unicodeEnabled: typeof body.unicodeEnabled === "boolean" ? body.unicodeEnabled : null,
      smsCount,
    };
    messages.push(message);
    return Response.json(
      {
        reference: randomUUID(),
        messageId: message.messageId,
        smsCount,
        usedCredits: smsCount,
        remainingCredits: account.smsCredits,
      },
      { status: 201 },
    );
  }

  function accountInfo(): Response {
    const plan: Record<string, unknown>[] = [{ type: "free", credits: 300, creditsType: "sendLimit" }];
    if (!opts.withoutSmsPlan) plan.push({ type: "sms", credits: account.smsCredits, creditsType: "sendLimit" });
    return Response.json({
      email: "owner@acme.example",
      firstName: "Ada",
      lastName: "Owner",
      companyName: "Acme",
      address: { street: "1 Main St", city: "Paris", zipCode: "75001", country: "France" },
      plan,
      relay: { enabled: true, data: { userName: "owner@acme.example", relay: "smtp-relay.brevo.com", port: 587 } },
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const recorded = await readJsonRequest(req);
      const json = recorded.json;
      const sentKey = req.headers.get("api-key");
      requests.push({ ...recorded, apiKey: sentKey });
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      const failed = failure();
      if (failed) return failed;
      if (sentKey !== apiKey) return brevoError(401, { code: "unauthorized", message: "Key not found" });
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /v3/transactionalSMS/sms") {
        if (!req.headers.get("content-type")?.startsWith("application/json")) {
          return brevoError(400, { code: "bad_request", message: "Content-Type must be application/json" });
        }
        return sendSms(json);
      }
      if (route === "GET /v3/account") return accountInfo();
      return brevoError(404, { code: "document_not_found", message: "Invalid route" });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    apiKey,
    /** What an adapter needs to talk to this fake. */
    credentials: { apiKey },
    account,
    requests,
    messages,
    /**
     * The next `count` requests (any endpoint) answer 429 (with Retry-After and x-sib-ratelimit-reset when given)
     * or 500.
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
    /** Sends to `to` (E.164, with or without '+') answer this refusal. */
    rejectRecipient(to: string, refusal: BrevoRefusal) {
      refused.set(to.replace(/^\+/, ""), refusal);
    },
    /** The webhook Brevo would post for `event`. */
    webhook(event: unknown) {
      return brevoWebhook(event);
    },
    stop() {
      server.stop(true);
    },
  };
}

export type BrevoFake = Awaited<ReturnType<typeof startBrevoFake>>;
