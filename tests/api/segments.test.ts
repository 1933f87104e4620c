import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
let b: Account;
const DAY = 86_400_000;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  b = await t.signUpVerified();
  const now = Date.now();
  const rows: [string, number, number, number | null, string, string][] = [
    ["+14155550001", 60000, 90, now - 5 * DAY, '["vip"]', '{"purchases90d":"4"}'],
    ["+14155550002", 1000, 20, now - 100 * DAY, "[]", '{"purchases90d":"1"}'],
    ["+14155550003", 50000, 85, null, '["news"]', "{}"],
  ];
  for (const [phone, spent, score, optIn, tags, cf] of rows) {
    await t.ctx.records.$run(
      `INSERT INTO contacts (id, user_id, first_name, phone, total_spent, engagement_score, opt_in_date, last_engaged_at, tags, custom_fields) VALUES (?, ?, 'S', ?, ?, ?, ?, ?, ?, ?)`,
      [crypto.randomUUID(), a.user.id, phone, spent, score, optIn, optIn, tags, cf],
    );
  }
});
afterAll(() => t?.stop());

test("templates: the five quick-start segments, each evaluated in the database", async () => {
  const tpl = (await t.api("/api/segments/templates", { token: a.token })).body.data;
  expect(tpl.map((x: any) => x.name)).toEqual(["VIP Customers", "Recent Subscribers", "Inactive Customers", "Frequent Buyers", "Loyal Fans"]);
  const counts: Record<string, number> = {};
  for (const x of tpl) {
    const r = await t.api("/api/segments", { method: "POST", token: a.token, body: { name: x.name, conditions: x.conditions } });
    expect(r.status).toBe(201);
    counts[x.name] = r.body.contactCount;
    expect(typeof r.body.lastUpdated).toBe("string");
  }
  // Frequent Buyers counts reported purchases now, not the custom field the seeded rows carry.
  expect(counts).toEqual({ "VIP Customers": 2, "Recent Subscribers": 1, "Inactive Customers": 1, "Frequent Buyers": 0, "Loyal Fans": 2 });
});

