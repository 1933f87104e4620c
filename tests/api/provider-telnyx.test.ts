import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTelnyxAdapter } from "../../src/providers/telnyx";
import { ProviderError, WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
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

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

function webhook(rawBody: string, headers: Record<string, string>, now = NOW): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers(headers), contentType: "application/json", now };
}

/** A webhook signed by the fake's key at NOW (or `at`, unix seconds). */
function signed(event: unknown, at = NOW_S) {
  const { body, headers } = fake.webhook(event, at);
  return webhook(body, headers);
}

async function rejected(result: () => unknown): Promise<unknown> {
  try {
    await result();
    return null;
  } catch (err) {
    return err;
  }
}

describe("send", () => {
  test("posts JSON to /v2/messages with the Bearer key, and answers the message id", async () => {
    const before = fake.requests.length;
    const result = await adapter.send(message("+14155551234"));

    expect(fake.requests.length - before).toBe(1);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/v2/messages", authorization: `Bearer ${fake.apiKey}` });
    expect(request.contentType).toStartWith("application/json");
    expect(request.json).toEqual({
      from: SENDER,
      to: "+14155551234",
      text: "Hello from Acme",
      webhook_url: CALLBACK,
      use_profile_webhooks: false,
    });
    const sent = fake.messages.at(-1)!;
    expect(result).toEqual({ providerMessageId: sent.id, status: "queued", segments: 1 });
  });

  test("reports the parts Telnyx counted", async () => {
    const result = await adapter.send(message("+14155551235", "x".repeat(200)));
    expect(result.segments).toBe(2);
  });

  test("a base URL with a trailing slash still reaches the API", async () => {
    const slashed = createTelnyxAdapter(fake.credentials, { baseUrl: `${fake.url}/` });
    await slashed.send(message("+14155551236"));
    expect(fake.requests.at(-1)!.path).toBe("/v2/messages");
  });
});

describe("numbers and connection", () => {
  test("lists the active numbers across every page, sms only with a messaging profile", async () => {
    const before = fake.requests.length;
    const numbers = await adapter.listNumbers();

    expect(numbers).toEqual([
      { phoneNumber: SENDER, displayName: "Main line", capabilities: ["sms"] },
      { phoneNumber: "+14155550101", displayName: "+14155550101", capabilities: ["sms"] },
      { phoneNumber: "+14155550102", displayName: "Voice only", capabilities: [] },
      { phoneNumber: "+18005550104", displayName: "Toll-free", capabilities: ["sms"] },
    ]);
    const pages = fake.requests.slice(before);
    expect(pages.map((r) => [r.method, r.path, r.query["page[number]"], r.query["page[size]"]])).toEqual([
      ["GET", "/v2/phone_numbers", "1", "250"],
      ["GET", "/v2/phone_numbers", "2", "250"],
      ["GET", "/v2/phone_numbers", "3", "250"],
    ]);
    expect(pages.every((r) => r.authorization === `Bearer ${fake.apiKey}`)).toBe(true);
  });

  test("an account without numbers lists none", async () => {
    const empty = await startTelnyxFake();
    try {
      expect(await createTelnyxAdapter(empty.credentials, { baseUrl: empty.url }).listNumbers()).toEqual([]);
    } finally {
      empty.stop();
    }
  });

  test("test connection reads the balance", async () => {
    expect(await adapter.testConnection()).toBe("Balance 12.50 USD");
    expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: "/v2/balance", authorization: `Bearer ${fake.apiKey}` });
  });
});

