/**
 * The day rows of migration 0038 (message_day_rollups: the fine buckets' counts summed per local day of the
 * account's zone, which the dashboards read for whole days) against the messages, counted here per local date with
 * Intl: after sends, status changes (a retry's moves inside the queue among them), changes of campaign, sender,
 * segments and price, deletion, a move to a zone with the same buckets (Chicago to New York: every midnight an hour
 * earlier) and to one with others (Kathmandu's quarter hours). Then the figures read across whole days and parts of
 * days, against the same messages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { valuesDuring } from "../support/turns";

let t: TestServer;
let acc: Account;
let providerId: string;
let numberId: string;
let campaignId: string;

const db = () => t.ctx.db.$client;
const at = (iso: string) => Date.parse(iso);
const QUARTER_HOUR = 900_000;
// Friday Mar 20 2026, 12:00Z (07:00 in Chicago, 08:00 in New York, 17:45 in Kathmandu): on a quarter hour's edge.
const NOW = at("2026-03-20T12:00:00Z");
// The history: Feb 1 to now, across the change to daylight time on Mar 8 in Chicago and New York.
const FIRST = at("2026-02-01T00:00:00Z");

const dates = new Map<string, Intl.DateTimeFormat>();
/** The calendar date in a zone at an instant, as YYYY-MM-DD. */
const localDate = (zone: string, ms: number) => {
  if (!dates.has(zone)) dates.set(zone, new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }));
  return dates.get(zone)!.format(ms);
};

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(38);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;

