import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTextMagicAdapter } from "../../src/providers/textmagic";
import { ProviderError, WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
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

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

function webhook(rawBody: string, contentType: string): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers({ "content-type": contentType }), contentType, now: NOW };
}

async function parse(payload: Record<string, unknown>, format: TextMagicCallbackFormat = "json") {
  const { body, headers } = await textMagicWebhook(payload, format);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
}

describe("send", () => {
  test("posts JSON to /api/v2/messages with X-TM-Username and X-TM-Key, and answers the message id", async () => {
    const before = fake.requests.length;
    const result = await adapter.send(message("+447700900001"));

    expect(fake.requests.length - before).toBe(1);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/api/v2/messages", username: fake.username, key: fake.apiKey });
    expect(request.contentType).toStartWith("application/json");
    expect(request.body).toEqual({ text: "Hello from Acme", phones: "447700900001", from: "447860021130" });
    const sent = fake.messages.at(-1)!;
    expect(sent.id).not.toBe(sent.sessionId);
    expect(result).toEqual({ providerMessageId: String(sent.id), status: "queued" });
  });

  test("an alphanumeric sender goes as it is", async () => {
    await adapter.send(message("+447700900002", "Hi", "Acme"));
    expect(fake.requests.at(-1)!.body).toMatchObject({ from: "Acme", phones: "447700900002" });
  });
});

describe("numbers and connection", () => {
  test("lists the account's numbers across every page, in E.164", async () => {
    const before = fake.requests.length;
    const numbers = await adapter.listNumbers();

    expect(numbers).toEqual(
      [SENDER, "+447860021131", "+447860021132", "+15005550100", "+15005550101"].map((phoneNumber) => ({
        phoneNumber,
        displayName: phoneNumber,
        capabilities: ["sms"],
      })),
    );
    const pages = fake.requests.slice(before);
    expect(pages.map((r) => [r.method, r.path, r.query.page, r.query.limit])).toEqual([
      ["GET", "/api/v2/numbers", "1", "100"],
      ["GET", "/api/v2/numbers", "2", "100"],
      ["GET", "/api/v2/numbers", "3", "100"],
    ]);
    expect(pages.every((r) => r.username === fake.username && r.key === fake.apiKey)).toBe(true);
  });

  test("an account without numbers lists none", async () => {
    const empty = await startTextMagicFake();
    try {
      expect(await createTextMagicAdapter(empty.credentials, { baseUrl: empty.url }).listNumbers()).toEqual([]);
    } finally {
      empty.stop();
    }
  });

  test("test connection reads the balance and its currency", async () => {
    expect(await adapter.testConnection()).toBe("Balance 12.50 USD");
    expect(fake.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/v2/user",
      username: fake.username,
      key: fake.apiKey,
    });
  });
});

describe("errors", () => {
  test("429 is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
    fake.failNextRequests(1, { status: 429, retryAfter: 7 });
    const before = fake.requests.length;
    const err = await providerError(adapter.send(message("+447700900003")));

    expect(err).toMatchObject({
      kind: "rate_limited",
      code: "429",
      httpStatus: 429,
      retryAfterMs: 7000,
      message: "Too Many Requests",
    });
    expect(err.retryable).toBe(true);
    expect(fake.requests.length - before).toBe(1);

    fake.failNextRequests(1, { status: 429 });
    expect(await providerError(adapter.send(message("+447700900003")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: null,
    });
  });

  test("500 is transient, on any call", async () => {
    fake.failNextRequests(3, { status: 500 });
    for (const attempt of [adapter.send(message("+447700900004")), adapter.listNumbers(), adapter.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "transient", code: "500", httpStatus: 500 });
    }
  });

  test("an invalid number is permanent, with the field TextMagic refused", async () => {
    const err = await providerError(adapter.send(message("+4477")));
    expect(err).toMatchObject({ kind: "permanent", code: "400", httpStatus: 400 });
    expect(err.message).toBe("Validation Failed: phones: 4477 is not a valid phone number.");
    expect(err.retryable).toBe(false);
  });

  test("a recipient TextMagic refuses is permanent with its reason", async () => {
    fake.rejectRecipient("+447700900005", "The number is on the unsubscribed list.");
    const err = await providerError(adapter.send(message("+447700900005")));
    expect(err).toMatchObject({ kind: "permanent", code: "400" });
    expect(err.message).toBe("Validation Failed: phones: The number is on the unsubscribed list.");
  });

  test("a wrong username or key is an auth error on every call", async () => {
    for (const credentials of [
      { apiKey: fake.username, apiSecret: "wrong" },
      { apiKey: "someone", apiSecret: fake.apiKey },
    ]) {
      const wrong = createTextMagicAdapter(credentials, { baseUrl: fake.url });
      for (const attempt of [wrong.send(message("+447700900006")), wrong.listNumbers(), wrong.testConnection()]) {
        expect(await providerError(attempt)).toMatchObject({
          kind: "auth",
          code: "401",
          httpStatus: 401,
          message: "Unauthorized",
        });
      }
    }
  });

  test("an unreachable or slow API is transient", async () => {
    const gone = await startTextMagicFake();
    gone.stop();
    expect(
      await providerError(createTextMagicAdapter(gone.credentials, { baseUrl: gone.url }).send(message("+447700900007"))),
    ).toMatchObject({ kind: "transient", code: "network" });

    const slow = await startTextMagicFake({ delayMs: 1500 });
    try {
      const err = await providerError(
        createTextMagicAdapter(slow.credentials, { baseUrl: slow.url, timeoutMs: 200 }).send(message("+447700900008")),
      );
      expect(err).toMatchObject({ kind: "transient", code: "timeout" });
    } finally {
      slow.stop();
    }
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

  test("an unreadable body is rejected", async () => {
    const attempts: [string, string][] = [
      ["not json", "application/json"],
      ["[]", "application/json"],
      ["garbage without boundary", "multipart/form-data; boundary=nothing-here"],
    ];
    for (const [body, type] of attempts) {
      const err = await Promise.resolve()
        .then(() => adapter.parseWebhook(webhook(body, type)))
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect({ body, rejected: err instanceof WebhookRejected }).toEqual({ body, rejected: true });
    }
  });

  test("webhooks are authenticated by the URL secret", () => {
    expect(adapter.webhookAuth).toBe("url-secret");
    expect(adapter.kind).toBe("textmagic");
  });
});
