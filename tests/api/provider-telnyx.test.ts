import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTelnyxAdapter } from "../../src/providers/telnyx";
import { WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
import { providerContract, providerError, rejection as rejected } from "../support/provider-contract";
import {
  generateTelnyxKeyPair,
  signedTelnyxWebhook,
  signTelnyxWebhook,
  startTelnyxFake,
  telnyxFinalizedEvent,
  telnyxReceivedEvent,
  telnyxSentEvent,
  type TelnyxFake,
} from "../support/fakes/telnyx";

const SENDER = "+14155550100";
const CALLBACK = "https://sms.example.com/api/webhooks/telnyx/sms/usr_1";
const NOW = Date.parse("2025-06-01T12:00:00Z");
const NOW_S = NOW / 1000;
const MESSAGE_ID = "40385f64-5717-4562-b3fc-2c963f66afa6";

let fake: TelnyxFake;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startTelnyxFake({
    balance: "12.5",
    maxPageSize: 2,
    numbers: [
      { phoneNumber: SENDER, messagingProfileId: "mp_1", customerReference: "Main line" },
      { phoneNumber: "+14155550101", messagingProfileId: "mp_1" },
      { phoneNumber: "+14155550102", customerReference: "Voice only" },
      { phoneNumber: "+14155550103", messagingProfileId: "mp_1", status: "port-pending" },
      { phoneNumber: "+18005550104", messagingProfileId: "mp_2", customerReference: "Toll-free" },
    ],
  });
  adapter = createTelnyxAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

const message = (to: string, body = "Hello from Acme", from = SENDER) => ({
  to,
  from,
  body,
  statusCallbackUrl: CALLBACK,
  reference: "msg_1",
});

function webhook(rawBody: string, headers: Record<string, string>, now = NOW): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers(headers), contentType: "application/json", now };
}

/** A webhook signed by the fake's key at NOW (or `at`, unix seconds). */
function signed(event: unknown, at = NOW_S) {
  const { body, headers } = fake.webhook(event, at);
  return webhook(body, headers);
}

