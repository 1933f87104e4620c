// Text-to-join keywords: the calls and their refusals, a keyword texted through each of the five providers' own
// inbound webhooks, repeats, double opt-in, the plan's contact limit, the tester, the cards' figures and tenancy.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { plans } from "../../db/schema";
import { grantLicense } from "../../src/licenses/licenses";
import { recordInbound } from "../../src/inbound/receive";
import { codesOf } from "../../src/links/links";
import { findProviderById } from "../../src/providers/accounts";
import { brevoSmsEvent, brevoWebhook, startBrevoFake, type BrevoFake } from "../support/fakes/brevo";
import { clickSendInbound, clickSendWebhook, startClickSendFake, type ClickSendFake } from "../support/fakes/clicksend";
import { startTelnyxFake, telnyxReceivedEvent, type TelnyxFake } from "../support/fakes/telnyx";
import { startTextMagicFake, textMagicInbound, textMagicWebhook, type TextMagicFake } from "../support/fakes/textmagic";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

const SENDER = "+14155550100";
const SUBSCRIBER = "+14155552671";
const WELCOME = "Test User: Thanks for joining! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.";

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

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
const put = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "PUT", token: acc.token, body });
const get = (acc: Account, path: string) => t.api(path, { token: acc.token });
const sql = <T>(query: string, ...args: unknown[]) => t.ctx.records.$rows<T>(query, args);

/** The account's outbound messages to a phone (every keyword reply goes through the outbox). */
const repliesTo = (acc: Account, phone: string) =>
  sql<{ content: string; kind: string }>(`SELECT content, kind FROM messages WHERE user_id = ? AND phone = ? AND direction = 'outbound' ORDER BY created_at, id`, acc.user.id, phone);
/** Consents recorded through a keyword: the phone, the confirmation text and the keyword. */
const keywordConsents = (acc: Account) =>
  sql<{ phone: string; text: string; keyword: string }>(
    `SELECT c.phone, k.text, k.keyword FROM contact_consents k JOIN contacts c ON c.id = k.contact_id WHERE k.user_id = ? AND k.keyword IS NOT NULL ORDER BY k.created_at, k.id`,
    acc.user.id,
  );
const contactsOf = (acc: Account) => sql<{ id: string; phone: string; status: string; tags: string; source: string }>(`SELECT id, phone, status, tags, source FROM contacts WHERE user_id = ?`, acc.user.id);

async function simulatorAccount(numbers = 1) {
  const acc = await t.signUpVerified();
  if (numbers > 1) await grantLicense(t.ctx, acc.user.id, "professional", 30);
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect(provider.status).toBe(201);
  const added: string[] = [];
  for (let i = 0; i < numbers; i++) {
    const phoneNumber = `+1415555${String(110 + i).padStart(4, "0")}`;
    expect((await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber })).status).toBe(201);
    added.push(phoneNumber);
  }
  const account = (await findProviderById(t.ctx, provider.body.id))!;
  let seq = 0;
  /** A text from `from` to `to`, through the inbound path the webhooks use. */
  const text = (from: string, body: string, to = added[0]!) =>
    recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `kw-${acc.user.id}-${++seq}`, from, to, body });
  return { acc, numbers: added, text };
}

