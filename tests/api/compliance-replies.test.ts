// Issue 28 item 1: compliance replies carriers accept. Texts arrive through Twilio's signed inbound webhook and the
// replies leave through the Twilio fake, so each check compares the consent log with what the provider received.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const SENDER = "+14155550100";
const WELCOME = "{business}: Thanks for joining, {firstName|friend}! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.";
const QUESTION = "Rosa's Flowers: Reply Y within 24 hours to confirm you want texts from us (keyword DEALS). Msg & data rates may apply. Reply STOP to cancel.";

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

/** A Twilio account with the number, a business profile, and a way to text it from a phone. */
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

/** What Twilio received for a phone, once it has received `n` messages. */
const received = (phone: string, n: number) =>
  waitFor(
    () => twilio.messages.filter((m) => m.to === phone).map((m) => m.body),
    (b) => b.length >= n,
  );

async function consents(acc: Account, phone: string) {
  const contact = (await call(acc, "GET", `/api/contacts?search=${encodeURIComponent(phone)}`)).body.data[0];
  const log = await call(acc, "GET", `/api/contacts/${contact.id}/consent`);
  return log.body.data.map((c: { kind: string; text: string; keyword: string | null; number: string | null }) => ({ kind: c.kind, text: c.text, keyword: c.keyword, number: c.number }));
}

describe("a double opt-in answered YES or Y", () => {
  test.each(["YES", "Y", "yes!"])("%s confirms it with the keyword's welcome; the consent log records the text Twilio received", async (answer) => {
    const { acc, text } = await twilioAccount();
    expect((await call(acc, "POST", "/api/keywords", { keyword: "DEALS", autoReply: WELCOME, tags: ["deals"], doubleOptIn: true })).status).toBe(201);
    const phone = `+1415555${2600 + Math.floor(Math.random() * 300)}`;
    await text(phone, "deals");
    expect(await received(phone, 1)).toEqual([QUESTION]);
    await text(phone, answer);
    const sent = await received(phone, 2);
    expect(sent).toEqual([QUESTION, "Rosa's Flowers: Thanks for joining, friend! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel."]);
    expect(await consents(acc, phone)).toEqual([{ kind: "opt_in", text: sent[1], keyword: "DEALS", number: SENDER }]);
    const contact = (await call(acc, "GET", `/api/contacts?search=${encodeURIComponent(phone)}`)).body.data[0];
    expect(contact).toMatchObject({ status: "subscribed", tags: ["deals"] });
    expect((await call(acc, "GET", "/api/keywords")).body.data[0]).toMatchObject({ optInCount: 1, pendingCount: 0 });
    // Nothing else went out: no "You are subscribed again".
    await Bun.sleep(300);
    expect(twilio.messages.filter((m) => m.to === phone).length).toBe(2);
  });

  test("START with nothing pending resubscribes with its own confirmation; the log keeps that text and the number texted", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155552990";
    await text(phone, "STOP");
    await text(phone, "START");
    const sent = await received(phone, 2);
    expect(sent).toEqual([
      "Rosa's Flowers: You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
      "Rosa's Flowers: You are subscribed again. Reply HELP for help, STOP to unsubscribe.",
    ]);
    expect(await consents(acc, phone)).toEqual([
      { kind: "opt_out", text: "STOP", keyword: null, number: null },
      { kind: "opt_in", text: sent[1], keyword: null, number: SENDER },
    ]);
  });
});

describe("the HELP reply", () => {
  test("by default names the business and a contact: the account's email until the profile gives one", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155552991";
    await text(phone, "HELP");
    expect(await received(phone, 1)).toEqual([
      `Rosa's Flowers: For help, contact ${acc.email}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.`,
    ]);
    expect((await call(acc, "PATCH", "/api/user/profile", { businessContact: "(415) 555-0199" })).status).toBe(200);
    await text(phone, "info");
    expect((await received(phone, 2))[1]).toBe(
      "Rosa's Flowers: For help, contact (415) 555-0199. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.",
    );
  });

  test("is editable in the sending settings; empty goes back to the default", async () => {
    const { acc, text } = await twilioAccount();
    const phone = "+14155552992";
    const custom = "Rosa's Flowers help: call 415-555-0199 or visit rosasflowers.example. Msg & data rates may apply. Reply STOP to opt out.";
    const settings = await call(acc, "GET", "/api/user/settings");
    const byDefault = `Rosa's Flowers: For help, contact ${acc.email}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.`;
    expect(settings.body).toMatchObject({ helpReply: byDefault, helpReplyDefault: byDefault, helpReplyCustom: false });
    const saved = await call(acc, "PATCH", "/api/user/settings", { helpReply: `  ${custom} ` });
    expect(saved.body).toMatchObject({ helpReply: custom, helpReplyDefault: byDefault, helpReplyCustom: true });
    await text(phone, "HELP");
    expect(await received(phone, 1)).toEqual([custom]);

    expect(await call(acc, "PATCH", "/api/user/settings", { helpReply: "x".repeat(481) })).toMatchObject({
      status: 400,
      body: { message: "The HELP reply must be at most 480 characters" },
    });
    expect((await call(acc, "PATCH", "/api/user/settings", { helpReply: "" })).body).toMatchObject({ helpReply: byDefault, helpReplyCustom: false });
    // The default follows the profile: a new name signs it.
    await call(acc, "PATCH", "/api/user/profile", { businessName: "Rosa & Co" });
    expect((await call(acc, "GET", "/api/user/settings")).body.helpReply).toBe(
      `Rosa & Co: For help, contact ${acc.email}. Msg & data rates may apply. Reply STOP to unsubscribe, START to resubscribe.`,
    );
  });
});
