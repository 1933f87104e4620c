// The jobs table on a fake clock, against an in-memory database: no server, no sleeps.
import { beforeEach, describe, expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { sqliteRecords } from "../../db/records";
import type { AppContext } from "../../src/context";
import { atPassEnd, cancelJobs, enqueueJob, findJob, registerJobHandler, rescheduleJob, runDueJobs, unwrittenAtPassEnd, type Job } from "../../src/jobs/jobs";
import { insertUser } from "../../src/users/queries";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
let now: number;
let ctx: AppContext;
let logs: string[];

beforeEach(() => {
  now = T0;
  logs = [];
  const db = openDatabase(":memory:");
  ctx = { db, records: sqliteRecords(db), now: () => now, log: (l: string) => logs.push(l), onStop: [] } as unknown as AppContext;
});

const state = async (key: string) => {
  const j = (await findJob(ctx, key))!;
  return { state: j.state, attempts: j.attempts, nextAttemptAt: j.nextAttemptAt - T0, lastError: j.lastError };
};

describe("queueing", () => {
  test("a key is queued once: a second enqueue is ignored, before and after the job ran", async () => {
    const ran: unknown[] = [];
    registerJobHandler(ctx, "drip", (_ctx, job) => void ran.push(job.payload));
    expect(await enqueueJob(ctx, { kind: "drip", key: "drip:e1:1", runAt: T0, payload: { step: 1 } })).toBe(true);
    expect(await enqueueJob(ctx, { kind: "drip", key: "drip:e1:1", runAt: T0, payload: { step: "again" } })).toBe(false);
    expect((await runDueJobs(ctx)).claimed).toBe(1);
    await Promise.resolve();
    expect(await enqueueJob(ctx, { kind: "drip", key: "drip:e1:1", runAt: T0 })).toBe(false);
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    expect(ran).toEqual([{ step: 1 }]);
    expect(ctx.db.$client.query(`SELECT count(*) AS n FROM jobs`).get()).toEqual({ n: 1 });
  });

  test("nothing runs before its time; at its time it runs once and is done with its result", async () => {
    registerJobHandler(ctx, "report", () => ({ result: { sent: 3 } }));
    await enqueueJob(ctx, { kind: "report", key: "r", runAt: T0 + 10 * MINUTE });
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    now = T0 + 10 * MINUTE - 1;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    now = T0 + 10 * MINUTE;
    const { claimed, settled } = await runDueJobs(ctx);
    expect(claimed).toBe(1);
    await settled;
    expect((await findJob(ctx, "r"))).toMatchObject({ state: "done", attempts: 1, result: { sent: 3 }, leaseUntil: null });
    expect((await runDueJobs(ctx)).claimed).toBe(0);
  });

  test("a kind without a handler in this process is left alone", async () => {
    await enqueueJob(ctx, { kind: "backup", key: "b", runAt: T0 });
    registerJobHandler(ctx, "other", () => {});
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    expect((await state("b")).state).toBe("pending");
  });

  test("rescheduling moves a key's job and makes it pending again; cancelling drops only pending jobs", async () => {
    registerJobHandler(ctx, "start", () => {});
    await enqueueJob(ctx, { kind: "start", key: "s", runAt: T0 + MINUTE, refId: "c1" });
    await rescheduleJob(ctx, { kind: "start", key: "s", runAt: T0 + 5 * MINUTE, refId: "c1" });
    now = T0 + 2 * MINUTE;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    now = T0 + 5 * MINUTE;
    await (await runDueJobs(ctx)).settled;
    expect((await state("s")).state).toBe("done");
    await rescheduleJob(ctx, { kind: "start", key: "s", runAt: T0 + 9 * MINUTE, refId: "c1" });
    expect((await findJob(ctx, "s"))).toMatchObject({ state: "pending", attempts: 0, runAt: T0 + 9 * MINUTE, result: null });
    expect(await cancelJobs(ctx, { refId: "c1" })).toBe(1);
    expect(await cancelJobs(ctx, { refId: "c1" })).toBe(0);
    now = T0 + 10 * MINUTE;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    expect((await state("s")).state).toBe("cancelled");
  });
});

describe("leases", () => {
  test("a worker that never finishes (crashed) holds the job until its lease expires; then it is due again", async () => {
    const started: number[] = [];
    let finish: (() => void) | null = null;
    registerJobHandler(
      ctx,
      "webhook",
      (_ctx, job) => {
        started.push(job.attempts);
        // The first worker hangs, as a crashed one would; the second completes.
        return job.attempts === 1 ? new Promise<void>((resolve) => (finish = resolve)) : { result: "ok" };
      },
      { leaseMs: 5 * MINUTE },
    );
    await enqueueJob(ctx, { kind: "webhook", key: "w", runAt: T0 });
    const first = await runDueJobs(ctx);
    expect(first.claimed).toBe(1);
    expect((await findJob(ctx, "w"))).toMatchObject({ state: "running", attempts: 1, leaseUntil: T0 + 5 * MINUTE });
    now = T0 + 5 * MINUTE - 1;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    now = T0 + 5 * MINUTE;
    await (await runDueJobs(ctx)).settled;
    expect(started).toEqual([1, 2]);
    expect((await findJob(ctx, "w"))).toMatchObject({ state: "done", attempts: 2, result: "ok" });
    // The first worker wakes up late: its lease was taken over, so it records nothing.
    finish!();
    await first.settled;
    expect((await findJob(ctx, "w"))).toMatchObject({ state: "done", attempts: 2, result: "ok" });
  });
});

describe("failures", () => {
  test("each failure backs off exponentially (30 s, 60 s, 120 s...); the last attempt ends failed with the error", async () => {
    registerJobHandler(
      ctx,
      "webhook",
      () => Promise.reject(new Error("HTTP 503 from https://example.com/hook")),
      { firstDelayMs: 30_000, maxDelayMs: 100_000, maxAttempts: 4 },
    );
    await enqueueJob(ctx, { kind: "webhook", key: "w", runAt: T0 });
    await (await runDueJobs(ctx)).settled;
    expect((await state("w"))).toEqual({ state: "pending", attempts: 1, nextAttemptAt: 30_000, lastError: "HTTP 503 from https://example.com/hook" });
    now = T0 + 29_999;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    now = T0 + 30_000;
    await (await runDueJobs(ctx)).settled;
    expect((await state("w"))).toMatchObject({ state: "pending", attempts: 2, nextAttemptAt: 30_000 + 60_000 });
    now = T0 + 90_000;
    await (await runDueJobs(ctx)).settled;
    // 120 s is above the 100 s ceiling.
    expect((await state("w"))).toMatchObject({ state: "pending", attempts: 3, nextAttemptAt: 90_000 + 100_000 });
    now = T0 + 190_000;
    await (await runDueJobs(ctx)).settled;
    expect((await state("w"))).toMatchObject({ state: "failed", attempts: 4, lastError: "HTTP 503 from https://example.com/hook" });
    now = T0 + 3600_000;
    expect((await runDueJobs(ctx)).claimed).toBe(0);
  });

  test("a transactional handler's writes and its job commit together: a failure rolls both back, counted, and retried", async () => {
    const db = ctx.db.$client;
    db.exec(`CREATE TABLE work (job TEXT)`);
    let fail = true;
    registerJobHandler(
      ctx,
      "start",
      (_ctx, job: Job) => {
        db.query(`INSERT INTO work VALUES (?)`).run(job.key);
        if (fail) throw new Error("could not start");
      },
      { transactional: true, firstDelayMs: MINUTE },
    );
    await enqueueJob(ctx, { kind: "start", key: "s", runAt: T0 });
    expect((await runDueJobs(ctx)).claimed).toBe(1);
    expect(db.query(`SELECT count(*) AS n FROM work`).get()).toEqual({ n: 0 });
    expect((await state("s"))).toEqual({ state: "pending", attempts: 1, nextAttemptAt: MINUTE, lastError: "could not start" });
    expect(logs.some((l) => l.startsWith("jobs: start s failed: Error: could not start"))).toBe(true);
    fail = false;
    now = T0 + MINUTE;
    await runDueJobs(ctx);
    expect(db.query(`SELECT job FROM work`).all()).toEqual([{ job: "s" }]);
    expect((await state("s"))).toMatchObject({ state: "done", attempts: 2 });
  });

  test("transactional handlers may await records: each runs in its own savepoint of the pass, one after another, and one failing after an await rolls back its own writes only", async () => {
    const db = ctx.db.$client;
    db.exec(`CREATE TABLE work (job TEXT)`);
    const order: string[] = [];
    registerJobHandler(
      ctx,
      "step",
      async (_ctx, job: Job) => {
        order.push(`${job.key} begins`);
        db.query(`INSERT INTO work VALUES (?)`).run(`${job.key} before`);
        // A record awaited inside the pass: the job's own row, read in the pass's transaction (claimed, running).
        expect((await findJob(ctx, job.key))?.state).toBe("running");
        db.query(`INSERT INTO work VALUES (?)`).run(`${job.key} after`);
        order.push(`${job.key} ends`);
        if (job.key === "b") throw new Error("b failed after its await");
      },
      { transactional: true, firstDelayMs: MINUTE },
    );
    for (const key of ["a", "b", "c"]) await enqueueJob(ctx, { kind: "step", key, runAt: T0 });
    expect((await runDueJobs(ctx)).claimed).toBe(3);
    expect(order).toEqual(["a begins", "a ends", "b begins", "b ends", "c begins", "c ends"]);
    expect(db.query(`SELECT job FROM work ORDER BY rowid`).all()).toEqual([{ job: "a before" }, { job: "a after" }, { job: "c before" }, { job: "c after" }]);
    expect([(await state("a")).state, (await state("c")).state]).toEqual(["done", "done"]);
    expect(await state("b")).toEqual({ state: "pending", attempts: 1, nextAttemptAt: MINUTE, lastError: "b failed after its await" });
    expect(db.inTransaction).toBe(false);
  });

  test("a recurring job puts itself back on the schedule", async () => {
    let runs = 0;
    registerJobHandler(ctx, "prune", () => ({ result: { run: ++runs }, runAgainAt: now + 86_400_000 }));
    await enqueueJob(ctx, { kind: "prune", key: "prune", runAt: T0 });
    await (await runDueJobs(ctx)).settled;
    expect((await findJob(ctx, "prune"))).toMatchObject({ state: "pending", attempts: 0, runAt: T0 + 86_400_000, result: { run: 1 } });
    now = T0 + 86_400_000;
    await (await runDueJobs(ctx)).settled;
    expect(runs).toBe(2);
  });
});

describe("rows left to the end of a pass", () => {
  /** Transactional jobs that each log their key and leave a row to the pass's end; `boom` fails after leaving it. */
  async function passJobs(keys: string[], boom = new Set<string>()) {
    const db = ctx.db.$client;
    db.exec(`CREATE TABLE done_work (job TEXT); CREATE TABLE rows (job TEXT PRIMARY KEY CHECK (job <> 'bad'))`);
    const flushes: string[][] = [];
    const unwritten: number[] = [];
    registerJobHandler(
      ctx,
      "step",
      async (_ctx, job: Job, pass) => {
        db.query(`INSERT INTO done_work VALUES (?)`).run(job.key);
        await atPassEnd(pass, "rows", job.key, (items) => {
          flushes.push(items);
          for (const item of items) db.query(`INSERT INTO rows VALUES (?)`).run(item);
        });
        unwritten.push(unwrittenAtPassEnd(pass, "rows").length);
        if (boom.has(job.key)) throw new Error(`step ${job.key} failed`);
      },
      { transactional: true, firstDelayMs: MINUTE },
    );
    for (const [i, key] of keys.entries()) await enqueueJob(ctx, { kind: "step", key, runAt: T0 + i });
    now = T0 + keys.length;
    const table = (name: string) => (db.query(`SELECT job FROM ${name} ORDER BY rowid`).all() as { job: string }[]).map((r) => r.job);
    return { flushes, unwritten, table };
  }

  test("the rows of a pass's jobs are written in one call before it commits; a job that fails after leaving one leaves none, the others keep theirs", async () => {
    const { flushes, unwritten, table } = await passJobs(["a", "b", "c"], new Set(["b"]));
    expect((await runDueJobs(ctx)).claimed).toBe(3);
    expect(flushes).toEqual([["a", "c"]]);
    // Each job sees the rows of the pass not written yet, its own included; b's were dropped with its savepoint.
    expect(unwritten).toEqual([1, 2, 2]);
    expect(table("rows")).toEqual(["a", "c"]);
    expect(table("done_work")).toEqual(["a", "c"]);
    expect([(await state("a")).state, (await state("c")).state]).toEqual(["done", "done"]);
    expect((await state("b"))).toEqual({ state: "pending", attempts: 1, nextAttemptAt: 3 + MINUTE, lastError: "step b failed" });
  });

  test("a pass whose rows cannot be written runs again job by job: the bad row fails its own job only, every other row and work written once", async () => {
    const { flushes, table } = await passJobs(["a", "bad", "c"]);
    expect((await runDueJobs(ctx)).claimed).toBe(3);
    expect(flushes).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"]]);
    expect(table("rows")).toEqual(["a", "c"]);
    expect(table("done_work")).toEqual(["a", "c"]);
    expect([(await state("a")).state, (await state("c")).state]).toEqual(["done", "done"]);
    expect((await state("bad"))).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: 3 + MINUTE });
    expect((await state("bad")).lastError).toContain("CHECK constraint failed");
    expect(logs.filter((l) => l.startsWith("jobs: a pass's batched rows failed, running it again job by job"))).toHaveLength(1);
    // The next pass of the good ones is batched again.
    now = T0 + 3 + MINUTE;
    expect((await runDueJobs(ctx)).claimed).toBe(1);
    expect(flushes.at(-1)).toEqual(["bad"]);
    expect((await state("bad"))).toMatchObject({ state: "pending", attempts: 2 });
  });

  test("outside a pass (a handler called directly) the row is written at once", async () => {
    const written: number[][] = [];
    await atPassEnd(new Map(), "rows", 7, (items) => void written.push(items));
    expect(written).toEqual([[7]]);
    expect(unwrittenAtPassEnd(new Map(), "rows")).toEqual([]);
  });
});