describe("errors", () => {
  test("429 is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
    fake.failNextRequests(1, { status: 429, retryAfter: 7, rateLimitReset: 30 });
    const before = fake.requests.length;
    const err = await providerError(adapter.send(message("+14155552001")));

    expect(err).toMatchObject({ kind: "rate_limited", code: "10011", httpStatus: 429, retryAfterMs: 7000 });
    expect(err.message).toBe("You have exceeded the maximum number of allowed requests.");
    expect(err.retryable).toBe(true);
    expect(fake.requests.length - before).toBe(1);
  });

  test("429 without Retry-After waits for x-ratelimit-reset, or leaves the delay to the engine", async () => {
    fake.failNextRequests(1, { status: 429, rateLimitReset: 12 });
    expect(await providerError(adapter.send(message("+14155552002")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 12_000,
    });
    fake.failNextRequests(1, { status: 429 });
    expect(await providerError(adapter.send(message("+14155552002")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: null,
    });
  });

  test("500 is transient, on any call", async () => {
    fake.failNextRequests(3, { status: 500 });
    for (const attempt of [adapter.send(message("+14155552003")), adapter.listNumbers(), adapter.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "transient", code: "10007", httpStatus: 500 });
    }
  });

  test("an invalid number is permanent and keeps Telnyx's code and detail", async () => {
    const err = await providerError(adapter.send(message("+1415")));
    expect(err).toMatchObject({ kind: "permanent", code: "40310", httpStatus: 400 });
    expect(err.message).toBe("The 'to' address should be a single valid number.");
    expect(err.retryable).toBe(false);
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
      expect(err.message).toContain("replied STOP");
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

  test("a wrong API key is an auth error (10009) on every call", async () => {
    const wrong = createTelnyxAdapter({ apiKey: "KEYwrong", publicKey: fake.publicKey }, { baseUrl: fake.url });
    for (const attempt of [wrong.send(message("+14155552008")), wrong.listNumbers(), wrong.testConnection()]) {
      const err = await providerError(attempt);
      expect(err).toMatchObject({ kind: "auth", code: "10009", httpStatus: 401 });
      expect(err.message).toBe("The required authentication headers were either invalid or not included in the request.");
    }
    expect(fake.requests.at(-1)!.authorization).toBe("Bearer KEYwrong");
  });

  test("an unreachable API is transient", async () => {
    const gone = await startTelnyxFake();
    gone.stop();
    const err = await providerError(createTelnyxAdapter(gone.credentials, { baseUrl: gone.url }).send(message("+14155552009")));
    expect(err).toMatchObject({ kind: "transient", code: "network" });
  });

  test("an API slower than the timeout is transient", async () => {
    const slow = await startTelnyxFake({ delayMs: 1500, numbers: [{ phoneNumber: SENDER, messagingProfileId: "mp_1" }] });
    try {
      const started = Date.now();
      const err = await providerError(
        createTelnyxAdapter(slow.credentials, { baseUrl: slow.url, timeoutMs: 200 }).send(message("+14155552010")),
      );
      expect(err).toMatchObject({ kind: "transient", code: "timeout" });
      expect(Date.now() - started).toBeLessThan(1400);
    } finally {
      slow.stop();
    }
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

  test("a signed body that is not JSON is rejected", async () => {
    const body = "not json";
    const err = await rejected(() => adapter.parseWebhook(webhook(body, signTelnyxWebhook(fake.privateKey, body, NOW_S))));
    expect(err).toBeInstanceOf(WebhookRejected);
  });

  test("a forged, altered, unsigned or replayed webhook is rejected", async () => {
    const event = telnyxFinalizedEvent({ id: MESSAGE_ID, from: SENDER, to: "+14155551234", status: "delivered" });
    const good = fake.webhook(event, NOW_S);
    const forged = signedTelnyxWebhook(generateTelnyxKeyPair().privateKey, event, NOW_S);
    const { "telnyx-signature-ed25519": _signature, ...noSignature } = good.headers;
    const { "telnyx-timestamp": _timestamp, ...noTimestamp } = good.headers;
    const stale = fake.webhook(event, NOW_S - 301);
    const attempts: [string, WebhookRequest][] = [
      ["forged with another key", webhook(forged.body, forged.headers)],
      ["body changed after signing", webhook(good.body.replace("delivered", "delivery_failed"), good.headers)],
      ["timestamp changed after signing", webhook(good.body, { ...good.headers, "telnyx-timestamp": String(NOW_S + 1) })],
      ["missing signature", webhook(good.body, noSignature)],
      ["missing timestamp", webhook(good.body, noTimestamp)],
      ["garbage signature", webhook(good.body, { ...good.headers, "telnyx-signature-ed25519": "bm90IGEgc2lnbmF0dXJl" })],
      ["replayed 301 s later", webhook(stale.body, stale.headers)],
      ["timestamp 301 s ahead", webhook(good.body, good.headers, NOW - 301_000)],
    ];
    for (const [name, attempt] of attempts) {
      const err = await rejected(() => adapter.parseWebhook(attempt));
      expect({ name, rejected: err instanceof WebhookRejected }).toEqual({ name, rejected: true });
    }
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

  test("webhookAuth is signature", () => {
    expect(adapter.webhookAuth).toBe("signature");
    expect(adapter.kind).toBe("telnyx");
  });
});