describe("keyword calls", () => {
  test("create answers 201 with the spec's fields and ours; the list carries the totals", async () => {
    const { acc, numbers } = await simulatorAccount();
    const res = await post(acc, "/api/keywords", {
      keyword: " join! ",
      shortCode: "55500",
      autoReply: WELCOME,
      tags: ["vip", " newsletter ", "vip", ""],
      userId: "someone-else",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      userId: acc.user.id,
      keyword: "JOIN",
      shortCode: "55500",
      autoReply: WELCOME,
      alreadyReply: null,
      tags: ["vip", "newsletter"],
      matchMode: "whole",
      numbers: [],
      doubleOptIn: false,
      shortenLinks: true,
      isActive: true,
      optInCount: 0,
      pendingCount: 0,
      responseRate: null,
      createdAt: expect.any(String),
    });
    const list = await get(acc, "/api/keywords");
    expect(list.body).toEqual({ data: [res.body], totals: { keywords: 1, active: 1, optIns: 0, responseRate: null } });

    const edited = await put(acc, `/api/keywords/${res.body.id}`, { matchMode: "first_word", numbers: [numbers[0]], alreadyReply: "You're already on the list!" });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ keyword: "JOIN", autoReply: WELCOME, matchMode: "first_word", numbers: [numbers[0]], alreadyReply: "You're already on the list!" });
    const off = await post(acc, `/api/keywords/${res.body.id}/toggle`, { isActive: false });
    expect(off.body.isActive).toBe(false);
    expect((await get(acc, "/api/keywords")).body.totals).toEqual({ keywords: 1, active: 0, optIns: 0, responseRate: null });
  });

  test("refusals: required fields, compliance words and common replies, spaces, numbers not the account's, duplicates per number", async () => {
    const { acc, numbers } = await simulatorAccount(2);
    const create = (body: Record<string, unknown>) => post(acc, "/api/keywords", { autoReply: WELCOME, ...body });
    expect(await post(acc, "/api/keywords", { keyword: "JOIN" })).toMatchObject({ status: 400, body: { message: "Keyword and auto-reply are required" } });
    expect(await create({ keyword: "JOIN", autoReply: "   " })).toMatchObject({ status: 400, body: { message: "Keyword and auto-reply are required" } });
    expect(await create({ keyword: "HELP" })).toMatchObject({
      status: 400,
      body: { message: `"HELP" is a help word: texting it always gets the help reply, so it cannot be a keyword.` },
    });
    expect(await create({ keyword: "stop" })).toMatchObject({
      status: 400,
      body: { message: `"STOP" is an opt-out word: texting it always unsubscribes, so it cannot be a keyword.` },
    });
    expect(await create({ keyword: "Thanks" })).toMatchObject({
      status: 400,
      body: { message: `"THANKS" is a common reply: people send it in ordinary conversation, so it cannot be a keyword.` },
    });
    expect(await create({ keyword: "join us" })).toMatchObject({
      status: 400,
      body: { message: "A keyword is one word of letters and digits, at most 30 characters (no spaces)." },
    });
    expect(await create({ keyword: "JOIN", numbers: ["+14155559999"] })).toMatchObject({
      status: 400,
      body: { message: "+14155559999 is not one of your phone numbers. Choose numbers from Phone Settings." },
    });
    expect(await create({ keyword: "JOIN", autoReply: "x".repeat(1601) })).toMatchObject({ status: 400, body: { message: "The auto-reply is at most 1600 characters" } });

    // Unique per account and sender number: JOIN on the first number, then JOIN on the second is fine; a JOIN on
    // all numbers, or a second on the first, is refused.
    expect((await create({ keyword: "JOIN", numbers: [numbers[0]] })).status).toBe(201);
    expect((await create({ keyword: "join", numbers: [numbers[1]] })).status).toBe(201);
    expect(await create({ keyword: "Join" })).toMatchObject({
      status: 409,
      body: { message: `The keyword "JOIN" already exists on ${numbers[0]}. Edit it, or choose other numbers.` },
    });
    expect(await create({ keyword: "JOIN!", numbers: [numbers[1]] })).toMatchObject({
      status: 409,
      body: { message: `The keyword "JOIN" already exists on ${numbers[1]}. Edit it, or choose other numbers.` },
    });
    expect((await create({ keyword: "DEALS" })).status).toBe(201);
    expect(await create({ keyword: "deals", numbers: [numbers[0]] })).toMatchObject({
      status: 409,
      body: { message: `The keyword "DEALS" already exists on all your numbers. Edit it, or choose other numbers.` },
    });
    // Two creates of one word at once: its uniqueness is checked in the transaction that writes it, so one is made
    // and the other refused (no constraint can say "overlapping numbers").
    const both = await Promise.all([create({ keyword: "PROMO" }), create({ keyword: "promo", numbers: [numbers[1]] })]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await sql<{ n: number }>(`SELECT count(*) AS n FROM keywords WHERE user_id = ? AND match_key = 'promo'`, acc.user.id))[0]!.n).toBe(1);
  });

  test("tenancy: another account neither sees, edits, toggles nor fires a keyword", async () => {
    const a = await simulatorAccount();
    const b = await simulatorAccount();
    const k = (await post(a.acc, "/api/keywords", { keyword: "PIZZA", autoReply: WELCOME })).body;
    expect((await get(b.acc, "/api/keywords")).body.data).toEqual([]);
    expect(await put(b.acc, `/api/keywords/${k.id}`, { autoReply: "mine now" })).toMatchObject({ status: 404, body: { message: "Keyword not found" } });
    expect(await post(b.acc, `/api/keywords/${k.id}/toggle`, { isActive: false })).toMatchObject({ status: 404, body: { message: "Keyword not found" } });
    expect((await post(b.acc, "/api/keywords/test", { number: "", text: "pizza" })).body.rule).toBe("none");
    await b.text(SUBSCRIBER, "PIZZA");
    expect(await keywordConsents(b.acc)).toEqual([]);
    expect(await repliesTo(b.acc, SUBSCRIBER)).toEqual([]);
    expect(await keywordConsents(a.acc)).toEqual([]);
    expect((await get(a.acc, "/api/keywords")).body.data[0]).toMatchObject({ autoReply: WELCOME, isActive: true, optInCount: 0 });
    expect((await get(a.acc, "/api/keywords")).status).toBe(200);
    expect((await t.api("/api/keywords")).status).toBe(401);
  });
});

