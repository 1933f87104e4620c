// Conversations: one thread per contact phone, exactly-once inbound through the signed Twilio webhook, server
// order, unread counts, the sticky sender, states, idempotent replies, bulk archive and delete, cursors, tenancy.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { plans } from "../../db/schema";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";

setDefaultTimeout(30_000);

const MAIN = "+14155550100";
const SECOND = "+14155550101";
const OPTED_OUT = "This contact has opted out of messages. They can opt back in by texting START.";

let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: MAIN }, { phoneNumber: SECOND }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
  // Two sender numbers per account, for the sticky sender.
  await t.ctx.records.update(plans).set({ phoneNumbers: 2 }).where(eq(plans.id, "starter")).run();
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const post = (acc: Account, path: string, body?: unknown, headers?: Record<string, string>) =>
  t.api(path, { method: "POST", token: acc.token, body, headers });
const get = (acc: Account, path: string) => t.api(path, { token: acc.token });

/** An account sending through the Twilio fake, MAIN its default number and SECOND its other one. */
async function account() {
  const acc = await t.signUpVerified();
  const p = await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken });
  expect(p.status).toBe(201);
  expect((await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: MAIN })).status).toBe(201);
  expect((await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: SECOND })).status).toBe(201);
  return acc;
}

let sids = 0;
/** A signed Twilio inbound webhook for the account: the same `sid` is the same provider message. */
function inboundHook(acc: Account, from: string, body: string, opts: { to?: string; sid?: string } = {}) {
  const url = `${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${acc.user.id}`;
  const params = twilioInboundParams({ accountSid: twilio.accountSid, from, to: opts.to ?? MAIN, body, messageSid: opts.sid ?? `SM${String(++sids).padStart(32, "0")}` });
  const signed = signedTwilioWebhook(twilio.authToken, url, params);
  return () => fetch(`${t.url}/api/webhooks/twilio/sms/${acc.user.id}`, { method: "POST", body: signed.body, headers: signed.headers });
}

async function inbound(acc: Account, from: string, body: string, opts: { to?: string; sid?: string } = {}) {
  const r = await inboundHook(acc, from, body, opts)();
  expect(r.status).toBe(200);
}

async function conversationOf(acc: Account, phone: string) {
  const list = await get(acc, `/api/conversations?pageSize=100&filter=all&q=${encodeURIComponent(phone.slice(2))}`);
  const hit = list.body.data.find((c: any) => c.phone === phone);
  if (hit) return hit;
  const archived = await get(acc, `/api/conversations?pageSize=100&filter=archived`);
  return archived.body.data.find((c: any) => c.phone === phone);
}

const thread = (acc: Account, id: number, q = "") => get(acc, `/api/messages/${id}${q}`).then((r) => r.body);

describe("inbound messages land in their thread exactly once", () => {
  test("the same signed webhook twice, then 50 times at once, adds one message each", async () => {
    const acc = await account();
    const twice = inboundHook(acc, "+14155552001", "Hello there");
    expect((await twice()).status).toBe(200);
    expect((await twice()).status).toBe(200);
    const c = await conversationOf(acc, "+14155552001");
    expect(c).toMatchObject({ phone: "+14155552001", state: "open", unreadCount: 1, lastMessage: "Hello there", lastDirection: "inbound", replyFrom: MAIN });
    expect((await thread(acc, c.id)).map((m: any) => m.content)).toEqual(["Hello there"]);

    const fifty = inboundHook(acc, "+14155552001", "Are you open today?");
    const answers = await Promise.all(Array.from({ length: 50 }, () => fifty()));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const messages = await thread(acc, c.id);
    expect(messages.map((m: any) => [m.direction, m.content])).toEqual([
      ["inbound", "Hello there"],
      ["inbound", "Are you open today?"],
    ]);
    expect(messages[1].seq).toBeGreaterThan(messages[0].seq);
    expect(await conversationOf(acc, "+14155552001")).toMatchObject({ id: c.id, unreadCount: 2, lastSeq: messages[1].seq });
    const list = await get(acc, "/api/conversations");
    expect(list.body).toMatchObject({ total: 1, unreadTotal: 2 });
  });
});

