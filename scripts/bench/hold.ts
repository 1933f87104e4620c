// The event loop's longest hold, for every bench (issue 29 item 5): a 5 ms timer that measures its own lateness.
// A timer that fires late by `d` ms saw the loop held (by a long synchronous stretch, or a collection) that long;
// on a loaded machine part of it can be the wait for a CPU, so a bench compares it with the idle figure of the
// same run and prints the load average beside it.
import { loadavg } from "node:os";

const TICK_MS = 5;

export type HoldMeter = {
  /** The longest hold (ms) since the start or the last `reset`. */
  longest(): number;
  /** Holds over 50 ms since then. */
  over50(): number;
  reset(): void;
  stop(): void;
};

export function holdMeter(): HoldMeter {
  let last = performance.now();
  let longest = 0;
  let over = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const held = now - last - TICK_MS;
    if (held > longest) longest = held;
    if (held > 50) over++;
    last = now;
  }, TICK_MS);
  return {
    longest: () => Math.max(0, longest),
    over50: () => over,
    reset() {
      longest = 0;
      over = 0;
      last = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}

/** The longest hold while `work` runs, with its result. */
export async function holdDuring<T>(meter: HoldMeter, work: () => Promise<T>): Promise<{ value: T; holdMs: number; over50: number }> {
  meter.reset();
  const value = await work();
  // One more turn, so a hold at the very end of `work` is seen by the timer.
  await Bun.sleep(TICK_MS * 2);
  return { value, holdMs: meter.longest(), over50: meter.over50() };
}

/** The load average, for the line a bench prints beside its holds. */
export const loadAverage = () => loadavg().map((n) => n.toFixed(2)).join(" ");