type Case = {
  provider: string;
  credentials: () => Record<string, string>;
  /** The provider's inbound webhook for a text from the subscriber to the account's number. */
  inbound: (url: string, body: string, n: number) => { body: string; headers: Record<string, string> } | Promise<{ body: string; headers: Record<string, string> }>;
  /** What the provider's fake received, addressed to the subscriber. */
  sent: () => string[];
  /** Whether the provider names the number texted (Brevo does not). */
  namesNumber: boolean;
};

const CASES: Case[] = [
  {
    provider: "twilio",
    credentials: () => ({ accountSid: twilio.accountSid, authToken: twilio.authToken }),
    inbound: (url, body) => signedTwilioWebhook(twilio.authToken, url, twilioInboundParams({ accountSid: twilio.accountSid, from: SUBSCRIBER, to: SENDER, body })),
    sent: () => twilio.messages.filter((m) => m.to === SUBSCRIBER).map((m) => m.body),
    namesNumber: true,
  },
  {
    provider: "telnyx",
    credentials: () => ({ apiKey: telnyx.apiKey, publicKey: telnyx.publicKey }),
    inbound: (_url, text) => telnyx.webhook(telnyxReceivedEvent({ from: SUBSCRIBER, to: SENDER, text })),
    sent: () => telnyx.messages.filter((m) => m.to === SUBSCRIBER).map((m) => m.text),
    namesNumber: true,
  },
  {
    provider: "brevo",
    credentials: () => ({ apiKey: brevo.credentials.apiKey }),
    inbound: (_url, reply, n) => brevoWebhook(brevoSmsEvent({ messageId: 7000 + n, to: SUBSCRIBER, event: "replied", reply, date: `2025-06-01 14:0${n}:00` })),
    sent: () => brevo.messages.filter((m) => m.recipient === SUBSCRIBER.slice(1)).map((m) => m.content),
    namesNumber: false,
  },
  {
    provider: "textmagic",
    credentials: () => ({ ...textmagic.credentials }),
    inbound: (_url, text, n) => textMagicWebhook(textMagicInbound({ id: 9000 + n, sender: SUBSCRIBER, receiver: SENDER, text })),
    sent: () => textmagic.messages.filter((m) => m.phones === SUBSCRIBER.slice(1)).map((m) => m.text),
    namesNumber: true,
  },
  {
    provider: "clicksend",
    credentials: () => ({ ...clicksend.credentials }),
    inbound: (_url, body) => clickSendWebhook(clickSendInbound({ from: SUBSCRIBER, to: SENDER, body })),
    sent: () => clicksend.messages.filter((m) => m.to === SUBSCRIBER).map((m) => m.body),
    namesNumber: true,
  },
];

