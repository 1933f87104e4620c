// Background work never holds the event loop for long (issue 15, for issue 13's latency target): the jobs runner
// drains due jobs in passes of at most DUE_BATCH jobs (fewer when its time budget runs out) with a turn of the event
// loop between passes, and the drips' and the automation rules' event readers handle at most READ_CHUNK events per
// transaction (fewer when their time budget runs out first), yielding between chunks. Against an in-memory database with a fake clock; the turns are counted with
// setImmediate, which runs only when the loop is free.
import { beforeEach, describe, expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { sqliteRecords } from "../../db/records";
import { withTransaction } from "../../db/transaction";
import { processEvents as processRuleEvents, processEventsChunk, READ_CHUNK as RULES_CHUNK } from "../../src/automation/runner";
import type { AppContext } from "../../src/context";
import { processEvents, readExitsChunk, READ_CHUNK } from "../../src/drips/runner";
import { advanceCursor, appendEvents, readCursor } from "../../src/events/events";
import { DUE_BATCH, enqueueJob, registerJobHandler, runDueJobs, startJobRunner } from "../../src/jobs/jobs";
import { turnsDuring } from "../support/turns";

const T0 = Date.parse("2026-03-01T12:00:00Z");
let ctx: AppContext;

beforeEach(() => {
  const db = openDatabase(":memory:");
  ctx = { db, records: sqliteRecords(db), withTransaction: (fn: () => Promise<unknown>) => withTransaction(db, fn), now: () => T0, log: () => {}, onStop: [] } as unknown as AppContext;
  ctx.db.$client.run(`INSERT INTO users (id, email) VALUES ('u1', 'u1@example.com'), ('u2', 'u2@example.com')`);
  ctx.db.$client.run(
    `INSERT INTO automation_rules (id, user_id, name, trigger, trigger_config, conditions, actions, is_active, created_at) VALUES ('r2', 'u2', 'Tagged', 'tag_added', '{}', '{}', '[]', 1, ?)`,
    [T0],
  );
});

/**
 * `n` contact.tagged events of contacts in no drip and none of their account's rules: each is read (another
 * account's rule waits for the type) and handled, and nothing follows.
 */
function backlog(n: number) {
  return ctx.withTransaction(() =>
    appendEvents(ctx, Array.from({ length: n }, (_, i) => ({ userId: "u1", type: "contact.tagged" as const, subject: { kind: "contact" as const, id: `c${i}` }, payload: { tags: ["x"] } }))),
  );
}

describe("the jobs runner", () => {
  test("a pass runs at most DUE_BATCH jobs; with its budget spent it stops after the first and says there is more", async () => {
    const ran: string[] = [];
    registerJobHandler(ctx, "step", (_c, job) => void ran.push(job.key), { transactional: true });
    for (let i = 0; i < DUE_BATCH + 50; i++) await enqueueJob(ctx, { kind: "step", key: `s${String(i).padStart(3, "0")}`, runAt: T0 - 1000 + i });
    expect(await runDueJobs(ctx, { budgetMs: 0 })).toMatchObject({ claimed: 1, more: true });
    expect(ran).toEqual(["s000"]);
    expect(await runDueJobs(ctx)).toMatchObject({ claimed: DUE_BATCH, more: true });
    expect(await runDueJobs(ctx)).toMatchObject({ claimed: 49, more: false });
    expect(ran).toHaveLength(DUE_BATCH + 50);
    // The longest-waiting first.
    expect(ran).toEqual([...ran].sort());
  });

  test("started, it drains 1,000 due jobs without waiting for a tick, a pass at a time with the event loop's turns between", async () => {
    let turn = 0;
    let on = true;
    const tick = () => {
      if (!on) return;
      turn++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const seenAt: number[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    registerJobHandler(ctx, "step", () => {
      seenAt.push(turn);
      if (seenAt.length === 1000) done();
    }, { transactional: true });
    for (let i = 0; i < 1000; i++) await enqueueJob(ctx, { kind: "step", key: `s${i}`, runAt: T0 });
    startJobRunner(ctx);
    await all;
    on = false;
    for (const stop of ctx.onStop) await stop();
    const perTurn = new Map<number, number>();
    for (const t of seenAt) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    // No turn of the loop ran more than one pass; the 1,000 jobs took at least ten of them.
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(DUE_BATCH);
    expect(perTurn.size).toBeGreaterThanOrEqual(1000 / DUE_BATCH);
  });
});

describe("the jobs runner's alarm", () => {
  test("idle, it sleeps up to a second; a job queued due now wakes it at once (timers fire in order: before a 500 ms one)", async () => {
    const ran: string[] = [];
    registerJobHandler(ctx, "step", (_c, job) => void ran.push(job.key), { transactional: true });
    startJobRunner(ctx);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await enqueueJob(ctx, { kind: "step", key: "now", runAt: T0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ran).toEqual(["now"]);
    for (const stop of ctx.onStop) await stop();
  });
});

describe("the event readers", () => {
  test("the drips' exit reader handles at most READ_CHUNK events per transaction and yields between chunks", async () => {
    await advanceCursor(ctx, "drips.exits", 0);
    await backlog(2 * READ_CHUNK + 50);
    // At most READ_CHUNK, fewer when its time budget runs out first.
    expect(await readExitsChunk(ctx)).toBe(true);
    expect(await readCursor(ctx, "drips.exits")).toBeGreaterThan(0);
    expect(await readCursor(ctx, "drips.exits")).toBeLessThanOrEqual(READ_CHUNK);
    const turns = await turnsDuring(() => processEvents(ctx));
    expect(await readCursor(ctx, "drips.exits")).toBe(2 * READ_CHUNK + 50);
    expect(turns).toBeGreaterThanOrEqual(1);
    expect(await readExitsChunk(ctx)).toBe(false);
  });

  test("the automation rules' reader handles at most READ_CHUNK events per transaction and yields between chunks", async () => {
    await advanceCursor(ctx, "automation.rules", 0);
    await backlog(2 * RULES_CHUNK + 50);
    expect(await processEventsChunk(ctx)).toEqual({ runs: 0, more: true });
    expect(await readCursor(ctx, "automation.rules")).toBeGreaterThan(0);
    expect(await readCursor(ctx, "automation.rules")).toBeLessThanOrEqual(RULES_CHUNK);
    const turns = await turnsDuring(() => processRuleEvents(ctx));
    expect(await readCursor(ctx, "automation.rules")).toBe(2 * RULES_CHUNK + 50);
    expect(turns).toBeGreaterThanOrEqual(1);
  });

  test("the automation rules' reader reads no event of a type no active rule waits for: a chunk moves its cursor to the head", async () => {
    ctx.db.$client.run(`UPDATE automation_rules SET is_active = 0`);
    await advanceCursor(ctx, "automation.rules", 0);
    await backlog(2 * RULES_CHUNK + 50);
    expect(await processEventsChunk(ctx)).toEqual({ runs: 0, more: false });
    expect(await readCursor(ctx, "automation.rules")).toBe(2 * RULES_CHUNK + 50);
  });
});