describe("a thread is in server order", () => {
  test("messages written in the same millisecond keep the order they were written in", async () => {
    const acc = await account();
    const realNow = t.ctx.now;
    const frozen = realNow();
    t.ctx.now = () => frozen;
    try {
      await inbound(acc, "+14155552002", "first");
      for (const content of ["second", "third"]) {
        expect((await post(acc, "/api/messages", { phone: "+14155552002", content, direction: "outbound" })).status).toBe(202);
      }
      await inbound(acc, "+14155552002", "fourth");
      expect((await post(acc, "/api/messages/send", { phone: "+14155552002", content: "fifth" })).status).toBe(202);
    } finally {
      t.ctx.now = realNow;
    }
    const c = await conversationOf(acc, "+14155552002");
    const messages = await thread(acc, c.id);
    expect(messages.map((m: any) => m.content)).toEqual(["first", "second", "third", "fourth", "fifth"]);
    expect(new Set(messages.map((m: any) => m.createdAt)).size).toBe(1);
    const seqs = messages.map((m: any) => m.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(5);
    expect(c).toMatchObject({ lastMessage: "fifth", lastDirection: "outbound", lastSeq: seqs[4], unreadCount: 2 });
  });

  test("cursors: after a seq (what came since), before a seq (history), and the newest page by default", async () => {
    const acc = await account();
    for (let i = 1; i <= 6; i++) await inbound(acc, "+14155552003", `m${i}`);
    const c = await conversationOf(acc, "+14155552003");
    const all = await thread(acc, c.id);
    const seq = all.map((m: any) => m.seq);
    expect(all.map((m: any) => m.content)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
    expect((await thread(acc, c.id, `?after=${seq[1]}`)).map((m: any) => m.content)).toEqual(["m3", "m4", "m5", "m6"]);
    expect((await thread(acc, c.id, `?after=${seq[1]}&limit=2`)).map((m: any) => m.content)).toEqual(["m3", "m4"]);
    expect((await thread(acc, c.id, `?after=${seq[5]}`))).toEqual([]);
    expect((await thread(acc, c.id, `?before=${seq[4]}&limit=2`)).map((m: any) => m.content)).toEqual(["m3", "m4"]);
    expect((await thread(acc, c.id, `?limit=3`)).map((m: any) => m.content)).toEqual(["m4", "m5", "m6"]);
    expect(await get(acc, `/api/messages/${c.id}?limit=0`)).toMatchObject({ status: 400, body: { message: "limit must be a whole number from 1 to 200" } });
    expect(await get(acc, `/api/messages/${c.id}?after=abc`)).toMatchObject({ status: 400, body: { message: "after must be a message's seq" } });
  });
});

describe("unread counts and the last-read marker", () => {
  test("inbound messages count up; marking read up to a seq leaves what came after; marking read clears", async () => {
    const acc = await account();
    for (const body of ["one", "two", "three"]) await inbound(acc, "+14155552004", body);
    await inbound(acc, "+14155552005", "other");
    const c = await conversationOf(acc, "+14155552004");
    expect(c.unreadCount).toBe(3);
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 4, unreadConversations: 2 });
    expect((await get(acc, "/api/conversations?filter=unread")).body.total).toBe(2);

    const seqs = (await thread(acc, c.id)).map((m: any) => m.seq);
    const partly = await post(acc, `/api/conversations/${c.id}/read`, { upTo: seqs[1] });
    expect(partly.status).toBe(200);
    expect(partly.body).toMatchObject({ unreadCount: 1, lastReadSeq: seqs[1] });
    // The marker never moves back.
    expect((await post(acc, `/api/conversations/${c.id}/read`, { upTo: seqs[0] })).body).toMatchObject({ unreadCount: 1, lastReadSeq: seqs[1] });
    expect((await post(acc, `/api/conversations/${c.id}/read`, {})).body).toMatchObject({ unreadCount: 0, lastReadSeq: seqs[2] });
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 1, unreadConversations: 1 });
    // An outbound reply is not unread.
    await post(acc, "/api/messages", { phone: "+14155552004", content: "thanks", direction: "outbound" });
    expect((await conversationOf(acc, "+14155552004")).unreadCount).toBe(0);
  });
});

