import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClickSendAdapter } from "../../src/providers/clicksend";
import { basicAuth } from "../../src/providers/http";
import { ProviderError, WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
import {
  clickSendInbound,
  clickSendReceipt,
  clickSendWebhook,
  startClickSendFake,
  type ClickSendFake,
  type ClickSendRefusal,
} from "../support/fakes/clicksend";

const SENDER = "+61411111111";
const CALLBACK = "https://sms.example.com/api/webhooks/clicksend/sms/usr_1?key=secret";
const NOW = Date.parse("2025-06-01T12:00:00Z");
const MESSAGE_ID = "1EF2D909-D8CB-6684-AFF9-DDE3218AE055";

let fake: ClickSendFake;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startClickSendFake({
    maxPageSize: 2,
    balance: "12.500000",
    numbers: [SENDER, "+61411111112", "+61411111113", "+15005550100", "+15005550101"],
  });
  adapter = createClickSendAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });
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

async function parse(payload: Record<string, string>, format: "form" | "json" = "form") {
  const { body, headers } = clickSendWebhook(payload, format);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
}

describe("send", () => {
  test("posts JSON to /v3/sms/send with Basic username:key, and answers ClickSend's message id", async () => {
    const before = fake.requests.length;
    const result = await adapter.send(message("+61422222221"));

    expect(fake.requests.length - before).toBe(1);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/v3/sms/send", authorization: basicAuth(fake.username, fake.apiKey) });
    expect(request.contentType).toStartWith("application/json");
    expect(request.json).toEqual({
      messages: [{ to: "+61422222221", body: "Hello from Acme", from: SENDER, source: "smsdesk", custom_string: "msg_1" }],
    });
    const sent = fake.messages.at(-1)!;
    expect(result).toEqual({ providerMessageId: sent.messageId, status: "queued", segments: 1 });
  });

  test("reports the parts ClickSend counted", async () => {
    expect((await adapter.send(message("+61422222222", "x".repeat(200)))).segments).toBe(2);
  });
});

describe("numbers and connection", () => {
  test("lists the dedicated numbers across every page", async () => {
    const before = fake.requests.length;
    const numbers = await adapter.listNumbers();

    expect(numbers).toEqual(
      [SENDER, "+61411111112", "+61411111113", "+15005550100", "+15005550101"].map((phoneNumber) => ({
        phoneNumber,
        displayName: phoneNumber,
        capabilities: ["sms"],
      })),
    );
    const pages = fake.requests.slice(before);
    expect(pages.map((r) => [r.method, r.path, r.query.page, r.query.limit])).toEqual([
      ["GET", "/v3/numbers", "1", "100"],
      ["GET", "/v3/numbers", "2", "100"],
      ["GET", "/v3/numbers", "3", "100"],
    ]);
    expect(pages.every((r) => r.authorization === basicAuth(fake.username, fake.apiKey))).toBe(true);
  });

  test("an account without numbers lists none", async () => {
    const empty = await startClickSendFake();
    try {
      expect(await createClickSendAdapter(empty.credentials, { baseUrl: empty.url }).listNumbers()).toEqual([]);
    } finally {
      empty.stop();
    }
  });

  test("test connection reads the balance and its currency", async () => {
    expect(await adapter.testConnection()).toBe("Balance 12.50 USD");
    expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: "/v3/account" });
  });
});

