// Issue 31 item 1: the messages', conversations', keywords' and media's records answer alike on both engines (run
// this file with SMSDESK_TEST_DATABASE=postgres for PostgreSQL): an inbound message stored once per provider id, a
// thread read back in order, a search that ignores case, the inbound flow's text from a new phone, the threads' unread
// counts, states and marks, an Idempotency-Key's one run, the outbox, media and their sweep, a keyword's opt-ins and
// its card's figures. Called on the app's context (and a few routes over HTTP), with provider accounts and sender
// numbers written as rows: their own records are not served on PostgreSQL yet.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { keywords } from "../../db/schema";
import {
  attachCampaignMessages,
  attachToConversations,
  bulkArchive,
  bulkDelete,
  getConversation,
  listConversations,
  markRead,
  markUnread,
  onceByKey,
  reserveSeqs,
  unreadTotals,
} from "../../src/conversations/conversations";
import { clearPossibleOptOut, flagPossibleOptOut } from "../../src/conversations/possible-opt-out";
import { recordInbound } from "../../src/inbound/receive";
import { keywordsOn, listKeywords } from "../../src/keywords/keywords";
import type { ProviderAccount } from "../../src/providers/accounts";
import { latestPending, markConfirmed, markPending, markReplied, optInOf, withdrawPending } from "../../src/keywords/opt-ins";
import {
  attachableMedia,
  attachMedia,
  findMedia,
  heldMediaIds,
  holdMedia,
  linkMedia,
  LOOSE_UPLOAD_GRACE_MS,
  markMediaFailure,
  mediaOfMessages,
  mediaPath,
  pendingMediaOf,
  releaseMedia,
  saveMedia,
  savePendingMedia,
  sweepLooseMedia,
  sweepOrphanedMedia,
} from "../../src/media/media";
import { detachMessages } from "../../src/messages/detach";
import { getMessage, storeInbound } from "../../src/messages/messages";
import { outboxMetrics } from "../../src/messages/metrics";
import { cancelAccountMessages, enqueue } from "../../src/messages/outbox";
import { inboundAfter, lastMessagePerPhone, messagesAt, newestInboundAfter, phonesWithText, threadMessages } from "../../src/messages/threads";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const ANA = "+15550100001";
const BEN = "+15550100002";

/** An account with a provider account row (the messages' provider id points at it). */
async function account() {
  const acc = await t.signUpVerified();
  const providerId = crypto.randomUUID();
  await t.ctx.records.$run(
    `INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, created_at) VALUES (?, ?, 'twilio', 'Twilio', '', 0)`,
    [providerId, acc.user.id],
  );
  return { userId: acc.user.id as string, providerId, token: acc.token };
}