describe.each(CASES)("a keyword texted through $provider", (c) => {
  test("creates the contact, tags it, records consent and sends one confirmation; again, it subscribes nobody twice", async () => {
    const acc = await t.signUpVerified();
    const created = await post(acc, "/api/sms-providers", { provider: c.provider, displayName: c.provider, ...c.credentials() });
    expect(created.status).toBe(201);
    expect((await post(acc, "/api/phone-numbers", { providerId: created.body.id, phoneNumber: SENDER })).status).toBe(201);
    // Brevo does not say which number was texted: a keyword on all numbers is the one that can fire there.
    const keyword = await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: WELCOME, tags: ["vip", "from-keyword"], numbers: c.namesNumber ? [SENDER] : [] });
    expect(keyword.status).toBe(201);
    const hookUrl: string = created.body.webhookUrl;
    const deliver = async (body: string, n: number) => {
      const hook = await c.inbound(hookUrl, body, n);
      const res = await fetch(hookUrl.replace(t.ctx.config.publicUrl, t.url), { method: "POST", body: hook.body, headers: hook.headers });
      expect(res.status).toBe(200);
    };

    await deliver("Join!", 1);
    const [contact] = await contactsOf(acc);
    expect(contact).toEqual({ id: expect.any(String), phone: SUBSCRIBER, status: "subscribed", tags: `["vip","from-keyword"]`, source: "keyword" });
    const consent = await get(acc, `/api/contacts/${contact!.id}/consent`);
    expect(consent.body.data).toEqual([
      {
        id: expect.any(String),
        contactId: contact!.id,
        kind: "opt_in",
        source: "keyword",
        text: WELCOME,
        number: c.namesNumber ? SENDER : null,
        keyword: "JOIN",
        createdAt: expect.any(String),
      },
    ]);
    const events = await sql<{ type: string }>(`SELECT type FROM events WHERE user_id = ? AND subject_id = ? ORDER BY id`, acc.user.id, contact!.id);
    expect(events.map((e) => e.type)).toEqual(["contact.created", "contact.opted_in"]);
    // The match itself is an event about the inbound message (outbound webhooks' keyword_received).
    const [inbound] = await sql<{ id: string }>(`SELECT id FROM messages WHERE user_id = ? AND direction = 'inbound'`, acc.user.id);
    const matched = await sql<{ type: string; payload: string }>(`SELECT type, payload FROM events WHERE user_id = ? AND subject_id = ? ORDER BY id`, acc.user.id, inbound!.id);
    expect(matched.map((e) => [e.type, JSON.parse(e.payload)])).toEqual([
      ["message.received", { phone: SUBSCRIBER, contactId: null }],
      ["keyword.received", { keywordId: keyword.body.id, keyword: "JOIN", phone: SUBSCRIBER, number: c.namesNumber ? SENDER : null, contactId: contact!.id, outcome: "subscribed" }],
    ]);
    expect(await repliesTo(acc, SUBSCRIBER)).toEqual([{ content: WELCOME, kind: "compliance" }]);
    expect(await waitFor(() => c.sent(), (s) => s.length > 0)).toEqual([WELCOME]);

    await deliver("join", 2);
    expect((await contactsOf(acc)).length).toBe(1);
    expect((await get(acc, `/api/contacts/${contact!.id}/consent`)).body.data.length).toBe(1);
    // No already-subscribed reply is set: nothing more is sent.
    expect(await repliesTo(acc, SUBSCRIBER)).toEqual([{ content: WELCOME, kind: "compliance" }]);
    expect((await get(acc, "/api/keywords")).body.data[0]).toMatchObject({ optInCount: 1, responseRate: 0 });
    expect(c.sent()).toEqual([WELCOME]);
  });
});