let seq = 0;
/** A message as the engine and the webhooks write them: left the queue (with a sent time if it reached the provider), or queued. */
function message(status: string, time: number): string {
  const id = `days-${++seq}`;
  const inbound = status === "received";
  const sentAt = ["sent", "delivered", "unknown"].includes(status) || (status === "failed" && rnd() < 0.5) ? time : null;
  const sender = inbound || rnd() < 0.8;
  db()
    .query(
      `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, sent_at, created_at, segments, provider_id, phone_number_id,
         segment_price_micros, next_attempt_at)
       VALUES (?, ?, ?, ?, 'Hi', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id, acc.user.id, !inbound && rnd() < 0.6 ? campaignId : null, `+1415555${String(1000 + seq)}`, inbound ? "inbound" : "outbound", status,
      inbound ? "single" : "campaign", sentAt, sentAt === null ? time : time - 60_000, 1 + Math.floor(rnd() * 3), sender ? providerId : null,
      sender ? numberId : null, sentAt === null ? null : pick([8_300, 10_000]), at("2100-01-01T00:00:00Z"),
    );
  return id;
}
/** Any instant of the history, to the second; every tenth on a local midnight of one of the zones. */
function instant() {
  if (rnd() < 0.1) return pick([at("2026-03-09T05:00:00Z"), at("2026-03-09T04:00:00Z"), at("2026-03-08T18:15:00Z"), at("2026-02-28T18:14:59Z"), at("2026-03-08T06:00:00Z")]);
  return FIRST + Math.floor((rnd() * (NOW - FIRST)) / 1000) * 1000;
}

type Counts = Record<string, { n: number; sent: number; segments: number; spendMicros: number }>;
const add = (into: Counts, key: string, c: Counts[string]) => {
  const was = into[key] ?? { n: 0, sent: 0, segments: 0, spendMicros: 0 };
  into[key] = { n: was.n + c.n, sent: was.sent + c.sent, segments: was.segments + c.segments, spendMicros: was.spendMicros + c.spendMicros };
};
const nonZero = (c: Counts) => Object.fromEntries(Object.entries(c).filter(([, v]) => v.n || v.sent || v.segments || v.spendMicros));

/** The messages that have left the queue, per local date of `zone`, status, sender and campaign. */
function counted(zone: string): Counts {
  const rows = db()
    .query(
      `SELECT status, coalesce(phone_number_id, '') AS sender, coalesce(campaign_id, '') AS campaign, sent_at AS sentAt, created_at AS createdAt, segments,
         segment_price_micros AS price
       FROM messages WHERE user_id = ? AND status NOT IN ('queued', 'sending')`,
    )
    .all(acc.user.id) as { status: string; sender: string; campaign: string; sentAt: number | null; createdAt: number; segments: number; price: number | null }[];
  const out: Counts = {};
  for (const r of rows) {
    const went = r.sentAt !== null;
    add(out, `${localDate(zone, r.sentAt ?? r.createdAt)} ${r.status} ${r.sender} ${r.campaign}`, {
      n: 1,
      sent: went ? 1 : 0,
      segments: went ? r.segments : 0,
      spendMicros: went ? r.segments * (r.price ?? 0) : 0,
    });
  }
  return out;
}

/** The account's day rows, by the local date of `zone` their key (a local midnight) falls on; no two on one date. */
function kept(zone: string): Counts {
  const rows = db()
    .query(
      `SELECT day, status, phone_number_id AS sender, campaign_id AS campaign, n, sent, segments, spend_micros AS spendMicros
       FROM message_day_rollups WHERE user_id = ?`,
    )
    .all(acc.user.id) as { day: number; status: string; sender: string; campaign: string; n: number; sent: number; segments: number; spendMicros: number }[];
  const out: Counts = {};
  const dayOfDate = new Map<string, number>();
  for (const { day, status, sender, campaign, ...c } of rows) {
    const date = localDate(zone, day * QUARTER_HOUR);
    // The key is the day's midnight: the instant before it is the day before.
    expect(localDate(zone, day * QUARTER_HOUR - 1)).not.toBe(date);
    expect(dayOfDate.get(date) ?? day).toBe(day);
    dayOfDate.set(date, day);
    add(out, `${date} ${status} ${sender} ${campaign}`, c);
  }
  return nonZero(out);
}

const read = async (path: string) => {
  const res = await t.api(path, { token: acc.token });
  expect(res.status).toBe(200);
  return res.body;
};
/** The account's zone changed, then a dashboard read (which rebuilds what the new zone needs). */
const moveTo = async (timezone: string) => {
  // /settings offers Chicago and New York among its zones, not Kathmandu: set in the database, as in dashboards-zones.
  if (timezone === "Asia/Kathmandu") db().query(`UPDATE users SET timezone = ? WHERE id = ?`).run(timezone, acc.user.id);
  else expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone } })).status).toBe(200);
  await read("/api/results/overview");
};

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  acc = await t.signUpVerified();
  const provider = await t.api("/api/sms-providers", { method: "POST", token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  providerId = provider.body.id;
  const available = await t.api(`/api/providers/${providerId}/available-numbers`, { token: acc.token });
  numberId = (await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { providerId, phoneNumber: available.body.numbers[0].phoneNumber } })).body.id;
  campaignId = (await t.api("/api/campaigns", { method: "POST", token: acc.token, body: { type: "sms", name: "Days", content: "Hello", recipients: ["+14155550101"] } })).body.id;
  t.ctx.now = () => NOW;
  await moveTo("America/Chicago");
});
afterAll(() => t?.stop());

describe("the day rows agree with the messages", () => {
  const ids: string[] = [];

  test("as messages leave the queue and as they are received", () => {
    for (let i = 0; i < 400; i++) ids.push(message(pick(["delivered", "delivered", "sent", "failed", "unknown", "skipped", "expired", "received"]), instant()));
    expect(kept("America/Chicago")).toEqual(counted("America/Chicago"));
  });

  test("through a retry's moves inside the queue, sending, delivery, failure and changes of what is counted", () => {
    const queued = Array.from({ length: 40 }, () => message("queued", instant()));
    const update = (sql: string, ...args: (string | number | null)[]) => db().query(sql).run(...args);
    for (const id of queued) {
      update(`UPDATE messages SET status = 'sending' WHERE id = ?`, id);
      update(`UPDATE messages SET status = 'queued' WHERE id = ?`, id);
      update(`UPDATE messages SET status = 'sending' WHERE id = ?`, id);
      update(`UPDATE messages SET status = 'sent', sent_at = created_at + 1000, segment_price_micros = 10000 WHERE id = ?`, id);
    }
    expect(kept("America/Chicago")).toEqual(counted("America/Chicago"));
    for (const id of queued.slice(0, 20)) update(`UPDATE messages SET status = 'delivered' WHERE id = ?`, id);
    for (const id of queued.slice(20, 30)) update(`UPDATE messages SET status = 'failed' WHERE id = ?`, id);
    // A late receipt moves a message across a midnight; others change campaign, sender, segments or price.
    for (const id of ids.slice(0, 10)) update(`UPDATE messages SET sent_at = sent_at + 43200000 WHERE id = ? AND sent_at IS NOT NULL`, id);
    for (const id of ids.slice(10, 20)) update(`UPDATE messages SET campaign_id = NULL, phone_number_id = NULL WHERE id = ?`, id);
    for (const id of ids.slice(20, 30)) update(`UPDATE messages SET segments = segments + 2, segment_price_micros = 4000 WHERE id = ?`, id);
    ids.push(...queued);
    expect(kept("America/Chicago")).toEqual(counted("America/Chicago"));
  });

  test("as messages are deleted", () => {
    for (const id of ids.splice(0, 60)) db().query(`DELETE FROM messages WHERE id = ?`).run(id);
    expect(kept("America/Chicago")).toEqual(counted("America/Chicago"));
  });

  test("moved to New York (the same hour buckets, every midnight an hour earlier), they are rebuilt in its days and kept there", async () => {
    await moveTo("America/New_York");
    expect(db().query(`SELECT quarters, zone FROM rollup_granularity WHERE user_id = ?`).get(acc.user.id)).toEqual({ quarters: 4, zone: "America/New_York" });
    expect(kept("America/New_York")).toEqual(counted("America/New_York"));
    for (let i = 0; i < 50; i++) ids.push(message(pick(["delivered", "failed", "received"]), instant()));
    for (const id of ids.splice(0, 20)) db().query(`DELETE FROM messages WHERE id = ?`).run(id);
    expect(kept("America/New_York")).toEqual(counted("America/New_York"));
  });

  test("moved to Kathmandu (quarter-hour buckets, +05:45), they are rebuilt from the new buckets and kept there", async () => {
    await moveTo("Asia/Kathmandu");
    expect(db().query(`SELECT quarters, zone FROM rollup_granularity WHERE user_id = ?`).get(acc.user.id)).toEqual({ quarters: 1, zone: "Asia/Kathmandu" });
    expect(kept("Asia/Kathmandu")).toEqual(counted("Asia/Kathmandu"));
    for (let i = 0; i < 50; i++) ids.push(message(pick(["delivered", "sent", "received"]), instant()));
    for (const id of ids.slice(-30, -10)) db().query(`UPDATE messages SET status = 'delivered' WHERE id = ? AND status = 'sent'`).run(id);
    expect(kept("Asia/Kathmandu")).toEqual(counted("Asia/Kathmandu"));
  });

  test("every day key of a zone is one of its local midnights, 2000 to 2040", () => {
    for (const zone of ["America/Chicago", "America/New_York", "Asia/Kathmandu"]) {
      const edges = (db().query(`SELECT quarter_hour AS q FROM rollup_days WHERE zone = ? ORDER BY 1`).all(zone) as { q: number }[]).map((r) => r.q);
      expect(edges.length).toBe(14_611);
      expect([localDate(zone, edges[0]! * QUARTER_HOUR), localDate(zone, edges.at(-1)! * QUARTER_HOUR)]).toEqual(["2000-01-01", "2040-01-01"]);
      const wrong = edges.filter((q, i) => i > 0 && (localDate(zone, q * QUARTER_HOUR - 1) === localDate(zone, q * QUARTER_HOUR) || q === edges[i - 1]));
      expect(wrong).toEqual([]);
    }
  });
});

describe("a zone's days stored in slices (issue 29 item 5)", () => {
  const ZONE = "Europe/Lisbon";
  const edgesOf = (zone: string) => (db().query(`SELECT quarter_hour AS q FROM rollup_days WHERE zone = ? ORDER BY 1`).all(zone) as { q: number }[]).map((r) => r.q);

  test("a first read in a zone no account had stores its 14,611 days a slice at a time, with turns of the event loop between", async () => {
    const other = await t.signUpVerified();
    db().query(`UPDATE users SET timezone = ? WHERE id = ?`).run(ZONE, other.user.id);
    const count = () => (db().query(`SELECT count(*) AS n FROM rollup_days WHERE zone = ?`).get(ZONE) as { n: number }).n;
    const { seen } = await valuesDuring(count, () => t.api("/api/results/overview", { token: other.token }));
    // Seen between the slices (~1,050 days each): not nothing then all 14,611 in one go.
    expect(seen.filter((n) => n > 0 && n < 14_611).length).toBeGreaterThan(5);
    expect(count()).toBe(14_611);
    expect(db().query(`SELECT quarters, zone FROM rollup_granularity WHERE user_id = ?`).get(other.user.id)).toEqual({ quarters: 4, zone: ZONE });
    const edges = edgesOf(ZONE);
    expect([localDate(ZONE, edges[0]! * QUARTER_HOUR), localDate(ZONE, edges.at(-1)! * QUARTER_HOUR)]).toEqual(["2000-01-01", "2040-01-01"]);
    expect(edges.filter((q, i) => i > 0 && (localDate(ZONE, q * QUARTER_HOUR - 1) === localDate(ZONE, q * QUARTER_HOUR) || q === edges[i - 1]))).toEqual([]);
  });

  test("a zone left part-stored (a stop between slices) is made whole by the next first read in it, the same days", async () => {
    const whole = edgesOf(ZONE);
    db().query(`DELETE FROM rollup_days WHERE zone = ? AND quarter_hour > ?`).run(ZONE, whole[6_000]!);
    const next = await t.signUpVerified();
    db().query(`UPDATE users SET timezone = ? WHERE id = ?`).run(ZONE, next.user.id);
    expect((await t.api("/api/results/overview", { token: next.token })).status).toBe(200);
    expect(edgesOf(ZONE)).toEqual(whole);
  });
});

describe("the figures, read from whole days and parts of days, against the messages (Kathmandu)", () => {
  const ZONE = "Asia/Kathmandu";
  /** Messages by what the dashboards call them, with their time (sent, else written). */
  const messages = () =>
    db()
      .query(`SELECT status, sent_at AS sentAt, coalesce(sent_at, created_at) AS time, segments, segment_price_micros AS price FROM messages WHERE user_id = ?`)
      .all(acc.user.id) as { status: string; sentAt: number | null; time: number; segments: number; price: number | null }[];
  const tally = (rows: ReturnType<typeof messages>) => ({
    delivered: rows.filter((r) => r.status === "delivered").length,
    replies: rows.filter((r) => r.status === "received").length,
    spendMicros: rows.reduce((s, r) => s + (r.sentAt !== null && r.status !== "queued" && r.status !== "sending" ? r.segments * (r.price ?? 0) : 0), 0),
  });

  test("all time, the last 7 days to now, this month so far and each of 30 local days", async () => {
    const all = messages();
    const body = await read("/api/results/overview");
    expect(body.allTime).toMatchObject(tally(all));
    expect(body.week.current).toMatchObject(tally(all.filter((r) => r.time >= NOW - 7 * 86_400_000 && r.time < NOW)));
    // March in Kathmandu began at 18:15Z on Feb 28.
    expect(body.month.current).toMatchObject(tally(all.filter((r) => r.time >= at("2026-02-28T18:15:00Z") && r.time < NOW)));
    const series = await read("/api/results/series?days=30");
    const perDay = series.days.map((d: { date: string; delivered: number; replies: number; spendMicros: number }) => ({
      date: d.date,
      delivered: d.delivered,
      replies: d.replies,
      spendMicros: d.spendMicros,
    }));
    expect(perDay).toEqual(series.days.map((d: { date: string }) => ({ date: d.date, ...tally(all.filter((r) => localDate(ZONE, r.time) === d.date)) })));
    expect(perDay.reduce((s: number, d: { delivered: number }) => s + d.delivered, 0)).toBeGreaterThan(100);
  });

  test("the simple home's totals", async () => {
    const all = messages();
    const summary = await read("/api/analytics/summary");
    expect(summary.totalResponses).toBe(tally(all).replies);
  });
});