describe("replies", () => {
  test("go out from the number the contact last wrote to, else the account's default", async () => {
    const acc = await account();
    await inbound(acc, "+14155552006", "via the second number", { to: SECOND });
    const sticky = await post(acc, "/api/messages", { phone: "+14155552006", content: "reply", direction: "outbound" });
    expect(sticky.status).toBe(202);
    expect(sticky.body).toMatchObject({ fromNumber: SECOND, direction: "outbound", status: "queued", content: "reply", kind: "single" });
    const fresh = await post(acc, "/api/messages", { phone: "+14155552007", content: "hello", direction: "outbound" });
    expect(fresh.body.fromNumber).toBe(MAIN);
    // The contact writes to the main number next: the reply follows.
    await inbound(acc, "+14155552006", "now via main");
    expect((await post(acc, "/api/messages", { phone: "+14155552006", content: "again", direction: "outbound" })).body.fromNumber).toBe(MAIN);
    const c = await conversationOf(acc, "+14155552006");
    expect(sticky.body.conversationId).toBe(c.id);
  });

  test("to an opted-out contact are refused with the reason, and nothing is queued", async () => {
    const acc = await account();
    await inbound(acc, "+14155552008", "STOP");
    const c = await conversationOf(acc, "+14155552008");
    expect(c.optedOut).toBe(true);
    const before = (await thread(acc, c.id)).length;
    const r = await post(acc, "/api/messages", { phone: "+14155552008", content: "please come back", direction: "outbound" });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ message: OPTED_OUT, optedOut: true });
    expect((await thread(acc, c.id)).length).toBe(before);
  });

  test("an Idempotency-Key sends once and answers the same; another message under that key is refused", async () => {
    const acc = await account();
    const key = { "idempotency-key": "compose-1" };
    const body = { phone: "+14155552009", content: "only once", direction: "outbound" };
    const first = await post(acc, "/api/messages", body, key);
    const second = await post(acc, "/api/messages", body, key);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const c = await conversationOf(acc, "+14155552009");
    expect((await thread(acc, c.id)).map((m: any) => m.id)).toEqual([first.body.id]);

    const other = await post(acc, "/api/messages", { ...body, content: "something else" }, key);
    expect(other).toMatchObject({
      status: 409,
      body: { message: "This Idempotency-Key was already used for a different message. Use a new key for a new message.", code: "idempotency_key_reused" },
    });
    // Another account's same key is its own.
    const acc2 = await account();
    expect((await post(acc2, "/api/messages", body, key)).body.id).not.toBe(first.body.id);
    // After 24 hours the key is forgotten.
    const realNow = t.ctx.now;
    const later = realNow() + 24 * 3600_000 + 1;
    t.ctx.now = () => later;
    try {
      expect((await post(acc, "/api/messages", body, key)).body.id).not.toBe(first.body.id);
    } finally {
      t.ctx.now = realNow;
    }
    expect((await post(acc, "/api/messages", body, { "idempotency-key": "x".repeat(256) })).status).toBe(400);
    expect((await post(acc, "/api/messages", { ...body, direction: "inbound" })).status).toBe(400);
  });

  test("a campaign's messages land in their recipients' threads, after what they hold, without reopening an archived one", async () => {
    const acc = await account();
    const phones = ["+14155552030", "+14155552031", "+14155552032"];
    await inbound(acc, phones[0]!, "earlier question");
    const before = await conversationOf(acc, phones[0]!);
    await post(acc, "/api/conversations/bulk-archive", { conversationIds: [before.id] });
    const campaign = await post(acc, "/api/campaigns", { name: "Sale", content: "Sale today", recipients: phones, appendOptOut: false });
    expect(campaign.status).toBe(201);
    expect((await post(acc, `/api/campaigns/${campaign.body.id}/send`)).body.queued).toBe(3);
    const threads = await Promise.all(phones.map((p) => conversationOf(acc, p)));
    expect(threads.map((c: any) => [c.phone, c.lastMessage, c.lastDirection, c.unreadCount, c.state])).toEqual([
      [phones[0], "Sale today", "outbound", 1, "archived"],
      [phones[1], "Sale today", "outbound", 0, "open"],
      [phones[2], "Sale today", "outbound", 0, "open"],
    ]);
    const first = await thread(acc, before.id);
    expect(first.map((m: any) => [m.content, m.kind, m.campaignId])).toEqual([
      ["earlier question", "single", null],
      ["Sale today", "campaign", campaign.body.id],
    ]);
  });

  test("POST /api/messages/send lands in the conversation too", async () => {
    const acc = await account();
    const r = await post(acc, "/api/messages/send", { phone: "(415) 555-2010", content: "one-off" });
    expect(r.status).toBe(202);
    const c = await conversationOf(acc, "+14155552010");
    expect((await thread(acc, c.id)).map((m: any) => [m.id, m.content, m.direction])).toEqual([[r.body.id, "one-off", "outbound"]]);
    // The single message by its id still answers as before.
    expect((await get(acc, `/api/messages/${r.body.id}`)).body).toMatchObject({ id: r.body.id, content: "one-off" });
  });
});

