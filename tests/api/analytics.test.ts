import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { campaigns, contacts, messages } from "../../db/schema";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let owner: Account;
let other: Account;
beforeAll(async () => {
  t = await startTestServer();
  [owner, other] = await Promise.all([t.signUpVerified(), t.signUpVerified()]);
});
afterAll(() => t?.stop());

const DAY = 86_400_000;
const summary = (token: string) => t.api("/api/analytics/summary", { token });
const activity = (token: string, query = "") => t.api(`/api/analytics/recent-activity${query}`, { token });
const id = () => crypto.randomUUID();
let phoneSeq = 0;
const phone = () => `+1555010${String(++phoneSeq).padStart(4, "0")}`;

function addContact(userId: string, createdAt = new Date()) {
  const row = { id: id(), userId, firstName: "C", phone: phone(), createdAt };
  t.ctx.db.insert(contacts).values(row).run();
  return row;
}
function addMessage(userId: string, direction: "inbound" | "outbound", createdAt = new Date(), status?: (typeof messages.$inferInsert)["status"]) {
  const s = status ?? (direction === "inbound" ? "received" : "delivered");
  t.ctx.db.insert(messages).values({ id: id(), userId, phone: phone(), content: "hi", direction, status: s, createdAt }).run();
}
function addCampaign(userId: string, name: string, status: (typeof campaigns.$inferInsert)["status"], sentAt: Date | null = null) {
  t.ctx.db.insert(campaigns).values({ id: id(), userId, name, status, sentAt }).run();
}

describe("analytics for a new account", () => {
  test("both calls need a sign-in", async () => {
    expect((await t.api("/api/analytics/summary")).status).toBe(401);
    expect((await t.api("/api/analytics/recent-activity")).status).toBe(401);
  });

  test("summary is all zero with responseRate null", async () => {
    const res = await summary(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ totalContacts: 0, totalMessagesSent: 0, totalResponses: 0, activeCampaigns: 0, responseRate: null });
  });

  test("recent activity is empty", async () => {
    const res = await activity(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  test("HEAD on the summary answers 200 (mobile Safari preload)", async () => {
    expect((await t.api("/api/analytics/summary", { method: "HEAD", token: owner.token })).status).toBe(200);
  });
});

describe("analytics with data", () => {
  beforeAll(() => {
    // The owner: 3 contacts today, 1 from 40 days ago; 4 sent, 1 reply today and 1 reply 40 days ago;
    // campaigns: one sent now, one sent 40 days ago, and one each of every status.
    for (let i = 0; i < 3; i++) addContact(owner.user.id);
    addContact(owner.user.id, new Date(Date.now() - 40 * DAY));
    for (let i = 0; i < 4; i++) addMessage(owner.user.id, "outbound");
    addMessage(owner.user.id, "inbound");
    addMessage(owner.user.id, "inbound", new Date(Date.now() - 40 * DAY));
    addCampaign(owner.user.id, "Spring Sale", "completed", new Date(Date.now() - 60_000));
    addCampaign(owner.user.id, "Old News", "completed", new Date(Date.now() - 40 * DAY));
    for (const status of ["draft", "scheduled", "sending", "paused", "failed", "cancelled"] as const) {
      addCampaign(owner.user.id, `Status ${status}`, status);
    }
    // Another account's rows must never show up for the owner.
    for (let i = 0; i < 7; i++) addContact(other.user.id);
    for (let i = 0; i < 9; i++) addMessage(other.user.id, "outbound");
    for (let i = 0; i < 2; i++) addMessage(other.user.id, "inbound");
    addCampaign(other.user.id, "Other Tenant Blast", "sending", new Date());
  });

  test("summary counts the owner's rows only", async () => {
    const res = await summary(owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totalContacts: 4,
      totalMessagesSent: 4,
      totalResponses: 2,
      // scheduled, sending and paused
      activeCampaigns: 3,
      responseRate: 50,
    });
  });

  test("the other account sees only its own numbers", async () => {
    const res = await summary(other.token);
    expect(res.body).toEqual({ totalContacts: 7, totalMessagesSent: 9, totalResponses: 2, activeCampaigns: 1, responseRate: 22 });
  });

  test("recent activity lists the last 30 days as new_contacts, new_replies and campaign_sent, newest first", async () => {
    const res = await activity(owner.token);
    expect(res.status).toBe(200);
    const items: { type: string; message: string; timestamp: string }[] = res.body;
    expect(items.map((i) => i.type).sort()).toEqual(["campaign_sent", "new_contacts", "new_replies"]);
    expect(items.find((i) => i.type === "new_contacts")!.message).toBe("3 new customers added");
    expect(items.find((i) => i.type === "new_replies")!.message).toBe("1 new reply from customers");
    expect(items.find((i) => i.type === "campaign_sent")!.message).toBe('Campaign "Spring Sale" was sent');
    const times = items.map((i) => Date.parse(i.timestamp));
    for (const time of times) {
      expect(Number.isNaN(time)).toBe(false);
      expect(Math.abs(Date.now() - time)).toBeLessThan(DAY);
    }
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(JSON.stringify(items)).not.toContain("Old News");
    expect(JSON.stringify(items)).not.toContain("Other Tenant");
  });

  test("the other account's activity is its own", async () => {
    const items: { type: string; message: string }[] = (await activity(other.token)).body;
    expect(items.find((i) => i.type === "new_contacts")!.message).toBe("7 new customers added");
    expect(items.find((i) => i.type === "new_replies")!.message).toBe("2 new replies from customers");
    // Still sending: it started, it has not been sent yet.
    expect(items.find((i) => i.type === "campaign_sent")!.message).toBe('Campaign "Other Tenant Blast" started');
  });

  test("?limit caps the list and is validated", async () => {
    const one = await activity(owner.token, "?limit=1");
    expect(one.status).toBe(200);
    expect(one.body).toHaveLength(1);
    for (const bad of ["0", "51", "abc"]) {
      const res = await activity(owner.token, `?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(typeof res.body.message).toBe("string");
    }
  });

  test("counts grow as rows are added", async () => {
    addContact(owner.user.id);
    addMessage(owner.user.id, "outbound");
    // Messages that never went out (waiting, skipped for an opt-out) are not "sent".
    addMessage(owner.user.id, "outbound", new Date(), "queued");
    addMessage(owner.user.id, "outbound", new Date(), "skipped");
    const res = await summary(owner.token);
    expect(res.body.totalContacts).toBe(5);
    expect(res.body.totalMessagesSent).toBe(5);
    expect(res.body.responseRate).toBe(40);
    const items: { type: string; message: string }[] = (await activity(owner.token)).body;
    expect(items.find((i) => i.type === "new_contacts")!.message).toBe("4 new customers added");
  });
});