describe("errors", () => {
  test("429 TOO_MANY_REQUESTS is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
    fake.failNextRequests(1, { status: 429, retryAfter: 20 });
    const before = fake.requests.length;
    const err = await providerError(adapter.send(message("+61422222223")));

    expect(err).toMatchObject({ kind: "rate_limited", code: "TOO_MANY_REQUESTS", httpStatus: 429, retryAfterMs: 20_000 });
    expect(err.retryable).toBe(true);
    expect(fake.requests.length - before).toBe(1);

    fake.failNextRequests(1, { status: 429 });
    expect(await providerError(adapter.send(message("+61422222223")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: null,
    });
  });

  test("500 is transient, on any call", async () => {
    fake.failNextRequests(3, { status: 500 });
    for (const attempt of [adapter.send(message("+61422222224")), adapter.listNumbers(), adapter.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "transient", code: "INTERNAL_SERVER_ERROR", httpStatus: 500 });
    }
  });

  test("a message refused inside a 200 answer is a permanent failure with ClickSend's status", async () => {
    const invalid = await providerError(adapter.send(message("+6142")));
    expect(invalid).toMatchObject({ kind: "permanent", code: "INVALID_RECIPIENT", httpStatus: 200 });
    expect(invalid.message).toBe("The recipient number is invalid");
    expect(invalid.retryable).toBe(false);

    const refusals: ClickSendRefusal[] = ["COUNTRY_NOT_ENABLED", "BLOCKED", "INSUFFICIENT_CREDIT", "THROTTLED"];
    for (const [i, status] of refusals.entries()) {
      const to = `+6142222230${i}`;
      fake.rejectRecipient(to, status);
      const err = await providerError(adapter.send(message(to)));
      expect(err).toMatchObject({ kind: "permanent", code: status, httpStatus: 200 });
      expect(err.message).not.toBe("");
    }
    expect(fake.messages.some((m) => m.to.startsWith("+614222223"))).toBe(false);
  });

  test("a request ClickSend cannot read (400 BAD_REQUEST) is permanent", async () => {
    const err = await providerError(adapter.send(message("+61422222225", "")));
    expect(err).toMatchObject({ kind: "permanent", code: "BAD_REQUEST", httpStatus: 400, message: "body is required." });
  });

  test("a wrong username or key is an auth error (UNAUTHORIZED) on every call", async () => {
    const wrong = createClickSendAdapter({ apiKey: fake.username, apiSecret: "WRONG" }, { baseUrl: fake.url });
    for (const attempt of [wrong.send(message("+61422222226")), wrong.listNumbers(), wrong.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "auth", code: "UNAUTHORIZED", httpStatus: 401 });
    }
    expect(fake.requests.at(-1)!.authorization).toBe(basicAuth(fake.username, "WRONG"));
  });

  test("an unreachable or slow API is transient", async () => {
    const gone = await startClickSendFake();
    gone.stop();
    expect(
      await providerError(createClickSendAdapter(gone.credentials, { baseUrl: gone.url }).send(message("+61422222227"))),
    ).toMatchObject({ kind: "transient", code: "network" });

    const slow = await startClickSendFake({ delayMs: 1500 });
    try {
      const err = await providerError(
        createClickSendAdapter(slow.credentials, { baseUrl: slow.url, timeoutMs: 200 }).send(message("+61422222228")),
      );
      expect(err).toMatchObject({ kind: "transient", code: "timeout" });
    } finally {
      slow.stop();
    }
  });
});

describe("webhooks", () => {
  test("a 201 receipt is delivered, as form fields or JSON", async () => {
    for (const format of ["form", "json"] as const) {
      expect(await parse(clickSendReceipt({ messageId: MESSAGE_ID, statusCode: "201", customString: "msg_1" }), format)).toEqual([
        { type: "status", providerMessageId: MESSAGE_ID, status: "delivered", errorCode: null, errorMessage: null },
      ]);
    }
  });

  test("a 301 receipt is a failure with ClickSend's error code and text", async () => {
    expect(await parse(clickSendReceipt({ messageId: MESSAGE_ID, statusCode: "301" }))).toEqual([
      {
        type: "status",
        providerMessageId: MESSAGE_ID,
        status: "failed",
        errorCode: "8",
        errorMessage: "Unknown subscriber. Number is inactive or invalid",
      },
    ]);
  });

  test("an unknown code is a failure too, named by the status when ClickSend gives no error", async () => {
    const receipt = clickSendReceipt({
      messageId: MESSAGE_ID,
      statusCode: "302",
      statusText: "Failed: Expired",
      errorCode: "",
      errorText: "",
    });
    expect(await parse(receipt)).toEqual([
      { type: "status", providerMessageId: MESSAGE_ID, status: "failed", errorCode: "302", errorMessage: "Failed: Expired" },
    ]);
  });

  test("200 and 300 receipts are not final: sent, so that a later delivery still counts", async () => {
    for (const statusCode of ["200", "300"]) {
      expect(await parse(clickSendReceipt({ messageId: MESSAGE_ID, statusCode, errorCode: "", errorText: "" }))).toEqual([
        { type: "status", providerMessageId: MESSAGE_ID, status: "sent", errorCode: null, errorMessage: null },
      ]);
    }
  });

  test("an inbound message becomes an inbound event, as form fields or JSON", async () => {
    const payload = clickSendInbound({
      messageId: "B8A5F3C1-0000-4000-8000-000000000001",
      from: "+61422222229",
      to: SENDER,
      body: "STOP",
    });
    for (const format of ["form", "json"] as const) {
      expect(await parse(payload, format)).toEqual([
        {
          type: "inbound",
          providerMessageId: "B8A5F3C1-0000-4000-8000-000000000001",
          from: "+61422222229",
          to: SENDER,
          body: "STOP",
        },
      ]);
    }
  });

  test("numbers given without '+' come out in E.164", async () => {
    const payload = clickSendInbound({
      messageId: "B8A5F3C1-0000-4000-8000-000000000002",
      from: "61422222229",
      to: "61411111111",
      body: "Hi",
    });
    expect(await parse(payload)).toMatchObject([{ from: "+61422222229", to: SENDER }]);
  });

  test("a push that is neither a receipt nor a message changes nothing", async () => {
    expect(await parse({ user_id: "123456" })).toEqual([]);
  });

  test("an unreadable body is rejected", async () => {
    const err = await Promise.resolve()
      .then(() => adapter.parseWebhook(webhook("{not json", "application/json")))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WebhookRejected);
  });

  test("webhooks are authenticated by the URL secret", () => {
    expect(adapter.webhookAuth).toBe("url-secret");
    expect(adapter.kind).toBe("clicksend");
  });
});
