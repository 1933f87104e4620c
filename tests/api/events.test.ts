// The event log: what a campaign, an inbound STOP, a contact and an import write, in the transaction of the change.
import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { sendCampaign } from "../../src/campaigns/campaigns";
import { advanceCursor, appendEvent, appendEvents, lastEventId, readCursor, readEvents, type AppEvent } from "../../src/events/events";
import { runDueJobs } from "../../src/jobs/jobs";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { findUserById } from "../../src/users/queries";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(30_000);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());
afterEach(() => db().exec(`DROP TRIGGER IF EXISTS injected_failure`));

const db = () => t.ctx.db.$client;
const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body: body ?? {} });
const eventsOf = (userId: string) => readEvents(t.ctx, { afterId: 0, userId, limit: 1000 });
const count = (sql: string, ...args: string[]) => (db().query(sql).get(...args) as { n: number }).n;

/** The next statement matching `when` fails, as if the process had died right there. */
function failOn(event: string, table: string, when: string) {
  db().exec(`CREATE TEMP TRIGGER injected_failure BEFORE ${event} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
}

async function sender() {
  const acc = await t.signUpVerified();
  // Campaigns to US numbers would otherwise wait for 8 AM there when the suite runs at night.
  expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
  const provider = await post(acc, "/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  expect((await post(acc, "/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 0 })).status).toBe(201);
  return { acc, userId: acc.user.id as string, providerId: provider.body.id as string };
}

/** The message ids an event is about: its own, or the ids a campaign's batch event carries. */
const messageIds = (e: AppEvent): string[] => (e.subject.kind === "message" ? [e.subject.id] : ((e.payload.messageIds as string[]) ?? []));

describe("a campaign through the simulator", () => {
  test("started, queued, each message sent, completed once all went out, each delivered after it was sent", async () => {
    const { acc, userId } = await sender();
    const c = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "Sale tonight", recipients: ["+14155550101", "+14155550102"] });
    expect((await post(acc, `/api/campaigns/${c.body.id}/send`)).status).toBe(202);
    await waitFor(() => t.api(`/api/campaigns/${c.body.id}`, { token: acc.token }).then((r) => r.body), (v) => v.status === "completed" && v.counts.delivered === 2);
    const ids = (db().query(`SELECT id FROM messages WHERE campaign_id = ? ORDER BY id`).all(c.body.id) as { id: string }[]).map((r) => r.id);

    const events = (await eventsOf(userId)).filter((e) => e.type.startsWith("campaign.") || e.type.startsWith("message."));
    expect(events.every((e, i) => i === 0 || e.id > events[i - 1]!.id)).toBe(true);
    expect(events[0]).toMatchObject({ type: "campaign.started", subject: { kind: "campaign", id: c.body.id }, payload: { recipients: 2 } });
    expect(events[1]).toMatchObject({ type: "message.queued", subject: { kind: "campaign", id: c.body.id }, payload: { queued: 2 } });
    const completed = events.filter((e) => e.type === "campaign.completed");
    expect(completed).toMatchObject([{ subject: { kind: "campaign", id: c.body.id }, payload: { status: "completed" } }]);
    // Each message is sent once and delivered once, sent before delivered (batches may carry several). The campaign
    // completes when nothing is left to send; delivery reports may arrive after that.
    const position = (type: string, id: string) => events.filter((e) => e.type === type && messageIds(e).includes(id)).map((e) => e.id);
    for (const id of ids) {
      const [sent, delivered] = [position("message.sent", id), position("message.delivered", id)];
      expect([sent.length, delivered.length]).toEqual([1, 1]);
      expect(sent[0]!).toBeLessThan(delivered[0]!);
      expect(sent[0]!).toBeLessThan(completed[0]!.id);
    }
    expect(events.map((e) => e.type).filter((type) => !["message.sent", "message.delivered"].includes(type))).toEqual([
      "campaign.started",
      "message.queued",
      "campaign.completed",
    ]);
  });

  test("a start that fails after its events were appended leaves neither the events nor the rows", async () => {
    const { acc, userId } = await sender();
    const c = await post(acc, "/api/campaigns", { type: "sms", name: "Sale", content: "x", recipients: ["+14155550101", "+14155550102"] });
    const before = (await eventsOf(userId)).length;
    // The status is written last, after campaign.started and message.queued.
    failOn("UPDATE OF status", "campaigns", "NEW.status = 'sending'");
    await expect(sendCampaign(t.ctx, (await findUserById(t.ctx, userId))!, c.body.id)).rejects.toThrow("injected failure");
    expect((await eventsOf(userId)).length).toBe(before);
    expect(count(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`, c.body.id)).toBe(0);
  });
});

