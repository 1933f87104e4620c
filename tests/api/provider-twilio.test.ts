import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTwilioAdapter } from "../../src/providers/twilio";
import { WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
import { providerContract, providerError, rejection } from "../support/provider-contract";
import {
  signedTwilioJsonWebhook,
  signTwilioWebhook,
  startTwilioFake,
  twilioInboundParams,
  twilioStatusParams,
  type TwilioFake,
} from "../support/fakes/twilio";

const SENDER = "+14155550100";
const CALLBACK = "https://sms.example.com/api/webhooks/twilio/prov_1";
const WEBHOOK_URL = "https://sms.example.com/api/webhooks/twilio/prov_1?kind=status";
const MESSAGING_SERVICE = "MG" + "0123456789abcdef".repeat(2);
const TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

let fake: TwilioFake;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startTwilioFake({
    friendlyName: "Acme Marketing",
    maxPageSize: 2,
    numbers: [
      { phoneNumber: SENDER, friendlyName: "Main line", capabilities: { sms: true, mms: true, voice: true } },
      { phoneNumber: "+14155550101", capabilities: { sms: true } },
      { phoneNumber: "+14155550102", friendlyName: "Voice only", capabilities: { voice: true } },
      { phoneNumber: "+18005550103", friendlyName: "Toll-free", capabilities: { sms: true, mms: true } },
      { phoneNumber: "+14155550104", friendlyName: "Spare", capabilities: { sms: true, voice: true } },
    ],
  });
  adapter = createTwilioAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

const message = (to: string, body = "Hello from Acme", from = SENDER) => ({
  to,
  from,
  body,
  statusCallbackUrl: CALLBACK,
  reference: "msg_1",
});

function webhook(
  url: string,
  rawBody: string,
  headers: Record<string, string>,
  contentType = "application/x-www-form-urlencoded",
) {
  return { url, rawBody, headers: new Headers(headers), contentType, now: Date.now() } satisfies WebhookRequest;
}

function formWebhook(params: Record<string, string>, url = WEBHOOK_URL, authToken = fake.authToken) {
  const body = new URLSearchParams(params).toString();
  return webhook(url, body, { "x-twilio-signature": signTwilioWebhook(authToken, url, params) });
}

const rejected = (result: unknown) => rejection(() => result);

providerContract<TwilioFake>({
  kind: "twilio",
  webhookAuth: "signature",
  current: () => ({ fake, adapter }),
  start: ({ delayMs } = {}) => startTwilioFake(delayMs ? { delayMs, numbers: [{ phoneNumber: SENDER }] } : {}),
  connect: (f, options) => createTwilioAdapter(f.credentials, { baseUrl: f.url, ...options }),
  connectWrong: (f) => [createTwilioAdapter({ accountSid: f.accountSid, authToken: "not-the-token" }, { baseUrl: f.url })],
  message: (to, body) => message(to, body),
  recipient: (i) => `+141555560${String(i).padStart(2, "0")}`,
  failNext: (f, count, { status, retryAfter }) => f.failNextSends(count, { status, retryAfter: retryAfter ?? null }),
  send: {
    path: (f) => `/2010-04-01/Accounts/${f.accountSid}/Messages.json`,
    request: (f) => ({
      method: "POST",
      authUser: f.accountSid,
      contentType: "application/x-www-form-urlencoded",
    }),
    contentType: "application/x-www-form-urlencoded",
    payload: (r) => r.params,
    expectedPayload: (to) => ({ To: to, From: SENDER, Body: "Hello from Acme", StatusCallback: CALLBACK }),
    result: (f) => ({ providerMessageId: f.messages.at(-1)!.sid, status: "queued", segments: 1 }),
    countsSegments: true,
  },
  connection: {
    message: "Account 'Acme Marketing' is active",
    request: (f) => ({ method: "GET", path: `/2010-04-01/Accounts/${f.accountSid}.json` }),
  },
  listing: {
    numbers: [
      { phoneNumber: SENDER, displayName: "Main line", capabilities: ["sms", "mms", "voice"] },
      { phoneNumber: "+14155550101", displayName: "+14155550101", capabilities: ["sms"] },
      { phoneNumber: "+14155550102", displayName: "Voice only", capabilities: ["voice"] },
      { phoneNumber: "+18005550103", displayName: "Toll-free", capabilities: ["sms", "mms"] },
      { phoneNumber: "+14155550104", displayName: "Spare", capabilities: ["sms", "voice"] },
    ],
    page: (r) => [r.method, r.path, r.query.Page ?? "0"],
    pages: (f) => ["0", "1", "2"].map((page) => ["GET", `/2010-04-01/Accounts/${f.accountSid}/IncomingPhoneNumbers.json`, page]),
    authorized: (r, f) => r.authUser === f.accountSid,
  },
  errors: {
    rateLimited: { code: "20429", retryAfter: 7 },
    serverErrorCalls: ["send"],
    serverErrorCode: "20500",
    invalidNumber: { to: "+1415", code: "21211", httpStatus: 400, message: "The 'To' number +1415 is not a valid phone number." },
    authCalls: ["send", "listNumbers", "testConnection"],
    auth: { code: "20003", httpStatus: 401 },
    timeoutMessage: "The Twilio API timed out",
  },
  webhooks: {
    rejected: (f) => {
      const params = twilioStatusParams({
        accountSid: f.accountSid,
        messageSid: "SM" + "5".repeat(32),
        status: "delivered",
        to: "+14155551234",
        from: SENDER,
      });
      const body = new URLSearchParams(params).toString();
      const good = signTwilioWebhook(f.authToken, WEBHOOK_URL, params);
      return [
        ["unsigned", webhook(WEBHOOK_URL, body, {})],
        ["empty signature", webhook(WEBHOOK_URL, body, { "x-twilio-signature": "" })],
        ["signed with another token", webhook(WEBHOOK_URL, body, { "x-twilio-signature": signTwilioWebhook("another-token", WEBHOOK_URL, params) })],
        ["body changed after signing", webhook(WEBHOOK_URL, body.replace("delivered", "undelivered"), { "x-twilio-signature": good })],
        ["replayed to the inbound URL", webhook(WEBHOOK_URL.replace("kind=status", "kind=inbound"), body, { "x-twilio-signature": good })],
        ["replayed to another account", webhook("https://sms.example.com/api/webhooks/twilio/prov_2?kind=status", body, { "x-twilio-signature": good })],
      ];
    },
  },
});

describe("send", () => {
  test("the message id is Twilio's message SID", async () => {
    expect((await adapter.send(message("+14155551234"))).providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
  });

  test("a Messaging Service SID is sent as MessagingServiceSid, not From", async () => {
    const result = await adapter.send(message("+14155551235", "Pool", MESSAGING_SERVICE));

    const params = fake.requests.at(-1)!.params;
    expect(params.MessagingServiceSid).toBe(MESSAGING_SERVICE);
    expect(params.From).toBeUndefined();
    expect(result.status).toBe("queued");
  });
});

describe("numbers and connection", () => {
  test("a suspended or closed account fails the connection test as an auth problem", async () => {
    for (const status of ["suspended", "closed"] as const) {
      fake.account.status = status;
      try {
        const err = await providerError(adapter.testConnection());
        expect(err.kind).toBe("auth");
        expect(err.message).toBe(
          `Twilio account 'Acme Marketing' is ${status}: it cannot send messages until it is reactivated in the Twilio Console`,
        );
      } finally {
        fake.account.status = "active";
      }
    }
  });
});

describe("errors", () => {
  test("a recipient refused as not mobile (21614) or out of region (21408) is permanent", async () => {
    fake.rejectRecipient("+14155552004", 21614);
    fake.rejectRecipient("+442071234567", 21408);
    expect(await providerError(adapter.send(message("+14155552004")))).toMatchObject({ kind: "permanent", code: "21614" });
    expect(await providerError(adapter.send(message("+442071234567")))).toMatchObject({ kind: "permanent", code: "21408" });
  });

  test("an opted-out recipient (21610) is opted_out", async () => {
    fake.rejectRecipient("+14155552005", 21610);
    const err = await providerError(adapter.send(message("+14155552005")));
    expect(err).toMatchObject({ kind: "opted_out", code: "21610", message: "Attempt to send to unsubscribed recipient" });
  });
});

describe("webhooks", () => {
  test("a delivery report becomes a status event, answered with empty TwiML", async () => {
    const params = twilioStatusParams({
      accountSid: fake.accountSid,
      messageSid: "SM" + "1".repeat(32),
      status: "delivered",
      to: "+14155551234",
      from: SENDER,
    });
    const result = await adapter.parseWebhook(formWebhook(params));

    expect(result.events).toEqual([
      { type: "status", providerMessageId: "SM" + "1".repeat(32), status: "delivered", errorCode: null, errorMessage: null },
    ]);
    expect(result.reply).toEqual({ body: TWIML, contentType: "text/xml" });
  });

  test("statuses map to ours, and a failure carries the code and its meaning", async () => {
    const cases = [
      ["sent", "sent", undefined, null],
      ["sending", "queued", undefined, null],
      ["undelivered", "failed", "30003", "Unreachable destination handset"],
      ["undelivered", "failed", "30005", "Unknown destination handset"],
      ["failed", "failed", "30006", "Landline or unreachable carrier"],
      ["undelivered", "failed", "30007", "Message filtered"],
      ["failed", "failed", "30008", "Unknown error"],
    ] as const;
    for (const [twilioStatus, status, errorCode, errorMessage] of cases) {
      const params = twilioStatusParams({
        accountSid: fake.accountSid,
        messageSid: "SM" + "2".repeat(32),
        status: twilioStatus,
        to: "+14155551234",
        from: SENDER,
        errorCode,
      });
      const { events } = await adapter.parseWebhook(formWebhook(params));
      expect(events).toEqual([
        { type: "status", providerMessageId: "SM" + "2".repeat(32), status, errorCode: errorCode ?? null, errorMessage },
      ]);
    }
  });

  test("an inbound message becomes an inbound event with its media", async () => {
    const params = twilioInboundParams({
      accountSid: fake.accountSid,
      from: "+14155559876",
      to: SENDER,
      body: "STOP please",
      messageSid: "MM" + "3".repeat(32),
      media: ["https://api.twilio.com/media/1.jpg", "https://api.twilio.com/media/2.jpg"],
    });
    const result = await adapter.parseWebhook(formWebhook(params, "https://sms.example.com/api/webhooks/twilio/prov_1"));

    expect(result.events).toEqual([
      {
        type: "inbound",
        providerMessageId: "MM" + "3".repeat(32),
        from: "+14155559876",
        to: SENDER,
        body: "STOP please",
        media: ["https://api.twilio.com/media/1.jpg", "https://api.twilio.com/media/2.jpg"],
      },
    ]);
    expect(result.reply).toEqual({ body: TWIML, contentType: "text/xml" });
  });

  test("an inbound message to a Messaging Service pool number the account never listed is accepted", async () => {
    const params = twilioInboundParams({
      accountSid: fake.accountSid,
      from: "+14155559876",
      to: "+13125550999",
      body: "Hi",
      messagingServiceSid: MESSAGING_SERVICE,
    });
    const { events } = await adapter.parseWebhook(formWebhook(params));
    expect(events).toEqual([
      { type: "inbound", providerMessageId: params.MessageSid!, from: "+14155559876", to: "+13125550999", body: "Hi" },
    ]);
  });

  test("the JSON-body variant is verified through bodySHA256", async () => {
    const payload = { MessageSid: "SM" + "4".repeat(32), MessageStatus: "delivered", To: "+14155551234", From: SENDER };
    const signed = signedTwilioJsonWebhook(fake.authToken, WEBHOOK_URL, payload);
    const { events } = await adapter.parseWebhook(webhook(signed.url, signed.body, signed.headers, "application/json"));
    expect(events).toEqual([
      { type: "status", providerMessageId: "SM" + "4".repeat(32), status: "delivered", errorCode: null, errorMessage: null },
    ]);

    const tampered = signed.body.replace("delivered", "failed");
    const err = await rejected(adapter.parseWebhook(webhook(signed.url, tampered, signed.headers, "application/json")));
    expect(err).toBeInstanceOf(WebhookRejected);
  });

  test("a report signed with the account's token for its URL is accepted", async () => {
    const params = twilioStatusParams({
      accountSid: fake.accountSid,
      messageSid: "SM" + "5".repeat(32),
      status: "delivered",
      to: "+14155551234",
      from: SENDER,
    });
    const body = new URLSearchParams(params).toString();
    const good = signTwilioWebhook(fake.authToken, WEBHOOK_URL, params);
    expect((await adapter.parseWebhook(webhook(WEBHOOK_URL, body, { "x-twilio-signature": good }))).events).toHaveLength(1);
  });
});

test("loading the adapter module does not load the Twilio SDK", () => {
  const probe = Bun.spawnSync({
    cmd: [
      process.execPath,
      "-e",
      `await import(${JSON.stringify(require.resolve("../../src/providers/twilio"))});
       console.log(Object.keys(require.cache).some((k) => k.includes("/node_modules/twilio/")));`,
    ],
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(probe.stderr.toString()).toBe("");
  expect(probe.stdout.toString().trim()).toBe("false");
});
