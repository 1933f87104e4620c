// The engine's retries and the failure-run pause on a fake clock.
import { expect, test } from "bun:test";
import { engineWith, FakeClock, FakeProvider, rejected, serverError, stop } from "../support/fake-engine";

test("transient failures retry with exponential back-off, then fail after the last attempt", async () => {
  const clock = new FakeClock();
  const provider = new FakeProvider(clock, () => serverError);
  const { store, engine } = engineWith(provider, clock, 0, { backoffBaseMs: 1000, backoffCapMs: 8000, maxAttempts: 5 });
  store.add("n1", 1);
  engine.start();
  await clock.advance(60_000);
  await stop(engine, clock);
  expect(provider.calls.length).toBe(5);
  expect(store.rows[0]).toMatchObject({ status: "failed", error: "500", attempts: 5 });
  // 1 s, 2 s, 4 s, 8 s, each with up to 25% jitter either way.
  const gaps = provider.calls.slice(1).map((c, i) => c.at - provider.calls[i]!.at);
  [1000, 2000, 4000, 8000].forEach((base, i) => {
    expect(gaps[i]!).toBeGreaterThanOrEqual(base * 0.75);
    expect(gaps[i]!).toBeLessThanOrEqual(base * 1.25 + 5);
  });
});

test("a retried message goes out once the provider recovers", async () => {
  const clock = new FakeClock();
  const provider = new FakeProvider(clock, (n) => (n <= 2 ? serverError : undefined));
  const { store, engine } = engineWith(provider, clock, 0, { backoffBaseMs: 1000 });
  store.add("n1", 1);
  engine.start();
  await clock.advance(10_000);
  await stop(engine, clock);
  expect(provider.calls.length).toBe(3);
  expect(store.rows[0]).toMatchObject({ status: "sent", attempts: 3 });
});

test("10 failed messages in a row pause their campaign once, with the last error; a message that goes resets the run", async () => {
  const clock = new FakeClock();
  // Calls 1-9 fail, call 10 goes, calls 11-20 fail: only the second run reaches 10.
  const provider = new FakeProvider(clock, (n) => (n === 10 ? undefined : rejected));
  const { store, engine } = engineWith(provider, clock, 1);
  store.add("n1", 25);
  engine.start();
  const untilCalls = async (n: number) => {
    while (provider.calls.length < n) await clock.advance(100);
  };
  await untilCalls(19);
  expect(store.paused).toEqual([]);
  await untilCalls(20);
  await stop(engine, clock);
  expect(store.paused).toEqual([
    { campaignId: "c1", reason: "Paused after 10 failed messages in a row. Last error: 21211 Not a valid phone number. Check SMS provider settings, then resume." },
  ]);
  expect(store.rows.slice(0, 20).map((r) => r.status)).toEqual([...Array(9).fill("failed"), "sent", ...Array(10).fill("failed")]);
});
