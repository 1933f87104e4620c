import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBrevoAdapter } from "../../src/providers/brevo";
import type { ProviderAdapter, WebhookRequest } from "../../src/providers/types";
import { providerContract, providerError } from "../support/provider-contract";
import { brevoSmsEvent, brevoWebhook, startBrevoFake, type BrevoFake } from "../support/fakes/brevo";

const CALLBACK = "https://sms.example.com/api/webhooks/brevo/sms/usr_1?key=secret";
const NOW = Date.parse("2025-06-01T12:00:00Z");

let fake: BrevoFake;
let adapter: ProviderAdapter;

beforeAll(async () => {
  fake = await startBrevoFake({ smsCredits: 250 });
  adapter = createBrevoAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

const message = (to: string, body = "Hello from Acme", from = "Acme") => ({
  to,
  from,
  body,
  statusCallbackUrl: CALLBACK,
  reference: "msg_1",
});

function webhook(rawBody: string, contentType = "application/json"): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers({ "content-type": contentType }), contentType, now: NOW };
}

const parse = async (event: unknown) => {
  const { body, headers } = brevoWebhook(event);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
};

providerContract<BrevoFake>({
  kind: "brevo",
  webhookAuth: "url-secret",
  current: () => ({ fake, adapter }),
  start: (options) => startBrevoFake(options),
  connect: (f, options) => createBrevoAdapter(f.credentials, { baseUrl: f.url, ...options }),
  connectWrong: (f) => [createBrevoAdapter({ apiKey: "xkeysib-wrong" }, { baseUrl: f.url })],
  message: (to, body) => message(to, body),
  recipient: (i) => `+336123457${String(i).padStart(2, "0")}`,
  // A 429 with Retry-After also carries a later x-sib-ratelimit-reset: the Retry-After wins.
  failNext: (f, count, { status, retryAfter }) =>
    f.failNextRequests(count, retryAfter === undefined ? { status } : { status, retryAfter, rateLimitReset: 30 }),
  send: {
    path: () => "/v3/transactionalSMS/sms",
    request: (f) => ({ method: "POST", apiKey: f.apiKey }),
    contentType: "application/json",
    payload: (r) => r.json,
    expectedPayload: (to) => ({
      sender: "Acme",
      recipient: to.slice(1),
      content: "Hello from Acme",
      type: "marketing",
      webUrl: CALLBACK,
      unicodeEnabled: false,
    }),
    result: (f) => ({ providerMessageId: String(f.messages.at(-1)!.messageId), status: "queued", segments: 1 }),
    countsSegments: true,
  },
  // The credits of the sms plan.
  connection: {
    prepare: (f) => (f.account.smsCredits = 245),
    message: "SMS credits: 245",
    request: (f) => ({ method: "GET", path: "/v3/account", apiKey: f.apiKey }),
  },
  errors: {
    rateLimited: { code: "too_many_requests", retryAfter: 7, message: "The expected rate limit is exceeded." },
    // Brevo has no number API, so listing reaches nothing.
    serverErrorCalls: ["send", "testConnection"],
    serverErrorCode: "internal_error",
    invalidNumber: { to: "+3361", code: "invalid_parameter", httpStatus: 400, message: "Invalid phone number" },
    authCalls: ["send", "testConnection"],
    auth: { code: "unauthorized", httpStatus: 401, message: "Key not found" },
    afterWrongCredentials: (f) => expect(f.requests.at(-1)!.apiKey).toBe("xkeysib-wrong"),
    timeoutMessage: "The provider API timed out",
  },
  webhooks: {
    rejected: () => ["not json", "[1,2]", "", "null"].map((body) => [`body ${JSON.stringify(body)}`, webhook(body)]),
  },
});

describe("send", () => {
  test("a numeric sender goes without its '+', and a non-GSM body asks for Unicode", async () => {
    const result = await adapter.send(message("+33612345679", "Merci 😊 à bientôt", "+33700000000"));
    expect(fake.requests.at(-1)!.json).toMatchObject({ sender: "33700000000", recipient: "33612345679", unicodeEnabled: true });
    expect(result.segments).toBe(1);
  });
});

describe("numbers and connection", () => {
  test("Brevo has no number API: listing asks Brevo nothing and offers none", async () => {
    const before = fake.requests.length;
    expect(await adapter.listNumbers()).toEqual([]);
    expect(fake.requests.length).toBe(before);
  });

  test("an account without an sms plan has 0 credits", async () => {
    const bare = await startBrevoFake({ withoutSmsPlan: true });
    try {
      expect(await createBrevoAdapter(bare.credentials, { baseUrl: bare.url }).testConnection()).toBe("SMS credits: 0");
    } finally {
      bare.stop();
    }
  });
});

