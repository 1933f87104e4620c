// The same single message through each of the five real adapters: it reaches that provider's fake in the
// provider's wire format, and a webhook made the provider's way (signed, or carrying the account's URL secret)
// moves it to delivered. A forged or replayed webhook changes nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { brevoSmsEvent, brevoWebhook, startBrevoFake, type BrevoFake } from "../support/fakes/brevo";
import { clickSendReceipt, clickSendWebhook, startClickSendFake, type ClickSendFake } from "../support/fakes/clicksend";
import { generateTelnyxKeyPair, signedTelnyxWebhook, startTelnyxFake, telnyxFinalizedEvent, type TelnyxFake } from "../support/fakes/telnyx";
import { startTextMagicFake, textMagicDelivery, textMagicWebhook, type TextMagicFake } from "../support/fakes/textmagic";
import { signedTwilioWebhook, startTwilioFake, twilioStatusParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const SENDER = "+14155550100";
const TO = "+14155552671";
const TEXT = "Your table for two is ready";

let t: TestServer;
let twilio: TwilioFake;
let telnyx: TelnyxFake;
let brevo: BrevoFake;
let textmagic: TextMagicFake;
let clicksend: ClickSendFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }] });
  telnyx = await startTelnyxFake({ numbers: [{ phoneNumber: SENDER, messagingProfileId: "mp_1" }] });
  brevo = await startBrevoFake();
  textmagic = await startTextMagicFake({ numbers: [SENDER] });
  clicksend = await startClickSendFake({ numbers: [SENDER] });
  t = await startTestServer({
    smtp: false,
    env: {
      TWILIO_API_BASE: twilio.url,
      TELNYX_API_BASE: telnyx.url,
      BREVO_API_BASE: brevo.url,
      TEXTMAGIC_API_BASE: textmagic.url,
      CLICKSEND_API_BASE: clicksend.url,
    },
  });
});
afterAll(async () => {
  await t?.stop();
  for (const fake of [twilio, telnyx, brevo, textmagic, clicksend]) await fake?.stop();
});

type Hook = { body: string; headers: Record<string, string> };
type Case = {
  provider: string;
  credentials: () => Record<string, string>;
  /** What the fake received for our message, and the provider's id for it. */
  received: () => { wire: Record<string, unknown>; providerMessageId: string } | undefined;
  wire: Record<string, unknown>;
  delivered: (url: string, providerMessageId: string) => Promise<Hook> | Hook;
  /** A delivery report the provider never sent: bad signature, or the URL without the account's secret. */
  forge: (url: string, providerMessageId: string) => Promise<{ hook: Hook; url: string }> | { hook: Hook; url: string };
};

const withoutKey = (url: string) => url.replace(/\?key=[^&]+/, "?key=not-the-secret");

