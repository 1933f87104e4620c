// Issue 34 item 3: opt-outs in plain words, end to end. Texts arrive through Twilio's signed inbound webhook and
// replies leave through the Twilio fake: an opt-out in plain words is applied as STOP (consent log, confirmation
// Twilio received); a possible one is flagged on the threads API, listed first, and one click opts out or dismisses.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const SENDER = "+14155550100";
const CONFIRMATION = "Rosa's Flowers: You have been unsubscribed and will receive no more messages. Reply START to resubscribe.";

let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });

async function twilioAccount() {
  const acc = await t.signUpVerified();
  expect((await call(acc, "PATCH", "/api/user/profile", { businessName: "Rosa's Flowers" })).status).toBe(200);
  const provider = await call(acc, "POST", "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  expect(provider.status).toBe(201);
  expect((await call(acc, "POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: SENDER })).status).toBe(201);
  const hookUrl: string = provider.body.webhookUrl;
  const text = async (from: string, body: string) => {
    const hook = signedTwilioWebhook(twilio.authToken, hookUrl, twilioInboundParams({ accountSid: twilio.accountSid, from, to: SENDER, body }));
    const res = await fetch(hookUrl.replace(t.ctx.config.publicUrl, t.url), { method: "POST", body: hook.body, headers: hook.headers });
    expect(res.status).toBe(200);
  };
  return { acc, text };
}

const received = (phone: string, n: number) =>
  waitFor(
    () => twilio.messages.filter((m) => m.to === phone).map((m) => m.body),
    (b) => b.length >= n,
  );

async function contactOf(acc: Account, phone: string) {
  return (await call(acc, "GET", `/api/contacts?search=${encodeURIComponent(phone)}`)).body.data.find((c: { phone: string }) => c.phone === phone);
}

async function consents(acc: Account, phone: string) {
  const log = await call(acc, "GET", `/api/contacts/${(await contactOf(acc, phone)).id}/consent`);
  return log.body.data.map((c: { kind: string; source: string; text: string }) => ({ kind: c.kind, source: c.source, text: c.text }));
}

async function threads(acc: Account) {
  return (await call(acc, "GET", "/api/conversations")).body.data as { id: number; phone: string; possibleOptOut: unknown; optedOut: boolean }[];
}

describe("an opt-out in plain words", () => {
  test("“please stop texting me” through Twilio's webhook opts the contact out as STOP does: the consent log keeps their words and the confirmation reaches Twilio", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155553001";
    expect((await call(acc, "POST", "/api/contacts", { phone, firstName: "Ana" })).status).toBe(201);
    await text(phone, "please stop texting me");
    expect(await received(phone, 1)).toEqual([CONFIRMATION]);
    expect(await contactOf(acc, phone)).toMatchObject({ status: "opted_out" });
    expect(await consents(acc, phone)).toEqual([
      { kind: "opt_in", source: "manual", text: "Added by the account owner" },
      { kind: "opt_out", source: "keyword", text: "please stop texting me" },
    ]);
    // Said again: logged again, not confirmed twice (as STOP). Nothing is flagged: it was no doubt.
    await text(phone, "Leave me alone!");
    expect((await consents(acc, phone)).map((c: { text: string }) => c.text)).toEqual(["Added by the account owner", "please stop texting me", "Leave me alone!"]);
    expect((await threads(acc)).find((c) => c.phone === phone)).toMatchObject({ possibleOptOut: null, optedOut: true });
    await Bun.sleep(300);
    expect(twilio.messages.filter((m) => m.to === phone).length).toBe(1);
  });

  test("in Spanish too; a near miss changes nothing", async () => {
    const { acc, text } = await twilioAccount();
    await text("+14155553002", "No me envíen más mensajes");
    expect(await received("+14155553002", 1)).toEqual([CONFIRMATION]);
    expect(await contactOf(acc, "+14155553002")).toMatchObject({ status: "opted_out" });
    await text("+14155553003", "I'll stop by the store tomorrow");
    await Bun.sleep(300);
    expect(await contactOf(acc, "+14155553003")).toMatchObject({ status: "subscribed" });
    expect(twilio.messages.filter((m) => m.to === "+14155553003")).toEqual([]);
    expect((await threads(acc)).find((c) => c.phone === "+14155553003")).toMatchObject({ possibleOptOut: null, optedOut: false });
  });

  test("a text that fires one of the account's keywords is the keyword's", async () => {
    const { acc, text } = await twilioAccount();
    const welcome = "Rosa's Flowers: bienvenida a las ofertas. Reply STOP to cancel.";
    expect((await call(acc, "POST", "/api/keywords", { keyword: "BAJA", autoReply: welcome })).status).toBe(201);
    await text("+14155553004", "baja");
    expect(await received("+14155553004", 1)).toEqual([welcome]);
    expect(await contactOf(acc, "+14155553004")).toMatchObject({ status: "subscribed" });
  });
});

describe("a possible opt-out", () => {
  test("is flagged on the threads API, listed first, its message marked; one click opts out with the confirmation", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155553010";
    await text(phone, "how do I unsubscribe?");
    await text("+14155553011", "Do you have roses today?");
    const list = await threads(acc);
    expect(list.map((c) => c.phone)).toEqual([phone, "+14155553011"]);
    const flagged = list[0]!;
    expect(flagged).toMatchObject({ optedOut: false, possibleOptOut: { content: "how do I unsubscribe?" } });
    expect(list[1]!.possibleOptOut).toBeNull();
    expect(await contactOf(acc, phone)).toMatchObject({ status: "subscribed" });
    const thread = (await call(acc, "GET", `/api/messages/${flagged.id}`)).body as { content: string; possibleOptOut: boolean }[];
    expect(thread.map((m) => [m.content, m.possibleOptOut])).toEqual([["how do I unsubscribe?", true]]);

    const click = await call(acc, "POST", `/api/conversations/${flagged.id}/opt-out`);
    expect(click.status).toBe(200);
    expect(click.body).toMatchObject({ confirmationSent: true, message: "Opted out. The opt-out confirmation was sent.", conversation: { optedOut: true, possibleOptOut: null } });
    expect(await received(phone, 1)).toEqual([CONFIRMATION]);
    expect(await consents(acc, phone)).toEqual([{ kind: "opt_out", source: "manual", text: "Possible opt-out confirmed in Chat: “how do I unsubscribe?”" }]);
    // Its place is now by its newest activity: the confirmation just sent.
    expect((await threads(acc)).map((c) => [c.phone, c.possibleOptOut])).toEqual([[phone, null], ["+14155553011", null]]);
    // Nothing left to act on.
    expect(await call(acc, "POST", `/api/conversations/${flagged.id}/opt-out`)).toMatchObject({ status: 409, body: { message: "This conversation has no possible opt-out to act on" } });
  });

  test("clicked more than 5 minutes after the text opts out without a confirmation (the FCC allows one within 5 minutes)", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155553020";
    await text(phone, "not interested");
    const [flagged] = await threads(acc);
    const real = t.ctx.now;
    const later = real() + 5 * 60_000 + 1000;
    t.ctx.now = () => later;
    try {
      const click = await call(acc, "POST", `/api/conversations/${flagged!.id}/opt-out`);
      expect(click.body).toMatchObject({ confirmationSent: false, message: "Opted out. No confirmation was sent: one may only go within 5 minutes of their text." });
    } finally {
      t.ctx.now = real;
    }
    expect(await contactOf(acc, phone)).toMatchObject({ status: "opted_out" });
    await Bun.sleep(300);
    expect(twilio.messages.filter((m) => m.to === phone)).toEqual([]);
  });

  test("dismissed, it leaves the top and the contact stays subscribed; a later STOP takes a new mark off", async () => {
    const { acc, text } = await twilioAccount();
    await text("+14155553030", "wrong number");
    await text("+14155553031", "hello");
    const [flagged] = await threads(acc);
    expect(flagged!.phone).toBe("+14155553030");
    const dismissed = await call(acc, "POST", `/api/conversations/${flagged!.id}/dismiss-opt-out`);
    expect(dismissed).toMatchObject({ status: 200, body: { possibleOptOut: null, optedOut: false } });
    expect((await threads(acc)).map((c) => c.phone)).toEqual(["+14155553031", "+14155553030"]);
    expect(await contactOf(acc, "+14155553030")).toMatchObject({ status: "subscribed" });
    expect(await call(acc, "POST", `/api/conversations/${flagged!.id}/dismiss-opt-out`)).toMatchObject({ status: 409 });
    // Flagged again, then STOP: opted out and no longer marked.
    await text("+14155553030", "who is this?");
    expect((await threads(acc))[0]).toMatchObject({ phone: "+14155553030", possibleOptOut: { content: "who is this?" } });
    await text("+14155553030", "STOP");
    expect((await threads(acc)).find((c) => c.phone === "+14155553030")).toMatchObject({ possibleOptOut: null, optedOut: true });
    expect(await call(acc, "POST", "/api/conversations/999999999/opt-out")).toMatchObject({ status: 404 });
  });
});