describe("keywords on the inbound path", () => {
  test("a subscriber texting it again gets the separate reply, rendered; compliance words win; other numbers are not listened on", async () => {
    const { acc, numbers, text } = await simulatorAccount(2);
    const k = (await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: "Welcome {firstName|friend}! Reply STOP to cancel.", alreadyReply: "{business}: you are already subscribed.", numbers: [numbers[0]], matchMode: "first_word" })).body;
    expect(await text(SUBSCRIBER, "join us", numbers[1])).toMatchObject({ keyword: null });
    expect(await keywordConsents(acc)).toEqual([]);
    expect(await repliesTo(acc, SUBSCRIBER)).toEqual([]);
    await text(SUBSCRIBER, "join us");
    expect((await text(SUBSCRIBER, "JOIN")).keyword).toBeNull();
    expect((await repliesTo(acc, SUBSCRIBER)).map((r) => r.content)).toEqual(["Welcome friend! Reply STOP to cancel.", "Test User: you are already subscribed."]);

    // STOP wins, then the keyword subscribes again (it is the sender's own request) with the welcome once more.
    expect((await text(SUBSCRIBER, "stop")).keyword).toBe("stop");
    expect((await contactsOf(acc))[0]!.status).toBe("opted_out");
    await text(SUBSCRIBER, "Join!");
    expect((await contactsOf(acc))[0]!.status).toBe("subscribed");
    expect((await repliesTo(acc, SUBSCRIBER)).map((r) => r.content).slice(2)).toEqual([
      "Test User: You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
      "Welcome friend! Reply STOP to cancel.",
    ]);
    expect((await get(acc, "/api/keywords")).body.data[0]).toMatchObject({ id: k.id, optInCount: 1 });
  });

  test("double opt-in: the question first, nobody subscribed until Y within 24 hours; a late Y confirms nothing", async () => {
    const { acc, text } = await simulatorAccount();
    await post(acc, "/api/keywords", { keyword: "DEALS", autoReply: WELCOME, tags: ["deals"], doubleOptIn: true });
    const question = "Test User: Reply Y within 24 hours to confirm you want texts from us (keyword DEALS). Msg & data rates may apply. Reply STOP to cancel.";
    await text(SUBSCRIBER, "deals");
    // Unconfirmed: no consent, no tag (a phone that texts in is a conversation's contact, with no consent).
    expect(await keywordConsents(acc)).toEqual([]);
    expect((await contactsOf(acc)).filter((c) => c.tags !== "[]")).toEqual([]);
    expect((await repliesTo(acc, SUBSCRIBER)).map((r) => r.content)).toEqual([question]);
    expect((await get(acc, "/api/keywords")).body.data[0]).toMatchObject({ optInCount: 0, pendingCount: 1 });
    // Asking again within the window does not ask twice.
    await text(SUBSCRIBER, "DEALS");
    expect((await repliesTo(acc, SUBSCRIBER)).length).toBe(1);
    await text(SUBSCRIBER, "y");
    expect(await contactsOf(acc)).toEqual([expect.objectContaining({ phone: SUBSCRIBER, status: "subscribed", tags: `["deals"]` })]);
    expect(await keywordConsents(acc)).toEqual([{ phone: SUBSCRIBER, text: WELCOME, keyword: "DEALS" }]);
    expect((await repliesTo(acc, SUBSCRIBER)).map((r) => r.content)).toEqual([question, WELCOME]);
    expect((await get(acc, "/api/keywords")).body.data[0]).toMatchObject({ optInCount: 1, pendingCount: 0 });

    const late = "+14155552672";
    const realNow = t.ctx.now;
    try {
      await text(late, "DEALS");
      t.ctx.now = () => realNow() + 24 * 3600_000 + 1000;
      await text(late, "Y");
      expect((await keywordConsents(acc)).map((c) => c.phone)).toEqual([SUBSCRIBER]);
      expect((await contactsOf(acc)).find((c) => c.phone === late)?.tags ?? "[]").toBe("[]");
      expect((await repliesTo(acc, late)).map((r) => r.content)).toEqual([question]);
      // YES (an opt-in word) answers the question as Y does: the keyword's welcome is the one reply.
      const yes = "+14155552673";
      await text(yes, "deals");
      expect(await text(yes, "YES")).toMatchObject({ keyword: "start", reply: WELCOME });
      expect((await contactsOf(acc)).find((c) => c.phone === yes)).toMatchObject({ status: "subscribed", tags: `["deals"]` });
      expect((await repliesTo(acc, yes)).map((r) => r.content)).toEqual([question, WELCOME]);
      // A STOP after the question withdraws it: a later Y subscribes nobody.
      const stopped = "+14155552674";
      await text(stopped, "deals");
      await text(stopped, "STOP");
      await text(stopped, "Y");
      expect((await keywordConsents(acc)).map((c) => c.phone)).toEqual([SUBSCRIBER, yes]);
      expect((await contactsOf(acc)).find((c) => c.phone === stopped)).toMatchObject({ status: "opted_out", tags: "[]" });
    } finally {
      t.ctx.now = realNow;
    }
  });

  test("at the plan's contact limit a keyword from a new number adds nobody and sends nothing; existing contacts still join", async () => {
    const { acc, text } = await simulatorAccount();
    await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: WELCOME, tags: ["vip"] });
    expect((await post(acc, "/api/contacts", { firstName: "Ann", phone: "+14155550201" })).status).toBe(201);
    await t.ctx.records.update(plans).set({ monthlyContacts: 1 }).where(eq(plans.id, "starter")).run();
    try {
      const blocked = await text("+14155550203", "JOIN");
      expect(blocked.message).toMatchObject({ phone: "+14155550203", content: "JOIN", direction: "inbound", contactId: null });
      expect((await contactsOf(acc)).length).toBe(1);
      expect(await repliesTo(acc, "+14155550203")).toEqual([]);
      await text("+14155550201", "JOIN");
      expect(await contactsOf(acc)).toEqual([expect.objectContaining({ phone: "+14155550201", tags: `["vip"]` })]);
      expect((await repliesTo(acc, "+14155550201")).map((r) => r.content)).toEqual([WELCOME]);
    } finally {
      await t.ctx.records.update(plans).set({ monthlyContacts: 1000 }).where(eq(plans.id, "starter")).run();
    }
  });

  test("the cards' response rate is replies over opt-ins", async () => {
    const { acc, text } = await simulatorAccount();
    await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: WELCOME });
    for (const n of ["+14155552001", "+14155552002", "+14155552003", "+14155552004"]) await text(n, "join");
    await text("+14155552001", "What time do you open?");
    await text("+14155552001", "And on Sundays?");
    await text("+14155552002", "thanks!");
    await text("+14155552009", "hello there");
    const list = (await get(acc, "/api/keywords")).body;
    expect(list.data[0]).toMatchObject({ optInCount: 4, responseRate: 50 });
    expect(list.totals).toEqual({ keywords: 1, active: 1, optIns: 4, responseRate: 50 });
  });
});