describe("inbound messages and their threads", () => {
  test("stored once per provider id; a thread reads back in seq order, counted and searched without regard to case", async () => {
    const { userId, providerId } = await account();
    const first = await reserveSeqs(t.ctx, 3);
    const inbound = (i: number, phone: string, content: string) => ({
      id: crypto.randomUUID(),
      seq: first + i,
      userId,
      contactId: null,
      phone,
      content,
      providerId,
      providerMessageId: `SM${first + i}`,
      fromNumber: "+15550009999",
      segments: 1,
      at: new Date(1_700_000_000_000 + i * 1000),
    });
    const hello = inbound(0, ANA, "Hello THERE");
    const stored = await storeInbound(t.ctx, hello);
    expect(stored?.id).toBe(hello.id);
    expect(stored?.seq).toBe(first);
    // The provider's retry of the same message stores nothing.
    expect(await storeInbound(t.ctx, { ...hello, id: crypto.randomUUID() })).toBeNull();
    await storeInbound(t.ctx, inbound(1, BEN, "Is the shop open?"));
    await storeInbound(t.ctx, inbound(2, ANA, "see you at 5"));

    const row = await getMessage(t.ctx, userId, hello.id);
    expect([row.direction, row.status, row.createdAt.getTime()]).toEqual(["inbound", "received", 1_700_000_000_000]);

    const thread = await threadMessages(t.ctx, { userId, phone: ANA, after: 0, before: null, limit: 10, oldestFirst: false });
    expect(thread.map((m) => [m.seq, m.content, m.direction])).toEqual([
      [first, "Hello THERE", "inbound"],
      [first + 2, "see you at 5", "inbound"],
    ]);
    expect(thread[1]!.created_at).toBe(1_700_000_002_000);
    const page = await threadMessages(t.ctx, { userId, phone: ANA, after: first, before: null, limit: 10, oldestFirst: true });
    expect(page.map((m) => m.seq)).toEqual([first + 2]);

    const at = await messagesAt(t.ctx, userId, [
      { phone: ANA, seq: first + 2 },
      { phone: BEN, seq: first + 1 },
    ]);
    expect(at.map((m) => m.content).sort()).toEqual(["Is the shop open?", "see you at 5"]);

    expect(await inboundAfter(t.ctx, userId, ANA, first)).toBe(1);
    expect(await inboundAfter(t.ctx, userId, ANA, first + 2)).toBe(0);
    expect(await newestInboundAfter(t.ctx, userId, ANA, 0)).toBe(first + 2);
    expect(await newestInboundAfter(t.ctx, userId, BEN, first + 1)).toBeNull();

    expect(await phonesWithText(t.ctx, userId, "hello there", 10)).toEqual([ANA]);
    expect(await phonesWithText(t.ctx, userId, "100%", 10)).toEqual([]);
    expect(await lastMessagePerPhone(t.ctx, userId, "", 10)).toEqual([
      { phone: ANA, last: 1_700_000_002_000 },
      { phone: BEN, last: 1_700_000_001_000 },
    ]);
    expect(await lastMessagePerPhone(t.ctx, userId, ANA, 10)).toEqual([{ phone: BEN, last: 1_700_000_001_000 }]);
  });
});

/**
 * Texts from ANA to the account's number, stored and filed in her thread as the inbound flow does, at seqs `first`,
 * `first + 1`...; `tag` keeps their provider ids apart from other tests'.
 */
async function receive(userId: string, providerId: string, first: number, texts: string[], tag: string) {
  for (const [i, content] of texts.entries()) {
    const id = crypto.randomUUID();
    await storeInbound(t.ctx, {
      id,
      seq: first + i,
      userId,
      contactId: null,
      phone: ANA,
      content,
      providerId,
      providerMessageId: `SM-${tag}${first + i}`,
      fromNumber: "+15550009999",
      segments: 1,
      at: new Date(1_700_000_000_000 + i),
    });
    await attachToConversations(t.ctx, [{ userId, phone: ANA, seq: first + i, messageId: id, direction: "inbound", receivedOn: "+15550009999" }]);
  }
}