test("each quick-start matches the contacts the product's own records make it match: purchases, replies, no reply", async () => {
  // Four of five could never match: totalSpent, engagementScore and the purchases custom field were written by
  // nothing, and a contact that never replied had no last-engaged date to be older than 60 days.
  const c = await t.signUpVerified();
  const realNow = t.ctx.now;
  let clock = Date.now();
  t.ctx.now = () => clock;
  try {
    expect((await t.api("/api/user/settings", { method: "PATCH", token: c.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    const provider = await t.api("/api/sms-providers", { method: "POST", token: c.token, body: { provider: "simulator", displayName: "Simulator" } });
    const ids: Record<string, string> = {};
    for (const [name, phone] of [["Ann", "+14155550201"], ["Ben", "+14155550202"], ["Cal", "+14155550203"], ["Dee", "+14155550204"], ["Eve", "+14155550205"]]) {
      const r = await t.api("/api/contacts", { method: "POST", token: c.token, body: { firstName: name!, lastName: "Quick", phone: phone! } });
      expect(r.status).toBe(201);
      ids[name!] = r.body.id;
    }
    // Dee joined 100 days ago and never texted.
    await t.ctx.records.$run(`UPDATE contacts SET created_at = ?, opt_in_date = NULL WHERE id = ?`, [clock - 100 * DAY, ids.Dee!]);
    const buy = (contactId: string, amount?: number) =>
      t.api("/api/automation/events", { method: "POST", token: c.token, body: { type: "purchase", contactId, ...(amount === undefined ? {} : { amount }) } });
    const reply = async (phone: string, body: string) => {
      expect((await t.api(`/api/sms-providers/${provider.body.id}/simulate-inbound`, { method: "POST", token: c.token, body: { from: phone, body } })).status).toBe(202);
    };
    const contact = async (id: string) =>
      (await t.ctx.records.$rows<{ spent: number; score: number; engaged: number | null }>(
        `SELECT total_spent AS spent, engagement_score AS score, last_engaged_at AS engaged FROM contacts WHERE id = ?`,
        [id],
      ))[0]!;
    const settle = async (ok: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await ok()); i++) await Bun.sleep(10);
      expect(await ok()).toBe(true);
    };

    // Ann buys three times this month; Ben once, 100 days ago (a big order); Cal replies eight times; Eve replied 70 days ago.
    for (const amount of [200, 250.5, 60]) expect((await buy(ids.Ann!, amount)).status).toBe(201);
    clock -= 100 * DAY;
    expect((await buy(ids.Ben!, 600)).status).toBe(201);
    clock += 30 * DAY;
    await reply("+14155550205", "Thanks!");
    await settle(async () => (await contact(ids.Eve!)).engaged === clock);
    clock += 70 * DAY;
    for (let i = 0; i < 8; i++) await reply("+14155550203", `Reply ${i + 1}`);
    await settle(async () => (await contact(ids.Cal!)).score === 80);

    expect(await contact(ids.Ann!)).toMatchObject({ spent: 51_050, score: 60 });
    expect(await contact(ids.Ben!)).toMatchObject({ spent: 60_000, score: 20 });
    expect(await contact(ids.Cal!)).toMatchObject({ spent: 0, score: 80 });
    expect(await contact(ids.Eve!)).toMatchObject({ spent: 0, score: 10 });

    const members: Record<string, string[]> = {};
    for (const x of (await t.api("/api/segments/templates", { token: c.token })).body.data) {
      const s = await t.api("/api/segments", { method: "POST", token: c.token, body: { name: x.name, conditions: x.conditions } });
      const list = await t.api(`/api/segments/${s.body.id}/contacts?page=1&pageSize=50`, { token: c.token });
      members[x.name] = list.body.data.map((m: { firstName: string }) => m.firstName).sort();
    }
    expect(members).toEqual({
      "VIP Customers": ["Ann", "Ben"],
      "Recent Subscribers": ["Ann", "Ben", "Cal", "Eve"],
      "Inactive Customers": ["Dee", "Eve"],
      "Frequent Buyers": ["Ann"],
      "Loyal Fans": ["Cal"],
    });
    // The score stops at 100.
    for (let i = 0; i < 3; i++) expect((await buy(ids.Cal!)).status).toBe(201);
    expect(await contact(ids.Cal!)).toMatchObject({ spent: 0, score: 100 });

    const bad = await buy(ids.Ann!, -5);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("amount is the purchase's total, a number from 0 to 1,000,000 (such as 49.99)");
    expect((await contact(ids.Ann!)).spent).toBe(51_050);
  } finally {
    t.ctx.now = realNow;
  }
});

test("create, update, refresh, contacts, delete; validation; tenancy", async () => {
  expect((await t.api("/api/segments", { method: "POST", token: a.token, body: { name: " ", conditions: {} } })).body.message).toBe("Segment name is required");
  const unknown = await t.api("/api/segments", { method: "POST", token: a.token, body: { name: "x", conditions: { password: { eq: "1" } } } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.message).toBe(
    "Unknown segment field: password. Use totalSpent, optInDate, lastEngaged, lastClicked, clickedCampaign, tags, source, engagementScore, purchases90d or customFields.<name>",
  );
  const op = await t.api("/api/segments", { method: "POST", token: a.token, body: { name: "x", conditions: { totalSpent: { like: 1 } } } });
  expect(op.body.message).toBe("Unknown operator like for totalSpent. Use gte, lte, eq or contains");
  const inj = await t.api("/api/segments", { method: "POST", token: a.token, body: { name: "inj", conditions: { source: { eq: "x' OR 1=1 --" } } } });
  expect(inj.body.contactCount).toBe(0);
  const s = (await t.api("/api/segments", { method: "POST", token: a.token, body: { name: "Tagged", conditions: { tags: { contains: "vi" } } } })).body;
  expect(s.contactCount).toBe(1);
  const u = await t.api(`/api/segments/${s.id}`, { method: "PUT", token: a.token, body: { name: "Big", conditions: { totalSpent: { gte: 1000, lte: 50000 } } } });
  expect(u.body).toMatchObject({ name: "Big", contactCount: 2 });
  expect((await t.api(`/api/segments/${s.id}/refresh`, { method: "POST", token: a.token })).body.contactCount).toBe(2);
  const members = await t.api(`/api/segments/${s.id}/contacts?page=1&pageSize=1`, { token: a.token });
  expect(members.body).toMatchObject({ total: 2, page: 1, pageSize: 1 });
  expect(members.body.data.length).toBe(1);
  expect((await t.api("/api/segments", { token: a.token })).body.data.length).toBeGreaterThan(1);
  expect((await t.api("/api/segments", { token: b.token })).body.data).toEqual([]);
  for (const [m, p] of [["PUT", ""], ["DELETE", ""], ["POST", "/refresh"], ["GET", "/contacts"]] as const) {
    expect((await t.api(`/api/segments/${s.id}${p}`, { method: m, token: b.token, body: m === "PUT" ? { name: "n", conditions: {} } : undefined })).status).toBe(404);
  }
  expect((await t.api(`/api/segments/${s.id}`, { method: "DELETE", token: a.token })).status).toBe(200);
  expect((await t.api(`/api/segments/${s.id}/refresh`, { method: "POST", token: a.token })).status).toBe(404);
});