describe("an inbound STOP", () => {
  test("message.received, then the new contact created and opted out; a second STOP opts out nobody new", async () => {
    const { acc, userId, providerId } = await sender();
    expect((await post(acc, `/api/sms-providers/${providerId}/simulate-inbound`, { from: "+14155552000", body: "STOP" })).status).toBe(202);
    await waitFor(() => count(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND status = 'opted_out'`, userId), (n) => n === 1);
    const inbound = db().query(`SELECT id FROM messages WHERE user_id = ? AND direction = 'inbound'`).get(userId) as { id: string };
    const contact = db().query(`SELECT id FROM contacts WHERE user_id = ?`).get(userId) as { id: string };
    const types = ["message.received", "contact.created", "contact.opted_out", "contact.opted_in"] as const;
    const pick = async () => (await readEvents(t.ctx, { afterId: 0, userId, types, limit: 100 })).map((e) => [e.type, e.subject.id, e.payload.source ?? null]);
    expect(await pick()).toEqual([
      ["message.received", inbound.id, null],
      ["contact.created", contact.id, "keyword"],
      ["contact.opted_out", contact.id, "keyword"],
    ]);

    await post(acc, `/api/sms-providers/${providerId}/simulate-inbound`, { from: "+14155552000", body: "STOP" });
    await waitFor(() => count(`SELECT count(*) AS n FROM messages WHERE user_id = ? AND direction = 'inbound'`, userId), (n) => n === 2);
    expect((await pick()).map(([type]) => type)).toEqual(["message.received", "contact.created", "contact.opted_out", "message.received"]);

    await post(acc, `/api/sms-providers/${providerId}/simulate-inbound`, { from: "+14155552000", body: "START" });
    await waitFor(() => count(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND status = 'subscribed'`, userId), (n) => n === 1);
    expect((await pick()).slice(4)).toEqual([
      ["message.received", expect.any(String), null],
      ["contact.opted_in", contact.id, "keyword"],
    ]);
  });

  test("a STOP whose opt-out fails to record leaves no event: not the message's, not the contact's", async () => {
    const { acc, userId, providerId } = await sender();
    failOn("INSERT", "contact_consents", "NEW.kind = 'opt_out'");
    await post(acc, `/api/sms-providers/${providerId}/simulate-inbound`, { from: "+14155552001", body: "STOP" });
    await waitFor(() => t.logs.some((l) => l.includes("injected failure")), (seen) => seen);
    expect(await eventsOf(userId)).toEqual([]);
    expect(count(`SELECT count(*) AS n FROM messages WHERE user_id = ?`, userId)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`, userId)).toBe(0);
  });
});

describe("contacts", () => {
  test("a contact added by hand is created; an import writes one event per batch with its count", async () => {
    const { acc, userId } = await sender();
    const added = await post(acc, "/api/contacts", { firstName: "Ann", phone: "+14155553001" });
    expect(added.status).toBe(201);
    const imported = await post(acc, "/api/contacts/import", {
      contacts: [{ phone: "+14155553002" }, { phone: "+14155553003" }, { phone: "+14155553001" }, { phone: "bad" }],
    });
    expect(imported.body.results).toMatchObject({ created: 2, duplicates: 1, invalid: 1 });
    const events = (await eventsOf(userId)).filter((e) => e.type.startsWith("contact."));
    expect(events.map((e) => [e.type, e.subject.kind, e.payload])).toEqual([
      ["contact.created", "contact", { source: "manual" }],
      ["contact.created", "import", { source: "import", created: 2 }],
    ]);
    expect(events[0]!.subject.id).toBe(added.body.id);
  });

  test("opting out by hand is an event once; again changes nothing and writes none", async () => {
    const { acc, userId } = await sender();
    const added = await post(acc, "/api/contacts", { firstName: "Bo", phone: "+14155553010" });
    expect(added.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const out = await post(acc, `/api/contacts/${added.body.id}/opt-out`);
      expect([out.status, out.body.status]).toEqual([200, "opted_out"]);
    }
    expect((await eventsOf(userId)).map((e) => e.type)).toEqual(["contact.created", "contact.opted_out"]);
  });
});

describe("reading the log", () => {
  test("an event is invisible to every other connection until its transaction commits, then visible with its change", async () => {
    const { userId } = await sender();
    const other = new Database(join(t.dataDir, "smsdesk.db"), { readonly: true });
    try {
      const seen = () => [
        (other.query(`SELECT count(*) AS n FROM events WHERE user_id = ?`).get(userId) as { n: number }).n,
        (other.query(`SELECT count(*) AS n FROM contacts WHERE user_id = ?`).get(userId) as { n: number }).n,
      ];
      let during: number[] = [];
      await t.ctx.withTransaction(async () => {
        db().query(`INSERT INTO contacts (id, user_id, phone) VALUES ('ev-visibility', ?, '+14155553020')`).run(userId);
        await appendEvent(t.ctx, { userId, type: "contact.created", subject: { kind: "contact", id: "ev-visibility" } });
        during = seen();
      });
      expect(during).toEqual([0, 0]);
      expect(seen()).toEqual([1, 1]);
    } finally {
      other.close();
    }
  });

  test("readers page by id, per account and type; a cursor only moves forward; ids are never reused after pruning", async () => {
    const a = await sender();
    const b = await sender();
    const subject = { kind: "contact" as const, id: "c" };
    const start = await lastEventId(t.ctx);
    const ids = await appendEvents(t.ctx, [
      { userId: a.userId, type: "contact.created", subject },
      { userId: b.userId, type: "contact.created", subject },
      { userId: a.userId, type: "contact.opted_out", subject },
    ]);
    expect(ids).toEqual([start + 1, start + 2, start + 3]);
    expect((await readEvents(t.ctx, { afterId: start, limit: 2 })).map((e) => e.id)).toEqual([start + 1, start + 2]);
    expect((await readEvents(t.ctx, { afterId: start + 2, limit: 10 })).map((e) => e.id)).toEqual([start + 3]);
    expect((await readEvents(t.ctx, { afterId: start, userId: a.userId, limit: 10 })).map((e) => e.id)).toEqual([start + 1, start + 3]);
    expect((await readEvents(t.ctx, { afterId: start, types: ["contact.opted_out"], limit: 10 })).map((e) => e.id)).toEqual([start + 3]);

    await advanceCursor(t.ctx, "test-consumer", start + 2);
    await advanceCursor(t.ctx, "test-consumer", start + 1);
    expect(await readCursor(t.ctx, "test-consumer")).toBe(start + 2);
    expect(await readCursor(t.ctx, "never-ran")).toBe(0);

    db().exec(`DELETE FROM events WHERE id > ${start}`);
    expect(await appendEvent(t.ctx, { userId: a.userId, type: "contact.created", subject })).toBe(start + 4);
  });
});

describe("retention", () => {
  test("an administrator sets the days kept (30 by default); the daily job prunes what is older", async () => {
    const email = t.newEmail("events-admin");
    await createOrPromoteAdmin(t.ctx, email, "admin-secret-123");
    const login = await t.api("/api/admin/auth/login", { body: { email, password: "admin-secret-123" } });
    const admin = await t.confirm({ token: login.body.token as string, password: "admin-secret-123" });
    expect((await t.api("/api/admin/settings", { token: admin.token })).body).toEqual({ eventRetentionDays: 30 });
    const bad = await t.api("/api/admin/settings", { method: "PATCH", token: admin.token, body: { eventRetentionDays: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Event retention must be a whole number of days from 1 to 3650");
    const user = await t.signUpVerified();
    expect((await t.api("/api/admin/settings", { token: user.token })).status).toBe(403);
    const set = await t.api("/api/admin/settings", { method: "PATCH", token: admin.token, body: { eventRetentionDays: 7 } });
    expect(set.body).toEqual({ eventRetentionDays: 7 });

    const { userId } = await sender();
    const realNow = t.ctx.now;
    const DAY = 86_400_000;
    const base = realNow();
    try {
      t.ctx.now = () => base - 8 * DAY;
      const old = await appendEvent(t.ctx, { userId, type: "contact.created", subject: { kind: "contact", id: "old" } });
      t.ctx.now = () => base - 5 * DAY;
      const recent = await appendEvent(t.ctx, { userId, type: "contact.created", subject: { kind: "contact", id: "recent" } });
      // The pruning job ran at start-up and is due again a day later.
      const job = db().query(`SELECT state, run_at FROM jobs WHERE key = 'events.prune'`).get() as { state: string; run_at: number };
      expect(job.state).toBe("pending");
      t.ctx.now = () => job.run_at;
      await (await runDueJobs(t.ctx)).settled;
      const left = (await eventsOf(userId)).map((e) => e.id);
      expect(left).toContain(recent);
      expect(left).not.toContain(old);
      expect(db().query(`SELECT state, run_at FROM jobs WHERE key = 'events.prune'`).get()).toEqual({ state: "pending", run_at: job.run_at + DAY });
    } finally {
      t.ctx.now = realNow;
      await t.api("/api/admin/settings", { method: "PATCH", token: admin.token, body: { eventRetentionDays: 30 } });
    }
  });
});
