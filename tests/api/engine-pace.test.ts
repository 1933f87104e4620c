// The engine's pace and 429 back-off on a fake clock: seconds of sending in milliseconds.
import { expect, test } from "bun:test";
import { RECOVERY_STEP } from "../../src/sending/manager";
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
  const segmentsIn = (from: number) => provider.calls.filter((c) => c.at >= from && c.at < from + 1000).reduce((n, c) => n + (store.rows.find((r) => r.phone === c.to)!.segments), 0);
  expect(Math.max(...provider.calls.map((c) => segmentsIn(c.at)))).toBe(4);
  const span = provider.calls.at(-1)!.at - provider.calls[0]!.at;
  expect(span).toBeGreaterThanOrEqual(3000);
  expect(span).toBeLessThan(3500);
});

test("all the 429s of one window slow the number once, and clean windows win the rate back", async () => {
  const clock = new FakeClock();
  // The first 100 calls: every fifth answered 429 (20 of them, all within the first second).
  const provider = new FakeProvider(clock, (n) => (n <= 100 && n % 5 === 0 ? rateLimited(1000) : undefined));
  const { store, engine } = engineWith(provider, clock, 100);
  store.add("n1", 1000);
  engine.start();
  await clock.advance(1500);
  // One cut by the share refused (20%), not twenty halvings (the old engine went to its floor, 25%).
  expect(engine.shareOf("n1")).toBeCloseTo(0.8 + RECOVERY_STEP, 5);
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
  // The three went together; the first of them was refused with Retry-After 5 s: nothing more goes until then.
  expect(provider.calls.length).toBe(5);
  await clock.advance(3500);
  expect(provider.calls.length).toBe(5);
  await clock.advance(1000);
  expect(provider.calls.length).toBe(6);
  expect(provider.calls[5]!.at - provider.calls[2]!.at).toBeGreaterThanOrEqual(5000);
  await stop(engine, clock);
  expect(store.count("sent")).toBe(4);
});
