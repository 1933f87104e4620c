/**
 * The dashboards' local days in zones whose offset is not a whole number of hours (issue 17): Asia/Kolkata
 * (+05:30), Asia/Kathmandu (+05:45) and Australia/Adelaide (+10:30, then +09:30 from 03:00 on Sunday Apr 5 2026,
 * a 25-hour day). Every figure below is worked out by hand from the local times in the comments. With rollups per
 * UTC hour, a UTC hour belonged to the local day its first instant fell in: in Kolkata the hour 18:00Z begins at
 * 23:30, so a message at 00:00-00:29 on a local day was counted in the day before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bucketQuarters } from "../../src/results/buckets";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
const accounts: Record<string, Account> = {};
const at = (iso: string) => Date.parse(iso);
// Tuesday Apr 7 2026: 12:00 in Kolkata, 12:15 in Kathmandu, 16:00 in Adelaide.
const NOW = at("2026-04-07T06:30:00Z");
const db = () => t.ctx.db.$client;

let seq = 0;
/** A message that reached the provider at `sentAt` (or, received, was written then), one cent a segment. */
function message(zone: string, iso: string, status = "delivered") {
  const acc = accounts[zone]!;
  const inbound = status === "received";
  db()
    .query(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, sent_at, created_at, segments, segment_price_micros)
       VALUES (?, ?, ?, 'Hi', ?, ?, 'single', ?, ?, 1, ?)`,
    )
    .run(`zone-${++seq}`, acc.user.id, `+1415555${String(4000 + seq)}`, inbound ? "inbound" : "outbound", status, inbound ? null : at(iso), at(iso), inbound ? null : 10_000);
}

function contact(zone: string, iso: string) {
  db()
    .query(`INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES (?, ?, 'C', ?, ?)`)
    .run(`zone-c-${++seq}`, accounts[zone]!.user.id, `+1312555${String(5000 + seq)}`, at(iso));
}

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  for (const zone of ["Asia/Kolkata", "Asia/Kathmandu", "Australia/Adelaide"]) accounts[zone] = await t.signUpVerified();
  accounts.activity = await t.signUpVerified();
  accounts.moved = await t.signUpVerified();
  expect((await t.api("/api/user/settings", { method: "PATCH", token: accounts.activity.token, body: { timezone: "Asia/Kolkata" } })).status).toBe(200);
  expect((await t.api("/api/user/settings", { method: "PATCH", token: accounts["Asia/Kolkata"]!.token, body: { timezone: "Asia/Kolkata" } })).status).toBe(200);
  // /settings offers Kolkata among its zones, not these two: set in the database, they show the days hold for any zone.
  for (const zone of ["Asia/Kathmandu", "Australia/Adelaide"]) db().query(`UPDATE users SET timezone = ? WHERE id = ?`).run(zone, accounts[zone]!.user.id);
  // Kolkata: Apr 7 begins at 18:30Z on Apr 6; April at 18:30Z on Mar 31.
  message("Asia/Kolkata", "2026-04-06T18:30:00Z"); // Apr 7 00:00
  message("Asia/Kolkata", "2026-04-06T18:59:00Z"); // Apr 7 00:29
  message("Asia/Kolkata", "2026-04-06T18:29:59Z"); // Apr 6 23:59:59
  message("Asia/Kolkata", "2026-04-05T18:45:00Z", "received"); // Apr 6 00:15
  contact("Asia/Kolkata", "2026-04-06T18:40:00Z"); // Apr 7 00:10
  message("Asia/Kolkata", "2026-03-31T18:30:00Z"); // Apr 1 00:00: April
  message("Asia/Kolkata", "2026-03-31T18:29:00Z"); // Mar 31 23:59: March
  // Kathmandu: Apr 7 begins at 18:15Z on Apr 6.
  message("Asia/Kathmandu", "2026-04-06T18:15:00Z"); // Apr 7 00:00
  message("Asia/Kathmandu", "2026-04-06T18:14:59Z"); // Apr 6 23:59:59
  message("Asia/Kathmandu", "2026-04-06T18:50:00Z"); // Apr 7 00:35
  message("Asia/Kathmandu", "2026-04-06T18:00:00Z", "received"); // Apr 6 23:45
  contact("Asia/Kathmandu", "2026-04-05T18:20:00Z"); // Apr 6 00:05
  // Adelaide: Apr 5 runs from 13:30Z on Apr 4 (+10:30) to 14:30Z on Apr 5 (+09:30).
  message("Australia/Adelaide", "2026-04-04T13:29:00Z"); // Apr 4 23:59
  message("Australia/Adelaide", "2026-04-04T13:30:00Z"); // Apr 5 00:00
  message("Australia/Adelaide", "2026-04-04T16:15:00Z"); // Apr 5 02:45, daylight time
  message("Australia/Adelaide", "2026-04-04T17:15:00Z"); // Apr 5 02:45 again, standard time
  message("Australia/Adelaide", "2026-04-05T14:29:00Z"); // Apr 5 23:59
  message("Australia/Adelaide", "2026-04-05T14:30:00Z"); // Apr 6 00:00
  // The activity account, in Kolkata: one UTC day (Apr 6) holding the end of Apr 6 and the start of Apr 7 there.
  message("activity", "2026-04-06T18:20:00Z", "received"); // Apr 6 23:50
  message("activity", "2026-04-06T18:31:00Z", "received"); // Apr 7 00:01
  message("activity", "2026-04-06T18:50:00Z", "received"); // Apr 7 00:20
  contact("activity", "2026-04-06T18:25:00Z"); // Apr 6 23:55
  contact("activity", "2026-04-06T18:35:00Z"); // Apr 7 00:05
  // The account that moves from Chicago to Kolkata: 18:29Z and 18:30Z are one hour's in Chicago, two days in Kolkata.
  message("moved", "2026-04-06T18:29:00Z");
  message("moved", "2026-04-06T18:30:00Z");
  t.ctx.now = () => NOW;
});
afterAll(() => t?.stop());

const zero = { sent: 0, delivered: 0, failed: 0, undelivered: 0, unknown: 0, replies: 0, optOuts: 0, newContacts: 0, deliveryRate: null, spendMicros: 0 };
const sent = (n: number) => ({ sent: n, delivered: n, deliveryRate: 100, spendMicros: n * 10_000 });
const week = async (zone: string) => {
  const res = await t.api("/api/results/series?days=7", { token: accounts[zone]!.token });
  expect(res.status).toBe(200);
  expect(res.body.timezone).toBe(zone);
  return res.body.days;
};

describe("local days in zones with half-hour and 45-minute offsets (GET /api/results/series)", () => {
  test("Asia/Kolkata: the first half hour of a day is that day's", async () => {
    expect(await week("Asia/Kolkata")).toEqual([
      { date: "2026-04-01", ...zero, ...sent(1) },
      { date: "2026-04-02", ...zero },
      { date: "2026-04-03", ...zero },
      { date: "2026-04-04", ...zero },
      { date: "2026-04-05", ...zero },
      { date: "2026-04-06", ...zero, ...sent(1), replies: 1 },
      { date: "2026-04-07", ...zero, ...sent(2), newContacts: 1 },
    ]);
  });

  test("Asia/Kathmandu: the first 45 minutes of a day are that day's", async () => {
    const days = await week("Asia/Kathmandu");
    expect(days.slice(4)).toEqual([
      { date: "2026-04-05", ...zero },
      { date: "2026-04-06", ...zero, ...sent(1), replies: 1, newContacts: 1 },
      { date: "2026-04-07", ...zero, ...sent(2) },
    ]);
  });

  test("Australia/Adelaide: the 25-hour day daylight time ends on holds both 02:45s, and each midnight on its side", async () => {
    const days = await week("Australia/Adelaide");
    expect(days.slice(3, 6)).toEqual([
      { date: "2026-04-04", ...zero, ...sent(1) },
      { date: "2026-04-05", ...zero, ...sent(4) },
      { date: "2026-04-06", ...zero, ...sent(1) },
    ]);
  });
});

describe("local months in Kolkata (GET /api/results/overview)", () => {
  test("a message at 00:00 on Apr 1 in Kolkata is April's, one at 23:59 on Mar 31 March's", async () => {
    const res = await t.api("/api/results/overview", { token: accounts["Asia/Kolkata"]!.token });
    expect(res.status).toBe(200);
    expect(res.body.months.slice(-2)).toEqual([
      { month: "2026-03", sent: 1, segments: 1, spendMicros: 10_000, mmsSent: 0, mmsSpendMicros: 0 },
      { month: "2026-04", sent: 4, segments: 4, spendMicros: 40_000, mmsSent: 0, mmsSpendMicros: 0 },
    ]);
    expect(res.body.month.current).toMatchObject({ sent: 4, replies: 1, newContacts: 1 });
  });
});

describe("the simple home's recent activity (GET /api/analytics/recent-activity)", () => {
  test("replies and new contacts are told per day of Kolkata, not per UTC day", async () => {
    const res = await t.api("/api/analytics/recent-activity", { token: accounts.activity!.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { type: "new_replies", message: "2 new replies from customers", timestamp: "2026-04-06T18:50:00.000Z" },
      { type: "new_contacts", message: "1 new customer added", timestamp: "2026-04-06T18:35:00.000Z" },
      { type: "new_contacts", message: "1 new customer added", timestamp: "2026-04-06T18:25:00.000Z" },
      { type: "new_replies", message: "1 new reply from customers", timestamp: "2026-04-06T18:20:00.000Z" },
    ]);
  });
});

describe("an account's buckets follow its zone", () => {
  test("hours in Chicago; moved to Kolkata, its rows are rebuilt in half hours on the next read", async () => {
    const acc = accounts.moved!;
    const span = () => db().query(`SELECT quarters FROM rollup_granularity WHERE user_id = ?`).get(acc.user.id);
    const rows = () => db().query(`SELECT quarter_hour * 900000 AS at, n FROM message_rollups WHERE user_id = ? ORDER BY 1`).all(acc.user.id);
    const zone = async (timezone: string) =>
      expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone } })).status).toBe(200);

    await zone("America/Chicago");
    const chicago = (await t.api("/api/results/series?days=7", { token: acc.token })).body.days;
    expect(span()).toEqual({ quarters: 4 });
    expect(rows()).toEqual([{ at: at("2026-04-06T18:00:00Z"), n: 2 }]);
    expect(chicago.at(-2)).toMatchObject({ date: "2026-04-06", sent: 2 });

    await zone("Asia/Kolkata");
    const kolkata = (await t.api("/api/results/series?days=7", { token: acc.token })).body.days;
    expect(span()).toEqual({ quarters: 2 });
    expect(rows()).toEqual([
      { at: at("2026-04-06T18:00:00Z"), n: 1 },
      { at: at("2026-04-06T18:30:00Z"), n: 1 },
    ]);
    expect(kolkata.slice(-2)).toEqual([expect.objectContaining({ date: "2026-04-06", sent: 1 }), expect.objectContaining({ date: "2026-04-07", sent: 1 })]);
  });

  test("each zone's span: whole hours 4, half hours 2, Kathmandu's +05:45 1", () => {
    const spans = Object.fromEntries(
      ["America/Chicago", "Europe/London", "UTC", "Asia/Kolkata", "Australia/Adelaide", "America/St_Johns", "Australia/Lord_Howe", "Asia/Kathmandu"].map((z) => [z, bucketQuarters(z)]),
    );
    expect(spans).toEqual({
      "America/Chicago": 4, "Europe/London": 4, UTC: 4, "Asia/Kolkata": 2, "Australia/Adelaide": 2, "America/St_Johns": 2, "Australia/Lord_Howe": 2, "Asia/Kathmandu": 1,
    });
  });
});
