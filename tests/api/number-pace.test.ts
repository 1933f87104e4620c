// A number's pace is the installation's (issue 31 item 2): its schedule's next slot is a row every process reserves
// from (src/phone-numbers/pace.ts), so processes sending for one number send at its rate together, and a restart
// carries the schedule on. The record on the real schema, then three engines on one outbox and one schedule.
import { beforeEach, describe, expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { sqliteRecords } from "../../db/records";
import type { AppContext } from "../../src/context";
import { reservePace, reserveSchedules, settleSchedules, shiftPace } from "../../src/phone-numbers/pace";
import { SendingManager } from "../../src/sending/manager";
import type { ProviderRegistry } from "../../src/sending/ports";
import { CATCH_UP_MS } from "../../src/sending/pace";
import { engineWith, FakeClock, FakeProvider, MemoryOutbox, rateLimited, stop } from "../support/fake-engine";
import { busiestWindow, medianBusySecond } from "../support/pace-figures";

const T0 = 1_800_000_000_000;
/** 100 segments a second with the engine's guard: a slot every 10.5 ms. */
const INTERVAL = 10.5;

describe("the schedule's row", () => {
  let ctx: AppContext;
  beforeEach(() => {
    const db = openDatabase(":memory:");
    ctx = { db, records: sqliteRecords(db), now: () => T0, log: () => {}, onStop: [] } as unknown as AppContext;
    ctx.db.$client.run(`INSERT INTO users (id, email, created_at, updated_at) VALUES ('u1', 'pat@example.com', 0, 0)`);
    ctx.db.$client.run(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted, created_at) VALUES ('a1', 'u1', 'twilio', 'Twilio', '', 0)`);
    ctx.db.$client.run(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, created_at) VALUES ('n1', 'u1', 'a1', '+14155550100', 0)`);
  });
  const reserve = (now: number, want: number) => reservePace(ctx, { number: "n1" }, now, want, INTERVAL, CATCH_UP_MS);

  test("gives the slots come by now, at most those asked for, and never one twice", async () => {
    // A number's first batch: its first slot, now.
    expect(await reserve(T0, 50)).toEqual({ granted: 1, nextAt: T0 + 10.5 });
    // Asked again at once: the next slot has not come.
    expect(await reserve(T0, 50)).toEqual({ granted: 0, nextAt: T0 + 10.5 });
    // 40 ms on: the slots at 10.5, 21 and 31.5 ms.
    expect(await reserve(T0 + 40, 50)).toEqual({ granted: 3, nextAt: T0 + 42 });
    // 100 ms on: 6 slots have come (42 .. 94.5), 2 asked for; the schedule stays behind by the rest.
    expect(await reserve(T0 + 100, 2)).toEqual({ granted: 2, nextAt: T0 + 63 });
    expect(await reserve(T0 + 100, 50)).toEqual({ granted: 4, nextAt: T0 + 105 });
  });

  test("a schedule behind by more than the catch-up was idle: it starts again at now, with no burst", async () => {
    await reserve(T0, 1);
    expect(await reserve(T0 + 10_000, 50)).toEqual({ granted: 1, nextAt: T0 + 10_000 + 10.5 });
    // Behind by the catch-up or less, it gives what it owes at once.
    expect(await reserve(T0 + 10_000 + 10.5 + CATCH_UP_MS, 500)).toEqual({ granted: Math.floor(CATCH_UP_MS / INTERVAL) + 1, nextAt: T0 + 10_000 + 10.5 * (Math.floor(CATCH_UP_MS / INTERVAL) + 2) });
  });

  test("slots reserved but not used are given back; a longer text takes its other segments' slots", async () => {
    await reserve(T0, 1);
    // The slots at 10.5, 21, 31.5 and 42 ms; the batch used 2 of them (its other rows were held back).
    expect(await reserve(T0 + 50, 10)).toEqual({ granted: 4, nextAt: T0 + 52.5 });
    await shiftPace(ctx, { number: "n1" }, 2, 4, INTERVAL);
    // The 31.5 and 42 ms slots again; a two-segment text went on the second, and took the 52.5 ms one too.
    expect(await reserve(T0 + 50, 10)).toEqual({ granted: 2, nextAt: T0 + 52.5 });
    await shiftPace(ctx, { number: "n1" }, 3, 2, INTERVAL);
    expect(await reserve(T0 + 60, 10)).toEqual({ granted: 0, nextAt: T0 + 63 });
  });

  test("the row outlives the process: the first batch after a restart carries on the schedule", async () => {
    expect(await reserve(T0, 1)).toEqual({ granted: 1, nextAt: T0 + 10.5 });
    expect(await reserve(T0 + 200, 100)).toEqual({ granted: 19, nextAt: T0 + 210 });
    // Another process (or this one restarted) 5 ms later finds the slots taken until 210 ms.
    expect(await reservePace(ctx, { number: "n1" }, T0 + 205, 100, INTERVAL, CATCH_UP_MS)).toEqual({ granted: 0, nextAt: T0 + 210 });
  });

  test("an account's ceiling is a schedule of its own, beside its numbers'; a batch uses what both gave", async () => {
    ctx.db.$client.run(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number, created_at) VALUES ('n2', 'u1', 'a1', '+14155550101', 0)`);
    const schedules = (number: string) => [
      { of: { number }, interval: INTERVAL },
      { of: { account: "a1" }, interval: 2 * INTERVAL },
    ];
    expect((await reserveSchedules(ctx, schedules("n1"), T0, 10, CATCH_UP_MS)).granted).toBe(1);
    // 42 ms on: n1's schedule has 4 slots come, the account's 50/s one has 2.
    const batch = await reserveSchedules(ctx, schedules("n1"), T0 + 42, 10, CATCH_UP_MS);
    expect(batch.granted).toBe(2);
    // Both used: n1 gives back its other 2; its next slot and the account's are 21 ms apart.
    expect(await settleSchedules(ctx, batch, 2)).toBe(T0 + 63);
    // n2, on the same account: its own schedule is fresh, the account's has no slot until 63 ms.
    expect((await reserveSchedules(ctx, schedules("n2"), T0 + 50, 10, CATCH_UP_MS)).granted).toBe(0);
  });

  test("a number removed takes its schedule with it", async () => {
    await reserve(T0, 1);
    ctx.db.$client.run(`DELETE FROM phone_numbers WHERE id = 'n1'`);
    expect(ctx.db.$client.query(`SELECT count(*) AS n FROM number_pace`).get()).toEqual({ n: 0 });
  });
});

describe("three engines on one outbox (three processes of one installation)", () => {
  const twilioLike = (clock: FakeClock) =>
    new FakeProvider(clock, () => (clock.random() < 0.05 ? rateLimited(1000) : undefined), () => 150 + clock.random() * 250);

  test("sending for one 100/s number, they send 100/s together, in no one-second window above it", async () => {
    const clock = new FakeClock();
    const provider = twilioLike(clock);
    const store = new MemoryOutbox();
    store.add("n1", 3000);
    const engines = [1, 2, 3].map(() => engineWith(provider, clock, 100, {}, store).engine);
    for (const engine of engines) void engine.start();
    await clock.advance(40_000);
    for (const engine of engines) await stop(engine, clock);
    // Every message once: 3,000 accepted, the rest of the calls 429s answered and sent again.
    expect(store.count("sent")).toBe(3000);
    const accepted = new Set(provider.calls.map((c) => c.to));
    expect(accepted.size).toBe(3000);
    const times = provider.calls.map((c) => c.at);
    expect(busiestWindow(times).calls).toBeLessThanOrEqual(100);
    expect(medianBusySecond(times)).toBeGreaterThanOrEqual(90);
  });

  test("an account's ceiling across its numbers holds for the three together: two 100/s numbers under a 100/s account", async () => {
    const clock = new FakeClock();
    const provider = new FakeProvider(clock, undefined, () => 150 + clock.random() * 250);
    const store = new MemoryOutbox();
    store.add("n1", 1500);
    store.add("n2", 1500);
    const account = { id: "a1", active: true, messagesPerSecond: 100, ready: () => provider, load: async () => provider };
    const registry: ProviderRegistry = { number: async (id) => ({ fromNumber: id === "n1" ? "+14155550001" : "+14155550002", messagesPerSecond: 100, account }) };
    const engines = [1, 2, 3].map(() => new SendingManager(store, registry, clock));
    for (const engine of engines) void engine.start();
    await clock.advance(40_000);
    for (const engine of engines) await stop(engine, clock);
    expect(store.count("sent")).toBe(3000);
    const times = provider.calls.map((c) => c.at);
    expect(busiestWindow(times).calls).toBeLessThanOrEqual(100);
    expect(medianBusySecond(times)).toBeGreaterThanOrEqual(90);
  });

  test("each engine keeping only its own count sent three times the rate (why the schedule is shared)", async () => {
    const clock = new FakeClock();
    const provider = new FakeProvider(clock);
    const engines = [1, 2, 3].map(() => engineWith(provider, clock, 100));
    for (const { store, engine } of engines) {
      store.add("n1", 1000);
      void engine.start();
    }
    await clock.advance(3_000);
    for (const { engine } of engines) await stop(engine, clock);
    expect(busiestWindow(provider.calls.map((c) => c.at)).calls).toBeGreaterThan(250);
  });
});