describe("links in keyword replies (issue 32 item 1)", () => {
  test("the welcome and the already-subscribed reply go out with short links of the new contact; a keyword with the switch off sends them as written", async () => {
    const { acc, text } = await simulatorAccount();
    const domain = t.ctx.config.linkDomain.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const made = await post(acc, "/api/keywords", {
      keyword: "SPRING",
      autoReply: "Welcome {firstName|friend}! Our spring deals: https://shop.example.com/spring?ref=kw. Reply STOP to cancel.",
      alreadyReply: "You're in! Deals: https://shop.example.com/spring",
    });
    expect(made.body.shortenLinks).toBe(true);
    const plain = await post(acc, "/api/keywords", { keyword: "PLAIN", autoReply: "Hi! See https://shop.example.com/plain", shortenLinks: false });
    expect(plain.body.shortenLinks).toBe(false);
    expect((await put(acc, `/api/keywords/${plain.body.id}`, { shortenLinks: "no" })).body.message).toBe("shortenLinks is true or false");

    await text(SUBSCRIBER, "spring");
    await text(SUBSCRIBER, "SPRING");
    const replies = (await repliesTo(acc, SUBSCRIBER)).map((r) => r.content);
    expect(replies).toHaveLength(2);
    expect(replies[0]).toMatch(new RegExp(`^Welcome friend! Our spring deals: ${domain}/l/[0-9A-Za-z]{7}\\. Reply STOP to cancel\\.$`));
    expect(replies[1]).toMatch(new RegExp(`^You're in! Deals: ${domain}/l/[0-9A-Za-z]{7}$`));
    // The consent log keeps the welcome exactly as sent, short link and all.
    expect(await keywordConsents(acc)).toEqual([{ phone: SUBSCRIBER, text: replies[0]!, keyword: "SPRING" }]);
    // Each link belongs to its message, which is the contact's the welcome created, so a click counts for them.
    const contact = (await contactsOf(acc)).find((c) => c.phone === SUBSCRIBER)!;
    const links = await sql<{ id: number; contact_id: string; campaign_id: string | null; source: string; url: string; target: string; content: string }>(
      `SELECT s.id, m.contact_id, l.campaign_id, l.source, l.url, l.target, m.content FROM short_links s JOIN links l ON l.id = s.link_id JOIN messages m ON m.id = s.message_id WHERE l.user_id = ? ORDER BY s.id`,
      acc.user.id,
    );
    const codes = await codesOf(t.ctx, links.map((l) => l.id));
    expect(links.map((l) => [l.contact_id, l.campaign_id, l.source.replace(/:.*/, ""), l.url, l.target, l.content.includes(`/l/${codes.get(l.id)}`)])).toEqual([
      [contact.id, null, "keyword", "https://shop.example.com/spring?ref=kw", "https://shop.example.com/spring?ref=kw", true],
      [contact.id, null, "keyword", "https://shop.example.com/spring", "https://shop.example.com/spring", true],
    ]);
    const code = /\/l\/([0-9A-Za-z]{7})/.exec(replies[0]!)![1];
    const res = await fetch(`${t.url}/l/${code}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Safari/604.1" } });
    expect([res.status, res.headers.get("location")]).toEqual([302, "https://shop.example.com/spring?ref=kw"]);

    await text("+14155552672", "PLAIN");
    expect((await repliesTo(acc, "+14155552672")).map((r) => r.content)).toEqual(["Hi! See https://shop.example.com/plain"]);
  });
});

describe("the tester", () => {
  test("answers which rule fires without sending or recording anything", async () => {
    const { acc, numbers } = await simulatorAccount();
    await post(acc, "/api/keywords", { keyword: "JOIN", autoReply: WELCOME, matchMode: "first_word", tags: ["vip"] });
    const off = (await post(acc, "/api/keywords", { keyword: "PIZZA", autoReply: "Pizza!" })).body;
    await post(acc, `/api/keywords/${off.id}/toggle`, { isActive: false });
    const test_ = (text: string) => post(acc, "/api/keywords/test", { number: numbers[0], text }).then((r) => r.body);
    expect(await test_("join us")).toEqual({
      rule: "keyword",
      keyword: { id: expect.any(String), keyword: "JOIN" },
      reply: WELCOME,
      description: "Keyword JOIN: the sender is subscribed, tagged vip, and gets the auto-reply once.",
    });
    expect(await test_("STOP")).toEqual({
      rule: "opt-out",
      keyword: null,
      reply: null,
      description: "Opt-out: the sender is unsubscribed and gets one confirmation. Opt-out words always win over keywords.",
    });
    expect((await test_("stop join")).rule).toBe("none");
    expect((await test_("help")).rule).toBe("help");
    expect((await test_("yes")).rule).toBe("opt-in");
    expect((await test_("pizza")).description).toBe(
      "No rule fires: the message is recorded in the inbox and nothing is sent. (Keyword PIZZA would match, but it is switched off.)",
    );
    expect(await post(acc, "/api/keywords/test", { number: numbers[0], text: "" })).toMatchObject({
      status: 400,
      body: { message: "Type the message to test (at most 1,600 characters)" },
    });
    expect(await sql(`SELECT id FROM messages WHERE user_id = ?`, acc.user.id)).toEqual([]);
  });
});