describe("a flood of one kind", () => {
  test("does not hold back the other kinds: their due jobs go in the next pass, not after the flood has drained", async () => {
    const ran: string[] = [];
    registerJobHandler(ctx, "step", (_ctx, job: Job) => void ran.push(job.key), { transactional: true });
    registerJobHandler(ctx, "start", (_ctx, job: Job) => void ran.push(job.key), { transactional: true });
    for (let i = 0; i < 250; i++) await enqueueJob(ctx, { kind: "step", key: `step:${i}`, runAt: T0 + i });
    await enqueueJob(ctx, { kind: "start", key: "start:late", runAt: T0 + 300 });
    now = T0 + 1000;
    expect((await runDueJobs(ctx, { limit: 100 })).more).toBe(true);
    // First the other kind's job, then the flood's oldest, in due order.
    expect(ran.slice(0, 3)).toEqual(["start:late", "step:0", "step:1"]);
    expect(ran).toHaveLength(100);
    expect((await state("start:late")).state).toBe("done");
    await runDueJobs(ctx, { limit: 100 });
    await runDueJobs(ctx, { limit: 100 });
    expect(ran).toHaveLength(251);
    expect(ran.slice(1)).toEqual(Array.from({ length: 250 }, (_, i) => `step:${i}`));
  });
});