describe("conversations", () => {
  test("threads count unread, read and unread again, list marked first, archive, delete and come back; a campaign's seq never moves one back", async () => {
    const { userId, providerId } = await account();
    const first = await reserveSeqs(t.ctx, 4);
    const texts = ["Hi", "Are you OPEN today?"];
    await receive(userId, providerId, first, texts, "c");
    const campaignId = crypto.randomUUID();
    await attachCampaignMessages(t.ctx, { userId, campaignId, places: [[BEN, first + 2]] });
    // A place written out of order (a lower seq) leaves the thread's newest where it is.
    await attachCampaignMessages(t.ctx, { userId, campaignId, places: [[BEN, first]] });

    expect(await unreadTotals(t.ctx, userId)).toEqual({ unreadTotal: 2, unreadConversations: 1 });
    const all = await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all" });
    expect(all.data.map((c) => [c.phone, c.state, c.unreadCount, c.lastSeq, c.lastMessage, c.replyFrom])).toEqual([
      [BEN, "open", 0, first + 2, null, null],
      [ANA, "open", 2, first + 1, "Are you OPEN today?", "+15550009999"],
    ]);
    expect([all.total, all.unreadTotal]).toEqual([2, 2]);
    const [ben, ana] = all.data.map((c) => c.id) as [number, number];
    expect((await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all", q: "open today" })).data.map((c) => c.phone)).toEqual([ANA]);
    expect((await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all", q: "0100002" })).data.map((c) => c.phone)).toEqual([BEN]);
    expect((await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "unread" })).data.map((c) => c.phone)).toEqual([ANA]);

    expect(await markRead(t.ctx, userId, ana, first)).toMatchObject({ unreadCount: 1, lastReadSeq: first });
    expect(await markRead(t.ctx, userId, ana)).toMatchObject({ unreadCount: 0, lastReadSeq: first + 1 });
    expect(await markUnread(t.ctx, userId, ana)).toMatchObject({ unreadCount: 1, lastReadSeq: first });

    // A possible opt-out puts its thread first until the mark is taken off.
    await flagPossibleOptOut(t.ctx, { userId, phone: ANA, seq: first });
    const marked = await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all" });
    expect(marked.data.map((c) => [c.phone, c.possibleOptOut?.content ?? null])).toEqual([
      [ANA, "Hi"],
      [BEN, null],
    ]);
    await clearPossibleOptOut(t.ctx, userId, ANA);
    expect((await getConversation(t.ctx, userId, ana)).possibleOptOut).toBeNull();

    expect(await bulkArchive(t.ctx, userId, [ben, ana, 999_999_999], true)).toEqual({ message: "2 conversations archived", count: 2 });
    expect((await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "archived" })).total).toBe(2);
    expect(await unreadTotals(t.ctx, userId)).toEqual({ unreadTotal: 0, unreadConversations: 0 });
    expect(await bulkDelete(t.ctx, userId, [ben])).toEqual({ message: "1 conversation deleted", count: 1 });
    await expect(getConversation(t.ctx, userId, ben)).rejects.toMatchObject({ status: 404 });
    // A campaign's next message brings a deleted thread back, open.
    await attachCampaignMessages(t.ctx, { userId, campaignId, places: [[BEN, first + 3]] });
    expect(await getConversation(t.ctx, userId, ben)).toMatchObject({ state: "open", lastSeq: first + 3 });
  });

  test("an Idempotency-Key runs once: the same request answers what was stored, another is refused", async () => {
    const { userId } = await account();
    let runs = 0;
    const run = () => ({ status: 202, body: { n: ++runs } });
    expect(await onceByKey(t.ctx, userId, "k1", ["+15550100001", "Hi"], run)).toEqual({ status: 202, body: { n: 1 }, replayed: false });
    expect(await onceByKey(t.ctx, userId, "k1", ["+15550100001", "Hi"], run)).toEqual({ status: 202, body: { n: 1 }, replayed: true });
    await expect(onceByKey(t.ctx, userId, "k1", ["+15550100001", "Bye"], run)).rejects.toMatchObject({ status: 409 });
    expect(await onceByKey(t.ctx, userId, "k2", ["+15550100001", "Bye"], run)).toEqual({ status: 202, body: { n: 2 }, replayed: false });
    expect(runs).toBe(2);
  });
});

describe("the inbound flow", () => {
  test("a text from a new phone is stored once, makes its contact and its unread thread; the provider's retry changes nothing", async () => {
    const { userId, providerId } = await account();
    // What the flow reads of the verified provider account: whose it is and its id.
    const provider = { id: providerId, userId } as ProviderAccount;
    const text = { type: "inbound" as const, providerMessageId: "SM-in-1", from: ANA, to: "+15550009999", body: "Hello, is this the bakery?" };
    const first = await recordInbound(t.ctx, provider, text);
    expect([first.message?.content, first.message?.direction, first.keyword, first.reply]).toEqual(["Hello, is this the bakery?", "inbound", null, null]);
    const retry = await recordInbound(t.ctx, provider, text);
    expect(retry.message).toBeNull();
    const threads = await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all" });
    expect(threads.data.map((c) => [c.phone, c.unreadCount, c.lastMessage, c.replyFrom])).toEqual([[ANA, 1, "Hello, is this the bakery?", "+15550009999"]]);
    // The contact made from the phone, named on the message stored before it.
    const contactId = threads.data[0]!.contactId;
    expect(contactId).not.toBeNull();
    expect((await getMessage(t.ctx, userId, first.message!.id)).contactId).toBe(contactId);
  });
});

