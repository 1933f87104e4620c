/**
 * Spend at the price of the day each message went (issue 17 item 3): the outbox store records the provider
 * account's price per segment on every message the provider accepts, so a new price changes estimates and what is
 * sent after it, never the spend already shown. Then migration 0034 on a database the version before left: prices
 * recorded on the messages already sent, rollups rebuilt per quarter hour.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";
import { databaseBefore } from "../support/old-database";

setDefaultTimeout(30_000);

describe("spend at the price of the day (through the sending engine and the simulator)", () => {
  let t: TestServer;
  let acc: Account;
  let providerId: string;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    acc = await t.signUpVerified();
    // Campaigns to California numbers would otherwise wait for 8 AM there when the suite runs at night.
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    providerId = (await t.api("/api/sms-providers", { method: "POST", token: acc.token, body: { provider: "simulator", displayName: "Sim" } })).body.id;
    await t.api(`/api/sms-providers/${providerId}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 20 } } });
    const numbers = await t.api(`/api/providers/${providerId}/available-numbers`, { token: acc.token });
    const number = await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 } });
    expect(number.status).toBe(201);
  });
  afterAll(() => t?.stop());

  const price = async (priceMicros: number) =>
    expect((await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros } })).status).toBe(200);
  const delivered = (id: string) =>
    waitFor(() => t.api(`/api/messages/${id}`, { token: acc.token }).then((r) => r.body), (m) => m.status === "delivered");
  async function sendOne(content: string) {
    const res = await t.api("/api/messages/send", { method: "POST", token: acc.token, body: { phone: "+14155552671", content } });
    expect(res.status).toBe(202);
    return delivered(res.body.id);
  }
  async function campaign(name: string, recipients: string[]) {
    const created = await t.api("/api/campaigns", { method: "POST", token: acc.token, body: { type: "sms", name, content: "Spring sale today", recipients } });
    expect(created.status).toBe(201);
    expect((await t.api(`/api/campaigns/${created.body.id}/send`, { method: "POST", token: acc.token, body: {} })).status).toBe(202);
    await waitFor(() => t.api(`/api/campaigns/${created.body.id}`, { token: acc.token }).then((r) => r.body), (c) => c.status === "completed");
    return created.body.id as string;
  }
  const overview = () => t.api("/api/results/overview", { token: acc.token }).then((r) => r.body);

  test("send, change the price, send again: spend is each message at its own time's price; a campaign's likewise", async () => {
    await price(10_000);
    await sendOne("One segment");
    const first = await campaign("At one cent", ["+14155550101", "+14155550102"]);
    expect((await overview()).allTime.spendMicros).toBe(30_000);

    await price(25_000);
    // Already sent: nothing changes.
    expect((await overview()).allTime.spendMicros).toBe(30_000);
    await sendOne("x".repeat(161)); // two segments
    const second = await campaign("At 2.5 cents", ["+14155550103"]);

    const o = await overview();
    // 1 x 1 cent + 2 x 1 cent, then 2 x 2.5 cents + 1 x 2.5 cents.
    expect(o.allTime).toMatchObject({ sent: 5, segments: 6, spendMicros: 30_000 + 75_000 });
    expect(o.months.reduce((sum: number, m: { spendMicros: number }) => sum + m.spendMicros, 0)).toBe(105_000);
    const spend = Object.fromEntries(o.recentCampaigns.map((c: { id: string; segments: number; spendMicros: number }) => [c.id, [c.segments, c.spendMicros]]));
    expect(spend).toEqual({ [first]: [2, 20_000], [second]: [1, 25_000] });
    const series = await t.api("/api/results/series?days=7", { token: acc.token });
    expect(series.body.totals.spendMicros).toBe(105_000);
    // Estimates use today's price.
    const prices = await t.api("/api/sms-providers/segment-prices", { token: acc.token });
    expect(prices.body.data[0].priceMicros).toBe(25_000);
  });
});

describe("migration 0034 on the version before's database", () => {
  const PASSWORD = "old-password-1";
  let dataDir: string;
  let t: TestServer;
  const at = (iso: string) => Date.parse(iso);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "smsdesk-rollups-0034-"));
    const old = databaseBefore(dataDir, "0034_rollups_by_quarter_hour_and_prices_at_sending");
    old.query("INSERT INTO users (id, email, password_hash, email_verified, timezone) VALUES ('u-in', 'kolkata@example.com', ?, 1, 'Asia/Kolkata')").run(await hashPassword(PASSWORD));
    const account = old.query("INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, segment_price_micros) VALUES (?, 'u-in', ?, ?, 'x', ?)");
    account.run("p-twilio", "twilio", "Twilio at its list price", null);
    account.run("p-telnyx", "telnyx", "Telnyx at the user's price", 5_000);
    const message = old.query(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, provider_id, sent_at, created_at, segments)
       VALUES (?, 'u-in', ?, 'Hi', ?, ?, 'single', ?, ?, ?, ?)`,
    );
    // Apr 7 begins at 18:30Z on Apr 6 in Kolkata.
    message.run("m-1", "+14155550001", "outbound", "delivered", "p-twilio", at("2026-04-06T18:30:00Z"), at("2026-04-06T18:29:00Z"), 2); // Apr 7 00:00
    message.run("m-2", "+14155550002", "outbound", "sent", "p-telnyx", at("2026-04-06T18:29:00Z"), at("2026-04-06T18:28:00Z"), 1); // Apr 6 23:59
    message.run("m-3", "+14155550003", "outbound", "failed", "p-telnyx", null, at("2026-04-06T18:45:00Z"), 1); // refused at the call
    message.run("m-4", "+14155550004", "inbound", "received", "p-twilio", null, at("2026-04-06T18:40:00Z"), 1); // Apr 7 00:10
    old.query("INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES ('c-1', 'u-in', 'C', '+13125550001', ?)").run(at("2026-04-06T18:35:00Z"));
    old.close();
    t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
    t.ctx.now = () => at("2026-04-07T06:30:00Z");
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("messages already sent take their account's price as it stands (the user's, else the list price); others none", () => {
    const rows = t.ctx.db.$client.query(`SELECT id, segment_price_micros AS price FROM messages ORDER BY id`).all();
    expect(rows).toEqual([
      { id: "m-1", price: 8_300 },
      { id: "m-2", price: 5_000 },
      { id: "m-3", price: null },
      { id: "m-4", price: null },
    ]);
  });

  test("the rollups, rebuilt in half hours for Kolkata, put its midnight on the right side", async () => {
    const { token } = await t.login("kolkata@example.com", PASSWORD);
    const days = (await t.api("/api/results/series?days=7", { token })).body.days;
    expect(days.slice(5)).toEqual([
      expect.objectContaining({ date: "2026-04-06", sent: 1, delivered: 0, replies: 0, newContacts: 0, spendMicros: 5_000 }),
      expect.objectContaining({ date: "2026-04-07", sent: 1, delivered: 1, failed: 1, replies: 1, newContacts: 1, spendMicros: 16_600 }),
    ]);
    // Kolkata's buckets are half hours: 18:29Z falls in the one from 18:00Z, 18:30-18:59Z in the one from 18:30Z.
    expect(t.ctx.db.$client.query(`SELECT quarters FROM rollup_granularity WHERE user_id = 'u-in'`).get()).toEqual({ quarters: 2 });
    const kept = t.ctx.db.$client.query(`SELECT quarter_hour, status, n, sent, segments, spend_micros FROM message_rollups ORDER BY 1, 2`).all();
    expect(kept).toEqual([
      { quarter_hour: at("2026-04-06T18:00:00Z") / 900_000, status: "sent", n: 1, sent: 1, segments: 1, spend_micros: 5_000 },
      { quarter_hour: at("2026-04-06T18:30:00Z") / 900_000, status: "delivered", n: 1, sent: 1, segments: 2, spend_micros: 16_600 },
      { quarter_hour: at("2026-04-06T18:30:00Z") / 900_000, status: "failed", n: 1, sent: 0, segments: 0, spend_micros: 0 },
      { quarter_hour: at("2026-04-06T18:30:00Z") / 900_000, status: "received", n: 1, sent: 0, segments: 0, spend_micros: 0 },
    ]);
    expect(t.ctx.db.$client.query(`SELECT quarter_hour, n FROM contact_rollups`).all()).toEqual([{ quarter_hour: at("2026-04-06T18:30:00Z") / 900_000, n: 1 }]);
  });
});
