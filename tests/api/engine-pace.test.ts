// The engine's pace and 429 back-off on a fake clock: seconds of sending in milliseconds.
import { expect, test } from "bun:test";
import { RECOVERY_STEP } from "../../src/sending/manager";
import { CATCH_UP_MS, GUARD_MS } from "../../src/sending/pace";
import { engineWith, FakeClock, FakeProvider, rateLimited, stop } from "../support/fake-engine";

test("a number's rate holds in every one-second window, counted in segments", async () => {
  const clock = new FakeClock();
  const provider = new FakeProvider(clock);
  const { store, engine } = engineWith(provider, clock, 4);
  store.add("n1", 8);
  store.add("n1", 4, { segments: 2 });
  engine.start();
  await clock.advance(10_000);
  await stop(engine, clock);
  expect(store.count("sent")).toBe(12);
  // 16 segments at 4 per second: 4 one-segment calls in a window, or 2 two-segment ones, never more.
  const segmentsOf = (to: string) => store.rows.find((r) => r.phone === to)!.segments;
  const segmentsIn = (from: number) => provider.calls.filter((c) => c.at >= from && c.at < from + 1000).reduce((n, c) => n + segmentsOf(c.to), 0);
  expect(Math.max(...provider.calls.map((c) => segmentsIn(c.at)))).toBe(4);
  // Spread evenly, not a second's worth at once: one segment every (1000 + GUARD_MS) / 4 ms, a two-segment call
  // taking two slots and waiting for both to be free (within the millisecond the engine's timers round to).
  const slots = (i: number) => Math.max(segmentsOf(provider.calls[i]!.to), segmentsOf(provider.calls[i + 1]!.to));
  const gaps = provider.calls.slice(1).map((c, i) => c.at - provider.calls[i]!.at - slots(i) * ((1000 + GUARD_MS) / 4));
  expect(gaps.every((g) => Math.abs(g) <= 1)).toBe(true);
});

test("all the 429s of one window slow the number once, and clean windows win the rate back", async () => {
  const clock = new FakeClock();
  // The first 80 calls: every fifth answered 429 (16 of them, all within the first second).
  const provider = new FakeProvider(clock, (n) => (n <= 80 && n % 5 === 0 ? rateLimited(1000) : undefined));
  const { store, engine } = engineWith(provider, clock, 100);
  store.add("n1", 1000);
  engine.start();
  await clock.advance(1500);
  // One cut by the share refused (16 of the calls answered in the first second), not sixteen halvings (the old
  // engine went to its floor, 25%).
  const firstSecond = provider.calls.filter((c) => c.at < provider.calls[0]!.at + 1000).length;
  expect(firstSecond).toBeGreaterThan(80);
  expect(engine.shareOf("n1")).toBeCloseTo(1 - 16 / firstSecond + RECOVERY_STEP, 5);
  await clock.advance(5000);
  expect(engine.shareOf("n1")).toBe(1);
  await clock.advance(10_000);
  await stop(engine, clock);
  expect(store.count("sent")).toBe(1000);
  expect(provider.busiestSecond()).toBeLessThanOrEqual(100);
  // Every refused message went again, and a 429 does not use up one of its attempts.
  expect(store.rows.filter((r) => r.attempts !== 1)).toEqual([]);
});

test("with 5% of calls answered 429 a number limited to 400/s keeps at least 90% of its rate, never above it", async () => {
  const clock = new FakeClock();
  const provider = new FakeProvider(clock, () => (clock.random() < 0.05 ? rateLimited(1000) : undefined));
  const { store, engine } = engineWith(provider, clock, 400);
  store.add("n1", 12_000);
  engine.start();
  await clock.advance(20_000);
  await stop(engine, clock);
  const start = provider.calls[0]!.at;
  const perSecond = Array.from({ length: 20 }, (_, s) => provider.calls.filter((c) => c.at >= start + s * 1000 && c.at < start + (s + 1) * 1000).length);
  expect(Math.min(...perSecond)).toBeGreaterThanOrEqual(360);
  expect(provider.busiestSecond()).toBeLessThanOrEqual(400);
  const refused = provider.calls.length - store.count("sent");
  expect(refused / provider.calls.length).toBeGreaterThan(0.04);
  // Accepted messages per second: the calls less the 5% refused.
  expect(store.count("sent") / 20).toBeGreaterThanOrEqual(0.9 * 0.95 * 400);
});

