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
    t.ctx.db.$client.run(
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
  expect(counts).toEqual({ "VIP Customers": 2, "Recent Subscribers": 1, "Inactive Customers": 1, "Frequent Buyers": 1, "Loyal Fans": 2 });
});

test("create, update, refresh, contacts, delete; validation; tenancy", async () => {
  expect((await t.api("/api/segments", { method: "POST", token: a.token, body: { name: " ", conditions: {} } })).body.message).toBe("Segment name is required");
  const unknown = await t.api("/api/segments", { method: "POST", token: a.token, body: { name: "x", conditions: { password: { eq: "1" } } } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.message).toBe(
    "Unknown segment field: password. Use totalSpent, optInDate, lastEngaged, tags, source, engagementScore or customFields.<name>",
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
