import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTextMagicAdapter } from "../../src/providers/textmagic";
import type { ProviderAdapter, WebhookRequest } from "../../src/providers/types";
import { providerContract, providerError } from "../support/provider-contract";
import {
  startTextMagicFake,
  textMagicDelivery,
  textMagicInbound,
  textMagicWebhook,
  type TextMagicCallbackFormat,
  type TextMagicFake,
} from "../support/fakes/textmagic";

const SENDER = "+447860021130";
const CALLBACK = "https://sms.example.com/api/webhooks/textmagic/sms/usr_1?key=secret";
const NOW = Date.parse("2025-06-01T12:00:00Z");

let fake: TextMagicFake;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startTextMagicFake({
    maxPageSize: 2,
    balance: 12.5,
    numbers: [SENDER, "+447860021131", "+447860021132", "+15005550100", "+15005550101"],
  });
  adapter = createTextMagicAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

const message = (to: string, body = "Hello from Acme", from = SENDER) => ({
  to,
  from,
  body,
  statusCallbackUrl: CALLBACK,
  reference: "msg_1",
});

function webhook(rawBody: string, contentType: string): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers({ "content-type": contentType }), contentType, now: NOW };
}

async function parse(payload: Record<string, unknown>, format: TextMagicCallbackFormat = "json") {
  const { body, headers } = await textMagicWebhook(payload, format);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
}

providerContract<TextMagicFake>({
  kind: "textmagic",
  webhookAuth: "url-secret",
  current: () => ({ fake, adapter }),
  start: (options) => startTextMagicFake(options),
  connect: (f, options) => createTextMagicAdapter(f.credentials, { baseUrl: f.url, ...options }),
  // A wrong key, and a wrong username.
  connectWrong: (f) =>
    [
      { apiKey: f.username, apiSecret: "wrong" },
      { apiKey: "someone", apiSecret: f.apiKey },
    ].map((credentials) => createTextMagicAdapter(credentials, { baseUrl: f.url })),
  message: (to, body) => message(to, body),
  recipient: (i) => `+4477009002${String(i).padStart(2, "0")}`,
  failNext: (f, count, failure) => f.failNextRequests(count, failure),
  send: {
    path: () => "/api/v2/messages",
    request: (f) => ({ method: "POST", username: f.username, key: f.apiKey }),
    contentType: "application/json",
    payload: (r) => r.body,
    expectedPayload: (to) => ({ text: "Hello from Acme", phones: to.slice(1), from: "447860021130" }),
    result: (f) => ({ providerMessageId: String(f.messages.at(-1)!.id), status: "queued" }),
    countsSegments: false,
  },
  connection: {
    message: "Balance 12.50 USD",
    request: (f) => ({ method: "GET", path: "/api/v2/user", username: f.username, key: f.apiKey }),
  },
  listing: {
    numbers: [SENDER, "+447860021131", "+447860021132", "+15005550100", "+15005550101"].map((phoneNumber) => ({
      phoneNumber,
      displayName: phoneNumber,
      capabilities: ["sms"],
    })),
    page: (r) => [r.method, r.path, r.query.page, r.query.limit],
    pages: () => ["1", "2", "3"].map((page) => ["GET", "/api/v2/numbers", page, "100"]),
    authorized: (r, f) => r.username === f.username && r.key === f.apiKey,
  },
  errors: {
    rateLimited: { code: "429", retryAfter: 7, message: "Too Many Requests" },
    serverErrorCalls: ["send", "listNumbers", "testConnection"],
    serverErrorCode: "500",
    invalidNumber: {
      to: "+4477",
      code: "400",
      httpStatus: 400,
      message: "Validation Failed: phones: 4477 is not a valid phone number.",
    },
    authCalls: ["send", "listNumbers", "testConnection"],
    auth: { code: "401", httpStatus: 401, message: "Unauthorized" },
    timeoutMessage: "The provider API timed out",
  },
  webhooks: {
    rejected: () => [
      ["not json", webhook("not json", "application/json")],
      ["a JSON array", webhook("[]", "application/json")],
      ["multipart without its boundary", webhook("garbage without boundary", "multipart/form-data; boundary=nothing-here")],
    ],
  },
});

describe("send", () => {
  test("the message id is the message's, not its session's", async () => {
    const result = await adapter.send(message("+447700900001"));
    const sent = fake.messages.at(-1)!;
    expect(sent.id).not.toBe(sent.sessionId);
    expect(result.providerMessageId).toBe(String(sent.id));
  });

  test("an alphanumeric sender goes as it is", async () => {
    await adapter.send(message("+447700900002", "Hi", "Acme"));
    expect(fake.requests.at(-1)!.body).toMatchObject({ from: "Acme", phones: "447700900002" });
  });
});

describe("errors", () => {
  test("a recipient TextMagic refuses is permanent with its reason", async () => {
    fake.rejectRecipient("+447700900005", "The number is on the unsubscribed list.");
    const err = await providerError(adapter.send(message("+447700900005")));
    expect(err).toMatchObject({ kind: "permanent", code: "400" });
    expect(err.message).toBe("Validation Failed: phones: The number is on the unsubscribed list.");
  });
});

describe("webhooks", () => {
  test("an inbound message becomes an inbound event in E.164, in every callback format", async () => {
    const payload = textMagicInbound({ id: 1782832, sender: "+447700900123", receiver: SENDER, text: "STOP please" });
    for (const format of ["json", "form", "multipart"] as const) {
      expect({ format, events: await parse(payload, format) }).toEqual({
        format,
        events: [{ type: "inbound", providerMessageId: "1782832", from: "+447700900123", to: SENDER, body: "STOP please" }],
      });
    }
  });

  test("delivery letters map to our statuses, in every callback format", async () => {
    const cases = [
      ["q", "queued"],
      ["s", "queued"],
      ["r", "sent"],
      ["a", "sent"],
      ["b", "sent"],
      ["d", "delivered"],
    ] as const;
    for (const format of ["json", "form", "multipart"] as const) {
      for (const [letter, status] of cases) {
        expect(await parse(textMagicDelivery({ id: 49575710, receiver: "+447700900001", status: letter }), format)).toEqual([
          { type: "status", providerMessageId: "49575710", status, errorCode: null, errorMessage: null },
        ]);
      }
    }
  });

  test("f, e and j are failures carrying the letter", async () => {
    const cases = [
      ["f", "Delivery error"],
      ["e", "Send error"],
      ["j", "Rejected by the mobile operator"],
    ] as const;
    for (const [letter, errorMessage] of cases) {
      expect(await parse(textMagicDelivery({ id: 49575711, receiver: "+447700900001", status: letter }))).toEqual([
        { type: "status", providerMessageId: "49575711", status: "failed", errorCode: letter, errorMessage },
      ]);
    }
  });

  test("an unknown status (u) and unrelated payloads change nothing", async () => {
    expect(await parse(textMagicDelivery({ id: 49575712, receiver: "+447700900001", status: "u" }))).toEqual([]);
    expect(await parse({ ping: "pong" })).toEqual([]);
  });
});
