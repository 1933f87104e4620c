// Issue 31 item 2: live updates cross processes. On PostgreSQL the event log's trigger (migration 0081) notifies
// smsdesk_events with the newest id each insert appended, delivered when it commits; each process listens
// (src/events/events.ts listenForEvents, started by src/server.ts) and tells its readers (the live hub), which read
// the log after their cursors as they do for their own events.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { migratePostgres } from "../../db/postgres/migrate";
import type { AppContext } from "../../src/context";
import { EVENTS_CHANNEL, listenForEvents, onEventsCommitted } from "../../src/events/events";
import { throwawayDatabase, type ThrowawayDatabase } from "../support/postgres";

let pg: ThrowawayDatabase;
/** Another process's connection: it appends the events. */
let other: SQL;
beforeAll(async () => {
  pg = await throwawayDatabase();
  await migratePostgres(pg.sql);
  other = new SQL(pg.url, { max: 1 });
});
afterAll(async () => {
  await other?.close();
  await pg?.drop();
});

const append = (sql: SQL, n = 1) =>
  sql.unsafe(
    `INSERT INTO events (user_id, type, subject_kind, subject_id, payload, created_at)
     SELECT NULL, 'message.received', 'message', 'm' || g, '{}', 0 FROM generate_series(1, ${n}) AS g RETURNING id`,
  ) as Promise<{ id: string }[]>;

/** The payloads heard on the channel until `count` arrived, or 2 s passed. */
async function heard(listener: SQL, act: () => Promise<unknown>, count = 1): Promise<{ payloads: string[]; ms: number }> {
  const payloads: string[] = [];
  let done: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (done = resolve));
  const subscription = await listener.listen(EVENTS_CHANNEL, (payload) => {
    payloads.push(payload);
    if (payloads.length >= count) done();
  });
  try {
    const started = performance.now();
    await act();
    await Promise.race([arrived, Bun.sleep(2000)]);
    return { payloads, ms: performance.now() - started };
  } finally {
    await subscription.unlisten();
  }
}

test("a listener on one connection hears an event appended through another, with its id, within 2 s", async () => {
  let ids: { id: string }[] = [];
  const { payloads, ms } = await heard(pg.sql, async () => (ids = await append(other)));
  expect(payloads).toEqual([String(ids[0]!.id)]);
  expect(ms).toBeLessThan(2000);
});

test("an insert of many events is one notification, with the newest id; a rolled-back one is none", async () => {
  let many: { id: string }[] = [];
  let one: { id: string }[] = [];
  // A single insert after the 50: the second notification heard is its, so the 50 made one.
  const heardMany = await heard(pg.sql, async () => {
    many = await append(other, 50);
    one = await append(other);
  }, 2);
  expect(heardMany.payloads).toEqual([String(Math.max(...many.map((r) => Number(r.id)))), String(one[0]!.id)]);
  const heardAfterRollback = await heard(pg.sql, async () => {
    await other
      .begin(async (tx) => {
        await append(tx as unknown as SQL);
        throw new Error("the change failed");
      })
      .catch(() => {});
    // A committed one after it: the first heard.
    one = await append(other);
  });
  expect(heardAfterRollback.payloads).toEqual([String(one[0]!.id)]);
});

test("listenForEvents tells the app's readers of another process's events, as of its own", async () => {
  const ctx = {} as AppContext;
  let told = 0;
  let done: () => void = () => {};
  onEventsCommitted(ctx, () => {
    told++;
    done();
  });
  const listener = new SQL(pg.url, { max: 1 });
  // Told once when listening starts (notifications missed before it are read from the log by the cursors).
  const subscription = await listenForEvents(ctx, listener);
  try {
    expect(told).toBe(1);
    const arrived = new Promise<void>((resolve) => (done = resolve));
    const started = performance.now();
    await append(other);
    await Promise.race([arrived, Bun.sleep(2000)]);
    expect(told).toBe(2);
    expect(performance.now() - started).toBeLessThan(2000);
  } finally {
    await subscription.unlisten();
    await listener.close();
  }
});
