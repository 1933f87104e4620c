import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTwilioAdapter } from "../../src/providers/twilio";
import { ProviderError, WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
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

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

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

async function rejected(result: unknown): Promise<unknown> {
  return Promise.resolve(result).then(
    () => null,
    (e: unknown) => e,
  );
}

describe("send", () => {
  test("posts a form to Messages.json with Basic auth and answers the message SID", async () => {
    const before = fake.requests.length;
    const result = await adapter.send(message("+14155551234"));

    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: "POST",
      path: `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`,
      authUser: fake.accountSid,
      contentType: "application/x-www-form-urlencoded",
      params: { To: "+14155551234", From: SENDER, Body: "Hello from Acme", StatusCallback: CALLBACK },
    });
    expect(result).toEqual({ providerMessageId: fake.messages.at(-1)!.sid, status: "queued", segments: 1 });
    expect(result.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
  });

  test("a Messaging Service SID is sent as MessagingServiceSid, not From", async () => {
    const result = await adapter.send(message("+14155551235", "Pool", MESSAGING_SERVICE));

    const params = fake.requests.at(-1)!.params;
    expect(params.MessagingServiceSid).toBe(MESSAGING_SERVICE);
    expect(params.From).toBeUndefined();
    expect(result.status).toBe("queued");
  });

  test("reports the segments Twilio counted", async () => {
    const result = await adapter.send(message("+14155551236", "x".repeat(200)));
    expect(result.segments).toBe(2);
  });

  test("a base URL with a trailing slash still reaches the API", async () => {
    const slashed = createTwilioAdapter(fake.credentials, { baseUrl: `${fake.url}/` });
    await slashed.send(message("+14155551237"));
    expect(fake.requests.at(-1)!.path).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
  });
});

describe("numbers and connection", () => {
  test("lists every owned number across pages, with capabilities from the flags", async () => {
    const before = fake.requests.length;
    const numbers = await adapter.listNumbers();

    expect(numbers).toEqual([
      { phoneNumber: SENDER, displayName: "Main line", capabilities: ["sms", "mms", "voice"] },
      { phoneNumber: "+14155550101", displayName: "+14155550101", capabilities: ["sms"] },
      { phoneNumber: "+14155550102", displayName: "Voice only", capabilities: ["voice"] },
      { phoneNumber: "+18005550103", displayName: "Toll-free", capabilities: ["sms", "mms"] },
      { phoneNumber: "+14155550104", displayName: "Spare", capabilities: ["sms", "voice"] },
    ]);
    const pages = fake.requests.slice(before);
    expect(pages.map((r) => [r.method, r.path, r.query.Page ?? "0"])).toEqual([
      ["GET", `/2010-04-01/Accounts/${fake.accountSid}/IncomingPhoneNumbers.json`, "0"],
      ["GET", `/2010-04-01/Accounts/${fake.accountSid}/IncomingPhoneNumbers.json`, "1"],
      ["GET", `/2010-04-01/Accounts/${fake.accountSid}/IncomingPhoneNumbers.json`, "2"],
    ]);
    expect(pages.every((r) => r.authUser === fake.accountSid)).toBe(true);
  });

  test("test connection fetches the account and names it", async () => {
    expect(await adapter.testConnection()).toBe("Account 'Acme Marketing' is active");
    expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: `/2010-04-01/Accounts/${fake.accountSid}.json` });
  });

  test("a suspended or closed account fails the connection test as an auth problem", async () => {
    for (const status of ["suspended", "closed"] as const) {
      fake.account.status = status;
      try {
        const err = await providerError(adapter.testConnection());
        expect(err.kind).toBe("auth");
        expect(err.message).toContain(`Twilio account 'Acme Marketing' is ${status}`);
      } finally {
        fake.account.status = "active";
      }
    }
  });
});

describe("errors", () => {
  test("429 is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
    fake.failNextSends(1, { status: 429, retryAfter: 7 });
    const before = fake.requests.length;
    const err = await providerError(adapter.send(message("+14155552001")));

    expect(err).toMatchObject({ kind: "rate_limited", code: "20429", httpStatus: 429, retryAfterMs: 7000 });
    expect(err.retryable).toBe(true);
    expect(fake.requests.length - before).toBe(1);
  });

  test("429 without Retry-After leaves the delay to the engine", async () => {
    fake.failNextSends(1, { status: 429, retryAfter: null });
    const err = await providerError(adapter.send(message("+14155552002")));
    expect(err).toMatchObject({ kind: "rate_limited", retryAfterMs: null });
  });

  test("500 is transient", async () => {
    fake.failNextSends(1, { status: 500 });
    const err = await providerError(adapter.send(message("+14155552003")));
    expect(err).toMatchObject({ kind: "transient", code: "20500", httpStatus: 500 });
  });

  test("an invalid number is permanent and keeps Twilio's code and message", async () => {
    const err = await providerError(adapter.send(message("+1415")));
    expect(err).toMatchObject({ kind: "permanent", code: "21211", httpStatus: 400 });
    expect(err.message).toBe("The 'To' number +1415 is not a valid phone number.");
    expect(err.retryable).toBe(false);
  });

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

  test("a wrong auth token is an auth error on every call", async () => {
    const wrong = createTwilioAdapter({ accountSid: fake.accountSid, authToken: "not-the-token" }, { baseUrl: fake.url });
    for (const attempt of [wrong.send(message("+14155552006")), wrong.listNumbers(), wrong.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "auth", code: "20003", httpStatus: 401 });
    }
  });

  test("an unreachable API is transient", async () => {
    const gone = await startTwilioFake();
    gone.stop();
    const err = await providerError(createTwilioAdapter(gone.credentials, { baseUrl: gone.url }).send(message("+14155552007")));
    expect(err).toMatchObject({ kind: "transient", code: "network" });
  });

  test("an API slower than the timeout is transient", async () => {
    const slow = await startTwilioFake({ delayMs: 1500, numbers: [{ phoneNumber: SENDER }] });
    try {
      const started = Date.now();
      const err = await providerError(
        createTwilioAdapter(slow.credentials, { baseUrl: slow.url, timeoutMs: 200 }).send(message("+14155552008")),
      );
      expect(err).toMatchObject({ kind: "transient", code: "timeout", message: "The Twilio API timed out" });
      expect(Date.now() - started).toBeLessThan(1400);
    } finally {
      slow.stop();
    }
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

  test("a missing, forged or replayed-elsewhere signature is rejected", async () => {
    const params = twilioStatusParams({
      accountSid: fake.accountSid,
      messageSid: "SM" + "5".repeat(32),
      status: "delivered",
      to: "+14155551234",
      from: SENDER,
    });
    const body = new URLSearchParams(params).toString();
    const good = signTwilioWebhook(fake.authToken, WEBHOOK_URL, params);
    const attempts: WebhookRequest[] = [
      webhook(WEBHOOK_URL, body, {}),
      webhook(WEBHOOK_URL, body, { "x-twilio-signature": "" }),
      webhook(WEBHOOK_URL, body, { "x-twilio-signature": signTwilioWebhook("another-token", WEBHOOK_URL, params) }),
      webhook(WEBHOOK_URL, body.replace("delivered", "undelivered"), { "x-twilio-signature": good }),
      webhook(WEBHOOK_URL.replace("kind=status", "kind=inbound"), body, { "x-twilio-signature": good }),
      webhook("https://sms.example.com/api/webhooks/twilio/prov_2?kind=status", body, { "x-twilio-signature": good }),
    ];
    for (const attempt of attempts) {
      expect(await rejected(adapter.parseWebhook(attempt))).toBeInstanceOf(WebhookRejected);
    }
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
