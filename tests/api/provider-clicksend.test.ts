import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClickSendAdapter } from "../../src/providers/clicksend";
import { basicAuth } from "../../src/providers/http";
import type { ProviderAdapter, WebhookRequest } from "../../src/providers/types";
import { providerContract, providerError } from "../support/provider-contract";
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

function webhook(rawBody: string, contentType: string): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers({ "content-type": contentType }), contentType, now: NOW };
}

async function parse(payload: Record<string, string>, format: "form" | "json" = "form") {
  const { body, headers } = clickSendWebhook(payload, format);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
}

providerContract<ClickSendFake>({
  kind: "clicksend",
  webhookAuth: "url-secret",
  current: () => ({ fake, adapter }),
  start: (options) => startClickSendFake(options),
  connect: (f, options) => createClickSendAdapter(f.credentials, { baseUrl: f.url, ...options }),
  connectWrong: (f) => [createClickSendAdapter({ apiKey: f.username, apiSecret: "WRONG" }, { baseUrl: f.url })],
  message: (to, body) => message(to, body),
  recipient: (i) => `+614222224${String(i).padStart(2, "0")}`,
  failNext: (f, count, failure) => f.failNextRequests(count, failure),
  send: {
    path: () => "/v3/sms/send",
    request: (f) => ({ method: "POST", authorization: basicAuth(f.username, f.apiKey) }),
    contentType: "application/json",
    payload: (r) => r.json,
    expectedPayload: (to) => ({
      messages: [{ to, body: "Hello from Acme", from: SENDER, source: "smsdesk", custom_string: "msg_1" }],
    }),
    result: (f) => ({ providerMessageId: f.messages.at(-1)!.messageId, status: "queued", segments: 1 }),
    countsSegments: true,
  },
  connection: {
    message: "Balance 12.50 USD",
    request: (f) => ({ method: "GET", path: "/v3/account", authorization: basicAuth(f.username, f.apiKey) }),
  },
  listing: {
    // The dedicated numbers.
    numbers: [SENDER, "+61411111112", "+61411111113", "+15005550100", "+15005550101"].map((phoneNumber) => ({
      phoneNumber,
      displayName: phoneNumber,
      capabilities: ["sms"],
    })),
    page: (r) => [r.method, r.path, r.query.page, r.query.limit],
    pages: () => ["1", "2", "3"].map((page) => ["GET", "/v3/numbers", page, "100"]),
    authorized: (r, f) => r.authorization === basicAuth(f.username, f.apiKey),
  },
  errors: {
    rateLimited: { code: "TOO_MANY_REQUESTS", retryAfter: 20 },
    serverErrorCalls: ["send", "listNumbers", "testConnection"],
    serverErrorCode: "INTERNAL_SERVER_ERROR",
    // Refused inside a 200 answer.
    invalidNumber: { to: "+6142", code: "INVALID_RECIPIENT", httpStatus: 200, message: "The recipient number is invalid" },
    authCalls: ["send", "listNumbers", "testConnection"],
    auth: { code: "UNAUTHORIZED", httpStatus: 401 },
    afterWrongCredentials: (f) => expect(f.requests.at(-1)!.authorization).toBe(basicAuth(f.username, "WRONG")),
    timeoutMessage: "The provider API timed out",
  },
  webhooks: {
    rejected: () => [["not json", webhook("{not json", "application/json")]],
  },
});

describe("errors", () => {
  test("a message refused inside a 200 answer is a permanent failure with ClickSend's status", async () => {
    const refusals: [ClickSendRefusal, string][] = [
      ["COUNTRY_NOT_ENABLED", "Sending to this country is not enabled on the ClickSend account"],
      ["BLOCKED", "ClickSend blocked the message"],
      ["INSUFFICIENT_CREDIT", "The ClickSend account has not enough credit"],
      ["THROTTLED", "ClickSend refused an identical message sent to the same recipient moments ago"],
    ];
    for (const [i, [status, text]] of refusals.entries()) {
      const to = `+6142222230${i}`;
      fake.rejectRecipient(to, status);
      const err = await providerError(adapter.send(message(to)));
      expect(err).toMatchObject({ kind: "permanent", code: status, httpStatus: 200 });
      expect(err.message).toBe(text);
    }
    expect(fake.messages.some((m) => m.to.startsWith("+614222223"))).toBe(false);
  });

  test("a request ClickSend cannot read (400 BAD_REQUEST) is permanent", async () => {
    const err = await providerError(adapter.send(message("+61422222225", "")));
    expect(err).toMatchObject({ kind: "permanent", code: "BAD_REQUEST", httpStatus: 400, message: "body is required." });
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
});