const CASES: Case[] = [
  {
    provider: "twilio",
    credentials: () => ({ accountSid: twilio.accountSid, authToken: twilio.authToken }),
    received: () => {
      const m = twilio.messages.find((x) => x.to === TO);
      return m && { wire: { to: m.to, from: m.from, body: m.body }, providerMessageId: m.sid };
    },
    wire: { to: TO, from: SENDER, body: `${TEXT}` },
    delivered: (url, sid) => signedTwilioWebhook(twilio.authToken, url, twilioStatusParams({ accountSid: twilio.accountSid, messageSid: sid, status: "delivered", to: TO, from: SENDER })),
    forge: (url, sid) => ({
      url,
      hook: signedTwilioWebhook("0".repeat(32), url, twilioStatusParams({ accountSid: twilio.accountSid, messageSid: sid, status: "failed", to: TO, from: SENDER })),
    }),
  },
  {
    provider: "telnyx",
    credentials: () => ({ apiKey: telnyx.apiKey, publicKey: telnyx.publicKey }),
    received: () => {
      const m = telnyx.messages.find((x) => x.to === TO);
      return m && { wire: { to: m.to, from: m.from, text: m.text }, providerMessageId: m.id };
    },
    wire: { to: TO, from: SENDER, text: TEXT },
    delivered: (_url, id) => telnyx.webhook(telnyxFinalizedEvent({ id, from: SENDER, to: TO, text: TEXT, status: "delivered" })),
    forge: (url, id) => ({
      url,
      hook: signedTelnyxWebhook(generateTelnyxKeyPair().privateKey, telnyxFinalizedEvent({ id, from: SENDER, to: TO, text: TEXT, status: "delivery_failed" })),
    }),
  },
  {
    provider: "brevo",
    credentials: () => ({ apiKey: brevo.credentials.apiKey }),
    received: () => {
      const m = brevo.messages.find((x) => x.recipient === TO.slice(1));
      return m && { wire: { recipient: m.recipient, sender: m.sender, content: m.content }, providerMessageId: String(m.messageId) };
    },
    wire: { recipient: TO.slice(1), sender: SENDER.slice(1), content: TEXT },
    delivered: (_url, id) => brevoWebhook(brevoSmsEvent({ messageId: Number(id), to: TO, event: "delivered" })),
    forge: (url, id) => ({ url: withoutKey(url), hook: brevoWebhook(brevoSmsEvent({ messageId: Number(id), to: TO, event: "hardBounce" })) }),
  },
  {
    provider: "textmagic",
    credentials: () => ({ ...textmagic.credentials }),
    received: () => {
      const m = textmagic.messages.find((x) => x.phones === TO.slice(1));
      return m && { wire: { phones: m.phones, from: m.from, text: m.text }, providerMessageId: String(m.id) };
    },
    wire: { phones: TO.slice(1), from: SENDER.slice(1), text: TEXT },
    delivered: (_url, id) => textMagicWebhook(textMagicDelivery({ id, receiver: TO, status: "d", sender: SENDER })),
    forge: async (url, id) => ({ url: withoutKey(url), hook: await textMagicWebhook(textMagicDelivery({ id, receiver: TO, status: "f", sender: SENDER })) }),
  },
  {
    provider: "clicksend",
    credentials: () => ({ ...clicksend.credentials }),
    received: () => {
      const m = clicksend.messages.find((x) => x.to === TO);
      return m && { wire: { to: m.to, from: m.from, body: m.body }, providerMessageId: m.messageId };
    },
    wire: { to: TO, from: SENDER, body: TEXT },
    delivered: (_url, id) => clickSendWebhook(clickSendReceipt({ messageId: id, statusCode: "201" })),
    forge: (url, id) => ({ url: withoutKey(url), hook: clickSendWebhook(clickSendReceipt({ messageId: id, statusCode: "301" })) }),
  },
];

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
const local = (publicUrl: string) => publicUrl.replace(t.ctx.config.publicUrl, t.url);

describe.each(CASES)("one message through $provider", (c) => {
  let acc: Account;
  let messageId: string;
  let providerMessageId: string;
  let hookUrl: string;

  test("reaches the fake provider in its wire format and is recorded as sent", async () => {
    acc = await t.signUpVerified();
    const created = await post(acc, "/api/sms-providers", { provider: c.provider, displayName: c.provider, ...c.credentials() });
    expect(created.status).toBe(201);
    hookUrl = created.body.webhookUrl;
    expect((await post(acc, `/api/sms-providers/${created.body.id}/test`)).body.success).toBe(true);
    expect((await post(acc, "/api/phone-numbers", { providerId: created.body.id, phoneNumber: SENDER })).status).toBe(201);
    const sent = await post(acc, "/api/messages/send", { phone: TO, content: TEXT });
    expect(sent.status).toBe(202);
    messageId = sent.body.id;
    const stored = await waitFor(() => t.api(`/api/messages/${messageId}`, { token: acc.token }).then((r) => r.body), (m) => m.status !== "queued" && m.status !== "sending");
    expect(stored.status).toBe("sent");
    const received = c.received()!;
    expect(received.wire).toEqual(c.wire);
    providerMessageId = received.providerMessageId;
  });

  test("a forged delivery report answers 403 and changes nothing", async () => {
    const forged = await c.forge(hookUrl, providerMessageId);
    const res = await fetch(local(forged.url), { method: "POST", body: forged.hook.body, headers: forged.hook.headers });
    expect(res.status).toBe(403);
    expect((await t.api(`/api/messages/${messageId}`, { token: acc.token })).body.status).toBe("sent");
  });

  test("a verified delivery report moves it to delivered; the same report again changes nothing", async () => {
    const hook = await c.delivered(hookUrl, providerMessageId);
    const first = await fetch(local(hookUrl), { method: "POST", body: hook.body, headers: hook.headers });
    expect(first.status).toBe(200);
    const delivered = (await t.api(`/api/messages/${messageId}`, { token: acc.token })).body;
    expect(delivered.status).toBe("delivered");
    const again = await fetch(local(hookUrl), { method: "POST", body: hook.body, headers: hook.headers });
    expect(again.status).toBe(200);
    expect((await t.api(`/api/messages/${messageId}`, { token: acc.token })).body).toEqual(delivered);
  });
});
