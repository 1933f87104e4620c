// Issue 31 item 1: the messages', threads' and keywords' records answer alike on both engines (run this file with
// SMSDESK_TEST_DATABASE=postgres for PostgreSQL): an inbound message stored once per provider id, a thread read back
// in order, a search that ignores case, a keyword's opt-ins and its card's figures. Called on the app's context, as
// the inbound flow calls them, with no provider and no event between.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { keywords } from "../../db/schema";
import { reserveSeqs } from "../../src/conversations/conversations";
import { keywordsOn, listKeywords } from "../../src/keywords/keywords";
import { latestPending, markConfirmed, markPending, markReplied, optInOf, withdrawPending } from "../../src/keywords/opt-ins";
import { getMessage, storeInbound } from "../../src/messages/messages";
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
  return { userId: acc.user.id as string, providerId };
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

describe("a keyword's opt-ins", () => {
  test("asked, confirmed, replied once; a question withdrawn; the card's figures count them", async () => {
    const { userId } = await account();
    const at = new Date(1_700_000_000_000);
    const [k] = await t.ctx.records
      .insert(keywords)
      .values({ id: crypto.randomUUID(), userId, keyword: "JOIN", matchKey: "join", autoReply: "Welcome", numbers: ["+15550009999"], createdAt: at, updatedAt: at })
      .returning();
    const off = { id: crypto.randomUUID(), userId, keyword: "OLD", matchKey: "old", autoReply: "Bye", isActive: false, createdAt: at, updatedAt: at };
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
