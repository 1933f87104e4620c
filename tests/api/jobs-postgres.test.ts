// Issue 31 item 2: the event log's records and the jobs runner on PostgreSQL, on ctx.records as on SQLite. Two
// contexts on one database stand for two processes of an installation: their passes share the due jobs (each taken by
// one, FOR UPDATE SKIP LOCKED), a job whose process died is the other's once its lease is over, and a transactional
// job's claim, work and outcome commit together or not at all. A fake clock: no sleeps.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Db } from "../../db/client";
import { openPostgresRecords, type PostgresRecords } from "../../db/postgres/records-db";
import { SQL } from "bun";
import type { AppContext } from "../../src/context";
import {
  advanceCursor,
  appendEvent,
  appendEvents,
  countEvents,
  hasCursor,
  lastEventId,
  messageIdsSince,
  pruneEvents,
  readCursor,
  readEvents,
} from "../../src/events/events";
import { cancelJobs, enqueueJob, findJob, pendingRefs, registerJobHandler, rescheduleJob, runDueJobs } from "../../src/jobs/jobs";
import { migratedWithSender, type ThrowawayDatabase } from "../support/postgres";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;

let pg: ThrowawayDatabase;
let now: number;
const opened: PostgresRecords[] = [];

/** A process's context on the database: its own pool, the records on it, the shared fake clock. */
function processOn(): { ctx: AppContext; logs: string[] } {
  const records = openPostgresRecords(new SQL(pg.url, { max: 4 }));
  opened.push(records);
  const logs: string[] = [];
  const ctx = {
    db: { $postgres: records } as unknown as Db,
    records: records.db,
    withTransaction: records.withTransaction,
    now: () => now,
    log: (l: string) => logs.push(l),
    onStop: [],
  } as unknown as AppContext;
  return { ctx, logs };
}

beforeAll(async () => {
  pg = await migratedWithSender({ n1: "+14155550100" });
});
afterAll(async () => {
  for (const r of opened) await r.close();
  await pg?.drop();
});
beforeEach(async () => {
  now = T0;
  await pg.sql.unsafe(`DELETE FROM jobs`);
});
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
});

describe("the event log on PostgreSQL", () => {
  test("appended in order, read per account and type after a cursor, counted, pruned; a cursor only moves forward", async () => {
    const { ctx } = processOn();
    await pg.sql.unsafe(`INSERT INTO users (id, email, created_at, updated_at) VALUES ('u2', 'lee@example.com', 0, 0) ON CONFLICT DO NOTHING`);
    const first = await appendEvent(ctx, { userId: "u1", type: "contact.created", subject: { kind: "contact", id: "c1" }, payload: { source: "manual" } });
    // 70 in one call: two statements (64 rows at most each), the ids in the events' order.
    const many = await appendEvents(
      ctx,
      Array.from({ length: 70 }, (_, i) => ({ userId: i % 2 ? "u2" : "u1", type: "message.sent" as const, subject: { kind: "message" as const, id: `m${i}` } })),
    );
    expect(many).toEqual(Array.from({ length: 70 }, (_, i) => first + 1 + i));
    expect(await lastEventId(ctx)).toBe(first + 70);

    const u1 = await readEvents(ctx, { afterId: first, userId: "u1", types: ["message.sent"], limit: 1000 });
    expect(u1.map((e) => e.subject.id)).toEqual(Array.from({ length: 35 }, (_, i) => `m${2 * i}`));
    expect(u1[0]).toEqual({ id: first + 1, userId: "u1", type: "message.sent", subject: { kind: "message", id: "m0" }, payload: {}, createdAt: T0 });
    expect((await readEvents(ctx, { afterId: 0, userId: "u1", types: ["contact.created"], limit: 1000 })).map((e) => e.payload)).toEqual([{ source: "manual" }]);
    expect(await readEvents(ctx, { afterId: 0, types: [], limit: 10 })).toEqual([]);
    expect(await countEvents(ctx, { userId: "u2", afterId: 0, upTo: first + 70, atMost: 10 })).toBe(10);
    expect(await countEvents(ctx, { userId: "u2", afterId: 0, upTo: first + 70, atMost: 100 })).toBe(35);

    expect([await hasCursor(ctx, "rules"), await readCursor(ctx, "rules")]).toEqual([false, 0]);
    await advanceCursor(ctx, "rules", first + 5);
    await advanceCursor(ctx, "rules", first + 2);
    expect([await hasCursor(ctx, "rules"), await readCursor(ctx, "rules")]).toEqual([true, first + 5]);

    now = T0 + MINUTE;
    const later = await appendEvent(ctx, { userId: "u1", type: "message.delivered", subject: { kind: "campaign", id: "k1" }, payload: { messageIds: ["x1", "x2"] } });
    expect((await messageIdsSince(ctx, T0 + MINUTE, ["message.delivered", "message.sent"])).sort()).toEqual(["x1", "x2"]);
    expect((await messageIdsSince(ctx, T0, ["message.sent"])).length).toBe(70);
    expect(await pruneEvents(ctx, T0 + MINUTE)).toBe(71);
    expect((await readEvents(ctx, { afterId: 0, limit: 1000 })).map((e) => e.id)).toEqual([later]);
  });
});

