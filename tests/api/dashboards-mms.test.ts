/**
 * The dashboards count MMS apart from SMS (issue 33): a message with a picture or file is an MMS (messages.mms, set by
 * triggers when an item is made its own or linked to it, migration 0070), and the rollups keep how many of each row
 * were MMS, reached the provider and what they cost. Through the simulator: one SMS, one MMS from chat's send, a
 * campaign's MMS to two people and a received MMS; then migration 0070 on the version before's database.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/passwords";
import { databaseBefore } from "../support/old-database";
import { photoJpeg } from "../support/media-fixtures";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

describe("SMS and MMS apart on the dashboards (through the sending engine and the simulator)", () => {
  let t: TestServer;
  let acc: Account;
  let providerId: string;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    acc = await t.signUpVerified();
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    providerId = (await t.api("/api/sms-providers", { method: "POST", token: acc.token, body: { provider: "simulator", displayName: "Sim" } })).body.id;
    await t.api(`/api/sms-providers/${providerId}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 20 } } });
    const numbers = await t.api(`/api/providers/${providerId}/available-numbers`, { token: acc.token });
    const number = await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 } });
    expect(number.status).toBe(201);
  });
  afterAll(() => t?.stop());

  async function upload(filename: string, seed: number) {
    const res = await fetch(`${t.url}/api/media?filename=${filename}`, {
      method: "POST",
      headers: { authorization: `Bearer ${acc.token}` },
      body: photoJpeg(40, 30, 90, seed) as Uint8Array<ArrayBuffer>,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }
  const delivered = (id: string) => waitFor(() => t.api(`/api/messages/${id}`, { token: acc.token }).then((r) => r.body), (m) => m.status === "delivered");
  async function sendOne(content: string, mediaIds?: string[]) {
    const res = await t.api("/api/messages/send", { method: "POST", token: acc.token, body: { phone: "+14155552671", content, mediaIds } });
    expect(res.status).toBe(202);
    return delivered(res.body.id);
  }

  test("sent, delivered and spend of the SMS and of the MMS, each at its own price; a received MMS is a reply", async () => {
    expect((await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros: 10_000 } })).status).toBe(200);
    expect((await t.api(`/api/sms-providers/${providerId}/mms-price`, { method: "PUT", token: acc.token, body: { priceMicros: 30_000 } })).status).toBe(200);

    await sendOne("x".repeat(161)); // an SMS of two segments: 2 x 1 cent
    await sendOne("Our bouquet of the day", [await upload("bouquet.jpg", 1)]); // an MMS: 3 cents
    const campaign = await t.api("/api/campaigns", {
      method: "POST",
      token: acc.token,
      body: { type: "sms", name: "Roses", content: "Roses are in", recipients: ["+14155550101", "+14155550102"], mediaIds: [await upload("roses.jpg", 2)] },
    });
    expect(campaign.status).toBe(201);
    expect((await t.api(`/api/campaigns/${campaign.body.id}/send`, { method: "POST", token: acc.token, body: {} })).status).toBe(202);
    await waitFor(() => t.api(`/api/campaigns/${campaign.body.id}`, { token: acc.token }).then((r) => r.body), (c) => c.status === "completed");
    // A customer's picture: a reply, counted with the MMS received, never as sent or spent.
    const reply = await upload("damaged.jpg", 3);
    expect((await t.api(`/api/sms-providers/${providerId}/simulate-inbound`, { method: "POST", token: acc.token, body: { from: "+14155550101", body: "", mediaIds: [reply] } })).status).toBe(202);
    await waitFor(() => t.api("/api/results/overview", { token: acc.token }).then((r) => r.body), (o) => o.allTime.replies === 1);

    const o = (await t.api("/api/results/overview", { token: acc.token })).body;
    expect(o.allTime).toMatchObject({ sent: 4, delivered: 4, segments: 5, spendMicros: 110_000, replies: 1 });
    expect(o.allTime.sms).toEqual({ sent: 1, delivered: 1, segments: 2, spendMicros: 20_000 });
    expect(o.allTime.mms).toEqual({ sent: 3, delivered: 3, segments: 3, spendMicros: 90_000 });
    expect(o.month.current.sms).toEqual({ sent: 1, delivered: 1, segments: 2, spendMicros: 20_000 });
    expect(o.month.current.mms).toEqual({ sent: 3, delivered: 3, segments: 3, spendMicros: 90_000 });
    expect(o.months.at(-1)).toMatchObject({ sent: 4, segments: 5, spendMicros: 110_000, mmsSent: 3, mmsSpendMicros: 90_000 });
    const series = (await t.api("/api/results/series?days=7", { token: acc.token })).body;
    expect(series.totals.sms).toEqual({ sent: 1, delivered: 1, segments: 2, spendMicros: 20_000 });
    expect(series.totals.mms).toEqual({ sent: 3, delivered: 3, segments: 3, spendMicros: 90_000 });
    // The kept rows: the two MMS of the campaign, the chat's MMS and the received picture marked.
    const rows = t.ctx.db.$client
      .query(`SELECT status, campaign_id <> '' AS campaign, sum(n) AS n, sum(mms) AS mms, sum(mms_sent) AS mmsSent, sum(mms_spend_micros) AS mmsSpend
              FROM message_rollups GROUP BY 1, 2 HAVING sum(n) > 0 ORDER BY 1, 2`)
      .all();
    expect(rows).toEqual([
      { status: "delivered", campaign: 0, n: 2, mms: 1, mmsSent: 1, mmsSpend: 30_000 },
      { status: "delivered", campaign: 1, n: 2, mms: 2, mmsSent: 2, mmsSpend: 60_000 },
      { status: "received", campaign: 0, n: 1, mms: 1, mmsSent: 0, mmsSpend: 0 },
    ]);
  });
});

describe("migration 0070 on the version before's database", () => {
  const PASSWORD = "old-password-1";
  let dataDir: string;
  let t: TestServer;
  const at = (iso: string) => Date.parse(iso);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "smsdesk-rollups-0070-"));
    const old = databaseBefore(dataDir, "0070_mms_rollups");
    old.query("INSERT INTO users (id, email, password_hash, email_verified, timezone) VALUES ('u-1', 'florist@example.com', ?, 1, 'UTC')").run(await hashPassword(PASSWORD));
    old.query("INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted) VALUES ('p-1', 'u-1', 'twilio', 'Twilio', 'x')").run();
    old.query("INSERT INTO campaigns (id, user_id, name) VALUES ('k-1', 'u-1', 'Roses')").run();
    const message = old.query(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, provider_id, campaign_id, sent_at, created_at, segments, segment_price_micros)
       VALUES (?, 'u-1', ?, 'Hi', ?, ?, ?, 'p-1', ?, ?, ?, ?, ?)`,
    );
    const sent = at("2026-04-06T10:00:00Z");
    message.run("m-sms", "+14155550001", "outbound", "delivered", "single", null, sent, sent, 2, 8_300);
    message.run("m-own", "+14155550002", "outbound", "delivered", "single", null, sent, sent, 1, 20_000); // a chat reply's picture
    message.run("m-link", "+14155550003", "outbound", "sent", "campaign", "k-1", sent, sent, 1, 20_000); // a campaign's shared picture
    message.run("m-in", "+14155550004", "inbound", "received", "single", null, null, sent, 1, null); // a customer's picture
    const media = old.query(`INSERT INTO media (id, user_id, message_id, content_type, filename, size, status, held_by, created_at) VALUES (?, 'u-1', ?, 'image/jpeg', 'a.jpg', 10, 'stored', ?, ?)`);
    media.run("f-own", "m-own", null, sent);
    media.run("f-in", "m-in", null, sent);
    media.run("f-held", null, "campaign:k-1", sent);
    old.query("INSERT INTO message_media (message_id, position, media_id) VALUES ('m-link', 0, 'f-held')").run();
    old.close();
    t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
    t.ctx.now = () => at("2026-04-07T12:00:00Z");
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the MMS already sent and received are marked and counted apart: 2 MMS sent at 2 cents, the SMS at its own price", async () => {
    expect(t.ctx.db.$client.query(`SELECT id, mms FROM messages ORDER BY id`).all()).toEqual([
      { id: "m-in", mms: 1 },
      { id: "m-link", mms: 1 },
      { id: "m-own", mms: 1 },
      { id: "m-sms", mms: 0 },
    ]);
    const { token } = await t.login("florist@example.com", PASSWORD);
    const o = (await t.api("/api/results/overview", { token })).body;
    expect(o.allTime).toMatchObject({ sent: 3, delivered: 2, replies: 1, spendMicros: 56_600 });
    expect(o.allTime.sms).toEqual({ sent: 1, delivered: 1, segments: 2, spendMicros: 16_600 });
    expect(o.allTime.mms).toEqual({ sent: 2, delivered: 1, segments: 2, spendMicros: 40_000 });
    // The day rows, built on the first read, agree with the fine ones.
    const days = t.ctx.db.$client.query(`SELECT status, sum(mms) AS mms, sum(mms_sent) AS mmsSent, sum(mms_spend_micros) AS mmsSpend FROM message_day_rollups GROUP BY 1 ORDER BY 1`).all();
    expect(days).toEqual([
      { status: "delivered", mms: 1, mmsSent: 1, mmsSpend: 20_000 },
      { status: "received", mms: 1, mmsSent: 0, mmsSpend: 0 },
      { status: "sent", mms: 1, mmsSent: 1, mmsSpend: 20_000 },
    ]);
  });
});
