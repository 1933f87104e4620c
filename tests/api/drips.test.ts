// Drip campaigns (issue 15 items 2-3) on a fake clock: each step once, in order, after its delay; the send-at hour
// in the contact's zone; exits on a reply, an opt-out and a goal tag; re-entry; a stale step after downtime
// skipped (or sent late when the drip says so); quiet hours defer a step; an edit with contacts waiting asks first.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { findProviderById } from "../../src/providers/accounts";
import { recordInbound } from "../../src/inbound/receive";
import { checkSegments, processEvents } from "../../src/drips/runner";
import { findJob, runDueJobs } from "../../src/jobs/jobs";
import { grantLicense } from "../../src/licenses/licenses";
import { wallToInstant } from "../../src/time/zones";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let realNow: () => number;
let clock = 0;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const LA = "America/Los_Angeles";

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  realNow = t.ctx.now;
});
afterAll(() => t?.stop());
afterEach(() => {
  t.ctx.now = realNow;
});

/** The fake clock starts at the next noon in Los Angeles (the zone of the 415 numbers below). */
function startClock(): number {
  const local = Date.now() - 8 * HOUR;
  const wall = local - (local % DAY) + DAY + 12 * HOUR;
  clock = wallToInstant(LA, wall);
  t.ctx.now = () => clock;
  return clock;
}
const run = () => runDueJobs(t.ctx);
const laHour = (iso: string) => new Intl.DateTimeFormat("en-US", { timeZone: LA, hour: "numeric", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));

const call = (acc: Account, method: string, path: string, body?: unknown) => t.api(path, { method, token: acc.token, body });

let phoneSeq = 100;
async function account(quietHoursEnabled = false) {
  const acc = await t.signUpVerified();
  expect((await call(acc, "PATCH", "/api/user/settings", { quietHoursEnabled })).status).toBe(200);
  const provider = await call(acc, "POST", "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  expect((await call(acc, "POST", "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: "+14155550190" })).status).toBe(201);
  const contact = async (firstName: string) => {
    const res = await call(acc, "POST", "/api/contacts", { firstName, phone: `+1415555${String(phoneSeq++).padStart(4, "0")}` });
    expect(res.status).toBe(201);
    return res.body as { id: string; phone: string };
  };
  const account = (await findProviderById(t.ctx, provider.body.id))!;
  const text = (from: string, body: string) => recordInbound(t.ctx, account, { type: "inbound", providerMessageId: `drip-${crypto.randomUUID()}`, from, to: "+14155550190", body });
  return { acc, contact, text };
}

const STEPS = [
  { delay: 0, unit: "minutes", content: "S1 hi {firstName}" },
  { delay: 10, unit: "minutes", content: "S2" },
  { delay: 2, unit: "hours", content: "S3" },
];