describe("errors", () => {
  test("429 without Retry-After waits for x-sib-ratelimit-reset", async () => {
    fake.failNextRequests(1, { status: 429, rateLimitReset: 12 });
    expect(await providerError(adapter.send(message("+33612345682")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 12_000,
    });
  });

  test("a recipient Brevo refuses is permanent", async () => {
    fake.rejectRecipient("+33612345684", "invalid_parameter");
    expect(await providerError(adapter.send(message("+33612345684")))).toMatchObject({
      kind: "permanent",
      code: "invalid_parameter",
    });
  });

  test("an account out of credits (402 not_enough_credits) is permanent", async () => {
    const poor = await startBrevoFake({ smsCredits: 0 });
    try {
      const err = await providerError(createBrevoAdapter(poor.credentials, { baseUrl: poor.url }).send(message("+33612345685")));
      expect(err).toMatchObject({ kind: "permanent", code: "not_enough_credits", httpStatus: 402 });
      expect(poor.messages).toHaveLength(0);
    } finally {
      poor.stop();
    }
  });

  test("a sender Brevo does not accept is permanent", async () => {
    const err = await providerError(adapter.send(message("+33612345686", "Hi", "Acme Marketing Dept")));
    expect(err).toMatchObject({ kind: "permanent", code: "invalid_parameter", httpStatus: 400 });
  });

});

describe("webhooks", () => {
  test("progress events map to our statuses, whichever field names the event", async () => {
    const cases = [
      ["accepted", "queued"],
      ["sent", "sent"],
      ["delivered", "delivered"],
    ] as const;
    for (const [event, status] of cases) {
      for (const eventField of ["msg_status", "event"] as const) {
        expect(await parse(brevoSmsEvent({ messageId: 4242, to: "+33612345678", event, eventField }))).toEqual([
          { type: "status", providerMessageId: "4242", status, errorCode: null, errorMessage: null },
        ]);
      }
    }
  });

  test("bounces, rejections, skips and blocks are failures carrying the event name and its meaning", async () => {
    const soft = "Soft bounce: the handset could not be reached";
    const hard = "Hard bounce: the number cannot receive SMS";
    const cases = [
      ["softBounce", soft],
      ["soft_bounce", soft],
      ["hardBounce", hard],
      ["hard_bounce", hard],
      ["rejected", "Rejected by Brevo"],
      ["skip", "Skipped by Brevo"],
      ["blocked", "Blocked by Brevo"],
    ] as const;
    for (const [event, errorMessage] of cases) {
      expect(await parse(brevoSmsEvent({ messageId: 4243, to: "+33612345678", event }))).toEqual([
        { type: "status", providerMessageId: "4243", status: "failed", errorCode: event, errorMessage },
      ]);
    }
  });

  test("a reply becomes an inbound message from the contact, whichever field carries its text", async () => {
    for (const replyField of ["reply", "text", "content"] as const) {
      const event = brevoSmsEvent({
        messageId: 4244,
        to: "33612345678",
        event: "replied",
        reply: "Yes please",
        replyField,
        date: "2025-06-01 14:05:00",
      });
      expect(await parse(event)).toEqual([
        {
          type: "inbound",
          providerMessageId: "brevo-reply-4244-2025-06-01 14:05:00",
          from: "+33612345678",
          to: "",
          body: "Yes please",
        },
      ]);
    }
  });

  test("the same reply posted twice names the same inbound message, and two replies differ", async () => {
    const first = brevoSmsEvent({
      messageId: 4245,
      to: "+33612345678",
      event: "replied",
      reply: "Hi",
      date: "2025-06-01 14:05:00",
    });
    const again = await parse(first);
    expect(await parse(first)).toEqual(again);
    const later = await parse({ ...first, date: "2025-06-01 14:07:00" });
    expect(later[0]!.providerMessageId).not.toBe(again[0]!.providerMessageId);

    const { date: _date, ...undated } = first;
    const undatedIds = [await parse(undated), await parse(undated), await parse({ ...undated, reply: "Hi again" })].map(
      (e) => e[0]!.providerMessageId,
    );
    expect(undatedIds[0]).toStartWith("brevo-reply-4245-");
    expect(undatedIds[1]).toBe(undatedIds[0]!);
    expect(undatedIds[2]).not.toBe(undatedIds[0]!);
  });

  test("an unsubscribe becomes an inbound STOP from the contact (already confirmed by Brevo), so the contact is opted out here too", async () => {
    expect(
      await parse(brevoSmsEvent({ messageId: 4246, to: "+33612345678", event: "unsubscribe", date: "2025-06-01 15:00:00" })),
    ).toEqual([
      {
        type: "inbound",
        providerMessageId: "brevo-unsubscribe-4246-2025-06-01 15:00:00",
        from: "+33612345678",
        to: "",
        body: "STOP",
        optOutConfirmed: true,
      },
    ]);
  });

  test("events that say nothing about a message are acknowledged with no events", async () => {
    expect(await parse(brevoSmsEvent({ messageId: 4247, to: "+33612345678", event: "subscribe" }))).toEqual([]);
    expect(await parse(brevoSmsEvent({ messageId: 4247, to: "+33612345678", event: "replied" }))).toEqual([]);
    expect(await parse({ messageId: 4247, to: "33612345678" })).toEqual([]);
  });

  test("a form-encoded report is read too", async () => {
    const body = new URLSearchParams({ messageId: "4248", msg_status: "delivered", to: "33612345678" }).toString();
    const { events } = await adapter.parseWebhook(webhook(body, "application/x-www-form-urlencoded"));
    expect(events).toEqual([
      { type: "status", providerMessageId: "4248", status: "delivered", errorCode: null, errorMessage: null },
    ]);
  });
});
