import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBrevoAdapter } from "../../src/providers/brevo";
import { ProviderError, WebhookRejected, type ProviderAdapter, type WebhookRequest } from "../../src/providers/types";
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

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

function webhook(rawBody: string, contentType = "application/json"): WebhookRequest {
  return { url: CALLBACK, rawBody, headers: new Headers({ "content-type": contentType }), contentType, now: NOW };
}

const parse = async (event: unknown) => {
  const { body, headers } = brevoWebhook(event);
  return (await adapter.parseWebhook(webhook(body, headers["content-type"]))).events;
};

describe("send", () => {
  test("posts JSON to /v3/transactionalSMS/sms with the api-key header, and answers Brevo's message id", async () => {
    const before = fake.requests.length;
    const result = await adapter.send(message("+33612345678"));

    expect(fake.requests.length - before).toBe(1);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/v3/transactionalSMS/sms", apiKey: fake.apiKey });
    expect(request.contentType).toStartWith("application/json");
    expect(request.json).toEqual({
      sender: "Acme",
      recipient: "33612345678",
      content: "Hello from Acme",
      type: "marketing",
      webUrl: CALLBACK,
      unicodeEnabled: false,
    });
    const sent = fake.messages.at(-1)!;
    expect(result).toEqual({ providerMessageId: String(sent.messageId), status: "queued", segments: 1 });
  });

  test("a numeric sender goes without its '+', and a non-GSM body asks for Unicode", async () => {
    const result = await adapter.send(message("+33612345679", "Merci 😊 à bientôt", "+33700000000"));
    expect(fake.requests.at(-1)!.json).toMatchObject({ sender: "33700000000", recipient: "33612345679", unicodeEnabled: true });
    expect(result.segments).toBe(1);
  });

  test("reports the SMS count Brevo charged", async () => {
    expect((await adapter.send(message("+33612345680", "x".repeat(200)))).segments).toBe(2);
  });
});

describe("numbers and connection", () => {
  test("Brevo has no number API: listing asks Brevo nothing and offers none", async () => {
    const before = fake.requests.length;
    expect(await adapter.listNumbers()).toEqual([]);
    expect(fake.requests.length).toBe(before);
  });

  test("test connection reads the credits of the sms plan", async () => {
    fake.account.smsCredits = 245;
    expect(await adapter.testConnection()).toBe("SMS credits: 245");
    expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: "/v3/account", apiKey: fake.apiKey });
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
  test("429 is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
    fake.failNextRequests(1, { status: 429, retryAfter: 7, rateLimitReset: 30 });
    const before = fake.requests.length;
    const err = await providerError(adapter.send(message("+33612345681")));

    expect(err).toMatchObject({ kind: "rate_limited", code: "too_many_requests", httpStatus: 429, retryAfterMs: 7000 });
    expect(err.message).toBe("The expected rate limit is exceeded.");
    expect(err.retryable).toBe(true);
    expect(fake.requests.length - before).toBe(1);
  });

  test("429 without Retry-After waits for x-sib-ratelimit-reset, or leaves the delay to the engine", async () => {
    fake.failNextRequests(1, { status: 429, rateLimitReset: 12 });
    expect(await providerError(adapter.send(message("+33612345682")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 12_000,
    });
    fake.failNextRequests(1, { status: 429 });
    expect(await providerError(adapter.send(message("+33612345682")))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: null,
    });
  });

  test("500 is transient, on every call that reaches Brevo", async () => {
    fake.failNextRequests(2, { status: 500 });
    for (const attempt of [adapter.send(message("+33612345683")), adapter.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({ kind: "transient", code: "internal_error", httpStatus: 500 });
    }
  });

  test("an invalid number is permanent and keeps Brevo's code and message", async () => {
    const err = await providerError(adapter.send(message("+3361")));
    expect(err).toMatchObject({ kind: "permanent", code: "invalid_parameter", httpStatus: 400, message: "Invalid phone number" });
    expect(err.retryable).toBe(false);
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

  test("a wrong API key is an auth error on every call", async () => {
    const wrong = createBrevoAdapter({ apiKey: "xkeysib-wrong" }, { baseUrl: fake.url });
    for (const attempt of [wrong.send(message("+33612345687")), wrong.testConnection()]) {
      expect(await providerError(attempt)).toMatchObject({
        kind: "auth",
        code: "unauthorized",
        httpStatus: 401,
        message: "Key not found",
      });
    }
    expect(fake.requests.at(-1)!.apiKey).toBe("xkeysib-wrong");
  });

  test("an unreachable or slow API is transient", async () => {
    const gone = await startBrevoFake();
    gone.stop();
    expect(
      await providerError(createBrevoAdapter(gone.credentials, { baseUrl: gone.url }).send(message("+33612345688"))),
    ).toMatchObject({ kind: "transient", code: "network" });

    const slow = await startBrevoFake({ delayMs: 1500 });
    try {
      const err = await providerError(
        createBrevoAdapter(slow.credentials, { baseUrl: slow.url, timeoutMs: 200 }).send(message("+33612345689")),
      );
      expect(err).toMatchObject({ kind: "transient", code: "timeout" });
    } finally {
      slow.stop();
    }
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

  test("bounces, rejections, skips and blocks are failures carrying the event name", async () => {
    for (const event of ["softBounce", "soft_bounce", "hardBounce", "hard_bounce", "rejected", "skip", "blocked"] as const) {
      const [status] = await parse(brevoSmsEvent({ messageId: 4243, to: "+33612345678", event }));
      expect(status).toMatchObject({ type: "status", providerMessageId: "4243", status: "failed", errorCode: event });
      expect((status as { errorMessage: string }).errorMessage).toBeTruthy();
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

  test("an unreadable body is rejected", async () => {
    for (const body of ["not json", "[1,2]", "", "null"]) {
      const err = await Promise.resolve()
        .then(() => adapter.parseWebhook(webhook(body)))
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect({ body, rejected: err instanceof WebhookRejected }).toEqual({ body, rejected: true });
    }
  });

  test("webhooks are authenticated by the URL secret", () => {
    expect(adapter.webhookAuth).toBe("url-secret");
    expect(adapter.kind).toBe("brevo");
  });
});