describe("contacts from new phones", () => {
  test("a message from a phone that is no contact creates one, but not at the plan's contact limit", async () => {
    const acc = await account();
    await inbound(acc, "+14155552011", "Hi, I saw your ad");
    const contacts = await get(acc, "/api/contacts?q=4155552011");
    expect(contacts.body.data).toHaveLength(1);
    expect(contacts.body.data[0]).toMatchObject({ phone: "+14155552011", status: "subscribed" });
    const c = await conversationOf(acc, "+14155552011");
    expect(c).toMatchObject({ contactId: contacts.body.data[0].id, contactName: "+14155552011" });

    const count = async () => (await t.ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`, [acc.user.id]))[0]!.n;
    await t.ctx.records.update(plans).set({ monthlyContacts: await count() }).where(eq(plans.id, "starter")).run();
    try {
      await inbound(acc, "+14155552012", "Hello?");
      expect(await count()).toBe(1);
      const blocked = await conversationOf(acc, "+14155552012");
      expect(blocked).toMatchObject({ contactId: null, unreadCount: 1, lastMessage: "Hello?" });
    } finally {
      await t.ctx.records.update(plans).set({ monthlyContacts: 1000 }).where(eq(plans.id, "starter")).run();
    }
  });
});

describe("consent of contacts who texted in", () => {
  test("a phone that only texted in is in no campaign audience until it opts in with START", async () => {
    const acc = await account();
    await inbound(acc, "+14155552031", "Do you deliver on Sundays?");
    const created = (await get(acc, "/api/contacts?q=4155552031")).body.data[0];
    expect(created).toMatchObject({ phone: "+14155552031", source: "inbound", status: "subscribed" });
    expect((await get(acc, "/api/campaigns/audiences")).body).toEqual({ all: 0, recent: 0, loyal: 0, new: 0 });

    await inbound(acc, "+14155552031", "START");
    expect((await get(acc, "/api/campaigns/audiences")).body).toEqual({ all: 1, recent: 1, loyal: 0, new: 1 });
  });
});

describe("states", () => {
  test("closed and archived threads reopen on an inbound message; an outbound one leaves the state", async () => {
    const acc = await account();
    await inbound(acc, "+14155552013", "a");
    const c = await conversationOf(acc, "+14155552013");
    expect((await post(acc, `/api/conversations/${c.id}/state`, { state: "closed" })).body.state).toBe("closed");
    await post(acc, "/api/messages", { phone: "+14155552013", content: "closing note", direction: "outbound" });
    expect((await get(acc, `/api/conversations/${c.id}`)).body.state).toBe("closed");
    await inbound(acc, "+14155552013", "b");
    expect((await get(acc, `/api/conversations/${c.id}`)).body.state).toBe("open");
    expect((await post(acc, `/api/conversations/${c.id}/state`, { state: "archived" })).body.state).toBe("archived");
    await inbound(acc, "+14155552013", "c");
    expect((await get(acc, `/api/conversations/${c.id}`)).body.state).toBe("open");
    expect(await post(acc, `/api/conversations/${c.id}/state`, { state: "deleted" })).toMatchObject({
      status: 400,
      body: { message: "state must be open, closed or archived" },
    });
  });

  test("bulk archive and delete: archived threads leave the inbox, deleted ones every list and their history", async () => {
    const acc = await account();
    for (const p of ["+14155552014", "+14155552015", "+14155552016"]) await inbound(acc, p, `from ${p}`);
    const [a, b, d] = await Promise.all(["+14155552014", "+14155552015", "+14155552016"].map((p) => conversationOf(acc, p)));
    const archived = await post(acc, "/api/conversations/bulk-archive", { conversationIds: [a.id, b.id], archive: true });
    expect(archived.body).toEqual({ message: "2 conversations archived", count: 2 });
    expect((await get(acc, "/api/conversations")).body.data.map((c: any) => c.id)).toEqual([d.id]);
    expect((await get(acc, "/api/conversations?filter=archived")).body.data.map((c: any) => c.id).sort()).toEqual([a.id, b.id].sort());
    expect((await post(acc, "/api/conversations/bulk-archive", { conversationIds: [b.id], archive: false })).body).toEqual({
      message: "1 conversation moved back to the inbox",
      count: 1,
    });

    const deleted = await post(acc, "/api/conversations/bulk-delete", { conversationIds: [a.id, d.id] });
    expect(deleted.body).toEqual({ message: "2 conversations deleted", count: 2 });
    expect((await get(acc, "/api/conversations")).body.data.map((c: any) => c.id)).toEqual([b.id]);
    expect((await get(acc, "/api/conversations?filter=archived")).body.total).toBe(0);
    expect((await get(acc, `/api/conversations/${d.id}`)).status).toBe(404);
    // A new message brings the thread back, without what was deleted.
    await inbound(acc, "+14155552016", "back again");
    expect((await thread(acc, d.id)).map((m: any) => m.content)).toEqual(["back again"]);

    expect((await post(acc, "/api/conversations/bulk-delete", { conversationIds: [] })).status).toBe(400);
    const tooMany = await post(acc, "/api/conversations/bulk-archive", { conversationIds: Array.from({ length: 501 }, (_, i) => i + 1) });
    expect(tooMany).toMatchObject({ status: 400, body: { message: "conversationIds must list 1 to 500 conversation ids" } });
  });

  test("search finds threads by contact name, phone digits and message text", async () => {
    const acc = await account();
    expect((await post(acc, "/api/contacts", { firstName: "Zelda", lastName: "Quartz", phone: "+14155552017" })).status).toBe(201);
    await inbound(acc, "+14155552017", "hi");
    await inbound(acc, "+14155552018", "Do you deliver pizza?");
    const search = async (q: string) => (await get(acc, `/api/conversations?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.phone);
    expect(await search("Zelda")).toEqual(["+14155552017"]);
    expect(await search("5552018")).toEqual(["+14155552018"]);
    expect(await search("pizza")).toEqual(["+14155552018"]);
    expect(await search("nothing like this")).toEqual([]);
    const zelda = await conversationOf(acc, "+14155552017");
    expect(zelda).toMatchObject({ contactName: "Zelda Quartz", contact: { firstName: "Zelda", lastName: "Quartz" } });
  });
});