providerContract<TelnyxFake>({
  kind: "telnyx",
  webhookAuth: "signature",
  current: () => ({ fake, adapter }),
  start: ({ delayMs } = {}) =>
    startTelnyxFake(delayMs ? { delayMs, numbers: [{ phoneNumber: SENDER, messagingProfileId: "mp_1" }] } : {}),
  connect: (f, options) => createTelnyxAdapter(f.credentials, { baseUrl: f.url, ...options }),
  connectWrong: (f) => [createTelnyxAdapter({ apiKey: "KEYwrong", publicKey: f.publicKey }, { baseUrl: f.url })],
  message: (to, body) => message(to, body),
  recipient: (i) => `+141555560${String(i).padStart(2, "0")}`,
  // A 429 with Retry-After also carries a later x-ratelimit-reset: the Retry-After wins.
  failNext: (f, count, { status, retryAfter }) =>
    f.failNextRequests(count, retryAfter === undefined ? { status } : { status, retryAfter, rateLimitReset: 30 }),
  send: {
    path: () => "/v2/messages",
    request: (f) => ({ method: "POST", authorization: `Bearer ${f.apiKey}` }),
    contentType: "application/json",
    payload: (r) => r.json,
    expectedPayload: (to) => ({ from: SENDER, to, text: "Hello from Acme", webhook_url: CALLBACK, use_profile_webhooks: false }),
    result: (f) => ({ providerMessageId: f.messages.at(-1)!.id, status: "queued", segments: 1 }),
    countsSegments: true,
  },
  connection: {
    message: "Balance 12.50 USD",
    request: (f) => ({ method: "GET", path: "/v2/balance", authorization: `Bearer ${f.apiKey}` }),
  },
  listing: {
    // Active numbers only, sms only with a messaging profile.
    numbers: [
      { phoneNumber: SENDER, displayName: "Main line", capabilities: ["sms"] },
      { phoneNumber: "+14155550101", displayName: "+14155550101", capabilities: ["sms"] },
      { phoneNumber: "+14155550102", displayName: "Voice only", capabilities: [] },
      { phoneNumber: "+18005550104", displayName: "Toll-free", capabilities: ["sms"] },
    ],
    page: (r) => [r.method, r.path, r.query["page[number]"], r.query["page[size]"]],
    pages: () => ["1", "2", "3"].map((page) => ["GET", "/v2/phone_numbers", page, "250"]),
    authorized: (r, f) => r.authorization === `Bearer ${f.apiKey}`,
  },
  errors: {
    rateLimited: { code: "10011", retryAfter: 7, message: "You have exceeded the maximum number of allowed requests." },
    serverErrorCalls: ["send", "listNumbers", "testConnection"],
    serverErrorCode: "10007",
    invalidNumber: { to: "+1415", code: "40310", httpStatus: 400, message: "The 'to' address should be a single valid number." },
    authCalls: ["send", "listNumbers", "testConnection"],
    auth: {
      code: "10009",
      httpStatus: 401,
      message: "The required authentication headers were either invalid or not included in the request.",
    },
    afterWrongCredentials: (f) => expect(f.requests.at(-1)!.authorization).toBe("Bearer KEYwrong"),
    timeoutMessage: "The provider API timed out",
  },
  webhooks: {
    rejected: (f) => {
      const event = telnyxFinalizedEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234", status: "delivered" });
      const good = f.webhook(event, NOW_S);
      const forged = signedTelnyxWebhook(generateTelnyxKeyPair().privateKey, event, NOW_S);
      const { "telnyx-signature-ed25519": _signature, ...noSignature } = good.headers;
      const { "telnyx-timestamp": _timestamp, ...noTimestamp } = good.headers;
      const stale = f.webhook(event, NOW_S - 301);
      return [
        ["forged with another key", webhook(forged.body, forged.headers)],
        ["body changed after signing", webhook(good.body.replace("delivered", "delivery_failed"), good.headers)],
        ["timestamp changed after signing", webhook(good.body, { ...good.headers, "telnyx-timestamp": String(NOW_S + 1) })],
        ["missing signature", webhook(good.body, noSignature)],
        ["missing timestamp", webhook(good.body, noTimestamp)],
        ["garbage signature", webhook(good.body, { ...good.headers, "telnyx-signature-ed25519": "bm90IGEgc2lnbmF0dXJl" })],
        ["replayed 301 s later", webhook(stale.body, stale.headers)],
        ["timestamp 301 s ahead", webhook(good.body, good.headers, NOW - 301_000)],
        ["a signed body that is not JSON", webhook("not json", signTelnyxWebhook(f.privateKey, "not json", NOW_S))],
      ];
    },
  },
});

describe("send", () => {
});

describe("numbers and connection", () => {
});