describe("concurrency bounds", () => {
  test("at most perUser jobs of one account run at once; the rest stay pending, unclaimed, and go once one finishes; jobs without an account have no per-account bound", async () => {
    const finish: (() => void)[] = [];
    const started: string[] = [];
    registerJobHandler(
      ctx,
      "call",
      (_ctx, job) => {
        started.push(job.key);
        return new Promise<void>((resolve) => finish.push(resolve));
      },
      { concurrency: { total: 10, perRef: 10, perUser: 2 } },
    );
    const [u1, u2] = await Promise.all(
      ["u1", "u2"].map(async (name) => (await insertUser(ctx, { email: `${name}@example.com`, passwordHash: "x", firstName: name, lastName: "" })).id),
    );
    for (let i = 0; i < 3; i++) await enqueueJob(ctx, { kind: "call", key: `u1-${i}`, runAt: T0, userId: u1, refId: `r${i}` });
    for (let i = 0; i < 3; i++) await enqueueJob(ctx, { kind: "call", key: `system-${i}`, runAt: T0, refId: `s${i}` });
    await enqueueJob(ctx, { kind: "call", key: "u2-0", runAt: T0, userId: u2, refId: "r9" });
    const first = await runDueJobs(ctx);
    expect(first.claimed).toBe(6);
    expect([...started].sort()).toEqual(["system-0", "system-1", "system-2", "u1-0", "u1-1", "u2-0"]);
    expect((await state("u1-2"))).toEqual({ state: "pending", attempts: 0, nextAttemptAt: 0, lastError: null });
    expect((await runDueJobs(ctx)).claimed).toBe(0);
    finish[started.indexOf("u1-0")]!(); // u1-0 finishes: a slot of its account frees
    await new Promise<void>((resolve) => setImmediate(resolve));
    const second = await runDueJobs(ctx);
    expect(second.claimed).toBe(1);
    expect(started.at(-1)).toBe("u1-2");
    for (const f of finish) f();
    await Promise.all([first.settled, second.settled]);
    expect((await findJob(ctx, "u1-2"))!.state).toBe("done");
  });
});
