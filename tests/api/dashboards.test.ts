/**
 * The dashboards' figures (issue 17 items 1-3) against a known dataset whose every figure is worked out by hand
 * below, on a fake clock, for an account in America/Chicago: days and months are Chicago's (a message at 23:30 on
 * Feb 28 there is 05:30 UTC on Mar 1, and belongs to February), across the DST change of Mar 8.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let acc: Account;
let fresh: Account;
let stranger: Account;
let providerId: string;
let numberId: string;
let numberPhone: string;
let campaignId: string;

const db = () => t.ctx.db.$client;
const at = (iso: string) => Date.parse(iso);
// Tuesday Mar 10 2026, 12:00 in Chicago (CDT, UTC-5).
const NOW = at("2026-03-10T17:00:00Z");

let seq = 0;
type Msg = { status: string; direction?: "inbound" | "outbound"; sentAt?: string; createdAt?: string; segments?: number; campaign?: boolean; sender?: boolean };
/** The provider account's price per segment in this dataset (one cent), recorded on each message sent, as the engine does. */
const PRICE = 10_000;

/** A message written straight into the outbox table, as the engine's and the webhooks' statements do. */
function message(m: Msg, userId = acc.user.id): string {
  const id = `dash-${++seq}`;
  const sentAt = m.sentAt ? at(m.sentAt) : null;
  const createdAt = at(m.createdAt ?? m.sentAt!) - (m.sentAt && !m.createdAt ? 60_000 : 0);
  const sender = m.sender ?? (m.direction ?? "outbound") === "outbound";
  db()
    .query(
      `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, sent_at, created_at, segments, provider_id, phone_number_id,
         segment_price_micros)
       VALUES (?, ?, ?, ?, 'Hi', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id, userId, m.campaign ? campaignId : null, `+1415555${String(2000 + seq)}`, m.direction ?? "outbound", m.status,
      m.campaign ? "campaign" : "single", sentAt, createdAt, m.segments ?? 1, sender ? providerId : null, sender ? numberId : null,
      sentAt !== null && sender ? PRICE : null,
    );
  return id;
}

function contact(createdAt: string, optedOutAt?: string) {
  const id = `dash-c-${++seq}`;
  db().query(`INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES (?, ?, 'C', ?, ?)`).run(id, acc.user.id, `+1312555${String(3000 + seq)}`, at(createdAt));
  if (optedOutAt) {
    db()
      .query(`INSERT INTO contact_consents (id, contact_id, user_id, kind, source, created_at) VALUES (?, ?, ?, 'opt_out', 'provider', ?)`)
      .run(`${id}-out`, id, acc.user.id, at(optedOutAt));
  }
}

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  acc = await t.signUpVerified();
  fresh = await t.signUpVerified();
  stranger = await t.signUpVerified();
  for (const a of [acc, fresh]) expect((await t.api("/api/user/settings", { method: "PATCH", token: a.token, body: { timezone: "America/Chicago" } })).status).toBe(200);
  const provider = await t.api("/api/sms-providers", { method: "POST", token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  providerId = provider.body.id;
  const available = await t.api(`/api/providers/${providerId}/available-numbers`, { token: acc.token });
  numberPhone = available.body.numbers[0].phoneNumber;
  numberId = (await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId, phoneNumber: numberPhone } })).body.id;
  const campaign = await t.api("/api/campaigns", { method: "POST", token: acc.token, body: { type: "sms", name: "Spring", content: "Hello", recipients: ["+14155550101"] } });
  campaignId = campaign.body.id;
  // One cent a segment.
  expect((await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros: PRICE } })).status).toBe(200);

  // This week (Mar 3 17:00Z to now) and this month (Mar 1 06:00Z to now).
  message({ status: "delivered", sentAt: "2026-03-10T05:30:00Z", segments: 2, campaign: true }); // Mar 10 00:30 CDT
  message({ status: "delivered", sentAt: "2026-03-10T04:30:00Z", campaign: true }); // Mar 9 23:30 CDT (Mar 10 in UTC)
  message({ status: "failed", sentAt: "2026-03-09T12:00:00Z", campaign: true }); // undelivered: accepted, then failed
  message({ status: "failed", createdAt: "2026-03-09T12:10:00Z" }); // refused at the call: never sent, no spend
  message({ status: "sent", sentAt: "2026-03-08T07:30:00Z", segments: 3, campaign: true }); // Mar 8 01:30 CST
  message({ status: "skipped", createdAt: "2026-03-08T08:00:00Z" });
  // Still waiting (its retry far off, so the running engine leaves it be): no outcome yet.
  const waiting = message({ status: "queued", createdAt: "2026-03-10T10:00:00Z" });
  db().query(`UPDATE messages SET next_attempt_at = ? WHERE id = ?`).run(at("2100-01-01T00:00:00Z"), waiting);
  message({ status: "received", direction: "inbound", createdAt: "2026-03-10T06:00:00Z" }); // Mar 10
  message({ status: "received", direction: "inbound", createdAt: "2026-03-09T03:00:00Z" }); // Mar 8 22:00 CDT
  contact("2026-03-10T05:10:00Z", "2026-03-10T06:30:00Z"); // added and opted out Mar 10
  contact("2026-03-09T04:59:00Z"); // Mar 8 23:59 CDT
  // The week before (Feb 24 17:00Z to Mar 3 17:00Z), in February in Chicago.
  message({ status: "delivered", sentAt: "2026-02-28T12:00:00Z" });
  message({ status: "delivered", sentAt: "2026-03-01T05:30:00Z" }); // Feb 28 23:30 CST
  contact("2026-02-27T00:00:00Z", "2026-03-02T12:00:00Z"); // added in the week before, opted out in this month
  // Last month up to the same day and time (Feb 1 06:00Z to Feb 10 18:00Z).
  message({ status: "delivered", sentAt: "2026-02-05T12:00:00Z" });
  // Another account's messages are never counted.
  message({ status: "delivered", sentAt: "2026-03-10T05:30:00Z", sender: false }, stranger.user.id);

  t.ctx.now = () => NOW;
});
afterAll(() => t?.stop());

const zero = { sent: 0, delivered: 0, failed: 0, undelivered: 0, unknown: 0, replies: 0, optOuts: 0, newContacts: 0, deliveryRate: null, spendMicros: 0 };

describe("the results dashboard's charts (GET /api/results/series)", () => {
  test("7 days in Chicago: outcomes, replies, opt-outs and new contacts per local day, with totals and spend", async () => {
    const res = await t.api("/api/results/series?days=7", { token: acc.token });
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe("America/Chicago");
    expect(res.body.days).toEqual([
      { date: "2026-03-04", ...zero },
      { date: "2026-03-05", ...zero },
      { date: "2026-03-06", ...zero },
      { date: "2026-03-07", ...zero },
      { date: "2026-03-08", ...zero, sent: 1, replies: 1, newContacts: 1, deliveryRate: 0, spendMicros: 30_000 },
      { date: "2026-03-09", ...zero, sent: 2, delivered: 1, failed: 1, undelivered: 1, deliveryRate: 50, spendMicros: 20_000 },
      { date: "2026-03-10", ...zero, sent: 1, delivered: 1, replies: 1, optOuts: 1, newContacts: 1, deliveryRate: 100, spendMicros: 20_000 },
    ]);
    expect(res.body.totals).toEqual({
      sent: 4, delivered: 2, failed: 1, undelivered: 1, bounced: 2, unknown: 0, notSent: 1, replies: 2, optOuts: 1, newContacts: 2,
      campaigns: 1, segments: 7, spendMicros: 70_000, deliveryRate: 50, responseRate: 50, optOutRate: 25,
      // No picture nor file: every one an SMS (issue 33).
      sms: { sent: 4, delivered: 2, segments: 7, spendMicros: 70_000 }, mms: { sent: 0, delivered: 0, segments: 0, spendMicros: 0 },
    });
    expect(res.body.senders).toEqual([{ id: numberId, phoneNumber: numberPhone, displayName: expect.any(String), sent: [0, 0, 0, 0, 1, 2, 1], total: 4 }]);
    expect(res.body.campaigns).toEqual([
      { id: campaignId, name: "Spring", status: "draft", sent: 4, delivered: 2, bounced: 1, deliveryRate: 50, segments: 7, spendMicros: 70_000 },
    ]);
  });

  test("30 days: February 28 in Chicago holds the message sent at 05:30 UTC on March 1", async () => {
    const res = await t.api("/api/results/series?days=30", { token: acc.token });
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[0].date).toBe("2026-02-09");
    const byDate = Object.fromEntries(res.body.days.map((d: { date: string }) => [d.date, d]));
    expect(byDate["2026-02-28"]).toMatchObject({ sent: 2, delivered: 2 });
    expect(byDate["2026-03-01"]).toMatchObject({ sent: 0 });
    expect(byDate["2026-02-26"]).toMatchObject({ newContacts: 1 });
    expect(byDate["2026-03-02"]).toMatchObject({ optOuts: 1 });
    expect(res.body.totals).toMatchObject({ sent: 6, delivered: 4, optOuts: 2, newContacts: 3, segments: 9, spendMicros: 90_000 });
  });

  test("a range other than 7, 30 or 90 days is refused", async () => {
    for (const bad of ["5", "abc", "-7", "365"]) {
      const res = await t.api(`/api/results/series?days=${bad}`, { token: acc.token });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("days must be 7, 30 or 90");
    }
    expect((await t.api("/api/results/series?days=90", { token: acc.token })).body.days).toHaveLength(90);
  });
});

describe("the homes' cards (GET /api/results/overview)", () => {
  test("this week against the 7 days before, this month against last month to the same day, in the account's zone", async () => {
    const res = await t.api("/api/results/overview", { token: acc.token });
    expect(res.status).toBe(200);
    const { week, month } = res.body;
    expect(week.current).toMatchObject({ sent: 4, delivered: 2, replies: 2, optOuts: 1, newContacts: 2, campaigns: 1, deliveryRate: 50, responseRate: 50 });
    expect(week.previous).toMatchObject({ sent: 2, delivered: 2, replies: 0, optOuts: 1, newContacts: 1, campaigns: 0, deliveryRate: 100, responseRate: 0 });
    expect(week.change).toEqual({
      sent: 100, delivered: 0, bounced: null, deliveryRate: -50, replies: null, responseRate: 50, optOuts: 0, newContacts: 100, campaigns: null, spendMicros: 250,
    });
    // Mar 1 05:30 UTC is still February in Chicago: not this month.
    expect(month.current).toMatchObject({ sent: 4, delivered: 2, replies: 2, optOuts: 2, newContacts: 2, spendMicros: 70_000 });
    expect(month.previous).toMatchObject({ sent: 1, delivered: 1, replies: 0, optOuts: 0, newContacts: 0, spendMicros: 10_000 });
    expect(month.change).toEqual({
      sent: 300, delivered: 100, bounced: null, deliveryRate: -50, replies: null, responseRate: 50, optOuts: null, newContacts: null, campaigns: null, spendMicros: 600,
    });
  });

  test("all-time totals, spend per month, recent campaigns with their spend, active campaigns", async () => {
    const res = await t.api("/api/results/overview", { token: acc.token });
    expect(res.body.allTime).toMatchObject({ sent: 7, delivered: 5, failed: 1, undelivered: 1, bounced: 2, replies: 2, segments: 10, spendMicros: 100_000 });
    expect(res.body.months).toEqual([
      { month: "2025-10", sent: 0, segments: 0, spendMicros: 0, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2025-11", sent: 0, segments: 0, spendMicros: 0, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2025-12", sent: 0, segments: 0, spendMicros: 0, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2026-01", sent: 0, segments: 0, spendMicros: 0, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2026-02", sent: 3, segments: 3, spendMicros: 30_000, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2026-03", sent: 4, segments: 7, spendMicros: 70_000, mmsSent: 0, mmsSpendMicros: 0 },
    ]);
    expect(res.body.recentCampaigns).toEqual([
      expect.objectContaining({ id: campaignId, name: "Spring", sent: 4, delivered: 2, bounced: 1, deliveryRate: 50, segments: 7, spendMicros: 70_000 }),
    ]);
    expect(res.body).toMatchObject({ totalContacts: 3, activeCampaigns: 0, timezone: "America/Chicago" });
  });

  test("an account with nothing to compare gets zeros, and null (a dash) for every rate and change", async () => {
    const res = await t.api("/api/results/overview", { token: fresh.token });
    expect(res.status).toBe(200);
    for (const period of [res.body.week, res.body.month]) {
      expect(period.current).toMatchObject({ sent: 0, deliveryRate: null, responseRate: null, optOutRate: null });
      expect(Object.values(period.change).every((v) => v === null)).toBe(true);
    }
    expect(res.body.recentCampaigns).toEqual([]);
    expect((await t.api("/api/results/series?days=7", { token: fresh.token })).body.totals).toMatchObject({ sent: 0, deliveryRate: null });
  });

  test("the simple home's summary reads the same figures", async () => {
    const res = await t.api("/api/analytics/summary", { token: acc.token });
    expect(res.body).toEqual({ totalContacts: 3, totalMessagesSent: 7, totalResponses: 2, activeCampaigns: 0, responseRate: 29 });
  });
});

/** Each account's bucket span in quarter hours (src/results/buckets.ts; an hour in Chicago, and until a first read). */
const SPAN = `coalesce((SELECT quarters FROM rollup_granularity g WHERE g.user_id = m.user_id), 4)`;

describe("the rollups follow every change of a message", () => {
  test("delivery, a retry's moves inside the queue, and deletion keep them equal to a count of the messages", async () => {
    const id = message({ status: "queued", createdAt: "2026-03-10T15:00:00Z" });
    db().query(`UPDATE messages SET status = 'sending' WHERE id = ?`).run(id);
    db().query(`UPDATE messages SET status = 'queued' WHERE id = ?`).run(id);
    db().query(`UPDATE messages SET status = 'sent', sent_at = ?, segment_price_micros = ? WHERE id = ?`).run(at("2026-03-10T16:10:00Z"), PRICE, id);
    let today = (await t.api("/api/results/series?days=7", { token: acc.token })).body.days[6];
    expect(today).toMatchObject({ sent: 2, delivered: 1 });
    db().query(`UPDATE messages SET status = 'delivered' WHERE id = ?`).run(id);
    today = (await t.api("/api/results/series?days=7", { token: acc.token })).body.days[6];
    expect(today).toMatchObject({ sent: 2, delivered: 2, deliveryRate: 100 });
    db().query(`DELETE FROM messages WHERE id = ?`).run(id);

    const kept = db()
      .query(
        `SELECT user_id, quarter_hour, status, phone_number_id, campaign_id, provider_id, n, sent, segments, spend_micros FROM message_rollups
         WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
      )
      .all();
    const counted = db()
      .query(
        `SELECT user_id, coalesce(sent_at, created_at) / 900000 / ${SPAN} * ${SPAN} AS quarter_hour, status, coalesce(phone_number_id, '') AS phone_number_id,
           coalesce(campaign_id, '') AS campaign_id, coalesce(provider_id, '') AS provider_id, count(*) AS n, sum(sent_at IS NOT NULL) AS sent,
           sum(CASE WHEN sent_at IS NULL THEN 0 ELSE segments END) AS segments,
           sum(CASE WHEN sent_at IS NULL THEN 0 ELSE segments * coalesce(segment_price_micros, 0) END) AS spend_micros
         FROM messages m WHERE status NOT IN ('queued', 'sending') GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      )
      .all();
    expect(kept).toEqual(counted);
  });

  test("contacts added are counted per bucket as they are added, moved and deleted", () => {
    contact("2026-03-10T16:20:00Z");
    const last = `dash-c-${seq}`;
    db().query(`UPDATE contacts SET created_at = ? WHERE id = ?`).run(at("2026-03-10T14:20:00Z"), last);
    const perHour = () => ({
      kept: db().query(`SELECT user_id, quarter_hour, n FROM contact_rollups WHERE n <> 0 ORDER BY 1, 2`).all(),
      counted: db().query(`SELECT user_id, created_at / 900000 / ${SPAN} * ${SPAN} AS quarter_hour, count(*) AS n FROM contacts m GROUP BY 1, 2 ORDER BY 1, 2`).all(),
    });
    let { kept, counted } = perHour();
    expect(kept).toEqual(counted);
    db().query(`DELETE FROM contacts WHERE id = ?`).run(last);
    ({ kept, counted } = perHour());
    expect(kept).toEqual(counted);
  });
});

describe("prices per segment (PUT /api/sms-providers/:id/segment-price)", () => {
  test("the default shows as a default until the user sets a price; null puts the default back", async () => {
    const list = await t.api("/api/sms-providers/segment-prices", { token: acc.token });
    expect(list.body.data).toEqual([{ providerId, provider: "simulator", displayName: "Sim", priceMicros: 10_000, customPriceMicros: 10_000, defaultPriceMicros: 0, mmsPriceMicros: 0, customMmsPriceMicros: null, defaultMmsPriceMicros: 0 }]);
    const cleared = await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros: null } });
    expect(cleared.body).toEqual({ providerId, provider: "simulator", displayName: "Sim", priceMicros: 0, customPriceMicros: null, defaultPriceMicros: 0, mmsPriceMicros: 0, customMmsPriceMicros: null, defaultMmsPriceMicros: 0 });
    // What was sent keeps the price it went at: a new price is for estimates and what is sent from now on.
    expect((await t.api("/api/results/overview", { token: acc.token })).body.allTime.spendMicros).toBe(100_000);
    await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros: 10_000 } });
  });

  test("bad prices are refused; another account's provider answers 404", async () => {
    for (const priceMicros of [-1, 1.5, 1_000_001, "0.01"]) {
      const res = await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: acc.token, body: { priceMicros } });
      expect(res.status).toBe(400);
    }
    const res = await t.api(`/api/sms-providers/${providerId}/segment-price`, { method: "PUT", token: stranger.token, body: { priceMicros: 1 } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("SMS provider not found");
  });
});