describe("the routes on these records", () => {
  test("a thread listed, read page by page and marked read; the messages listed; the keywords' page and tester", async () => {
    const { userId, providerId, token } = await account();
    const first = await reserveSeqs(t.ctx, 2);
    await receive(userId, providerId, first, ["Hello", "STOP please"], "r");
    const get = (path: string) => t.api(path, { token });
    const list = await get("/api/conversations");
    expect(list.status).toBe(200);
    expect([list.body.total, list.body.unreadTotal, list.body.data[0].lastMessage]).toEqual([1, 2, "STOP please"]);
    const id = list.body.data[0].id as number;
    expect((await get("/api/conversations/unread")).body).toEqual({ unreadTotal: 2, unreadConversations: 1 });
    const page = await get(`/api/messages/${id}?limit=1`);
    expect(page.body.map((m: { content: string; seq: number }) => [m.content, m.seq])).toEqual([["STOP please", first + 1]]);
    expect((await get(`/api/messages/${id}?before=${first + 1}`)).body.map((m: { content: string }) => m.content)).toEqual(["Hello"]);
    const read = await t.api(`/api/conversations/${id}/read`, { method: "POST", token, body: {} });
    expect([read.status, read.body.unreadCount]).toEqual([200, 0]);
    const messages = await get("/api/messages?direction=inbound");
    expect([messages.body.total, messages.body.data.map((m: { content: string }) => m.content)]).toEqual([2, ["STOP please", "Hello"]]);
    expect((await get("/api/keywords")).body.totals).toEqual({ keywords: 0, active: 0, optIns: 0, responseRate: null });
    const tested = await t.api("/api/keywords/test", { method: "POST", token, body: { number: "", text: "STOP" } });
    expect([tested.status, tested.body.rule]).toEqual([200, "opt-out"]);
  });
});