describe("marking read and unread (issue 28 item 6)", () => {
  test("one thread marked unread: its contact's newest message counts unread again; read again clears it; an unread thread stays as it is", async () => {
    const acc = await account();
    for (const body of ["first", "second"]) await inbound(acc, "+14155552030", body);
    await post(acc, "/api/messages", { phone: "+14155552030", content: "our answer", direction: "outbound" });
    const c = await conversationOf(acc, "+14155552030");
    const [, second, answer] = (await thread(acc, c.id)).map((m: any) => m.seq);
    expect((await post(acc, `/api/conversations/${c.id}/read`, {})).body).toMatchObject({ unreadCount: 0, lastReadSeq: answer });

    const unread = await post(acc, `/api/conversations/${c.id}/unread`);
    expect(unread.status).toBe(200);
    expect(unread.body).toMatchObject({ id: c.id, unreadCount: 1, lastReadSeq: second - 1, lastSeq: answer });
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 1, unreadConversations: 1 });
    expect((await get(acc, "/api/conversations?filter=unread")).body.data.map((x: any) => x.id)).toEqual([c.id]);
    // Already unread: left as it is.
    expect((await post(acc, `/api/conversations/${c.id}/unread`)).body).toMatchObject({ unreadCount: 1, lastReadSeq: second - 1 });
    expect((await post(acc, `/api/conversations/${c.id}/read`, {})).body).toMatchObject({ unreadCount: 0, lastReadSeq: answer });
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 0, unreadConversations: 0 });
  });

  test("a thread with no message from its contact cannot be marked unread: 409 with the reason", async () => {
    const acc = await account();
    await post(acc, "/api/messages", { phone: "+14155552031", content: "hello from us", direction: "outbound" });
    const c = await conversationOf(acc, "+14155552031");
    expect(await post(acc, `/api/conversations/${c.id}/unread`)).toMatchObject({
      status: 409,
      body: { message: "This conversation has no message from the contact to mark unread", code: "conflict" },
    });
    expect((await get(acc, `/api/conversations/${c.id}`)).body).toMatchObject({ unreadCount: 0 });
    expect(await post(acc, "/api/conversations/abc/unread")).toMatchObject({ status: 400, body: { message: "Conversation not found" } });
    expect((await post(acc, "/api/conversations/999999999/unread")).status).toBe(404);
  });

  test("in bulk: unread ones marked read, read ones unread; a thread with nothing from its contact is counted apart; others' threads are left out", async () => {
    const acc = await account();
    const other = await account();
    const phones = ["+14155552032", "+14155552033", "+14155552034"];
    await inbound(acc, phones[0]!, "a1");
    await inbound(acc, phones[0]!, "a2");
    await inbound(acc, phones[1]!, "b1");
    await post(acc, "/api/messages", { phone: phones[2], content: "we wrote first", direction: "outbound" });
    await inbound(other, "+14155552035", "not yours");
    const [a, b, d] = await Promise.all(phones.map((p) => conversationOf(acc, p)));
    const theirs = await conversationOf(other, "+14155552035");
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 3, unreadConversations: 2 });

    const read = await post(acc, "/api/conversations/bulk-read", { conversationIds: [a.id, b.id, d.id, theirs.id] });
    expect(read).toMatchObject({ status: 200, body: { message: "2 conversations marked read", count: 2 } });
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 0, unreadConversations: 0 });
    expect((await get(other, `/api/conversations/${theirs.id}`)).body.unreadCount).toBe(1);
    // Again: nothing left unread to mark.
    expect((await post(acc, "/api/conversations/bulk-read", { conversationIds: [a.id], read: true })).body).toEqual({ message: "0 conversations marked read", count: 0 });

    const unread = await post(acc, "/api/conversations/bulk-read", { conversationIds: [a.id, b.id, d.id, theirs.id], read: false });
    expect(unread.body).toEqual({ message: "2 conversations marked unread (1 conversation with no message from the contact left as it was)", count: 2 });
    const after = await Promise.all(phones.map((p) => conversationOf(acc, p)));
    expect(after.map((x: any) => x.unreadCount)).toEqual([1, 1, 0]);
    expect((await get(acc, "/api/conversations/unread")).body).toEqual({ unreadTotal: 2, unreadConversations: 2 });
    expect((await post(other, "/api/conversations/bulk-read", { conversationIds: [a.id], read: false })).body.count).toBe(0);

    expect(await post(acc, "/api/conversations/bulk-read", { conversationIds: [a.id], read: "no" })).toMatchObject({
      status: 400,
      body: { message: "read must be true or false" },
    });
    expect(await post(acc, "/api/conversations/bulk-read", { conversationIds: [] })).toMatchObject({
      status: 400,
      body: { message: "conversationIds must list 1 to 500 conversation ids" },
    });
  });
});

