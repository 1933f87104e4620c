import { afterAll, beforeAll, expect, test } from "bun:test";
import { markInterrupted, RECONCILING, RESENDING, waitsForEarlier } from "../../src/messages/reconcile";
import { startTestServer, type TestServer } from "../support/test-server";

// At start the messages a crash left 'sending' are found through the outbox index (issue 29 item 6: a scan of every
// message cost a million-message installation 150 ms before it listened): those of a sender number and those whose
// number was deleted since (its key null), and no other.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

test("messages left sending are marked for reconciliation, with a sender number or without one", async () => {
  const a = await t.signUpVerified();
  const db = t.ctx.db.$client;
  const now = t.ctx.now();
  db.run(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, is_default, is_active, created_at) VALUES ('p1', ?, 'simulator', 'Sim', '', 1, 1, ?)`, [a.user.id, now]);
  db.run(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, display_name, messages_per_second, is_default, is_active, created_at) VALUES ('n1', ?, 'p1', '+14155550100', 'Line', 1, 1, 1, ?)`, [a.user.id, now]);
  const insert = db.prepare(
    `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, phone_number_id, from_number, attempts, created_at, updated_at) VALUES (?, ?, ?, 'x', 'outbound', ?, 'single', ?, '+14155550100', 1, ?, ?)`,
  );
  insert.run("m-number", a.user.id, "+13125550001", "sending", "n1", now, now - 1000);
  insert.run("m-deleted-number", a.user.id, "+13125550002", "sending", null, now, now - 1000);
  insert.run("m-queued", a.user.id, "+13125550003", "queued", "n1", now, now);
  insert.run("m-sent", a.user.id, "+13125550004", "sent", null, now, now);
  expect(await markInterrupted(t.ctx, now)).toBe(2);
  const rows = db.query("SELECT id, status, error_code AS code FROM messages WHERE user_id = ? ORDER BY id").all(a.user.id);
  expect(rows).toEqual([
    { id: "m-deleted-number", status: "unknown", code: RECONCILING },
    { id: "m-number", status: "unknown", code: RECONCILING },
    { id: "m-queued", status: "queued", code: null },
    { id: "m-sent", status: "sent", code: null },
  ]);
});

// The people an earlier start left waiting (a message still reconciling, or being sent again) are read at each start
// through the partial index of those two codes (migration 0075), not by looking up every unknown or queued message
// (10,000 unknown of a million: 70-80 ms in the start's turn); a later message to one of them waits for it.
test("messages still reconciling or resending from an earlier start make later ones to the same people wait", async () => {
  const a = await t.signUpVerified();
  const db = t.ctx.db.$client;
  const now = t.ctx.now();
  db.run(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, is_default, is_active, created_at) VALUES ('p2', ?, 'simulator', 'Sim', '', 1, 1, ?)`, [a.user.id, now]);
  db.run(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, display_name, messages_per_second, is_default, is_active, created_at) VALUES ('n2', ?, 'p2', '+14155550200', 'Line', 1, 1, 1, ?)`, [a.user.id, now]);
  const insert = db.prepare(
    `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, phone_number_id, from_number, attempts, error_code, seq, created_at, updated_at)
     VALUES (?, ?, ?, 'x', 'outbound', ?, 'single', 'n2', '+14155550200', 1, ?, ?, ?, ?)`,
  );
  const people = ["+13125551001", "+13125551002", "+13125551003", "+13125551004"];
  insert.run("e-reconciling", a.user.id, people[0]!, "unknown", RECONCILING, 1, now, now);
  insert.run("e-resending", a.user.id, people[1]!, "queued", RESENDING, 1, now, now);
  insert.run("e-unknown", a.user.id, people[2]!, "unknown", "provider_timeout", 1, now, now);
  insert.run("e-failed", a.user.id, people[3]!, "failed", RECONCILING, 1, now, now);
  people.forEach((phone, i) => insert.run(`later-${i}`, a.user.id, phone, "queued", null, 2, now, now));
  await markInterrupted(t.ctx, now);
  expect(await Promise.all(people.map((phone, i) => waitsForEarlier(t.ctx, { id: `later-${i}`, userId: a.user.id, phone })))).toEqual([true, true, false, false]);
  const plan = db
    .query(
      `EXPLAIN QUERY PLAN SELECT DISTINCT user_id AS userId, phone FROM messages WHERE error_code IN ('${RECONCILING}', '${RESENDING}')
         AND status IN ('unknown', 'queued') AND phone_number_id IN (SELECT id FROM phone_numbers)`,
    )
    .all() as { detail: string }[];
  expect(plan.map((p) => p.detail).join("\n")).toContain("USING INDEX messages_reconciling_idx");
});
