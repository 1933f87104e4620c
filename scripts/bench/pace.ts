// The pace a provider sees (issue 29 item 4), on the engine's fake clock: bun scripts/bench/pace.ts
// The sending engine with a provider like Twilio (150-400 ms a call, 5% answered 429 with Retry-After 1 s):
// a 200/s number sending 4,000 messages, and a 400/s number stopped after 2.3 s and started again at once on the
// same outbox (a SIGKILL and a quick restart). Printed: calls in each second, the median busy second, the busiest
// one-second window wherever it starts, the busiest 100 ms, and the first second after the restart. The fake clock
// makes the figures the engine's alone, whatever the machine's load; tests/api/send-pace.test.ts measures the same
// against the real appliance and a Twilio fake over HTTP.
import { engineWith, FakeClock, FakeProvider, rateLimited, stop } from "../../tests/support/fake-engine";
import { busiestWindow, medianBusySecond, perSecond } from "../../tests/support/pace-figures";

const twilioLike = (clock: FakeClock) =>
  new FakeProvider(clock, () => (clock.random() < 0.05 ? rateLimited(1000) : undefined), () => 150 + clock.random() * 250);

{
  const clock = new FakeClock();
  const provider = twilioLike(clock);
  const { store, engine } = engineWith(provider, clock, 200);
  store.add("n1", 4000);
  engine.start();
  await clock.advance(30_000);
  await stop(engine, clock);
  const times = provider.calls.map((c) => c.at);
  const accepted = store.count("sent");
  console.log(`200/s, 4,000 messages: ${accepted} accepted in ${provider.calls.length} calls`);
  console.log(`  calls per second      ${perSecond(times).join(" ")}`);
  console.log(`  median busy second    ${medianBusySecond(times)} calls (${((medianBusySecond(times) / 200) * 100).toFixed(0)}% of the rate)`);
  console.log(`  busiest sliding second ${busiestWindow(times).calls}; busiest 100 ms ${busiestWindow(times, 100).calls}`);
}

{
  const clock = new FakeClock();
  const provider = twilioLike(clock);
  const first = engineWith(provider, clock, 400);
  first.store.add("n1", 6000);
  first.engine.start();
  await clock.advance(2300);
  await stop(first.engine, clock);
  const before = provider.calls.length;
  const restartAt = clock.now();
  const second = engineWith(provider, clock, 400);
  second.store.rows = first.store.rows;
  Object.assign(second.store, { byId: new Map(first.store.rows.map((r) => [r.id, r])) });
  second.engine.start();
  await clock.advance(20_000);
  await stop(second.engine, clock);
  const times = provider.calls.map((c) => c.at);
  const after = times.slice(before);
  const lastSecondBefore = times.slice(0, before).filter((t) => t > restartAt - 1000).length;
  console.log(`400/s, stopped after 2.3 s and started again at once: ${second.store.count("sent")} of 6,000 accepted`);
  console.log(`  calls in the second before the restart ${lastSecondBefore}, in the first second after it ${after.filter((t) => t < restartAt + 1000).length}`);
  const across = Math.max(...times.filter((t) => t > restartAt - 1000 && t <= restartAt + 1).map((t) => times.filter((u) => u >= t && u < t + 1000).length), 0);
  console.log(`  busiest sliding second ${busiestWindow(times).calls}, across the restart ${across}; busiest 100 ms ${busiestWindow(times, 100).calls}`);
  console.log(`  median busy second    ${medianBusySecond(times)} calls (${((medianBusySecond(times) / 400) * 100).toFixed(0)}% of the rate)`);
}