describe("the jobs runner on PostgreSQL", () => {
  test("jobs are queued once per key, rescheduled, cancelled and found as on SQLite", async () => {
    const { ctx } = processOn();
    expect(await enqueueJob(ctx, { kind: "drip", key: "drip:e1:1", refId: "e1", runAt: T0 + MINUTE, payload: { step: 1 } })).toBe(true);
    expect(await enqueueJob(ctx, { kind: "drip", key: "drip:e1:1", refId: "e1", runAt: T0, payload: { step: "again" } })).toBe(false);
    expect(await findJob(ctx, "drip:e1:1")).toMatchObject({ kind: "drip", refId: "e1", payload: { step: 1 }, runAt: T0 + MINUTE, state: "pending", attempts: 0 });
    await rescheduleJob(ctx, { kind: "drip", key: "drip:e1:1", refId: "e1", runAt: T0 + 2 * MINUTE });
    expect(await findJob(ctx, "drip:e1:1")).toMatchObject({ runAt: T0 + 2 * MINUTE, nextAttemptAt: T0 + 2 * MINUTE, payload: {} });
    expect([...(await pendingRefs(ctx, "drip", ["e1", "e2"]))]).toEqual(["e1"]);
    expect(await cancelJobs(ctx, { refId: "e1" })).toBe(1);
    expect((await findJob(ctx, "drip:e1:1"))!.state).toBe("cancelled");
    expect(await findJob(ctx, "nothing")).toBeNull();
  });

  test("two processes' passes at once: every due job runs once, some on each", async () => {
    const ran: Record<string, string[]> = { a: [], b: [] };
    const processes = (["a", "b"] as const).map((name) => {
      const { ctx } = processOn();
      // Transactional: the claim, the handler's await and the outcome in one savepoint of the pass.
      registerJobHandler(ctx, "step", async (_ctx, job) => void ran[name]!.push(job.key), { transactional: true });
      return ctx;
    });
    for (let i = 0; i < 60; i++) await enqueueJob(processes[0]!, { kind: "step", key: `s${i}`, runAt: T0 - i });
    // Small passes, each process running its own until nothing is due, both at once.
    await Promise.all(
      processes.map(async (ctx) => {
        while ((await runDueJobs(ctx, { limit: 5 })).claimed > 0);
      }),
    );
    const all = [...ran.a!, ...ran.b!];
    expect(all.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `s${i}`).sort());
    expect(ran.a!.length).toBeGreaterThan(0);
    expect(ran.b!.length).toBeGreaterThan(0);
    const [done] = await pg.sql.unsafe(`SELECT count(*)::int AS n, sum(attempts)::int AS attempts FROM jobs WHERE state = 'done'`);
    expect(done).toEqual({ n: 60, attempts: 60 });
  });

  test("a leased job whose process died is the other process's once its lease is over, and recorded by it", async () => {
    const dead = processOn().ctx;
    const alive = processOn().ctx;
    registerJobHandler(dead, "webhook", () => new Promise<never>(() => {}), { leaseMs: MINUTE });
    registerJobHandler(alive, "webhook", (_ctx, job) => ({ result: { by: "alive", attempt: job.attempts } }), { leaseMs: MINUTE });
    await enqueueJob(dead, { kind: "webhook", key: "w1", runAt: T0 });
    expect((await runDueJobs(dead)).claimed).toBe(1);
    expect(await findJob(alive, "w1")).toMatchObject({ state: "running", attempts: 1, leaseUntil: T0 + MINUTE });
    now = T0 + MINUTE - 1;
    expect((await runDueJobs(alive)).claimed).toBe(0);
    now = T0 + MINUTE;
    const pass = await runDueJobs(alive);
    expect(pass.claimed).toBe(1);
    await pass.settled;
    expect(await findJob(alive, "w1")).toMatchObject({ state: "done", attempts: 2, leaseUntil: null, result: { by: "alive", attempt: 2 } });
  });

  test("a transactional job that fails rolls back its own writes, is counted and backs off; the pass's other job commits", async () => {
    const { ctx, logs } = processOn();
    registerJobHandler(
      ctx,
      "tag",
      async (c, job) => {
        await c.records.$run(`INSERT INTO event_cursors (consumer, last_id, updated_at) VALUES (?, 1, 0)`, [job.key]);
        if (job.key === "bad") throw new Error("the tag is gone");
      },
      { transactional: true, firstDelayMs: 30_000 },
    );
    await enqueueJob(ctx, { kind: "tag", key: "bad", runAt: T0 - 1 });
    await enqueueJob(ctx, { kind: "tag", key: "good", runAt: T0 });
    expect((await runDueJobs(ctx)).claimed).toBe(2);
    expect(await findJob(ctx, "bad")).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: T0 + 30_000, lastError: "the tag is gone" });
    expect(await findJob(ctx, "good")).toMatchObject({ state: "done", attempts: 1 });
    expect([await hasCursor(ctx, "bad"), await hasCursor(ctx, "good")]).toEqual([false, true]);
    expect(logs.some((l) => l.startsWith("jobs: tag bad failed: Error: the tag is gone"))).toBe(true);
  });
});