describe("errors", () => {
  test("429 without Retry-After waits for x-ratelimit-reset", async () => {
    fake.failNextRequests(1, { status: 429, rateLimitReset: 12 });
    expect(await providerError(adapter.send(message("+14155552002")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 12_000,
    });
  });

  test("a sender the account cannot send from is permanent", async () => {
    const err = await providerError(adapter.send(message("+14155552004", "Hi", "+14155550102")));
    expect(err).toMatchObject({ kind: "permanent", code: "40305", httpStatus: 400 });
  });

  test("a recipient blocked by STOP (40300) is opted_out, whatever the HTTP status", async () => {
    fake.rejectRecipient("+14155552005", 40300);
    fake.rejectRecipient("+14155552006", 40300, 403);
    for (const to of ["+14155552005", "+14155552006"]) {
      const err = await providerError(adapter.send(message(to)));
      expect(err).toMatchObject({ kind: "opted_out", code: "40300" });
      expect(err.message).toBe("Messages cannot be sent to this recipient: they replied STOP to this messaging profile.");
    }
  });

  test("a recipient refused as an invalid address (40310) is permanent, even on a 403", async () => {
    fake.rejectRecipient("+14155552007", 40310, 403);
    expect(await providerError(adapter.send(message("+14155552007")))).toMatchObject({
      kind: "permanent",
      code: "40310",
      httpStatus: 403,
    });
  });

});

describe("webhooks", () => {
  test("an inbound message becomes an inbound event with its media", async () => {
    const event = telnyxReceivedEvent({
      id: MESSAGE_ID,
      from: "+14155559876",
      to: SENDER,
      text: "STOP please",
      media: ["https://media.telnyx.com/1.jpg", "https://media.telnyx.com/2.jpg"],
    });
    const result = await adapter.parseWebhook(signed(event));

    expect(result.events).toEqual([
      {
        type: "inbound",
        providerMessageId: MESSAGE_ID,
        from: "+14155559876",
        to: SENDER,
        body: "STOP please",
        media: ["https://media.telnyx.com/1.jpg", "https://media.telnyx.com/2.jpg"],
      },
    ]);
  });

  test("an inbound text without media has no media field", async () => {
    const { events } = await adapter.parseWebhook(
      signed(telnyxReceivedEvent({ id: MESSAGE_ID, from: "+14155559876", to: SENDER, text: "Hi" })),
    );
    expect(events).toEqual([{ type: "inbound", providerMessageId: MESSAGE_ID, from: "+14155559876", to: SENDER, body: "Hi" }]);
  });

  test("message.sent is a sent status", async () => {
    const { events } = await adapter.parseWebhook(signed(telnyxSentEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234" })));
    expect(events).toEqual([
      { type: "status", providerMessageId: MESSAGE_ID, status: "sent", errorCode: null, errorMessage: null },
    ]);
  });

  test("message.finalized maps the recipient status, and a failure carries Telnyx's error", async () => {
    const cases = [
      ["delivered", "delivered", undefined],
      ["delivery_failed", "failed", { code: "40001", title: "Not routable", detail: "The destination is a landline." }],
      ["sending_failed", "failed", { code: "40300", title: "Blocked due to STOP message", detail: "" }],
      ["expired", "failed", { code: "40005", title: "Message expired", detail: "Message expired during transmission." }],
      ["delivery_unconfirmed", "failed", undefined],
    ] as const;
    for (const [telnyxStatus, status, error] of cases) {
      const event = telnyxFinalizedEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234", status: telnyxStatus, error });
      const { events } = await adapter.parseWebhook(signed(event));
      expect(events).toEqual([
        {
          type: "status",
          providerMessageId: MESSAGE_ID,
          status,
          errorCode: error?.code ?? null,
          errorMessage: error ? error.detail || error.title : null,
        },
      ]);
    }
  });

  test("other event types are acknowledged with no events", async () => {
    const event = { data: { event_type: "number_order.complete", id: "evt_1", payload: { id: "ord_1" }, record_type: "event" } };
    expect(await adapter.parseWebhook(signed(event))).toEqual({ events: [] });
  });

  test("a webhook signed by the account's key within 300 s is accepted", async () => {
    const event = telnyxFinalizedEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234", status: "delivered" });
    const good = fake.webhook(event, NOW_S);
    const withinWindow = fake.webhook(event, NOW_S - 299);
    expect((await adapter.parseWebhook(webhook(withinWindow.body, withinWindow.headers))).events).toHaveLength(1);
    expect((await adapter.parseWebhook(webhook(good.body, good.headers))).events).toHaveLength(1);
  });

  test("an account whose public key is missing or malformed rejects every webhook but still sends", async () => {
    const event = telnyxSentEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234" });
    for (const publicKey of ["", "not-base64-key", Buffer.from("short").toString("base64")]) {
      const keyless = createTelnyxAdapter({ apiKey: fake.apiKey, publicKey }, { baseUrl: fake.url });
      expect(await rejected(() => keyless.parseWebhook(signed(event)))).toBeInstanceOf(WebhookRejected);
      expect((await keyless.send(message("+14155553001"))).status).toBe("queued");
    }
  });
});
