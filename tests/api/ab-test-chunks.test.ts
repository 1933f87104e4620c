/**
 * An A/B test larger than AB_AT_ONCE (issue 32 item 3; src/campaigns/ab-split.ts, outbox-writer.ts): its audience is
 * split and its test written in chunks after the send's answer, then its winner sent to the rest in chunks, so
 * neither holds the event loop for the whole audience (scripts/bench/ab-start.ts measures the holds). The split is
 * the one splitAudience makes at once, every recipient gets one text, and a crash in a chunk of either step loses
 * and repeats nothing once the writing resumes at start-up.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { AB_AT_ONCE, splitAudience } from "../../src/campaigns/ab-split";
import type { Recipient } from "../../src/campaigns/outbox";
import { pickWinnerByUser } from "../../src/campaigns/ab-test";
import { resumeOutboxWriting, writeInChunks, writeNextChunk } from "../../src/campaigns/outbox-writer";
import { findUserById } from "../../src/users/queries";
import { startTestServer, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  t.ctx.db.$client.run("UPDATE plans SET monthly_messages = -1, monthly_contacts = -1");
});
afterAll(() => t?.stop());

const db = () => t.ctx.db.$client;
const writing = (id: string) =>
  JSON.parse((db().query(`SELECT outbox_writing AS w FROM campaigns WHERE id = ?`).get(id) as { w: string | null }).w ?? "null") as { ab?: { step: string } } | null;
/** Waits for the writer's `nth` stop on the simulated crash. */
const stopped = (id: string, nth: number) =>
  waitFor(() => t.logs.filter((l) => l.includes(`writing the outbox of campaign ${id} stopped: simulated crash`)).length, (n) => n >= nth, 50_000);
const crashAt = (id: string, rows: number) =>
  db().run(`CREATE TEMP TRIGGER crash_ab BEFORE INSERT ON messages WHEN NEW.campaign_id = '${id}'
    AND (SELECT count(*) FROM messages WHERE campaign_id = '${id}') >= ${rows} BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`);
const rest = (id: string) => (db().query(`SELECT count(*) AS n FROM campaign_ab_rest WHERE campaign_id = ?`).get(id) as { n: number }).n;
const messages = (id: string) =>
  db().query(`SELECT phone, ab_variant AS variant, content FROM messages WHERE campaign_id = ? ORDER BY phone`).all(id) as { phone: string; variant: number | null; content: string }[];