describe("the outbox", () => {
  test("messages queued in their threads, counted per sender number by /metrics, cancelled, then detached from their number", async () => {
    const { userId, providerId } = await account();
    const numberId = crypto.randomUUID();
    const number = "+15550007777";
    await t.ctx.records.$run(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, created_at) VALUES (?, ?, ?, ?, 0)`, [
      numberId,
      userId,
      providerId,
      number,
    ]);
    // Due tomorrow: the engine leaves them queued.
    const dueAt = Date.now() + 86_400_000;
    const message = (phone: string) => ({
      userId,
      campaignId: null,
      contactId: null,
      phone,
      content: "Your order is ready",
      segments: 1,
      kind: "single" as const,
      sender: { numberId, providerId, phoneNumber: number },
      dueAt,
      expiresAt: null,
    });
    const ids = await enqueue(t.ctx, [message(ANA), message(BEN)]);
    expect(ids).toHaveLength(2);
    const threads = await listConversations(t.ctx, userId, { page: 1, pageSize: 10, filter: "all" });
    expect(threads.data.map((c) => [c.phone, c.lastMessage, c.lastDirection, c.lastStatus, c.unreadCount]).sort()).toEqual([
      [ANA, "Your order is ready", "outbound", "queued", 0],
      [BEN, "Your order is ready", "outbound", "queued", 0],
    ]);

    const queued = async () => (await outboxMetrics(t.ctx, 0)).queued.find((q) => q.number === number)?.count ?? 0;
    expect(await queued()).toBe(2);
    expect(await cancelAccountMessages(t.ctx, userId, "The account was closed")).toBe(2);
    expect(await queued()).toBe(0);
    expect((await outboxMetrics(t.ctx, 0)).byStatus.find((s) => s.direction === "outbound" && s.status === "cancelled")?.count).toBe(2);

    await detachMessages(t.ctx, "number", [numberId], "this number");
    const left = await t.ctx.records.$rows<{ n: number }>(`SELECT count(*) AS n FROM messages WHERE user_id = ? AND phone_number_id IS NULL`, [userId]);
    expect(left).toEqual([{ n: 2 }]);
  });
});

describe("a message's media", () => {
  test("an upload given to one message once, a held one linked to another, a received one pending until it fails", async () => {
    const { userId, providerId } = await account();
    const first = await reserveSeqs(t.ctx, 2);
    const ids = [crypto.randomUUID(), crypto.randomUUID()] as const;
    for (const [i, id] of ids.entries()) {
      await storeInbound(t.ctx, {
        id,
        seq: first + i,
        userId,
        contactId: null,
        phone: ANA,
        content: "MMS",
        providerId,
        providerMessageId: `MM${first + i}`,
        fromNumber: null,
        segments: 1,
        at: new Date(1_700_000_000_000),
      });
    }
    const png = { bytes: new Uint8Array([137, 80, 78, 71]), contentType: "image/png" };
    const own = await saveMedia(t.ctx, userId, { ...png, filename: "own.png" });
    const shared = await saveMedia(t.ctx, userId, { ...png, filename: "shared.png" });
    expect((await attachableMedia(t.ctx, userId, [own.id])).map((m) => m.id)).toEqual([own.id]);
    await attachMedia(t.ctx, [{ messageId: ids[0], ids: [own.id] }]);
    await expect(attachableMedia(t.ctx, userId, [own.id])).rejects.toMatchObject({ status: 400 });

    await holdMedia(t.ctx, userId, "campaign:c1", [shared.id]);
    expect(await heldMediaIds(t.ctx, "campaign:c1")).toEqual([shared.id]);
    await linkMedia(t.ctx, [{ messageId: ids[1], ids: [shared.id] }]);
    // Linked twice (a chunk written again): still once.
    await linkMedia(t.ctx, [{ messageId: ids[1], ids: [shared.id] }]);
    const media = await mediaOfMessages(t.ctx, [...ids]);
    expect(media.size).toBe(2);
    expect(ids.map((id) => media.get(id)!.map((r) => [r.filename, r.size]))).toEqual([[["own.png", 4]], [["shared.png", 4]]]);
    await releaseMedia(t.ctx, ["campaign:c1"]);
    expect(await heldMediaIds(t.ctx, "campaign:c1")).toEqual([]);

    const pending = await savePendingMedia(t.ctx, userId, { messageId: ids[1], position: 1, sourceUrl: "https://example.com/p.jpg", error: "timed out" });
    expect((await pendingMediaOf(t.ctx, ids[1])).map((m) => [m.id, m.status, m.error])).toEqual([[pending.id, "pending", "timed out"]]);
    await markMediaFailure(t.ctx, pending.id, "gone", true);
    expect(await pendingMediaOf(t.ctx, ids[1])).toEqual([]);
  });
});

describe("the media's sweep", () => {
  test("removes a deleted message's items and an upload left loose past its grace, with their files", async () => {
    const { userId, providerId } = await account();
    const seq = await reserveSeqs(t.ctx, 1);
    const messageId = crypto.randomUUID();
    await storeInbound(t.ctx, {
      id: messageId,
      seq,
      userId,
      contactId: null,
      phone: BEN,
      content: "MMS",
      providerId,
      providerMessageId: `MM-s${seq}`,
      fromNumber: null,
      segments: 1,
      at: new Date(1_700_000_000_000),
    });
    const png = { bytes: new Uint8Array([137, 80, 78, 71]), contentType: "image/png" };
    const received = await saveMedia(t.ctx, userId, { ...png, filename: "received.png", messageId });
    const loose = await saveMedia(t.ctx, userId, { ...png, filename: "loose.png" });
    // The message's deletion marks its items orphaned (the media table's trigger, on either engine).
    await t.ctx.records.$run(`DELETE FROM messages WHERE id = ?`, [messageId]);
    expect(await sweepOrphanedMedia(t.ctx)).toBe(1);
    expect(existsSync(mediaPath(t.ctx, received))).toBe(false);
    expect(await sweepLooseMedia(t.ctx)).toBe(0);
    const realNow = t.ctx.now;
    t.ctx.now = () => realNow() + LOOSE_UPLOAD_GRACE_MS + 1;
    try {
      expect(await sweepLooseMedia(t.ctx)).toBe(1);
    } finally {
      t.ctx.now = realNow;
    }
    expect(existsSync(mediaPath(t.ctx, loose))).toBe(false);
    expect(await findMedia(t.ctx, loose.id)).toBeNull();
  });
});

describe("a keyword's opt-ins", () => {
  test("asked, confirmed, replied once; a question withdrawn; the card's figures count them", async () => {
    const { userId } = await account();
    const at = new Date(1_700_000_000_000);
    const [k] = await t.ctx.records
      .insert(keywords)
      .values({ id: crypto.randomUUID(), userId, keyword: "JOIN", matchKey: "join", autoReply: "Welcome", numbers: ["+15550009999"], createdAt: at, updatedAt: at })
      .returning();
    const later = new Date(at.getTime() + 1000);
    const off = { id: crypto.randomUUID(), userId, keyword: "OLD", matchKey: "old", autoReply: "Bye", isActive: false, createdAt: later, updatedAt: later };
    await t.ctx.records.insert(keywords).values(off);
    const of = (phone: string, when: number) => ({ userId, keywordId: k!.id, phone, number: "+15550009999", at: when });

    await markPending(t.ctx, of(ANA, 1000));
    expect(await latestPending(t.ctx, userId, ANA, 0)).toMatchObject({ keyword_id: k!.id, status: "pending", created_at: 1000 });
    expect(await latestPending(t.ctx, userId, ANA, 1001)).toBeNull();
    await markConfirmed(t.ctx, of(ANA, 2000));
    expect(await optInOf(t.ctx, k!.id, ANA)).toMatchObject({ status: "confirmed", created_at: 1000 });
    expect(await latestPending(t.ctx, userId, ANA, 0)).toBeNull();
    expect(await markReplied(t.ctx, userId, ANA, 3000)).toBe(true);
    expect(await markReplied(t.ctx, userId, ANA, 4000)).toBe(false);

    await markPending(t.ctx, of(BEN, 5000));
    await withdrawPending(t.ctx, userId, BEN);
    expect(await optInOf(t.ctx, k!.id, BEN)).toBeNull();
    await markPending(t.ctx, of("+15550100003", 6000));

    const list = await listKeywords(t.ctx, userId);
    expect(list.totals).toEqual({ keywords: 2, active: 1, optIns: 1, responseRate: 100 });
    expect(list.data.map((v) => [v.keyword, v.optInCount, v.pendingCount, v.responseRate])).toEqual([
      ["JOIN", 1, 1, 100],
      ["OLD", 0, 0, null],
    ]);

    // The inbound path's lookup: the keywords listening on the number texted, switched-off ones only when asked.
    expect((await keywordsOn(t.ctx, userId, "+1 555 000 9999", { activeOnly: true })).map((r) => r.keyword)).toEqual(["JOIN"]);
    expect((await keywordsOn(t.ctx, userId, "+15550009999", { activeOnly: false })).map((r) => r.keyword)).toEqual(["JOIN", "OLD"]);
    expect((await keywordsOn(t.ctx, userId, "+15550008888", { activeOnly: true })).map((r) => r.keyword)).toEqual([]);
  });
});
