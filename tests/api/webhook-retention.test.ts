/**
 * The webhook delivery log is kept as long as the event log (the administrator's event retention, 30 days by
 * default): a daily job deletes older finished deliveries, a batch a run; pending ones stay.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runDueJobs } from "../../src/jobs/jobs";
import { DELIVERY_PRUNE_BATCH } from "../../src/outbound-webhooks/retention";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

const DAY = 86_400_000;
let t: TestServer;
let a: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
});
afterAll(() => t?.stop());

test(`deliveries older than the event retention are deleted, ${DELIVERY_PRUNE_BATCH.toLocaleString("en-US")} a run, pending ones kept; then a day later`, async () => {
  const db = t.ctx.records;
  const job = async () => (await db.$rows<{ state: string; run_at: number }>(`SELECT state, run_at FROM jobs WHERE key = 'webhooks.prune'`))[0]!;
  const due = (await job()).run_at;
  const endpoint = (id: string) =>
    db.$run(`INSERT INTO webhook_endpoints (id, user_id, name, url, events, secret, created_at) VALUES (?, ?, ?, 'https://hooks.example.com/in', '[]', 'whsec_x', ?)`, [
      id, a.user.id, id, due - 90 * DAY,
    ]);
  let n = 0;
  const delivery = (endpointId: string, status: string, ageDays: number) =>
    db.$run(`INSERT INTO webhook_deliveries (id, endpoint_id, user_id, source, event_type, payload, status, created_at) VALUES (?, ?, ?, ?, 'message_sent', '{}', ?, ?)`, [
      `d${++n}`, endpointId, a.user.id, `s${n}`, status, due - ageDays * DAY,
    ]);
  await endpoint("e1");
  await endpoint("e2");
  // Kept: pending however old, and finished within the 30 days.
  await delivery("e1", "pending", 40);
  await delivery("e1", "succeeded", 29);
  await delivery("e1", "failed", 1);
  // Deleted: finished over 30 days ago.
  await delivery("e1", "succeeded", 31);
  await delivery("e1", "failed", 45);
  await t.ctx.withTransaction(async () => {
    for (let i = 0; i < 2 * DELIVERY_PRUNE_BATCH + 2_000; i++) await delivery("e2", i % 3 ? "succeeded" : "failed", 31 + (i % 60));
  });
  const left = async (endpointId: string) => (await db.$rows<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?`, [endpointId]))[0]!.n;

  const realNow = t.ctx.now;
  try {
    t.ctx.now = () => due;
    const runs: [number, number, { state: string; run_at: number }][] = [];
    for (let i = 0; i < 3; i++) {
      await (await runDueJobs(t.ctx)).settled;
      runs.push([await left("e1"), await left("e2"), await job()]);
    }
    // e1 first (endpoints in id order): its two old finished deliveries and 4,998 of e2's in the first run.
    expect(runs).toEqual([
      [3, 2 * DELIVERY_PRUNE_BATCH + 2_000 - (DELIVERY_PRUNE_BATCH - 2), { state: "pending", run_at: due }],
      [3, 2_002, { state: "pending", run_at: due }],
      [3, 0, { state: "pending", run_at: due + DAY }],
    ]);
  } finally {
    t.ctx.now = realNow;
  }
  const listed = await t.api("/api/webhooks/e1/deliveries", { token: a.token });
  expect(listed.status).toBe(200);
  expect(listed.body.deliveries.map((d: { status: string }) => d.status).sort()).toEqual(["failed", "pending", "succeeded"]);
});