test("a 429's Retry-After is honoured for the refused message; a long one stops the number until then", async () => {
  const clock = new FakeClock();
  const provider = new FakeProvider(clock, (n) => (n === 1 ? rateLimited(1000) : n === 3 ? rateLimited(5000) : undefined));
  const { store, engine } = engineWith(provider, clock, 10);
  store.add("n1", 1);
  engine.start();
  await clock.advance(3000);
  expect(provider.calls.length).toBe(2);
  expect(provider.calls[1]!.at - provider.calls[0]!.at).toBeGreaterThanOrEqual(1000);
  expect(store.count("sent")).toBe(1);

  store.add("n1", 3);
  engine.wake("n1");
  await clock.advance(1000);
  // The first of the three was refused with Retry-After 5 s: nothing more goes until then.
  expect(provider.calls.length).toBe(3);
  await clock.advance(3500);
  expect(provider.calls.length).toBe(3);
  await clock.advance(1000);
  expect(provider.calls.length).toBe(6);
  expect(provider.calls[3]!.at - provider.calls[2]!.at).toBeGreaterThanOrEqual(5000);
  await stop(engine, clock);
  expect(store.count("sent")).toBe(4);
});

/** A provider like Twilio: 150 to 400 ms per call, 5% of calls answered 429 with Retry-After 1 s. */
function twilioLike(clock: FakeClock) {
  return new FakeProvider(clock, () => (clock.random() < 0.05 ? rateLimited(1000) : undefined), () => 150 + clock.random() * 250);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test("calls are spread over the second: 150-400 ms calls, 5% 429s, no sliding second above the rate and the median second at 90% of it", async () => {
  const clock = new FakeClock();
  const provider = twilioLike(clock);
  const { store, engine } = engineWith(provider, clock, 200);
  store.add("n1", 2000);
  engine.start();
  await clock.advance(14_000);
  await stop(engine, clock);
  expect(store.count("sent")).toBe(2000);
  expect(provider.busiestSecond()).toBeLessThanOrEqual(200);
  // Evenly: a tenth of a second sees a tenth of the rate (one call every 5.25 ms) and at most CATCH_UP_MS more,
  // never a second's worth at once.
  expect(provider.busiestSecond(100)).toBeLessThanOrEqual(20 + (CATCH_UP_MS / 1000) * 200);
  const busy = provider.perSecond().slice(0, -1);
  expect(median(busy)).toBeGreaterThanOrEqual(180);
});

test("a restart counts the calls of the second before it: no sliding second across it above the rate", async () => {
  const clock = new FakeClock();
  const provider = twilioLike(clock);
  const first = engineWith(provider, clock, 400);
  first.store.add("n1", 4000);
  first.engine.start();
  await clock.advance(2300);
  await stop(first.engine, clock);
  const before = provider.calls.length;
  // Started again at once on the same outbox, as after a SIGKILL and a quick restart.
  const second = engineWith(provider, clock, 400);
  second.store.rows = first.store.rows;
  Object.assign(second.store, { byId: new Map(first.store.rows.map((r) => [r.id, r])) });
  second.engine.start();
  await clock.advance(1000);
  const afterRestart = provider.calls.length - before;
  await clock.advance(10_000);
  await stop(second.engine, clock);
  expect(provider.busiestSecond()).toBeLessThanOrEqual(400);
  // The first second after it is the rate less what the second before it already sent, not a whole second's worth.
  expect(afterRestart).toBeLessThan(400);
  expect(second.store.count("sent")).toBe(4000);
});