async function drip(acc: Account, body: Record<string, unknown> = {}) {
  const res = await call(acc, "POST", "/api/drip-campaigns", { name: "Drip", trigger: "manual", steps: STEPS, ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

const sent = (acc: Account) =>
  (t.ctx.db.$client.query(`SELECT phone, content FROM messages WHERE user_id = ? AND direction = 'outbound' AND kind <> 'compliance' ORDER BY seq`).all(acc.user.id) as { phone: string; content: string }[]).map(
    (m) => `${m.phone.slice(-4)} ${m.content}`,
  );
const enrolments = async (acc: Account, id: string) => (await call(acc, "GET", `/api/drip-campaigns/${id}/enrolments`)).body.data as any[];

describe("drip campaigns", () => {
  test("create, list with the samples, validation", async () => {
    const { acc } = await account();
    const list = await call(acc, "GET", "/api/drip-campaigns");
    expect(list.body.data).toEqual([]);
    expect(list.body.samples.map((s: any) => [s.name, s.trigger, s.steps.map((x: any) => x.delay)])).toEqual([
      ["Welcome Series", "opt_in", [0, 1, 2, 4]],
      ["Win-Back Campaign", "inactive", [0, 2, 5]],
    ]);
    const d = await call(acc, "POST", "/api/drip-campaigns", { name: " Welcome ", trigger: "opt_in", steps: STEPS });
    expect(d.body).toMatchObject({ name: "Welcome", trigger: "opt_in", isActive: true, exitOnReply: true, latePolicy: "skip", lateAfterMinutes: 60, reentryDays: null });
    // No pictures or files: media [] (issue 33).
    expect(d.body.steps[1]).toEqual({ delay: 10, unit: "minutes", sendAtHour: null, content: "S2", media: [] });
    expect((await call(acc, "POST", "/api/drip-campaigns", { name: "X", steps: [] })).body.message).toBe("A drip campaign needs at least one step");
    expect((await call(acc, "POST", "/api/drip-campaigns", { name: "X", steps: [{ delay: 1, unit: "weeks", content: "a" }] })).body.message).toBe(
      "Step 1: the delay is in minutes, hours or days",
    );
    expect((await call(acc, "POST", "/api/drip-campaigns", { name: "X", trigger: "never", steps: STEPS })).status).toBe(400);
    const toggled = await call(acc, "POST", `/api/drip-campaigns/${d.body.id}/toggle`);
    expect(toggled.body.isActive).toBe(false);
    const other = await account();
    expect((await call(other.acc, "DELETE", `/api/drip-campaigns/${d.body.id}`)).status).toBe(404);
    expect((await call(acc, "DELETE", `/api/drip-campaigns/${d.body.id}`)).status).toBe(200);
  });

  test("at once: two switches turn a drip twice, two removals of one contact end it once (one 409)", async () => {
    const { acc, contact } = await account();
    const d = await drip(acc);
    // Each switch turns the value the database holds: read in one request and written after the other's, both
    // would have answered "off" and left it off.
    const switched = await Promise.all([1, 2].map(() => call(acc, "POST", `/api/drip-campaigns/${d.id}/toggle`)));
    expect(switched.map((r) => r.body.isActive).sort()).toEqual([false, true]);
    expect((await call(acc, "GET", "/api/drip-campaigns")).body.data[0].isActive).toBe(true);

    const ann = await contact("Ann");
    expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [ann.id] })).body).toEqual({ enrolled: 1, skipped: [] });
    const [e] = await enrolments(acc, d.id);
    const removed = await Promise.all([1, 2].map(() => call(acc, "DELETE", `/api/drip-campaigns/${d.id}/enrolments/${e.id}`)));
    expect(removed.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(removed.find((r) => r.status === 409)!.body.message).toBe("This enrolment has already exited");
    expect((await enrolments(acc, d.id)).map((x) => [x.state, x.exitReason])).toEqual([["exited", "Removed by the user"]]);
  });

  test("each step once, in order, after its delay; the history says when", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const ann = await contact("Ann");
    const d = await drip(acc);
    expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [ann.id, ann.id] })).body).toEqual({ enrolled: 1, skipped: [] });
    await run();
    await run();
    const tail = ann.phone.slice(-4);
    expect(sent(acc)).toEqual([`${tail} S1 hi Ann`]);
    clock = start + 10 * MINUTE - 1000;
    await run();
    expect(sent(acc)).toHaveLength(1);
    clock = start + 10 * MINUTE;
    await run();
    await run();
    expect(sent(acc)).toEqual([`${tail} S1 hi Ann`, `${tail} S2`]);
    let [e] = await enrolments(acc, d.id);
    expect(e).toMatchObject({ state: "active", nextStep: 2, nextAt: new Date(start + 130 * MINUTE).toISOString() });
    clock = start + 130 * MINUTE;
    await run();
    expect(sent(acc)).toEqual([`${tail} S1 hi Ann`, `${tail} S2`, `${tail} S3`]);
    [e] = await enrolments(acc, d.id);
    expect(e.state).toBe("completed");
    expect(e.history.map((h: any) => [h.step, h.outcome, h.at])).toEqual([
      [0, "sent", new Date(start).toISOString()],
      [1, "sent", new Date(start + 10 * MINUTE).toISOString()],
      [2, "sent", new Date(start + 130 * MINUTE).toISOString()],
    ]);
    expect((await call(acc, "GET", "/api/drip-campaigns")).body.data[0].enrolments).toEqual({ active: 0, completed: 1, exited: 0 });
  });

  test("a send-at hour is the contact's clock: day 1 at 09:00 is tomorrow 09:00 in Los Angeles; hours count on", async () => {
    startClock();
    const { acc, contact } = await account();
    const c = await contact("Bo");
    const d = await drip(acc, { steps: [{ delay: 1, unit: "days", sendAtHour: 9, content: "Morning" }] });
    const h = await drip(acc, { steps: [{ delay: 3, unit: "hours", sendAtHour: 14, content: "Afternoon" }] });
    const today = await drip(acc, { steps: [{ delay: 0, unit: "days", sendAtHour: 9, content: "Past" }] });
    for (const x of [d, h, today]) await call(acc, "POST", `/api/drip-campaigns/${x.id}/enrol`, { contactIds: [c.id] });
    const next = async (id: string) => (await enrolments(acc, id))[0].nextAt as string;
    expect(laHour(await next(d.id))).toBe("09:00");
    expect(Date.parse(await next(d.id)) - clock).toBe(21 * HOUR);
    // 15:00 after the delay: the next 14:00 is tomorrow's.
    expect(Date.parse(await next(h.id)) - clock).toBe(26 * HOUR);
    // Day 0 at 09:00 when it is noon already: tomorrow 09:00, never in the past.
    expect(Date.parse(await next(today.id)) - clock).toBe(21 * HOUR);
  });

  test("exits: a reply, an opt-out, a goal tag; nothing is sent after", async () => {
    const start = startClock();
    const { acc, contact, text } = await account();
    const [a, b, c, d0] = [await contact("A"), await contact("B"), await contact("C"), await contact("D")];
    const replyDrip = await drip(acc, { goalTag: "bought" });
    const noExit = await drip(acc, { exitOnReply: false, steps: [STEPS[1]] });
    await call(acc, "POST", `/api/drip-campaigns/${replyDrip.id}/enrol`, { contactIds: [a.id, b.id, c.id, d0.id] });
    await call(acc, "POST", `/api/drip-campaigns/${noExit.id}/enrol`, { contactIds: [a.id] });
    await run();
    expect(sent(acc)).toHaveLength(4);
    // A reply counts after the enrolment.
    clock = start + 1000;
    await text(a.phone, "Thanks!");
    await text(b.phone, "STOP");
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [c.id], tags: ["bought"] })).body).toEqual({ updated: 1 });
    await processEvents(t.ctx);
    clock = start + 10 * MINUTE;
    await run();
    const after = sent(acc).filter((m) => !m.includes("S1"));
    // D gets step 2; A gets the drip that does not exit on reply; B and C nothing more.
    expect(after.sort()).toEqual([`${a.phone.slice(-4)} S2`, `${d0.phone.slice(-4)} S2`].sort());
    const byContact = Object.fromEntries((await enrolments(acc, replyDrip.id)).map((e) => [e.contactId, [e.state, e.exitReason]]));
    expect(byContact).toEqual({
      [a.id]: ["exited", "Replied"],
      [b.id]: ["exited", "Opted out"],
      [c.id]: ["exited", 'Reached the goal (tag "bought")'],
      [d0.id]: ["active", null],
    });
  });

  test("a segment enrols its contacts as they are now; one who leaves it exits before the next step", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const [a, b, c] = [await contact("In"), await contact("Leaves"), await contact("Out")];
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [a.id, b.id], tags: ["vip"] })).body).toEqual({ updated: 2 });
    const segment = (await call(acc, "POST", "/api/segments", { name: "VIP", conditions: { tags: { contains: "vip" } } })).body;
    const d = await drip(acc, { segmentId: segment.id, steps: STEPS.slice(0, 2) });
    expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { segmentId: segment.id })).body).toEqual({ enrolled: 2, skipped: [] });
    await run();
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [b.id], tags: ["vip"], action: "remove" })).body).toEqual({ updated: 1 });
    clock = start + 10 * MINUTE;
    await run();
    expect(sent(acc).filter((m) => m.endsWith("S2"))).toEqual([`${a.phone.slice(-4)} S2`]);
    const states = Object.fromEntries((await enrolments(acc, d.id)).map((e) => [e.contactId, [e.state, e.exitReason]]));
    expect(states).toEqual({ [a.id]: ["completed", null], [b.id]: ["exited", 'Left the segment "VIP"'] });
    expect(states[c.id]).toBeUndefined();
  });

  test("a goal tag ends the enrolment when the tag is added (its event), not at the next step", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const [goal, stays] = [await contact("Goal"), await contact("Stays")];
    const d = await drip(acc, { goalTag: "bought", steps: STEPS.slice(1, 2) });
    expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [goal.id, stays.id] })).body).toEqual({ enrolled: 2, skipped: [] });
    clock = start + MINUTE;
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [goal.id, stays.id], tags: ["vip"] })).body).toEqual({ updated: 2 });
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [goal.id], tags: ["bought"] })).body).toEqual({ updated: 1 });
    await processEvents(t.ctx);
    // Nine minutes before the step: ended at the reading, its step cancelled.
    const byContact = async () => Object.fromEntries((await enrolments(acc, d.id)).map((e) => [e.contactId, [e.state, e.exitReason, e.endedAt]]));
    expect(await byContact()).toEqual({
      [goal.id]: ["exited", 'Reached the goal (tag "bought")', new Date(start + MINUTE).toISOString()],
      [stays.id]: ["active", null, null],
    });
    clock = start + 10 * MINUTE;
    await run();
    expect(sent(acc)).toEqual([`${stays.phone.slice(-4)} S2`]);
  });

  test("a contact who leaves the segment without an event (a tag removed) exits at the minute's segment check, before the next step", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const [a, b] = [await contact("Keeps"), await contact("Drops")];
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [a.id, b.id], tags: ["vip"] })).body).toEqual({ updated: 2 });
    const segment = (await call(acc, "POST", "/api/segments", { name: "VIP", conditions: { tags: { contains: "vip" } } })).body;
    const d = await drip(acc, { segmentId: segment.id, steps: STEPS.slice(1, 2) });
    expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { segmentId: segment.id })).body).toEqual({ enrolled: 2, skipped: [] });
    expect(await checkSegments(t.ctx)).toBe(0);
    clock = start + 2 * MINUTE;
    expect((await call(acc, "POST", "/api/contacts/bulk-tag", { contactIds: [b.id], tags: ["vip"], action: "remove" })).body).toEqual({ updated: 1 });
    // (The job runner may make the same check in between: the outcome is the same, once.)
    await checkSegments(t.ctx);
    expect(await checkSegments(t.ctx)).toBe(0);
    const states = Object.fromEntries((await enrolments(acc, d.id)).map((e) => [e.contactId, [e.state, e.exitReason, e.endedAt]]));
    expect(states).toEqual({ [a.id]: ["active", null, null], [b.id]: ["exited", 'Left the segment "VIP"', new Date(start + 2 * MINUTE).toISOString()] });
  });

  test("steps past the plan's SMS this month are skipped with the plan's answer, however many fall due together", async () => {
    startClock();
    const { acc, contact } = await account();
    const people = [await contact("P1"), await contact("P2"), await contact("P3"), await contact("P4"), await contact("P5")];
    await grantLicense(t.ctx, acc.user.id, "starter", 30);
    const limit = t.ctx.db.$client.query(`SELECT monthly_messages AS n FROM plans WHERE id = 'starter'`).get() as { n: number };
    t.ctx.db.$client.run(`UPDATE plans SET monthly_messages = 3 WHERE id = 'starter'`);
    try {
      const d = await drip(acc, { steps: STEPS.slice(0, 1) });
      expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: people.map((p) => p.id) })).body).toEqual({ enrolled: 5, skipped: [] });
      await run();
      expect(sent(acc)).toHaveLength(3);
      const outcomes = (await enrolments(acc, d.id)).map((e) => [e.history[0].outcome, e.history[0].reason]);
      expect(outcomes.filter(([o]) => o === "sent")).toHaveLength(3);
      const skipped = outcomes.filter(([o]) => o === "skipped");
      expect(skipped).toHaveLength(2);
      for (const [, reason] of skipped) expect(reason).toStartWith("Skipped: Your Starter plan allows 3 ");
    } finally {
      t.ctx.db.$client.run(`UPDATE plans SET monthly_messages = ? WHERE id = 'starter'`, [limit.n]);
    }
  });

  test("a pass of steps writes its messages together: a step that fails keeps no message, the others keep theirs and their logs, one message per (enrolment, step)", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const people = [await contact("Q1"), await contact("Q2"), await contact("Q3"), await contact("Q4"), await contact("Q5")];
    const d = await drip(acc, { steps: STEPS.slice(0, 2) });
    const db = t.ctx.db.$client;
    // Q2's message cannot be written (the pass's batched write fails and the pass runs again step by step); Q4's
    // step fails after leaving its message to the pass's end (its log row cannot be written). Set before the
    // enrolment: the server's own runner may take the steps before this test's pass does, with the same outcome.
    db.exec(`CREATE TEMP TRIGGER drips_test_message BEFORE INSERT ON messages WHEN NEW.phone = '${people[1]!.phone}' BEGIN SELECT RAISE(ABORT, 'no message'); END`);
    db.exec(
      `CREATE TEMP TRIGGER drips_test_log BEFORE INSERT ON drip_step_log
       WHEN (SELECT contact_id FROM drip_enrolments WHERE id = NEW.enrolment_id) = '${people[3]!.id}' BEGIN SELECT RAISE(ABORT, 'no log'); END`,
    );
    let byContact: Map<string, string>;
    try {
      expect((await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: people.map((p) => p.id) })).body).toEqual({ enrolled: 5, skipped: [] });
      byContact = new Map((await enrolments(acc, d.id)).map((e) => [e.contactId, e.id as string]));
      await run();
    } finally {
      db.exec(`DROP TRIGGER drips_test_message; DROP TRIGGER drips_test_log`);
    }
    const tails = (list: { phone: string }[]) => list.map((p) => p.phone.slice(-4));
    const [q1, q2, q3, q4, q5] = tails(people);
    expect(sent(acc).sort()).toEqual([`${q1} S1 hi Q1`, `${q3} S1 hi Q3`, `${q5} S1 hi Q5`]);
    const step = async (i: number) => (await findJob(t.ctx, `drip:${byContact.get(people[i]!.id)}:0`))!;
    const [s1, s3] = [await step(1), await step(3)];
    expect([s1.state, s1.attempts, s1.lastError]).toEqual(["pending", 1, "no message"]);
    expect([s3.state, s3.attempts, s3.lastError]).toEqual(["pending", 1, "no log"]);
    // After the back-off both go through; then the second step for everyone.
    clock = start + MINUTE;
    await run();
    clock = start + 10 * MINUTE;
    await run();
    await run();
    expect(sent(acc).sort()).toEqual(
      [`${q1} S1 hi Q1`, `${q2} S1 hi Q2`, `${q3} S1 hi Q3`, `${q4} S1 hi Q4`, `${q5} S1 hi Q5`, ...[q1, q2, q3, q4, q5].map((q) => `${q} S2`)].sort(),
    );
    // Every sent step's log names its message: exactly one outbox row per (enrolment, step).
    const rows = db
      .query(
        `SELECT l.enrolment_id AS e, l.step, count(m.id) AS n FROM drip_step_log l LEFT JOIN messages m ON m.id = l.message_id
         WHERE l.enrolment_id IN (SELECT value FROM json_each(?)) AND l.outcome = 'sent' GROUP BY l.enrolment_id, l.step`,
      )
      .all(JSON.stringify([...byContact.values()])) as { e: string; step: number; n: number }[];
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect((await enrolments(acc, d.id)).map((e) => e.state)).toEqual(["completed", "completed", "completed", "completed", "completed"]);
  });

  test("an opt_in drip enrols a contact who opts in, from the event log, once", async () => {
    startClock();
    const { acc, contact, text } = await account();
    const c = await contact("Opt");
    const d = await drip(acc, { trigger: "opt_in", steps: [STEPS[1]] });
    await text(c.phone, "STOP");
    await text(c.phone, "START");
    await processEvents(t.ctx);
    await processEvents(t.ctx);
    const list = await enrolments(acc, d.id);
    expect(list.map((e) => [e.contactId, e.state])).toEqual([[c.id, "active"]]);
  });

  test("re-entry: never, or after N days", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const c = await contact("R");
    // One step ten minutes out, so the contact is still waiting in it whenever the job runner runs in between.
    const never = await drip(acc, { steps: [STEPS[1]] });
    const weekly = await drip(acc, { steps: [STEPS[1]], reentryDays: 7 });
    for (const d of [never, weekly]) await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [c.id] });
    const again = (id: string) => call(acc, "POST", `/api/drip-campaigns/${id}/enrol`, { contactIds: [c.id] }).then((r) => r.body);
    expect(await again(never.id)).toEqual({ enrolled: 0, skipped: [{ contactId: c.id, reason: "Already in this drip" }] });
    clock = start + 10 * MINUTE;
    await run();
    expect(await again(never.id)).toEqual({ enrolled: 0, skipped: [{ contactId: c.id, reason: "Already went through this drip (re-entry is off)" }] });
    clock = start + 7 * DAY - MINUTE;
    expect(await again(weekly.id)).toEqual({ enrolled: 0, skipped: [{ contactId: c.id, reason: "Enrolled less than 7 day(s) ago" }] });
    clock = start + 7 * DAY;
    expect(await again(weekly.id)).toEqual({ enrolled: 1, skipped: [] });
  });

  test("after downtime a step over an hour late is skipped and logged, or sent late when the drip says so", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const [a, b] = [await contact("Skip"), await contact("Late")];
    const skip = await drip(acc, { steps: STEPS.slice(0, 2) });
    const late = await drip(acc, { steps: STEPS.slice(0, 2), latePolicy: "send" });
    await call(acc, "POST", `/api/drip-campaigns/${skip.id}/enrol`, { contactIds: [a.id] });
    await call(acc, "POST", `/api/drip-campaigns/${late.id}/enrol`, { contactIds: [b.id] });
    await run();
    clock = start + 10 * MINUTE + HOUR + 1000;
    await run();
    expect(sent(acc)).toEqual([`${a.phone.slice(-4)} S1 hi Skip`, `${b.phone.slice(-4)} S1 hi Late`, `${b.phone.slice(-4)} S2`]);
    const [e] = await enrolments(acc, skip.id);
    expect(e.state).toBe("completed");
    expect(e.history[1]).toMatchObject({ step: 1, outcome: "skipped", reason: "Skipped: due 60 minute(s) earlier, while the server was not running" });
  });

  test("a state's hours defer a step although the account's quiet hours are off (issue 34 item 2)", async () => {
    const start = startClock();
    const { acc } = await account(false);
    // A 415 number whose contact lives in Florida (her own state field): Florida's 8 PM on her number's clock.
    const res = await call(acc, "POST", "/api/contacts", { firstName: "Fl", phone: "+14155550399", customFields: { state: "FL" } });
    expect(res.status).toBe(201);
    const d = await drip(acc, { steps: [{ delay: 8, unit: "hours", content: "Evening" }] });
    await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [res.body.id] });
    clock = start + 8 * HOUR; // 20:00 in Los Angeles
    await run();
    expect(sent(acc)).toEqual([]);
    const [e] = await enrolments(acc, d.id);
    expect(laHour(e.nextAt)).toBe("08:00");
    expect(e.history[0]).toMatchObject({ outcome: "deferred", reason: "Held: Florida law allows texts 8 AM–8 PM (Fla. Stat. § 501.616(6))" });
    clock = start + 20 * HOUR;
    await run();
    expect(sent(acc)).toEqual(["0399 Evening"]);
  });

  test("quiet hours defer a step to their end, never drop it", async () => {
    const start = startClock();
    const { acc, contact } = await account(true);
    const c = await contact("Q");
    const d = await drip(acc, { steps: [{ delay: 10, unit: "hours", content: "Night" }] });
    await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [c.id] });
    clock = start + 10 * HOUR; // 22:00 in Los Angeles
    await run();
    expect(sent(acc)).toEqual([]);
    let [e] = await enrolments(acc, d.id);
    expect(laHour(e.nextAt)).toBe("08:00");
    expect(e.history[0]).toMatchObject({ outcome: "deferred", reason: "Quiet hours: held until 8:00 AM (the recipient's time)" });
    clock = start + 20 * HOUR; // 08:00
    await run();
    expect(sent(acc)).toEqual([`${c.phone.slice(-4)} Night`]);
    [e] = await enrolments(acc, d.id);
    expect(e.state).toBe("completed");
  });

  test("quiet hours turned off run the step they held at once, and the settings' answer counts it", async () => {
    const start = startClock();
    const { acc, contact } = await account(true);
    const c = await contact("Q");
    const d = await drip(acc, { steps: [{ delay: 10, unit: "hours", content: "Night" }] });
    await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [c.id] });
    clock = start + 10 * HOUR; // 22:00 in Los Angeles
    await run();
    expect(sent(acc)).toEqual([]);
    const off = await call(acc, "PATCH", "/api/user/settings", { quietHoursEnabled: false });
    expect(off.body).toMatchObject({ quietHoursEnabled: false, releasedHeld: 1 });
    await run();
    expect(sent(acc)).toEqual([`${c.phone.slice(-4)} Night`]);
    const [e] = await enrolments(acc, d.id);
    expect(e.state).toBe("completed");
    expect(e.history.map((h: { outcome: string }) => h.outcome)).toEqual(["deferred", "sent"]);
  });

  test("editing the steps with contacts waiting asks first; the answer moves their next step or leaves it", async () => {
    const start = startClock();
    const { acc, contact } = await account();
    const [a, b] = [await contact("A"), await contact("B")];
    const d = await drip(acc, { steps: STEPS.slice(0, 2) });
    await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [a.id] });
    await run();
    const longer = [STEPS[0], { delay: 30, unit: "minutes", content: "S2 later" }];
    const asked = await call(acc, "PUT", `/api/drip-campaigns/${d.id}`, { steps: longer });
    expect(asked.status).toBe(409);
    expect(asked.body).toMatchObject({ message: "1 contact(s) are waiting in this drip: say whether the change applies to them", waiting: 1 });
    expect((await call(acc, "PUT", `/api/drip-campaigns/${d.id}`, { name: "Renamed" })).status).toBe(200);
    expect((await call(acc, "PUT", `/api/drip-campaigns/${d.id}`, { steps: longer, applyToWaiting: true })).status).toBe(200);
    expect((await enrolments(acc, d.id))[0].nextAt).toBe(new Date(start + 30 * MINUTE).toISOString());
    await call(acc, "POST", `/api/drip-campaigns/${d.id}/enrol`, { contactIds: [b.id] });
    await run();
    expect((await call(acc, "PUT", `/api/drip-campaigns/${d.id}`, { steps: STEPS.slice(0, 2), applyToWaiting: false })).status).toBe(200);
    clock = start + 10 * MINUTE;
    await run();
    expect(sent(acc).filter((m) => m.includes("S2"))).toEqual([]);
    clock = start + 30 * MINUTE;
    await run();
    expect(sent(acc).filter((m) => m.includes("S2")).sort()).toEqual([`${a.phone.slice(-4)} S2 later`, `${b.phone.slice(-4)} S2 later`].sort());
  });
});