test("split and written in chunks as splitAudience splits at once; a crash in the test's and in the winner's chunks resumes exactly once", async () => {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const post = (path: string, body: unknown = {}) => t.api(path, { method: "POST", token: acc.token, body });
  const provider = await post("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  expect((await post("/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 1 })).status).toBe(201);

  expect(AB_AT_ONCE).toBeLessThan(1_498);
  // 1,500 typed numbers; the first five are contacts with names, two more opted out; the first ten typed again
  // (written differently) at the end, and three invalid.
  const phones = Array.from({ length: 1_500 }, (_, i) => `+1415${String(3_000_000 + i)}`);
  const insert = db().prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, ?, 'manual', ?)`);
  phones.slice(0, 7).forEach((p, i) => insert.run(Bun.randomUUIDv7(), acc.user.id, `Ann${i}`, p, i < 5 ? "subscribed" : "opted_out", Date.now()));
  const typed = [...phones, ...phones.slice(0, 10).map((p) => `(${p.slice(2, 5)}) ${p.slice(5, 8)}-${p.slice(8)}`), "+1 (011) 555-0100", "+1 (011) 555-0102", "+1 (011) 555-0101"];
  const variants = ["Hi {firstName|there}, doors open at 9", "Hi {firstName|there}, doors open at 9, first 50 get a gift"];
  const c = await post("/api/campaigns", { name: "Big A/B", recipients: typed.join("\n"), appendOptOut: false, abTest: { variants, testPercent: 10, measure: "replies", decideAfterHours: null } });
  expect([c.status, c.body.message]).toEqual([201, undefined]);
  const id = c.body.id as string;

  // The test's first chunk fails: nothing of it stays, the split is kept, and the winner cannot be picked meanwhile.
  crashAt(id, 0);
  const sent = await post(`/api/campaigns/${id}/send`);
  expect(sent.status).toBe(202);
  expect(sent.body).toMatchObject({ queued: 0, campaign: { status: "sending", writingOutbox: true } });
  await stopped(id, 1);
  db().run("DROP TRIGGER temp.crash_ab");
  // The two opted out are left out at the split.
  const audience = phones.filter((_, i) => i < 5 || i >= 7);
  expect(audience.length).toBe(1_498);
  expect(writing(id)).toMatchObject({ ab: { step: "test", size: 150 }, cursor: 0 });
  expect([messages(id).length, rest(id)]).toEqual([0, 1_498]);
  const early = await post(`/api/campaigns/${id}/ab-test/winner`, { variant: "B" });
  expect([early.status, early.body.message]).toEqual([409, "The test's messages are still being written: pick the winner once they are"]);

  // Resumed at start-up: 10% of 1,498 (150) dealt to A and B in turn in the split's order, as splitAudience deals them.
  expect(await resumeOutboxWriting(t.ctx)).toBe(1);
  await waitFor(() => writing(id), (w) => w === null, 50_000);
  const recipients = audience.map((phone): Recipient => ({ phone, contactId: null, firstName: "", lastName: "", email: null, customFields: {} }));
  const split = splitAudience(id, recipients, { variants, testPercent: 10, measure: "replies", decideAfterHours: null });
  expect(split.groups.map((g) => g.length)).toEqual([75, 75]);
  const expected = split.groups.flatMap((g, v) => g.map((r) => ({ phone: r.phone, variant: v }))).sort((a, b) => (a.phone < b.phone ? -1 : 1));
  const test1 = messages(id);
  expect(test1.map(({ phone, variant }) => ({ phone, variant }))).toEqual(expected);
  for (const m of test1) {
    const i = phones.indexOf(m.phone);
    expect(m.content).toBe(variants[m.variant!]!.replace("{firstName|there}", i < 5 ? `Ann${i}` : "there"));
  }
  expect(rest(id)).toBe(1_348);
  const view = (await t.api(`/api/campaigns/${id}`, { token: acc.token })).body;
  // The two opted out are typed again in a later chunk, which counts them opted out again (as the chunked writing of
  // any campaign does: a chunk knows the phones of its own), not repeats: 4 and 8.
  expect(view).toMatchObject({ status: "sending", writingOutbox: false, counts: { recipients: 150 }, skipped: { optedOut: 4, invalid: 3, duplicate: 8 } });
  expect((await t.api(`/api/campaigns/${id}/ab-test`, { token: acc.token })).body.rest).toMatchObject({ held: 1_348, recipients: 0 });

  // The winner to the 1,348 others in chunks; a chunk fails past 800 rows: whole chunks only, each recipient either
  // written or still kept, and the resume writes the others once.
  // Picked while a writer of the campaign is still ending (its checkpoint): that writer goes on with the winner's.
  crashAt(id, 800);
  const ending = writeInChunks(t.ctx, id);
  const picked = await pickWinnerByUser(t.ctx, (await findUserById(t.ctx, acc.user.id))!, id, "B");
  expect(picked.campaign).toMatchObject({ writingOutbox: true, abTest: { winner: "B", decidedBy: "user" } });
  await ending;
  await stopped(id, 2);
  db().run("DROP TRIGGER temp.crash_ab");
  const atCrash = messages(id).length;
  expect(atCrash).toBeGreaterThan(150);
  expect(atCrash).toBeLessThanOrEqual(800);
  expect(atCrash + rest(id)).toBe(1_498);
  expect(writing(id)).toMatchObject({ ab: { step: "winner", winner: 1 } });
  expect(await resumeOutboxWriting(t.ctx)).toBe(1);
  await waitFor(() => writing(id), (w) => w === null, 50_000);

  const all = messages(id);
  expect(all.map((m) => m.phone)).toEqual([...audience].sort());
  expect(all.filter((m) => m.variant !== null)).toEqual(test1);
  const winners = all.filter((m) => m.variant === null);
  expect(winners.length).toBe(1_348);
  for (const m of winners) expect(m.content).toBe(variants[1]!.replace("{firstName|there}", phones.indexOf(m.phone) < 5 ? `Ann${phones.indexOf(m.phone)}` : "there"));
  expect(rest(id)).toBe(0);
  const done = (await t.api(`/api/campaigns/${id}`, { token: acc.token })).body;
  expect(done).toMatchObject({ status: "sending", writingOutbox: false, counts: { recipients: 1_498 }, skipped: { optedOut: 4, invalid: 3, duplicate: 8 } });
  const report = (await t.api(`/api/campaigns/${id}/ab-test`, { token: acc.token })).body;
  expect(report).toMatchObject({ winner: "B", rest: { held: 0, recipients: 1_348 } });
  expect(report.variants.map((v: { label: string; recipients: number }) => [v.label, v.recipients])).toEqual([
    ["A", 75],
    ["B", 75],
  ]);
});

test("the report reads a test's messages by variant through messages_ab_variant_idx (migration 0073), not every message of the campaign", () => {
  // Prepared and finalized: an EXPLAIN read through db.query stays in progress on the connection.
  const plan = (sql: string, ...args: (string | number)[]) => {
    const st = db().prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const rows = (st.all(...args) as { detail: string }[]).map((r) => r.detail);
    st.finalize();
    return rows;
  };
  // src/messages/ab-variants.ts's counts by variant and status, and its repliers.
  expect(plan(`SELECT ab_variant, status, count(*), sum(sent_at IS NULL) FROM messages WHERE campaign_id = ? AND ab_variant IS NOT NULL GROUP BY ab_variant, status`, "c")).toEqual([
    "SEARCH messages USING COVERING INDEX messages_ab_variant_idx (campaign_id=? AND ab_variant>?)",
  ]);
  const repliers = plan(
    `SELECT m.ab_variant AS variant, count(*) AS n FROM messages m
     WHERE m.campaign_id = ?1 AND m.ab_variant IS NOT NULL AND m.sent_at IS NOT NULL
       AND EXISTS (SELECT 1 FROM messages i WHERE i.user_id = m.user_id AND i.phone = m.phone AND i.direction = 'inbound'
         AND i.created_at > m.sent_at AND i.created_at <= min(m.sent_at + ?2, ?3) AND upper(trim(i.content)) NOT IN (SELECT value FROM json_each(?4)))
     GROUP BY m.ab_variant`,
    "c",
    0,
    0,
    "[]",
  );
  expect(repliers[0]).toBe("SEARCH m USING INDEX messages_ab_variant_idx (campaign_id=? AND ab_variant>?)");
}, 120_000);

test("the chunk that ends the split says a new step begins, so the writer sizes the test's first chunk afresh", async () => {
  const acc = await t.signUpVerified();
  await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } });
  const post = (path: string, body: unknown = {}) => t.api(path, { method: "POST", token: acc.token, body });
  const provider = await post("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  await post("/api/phone-numbers", { providerId: provider.body.id, phoneNumber: numbers.body.numbers[0].phoneNumber, messagesPerSecond: 1 });
  const typed = Array.from({ length: 500 }, (_, i) => `+1415${String(4_000_000 + i)}`);
  const c = await post("/api/campaigns", { name: "Steps", recipients: typed.join("\n"), appendOptOut: false, abTest: { variants: ["One", "Two"], testPercent: 10, measure: "replies" } });
  const id = c.body.id as string;
  // The writer stopped in its first chunk of the split; the chunks are then written here, a window of 5,000 each.
  db().run(`CREATE TEMP TRIGGER crash_split BEFORE INSERT ON campaign_ab_rest WHEN NEW.campaign_id = '${id}' BEGIN SELECT RAISE(ABORT, 'simulated crash'); END`);
  expect((await post(`/api/campaigns/${id}/send`)).status).toBe(202);
  await stopped(id, 1);
  db().run("DROP TRIGGER temp.crash_split");
  expect(writing(id)).toMatchObject({ ab: { step: "split" }, cursor: 0 });
  const list = { list: () => typed };
  expect(await writeNextChunk(t.ctx, id, 5_000, list)).toEqual({ done: false, queued: 0, newStep: true });
  expect(writing(id)).toMatchObject({ ab: { step: "test", size: 50 }, cursor: 0 });
  expect(await writeNextChunk(t.ctx, id, 5_000, list)).toEqual({ done: true, queued: 50 });
  expect(writing(id)).toBeNull();
});