describe("tenancy", () => {
  test("another account's conversation answers 404 everywhere and is left out of bulk calls", async () => {
    const owner = await account();
    const other = await account();
    await inbound(owner, "+14155552019", "private");
    const c = await conversationOf(owner, "+14155552019");
    expect(await get(other, `/api/conversations/${c.id}`)).toMatchObject({ status: 404, body: { message: "Conversation not found" } });
    expect((await get(other, `/api/messages/${c.id}`)).status).toBe(404);
    expect((await post(other, `/api/conversations/${c.id}/read`, {})).status).toBe(404);
    expect((await post(other, `/api/conversations/${c.id}/unread`)).status).toBe(404);
    expect((await post(other, `/api/conversations/${c.id}/state`, { state: "closed" })).status).toBe(404);
    expect((await post(other, "/api/conversations/bulk-archive", { conversationIds: [c.id] })).body.count).toBe(0);
    expect((await post(other, "/api/conversations/bulk-delete", { conversationIds: [c.id] })).body.count).toBe(0);
    expect((await get(other, "/api/conversations")).body.total).toBe(0);
    expect(await get(owner, `/api/conversations/${c.id}`)).toMatchObject({ status: 200, body: { state: "open", unreadCount: 1 } });
  });
});

describe("migration 0012", () => {
  test("messages stored before it get their seq in time order and their threads, read, replying from the last number written to", () => {
    const dir = join(import.meta.dir, "../../db/migrations");
    const journal = JSON.parse(readFileSync(join(dir, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
    const db = new Database(":memory:");
    const apply = (tag: string) => {
      for (const stmt of readFileSync(join(dir, `${tag}.sql`), "utf8").split("--> statement-breakpoint")) if (stmt.trim()) db.exec(stmt);
    };
    for (const e of journal.entries) {
      if (e.tag === "0012_conversations") break;
      apply(e.tag);
    }
    db.exec(`INSERT INTO users (id, email, password_hash, first_name, last_name) VALUES ('u1', 'a@example.com', 'x', 'A', 'B')`);
    const add = db.prepare(`INSERT INTO messages (id, user_id, phone, content, direction, status, from_number, created_at) VALUES (?, 'u1', ?, ?, ?, 'received', ?, ?)`);
    add.run("m1", "+1", "hi", "inbound", "+100", 1000);
    add.run("m2", "+1", "reply", "outbound", "+200", 1000);
    add.run("m3", "+2", "x", "outbound", "+200", 900);
    add.run("m4", "+1", "again", "inbound", "+300", 2000);
    apply("0012_conversations");
    expect(db.query("SELECT id, seq FROM messages ORDER BY seq").all()).toEqual([
      { id: "m3", seq: 1 },
      { id: "m1", seq: 2 },
      { id: "m2", seq: 3 },
      { id: "m4", seq: 4 },
    ]);
    expect(db.query("SELECT phone, state, last_seq, last_read_seq, unread_count, reply_from FROM conversations ORDER BY phone").all()).toEqual([
      { phone: "+1", state: "open", last_seq: 4, last_read_seq: 4, unread_count: 0, reply_from: "+300" },
      { phone: "+2", state: "open", last_seq: 1, last_read_seq: 1, unread_count: 0, reply_from: null },
    ]);
    expect(db.query("SELECT value FROM conversation_sequence").get()).toEqual({ value: 4 });
  });
});
