// The event loop's longest hold, for every bench (issue 29 item 5): a 5 ms timer that measures its own lateness.
// A timer that fires late by `d` ms saw the loop held (by a long synchronous stretch, or a collection) that long;
// on a loaded machine part of it is the wait for a CPU, so each hold is also split by Linux's schedstat into the
// main thread's own time on a CPU and its wait for one: the own part is what the code held, whatever the load.
// A bench compares both with the idle server's in the same run and prints the load average beside them.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";

const TICK_MS = 5;

/** This thread's time on a CPU and waiting for one, in ms. */
function schedstat(): { cpu: number; queued: number } {
  try {
    const [cpu, queued] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ").map(Number);
    return { cpu: cpu! / 1e6, queued: queued! / 1e6 };
  } catch {
    return { cpu: 0, queued: 0 };
  }
}

export type Hold = { ms: number; cpuMs: number };

export type HoldMeter = {
  /** The longest hold (ms) since the start or the last `reset`, and the longest own CPU time between two ticks. */
  longest(): number;
  longestCpu(): number;
  /** Holds over 50 ms since then. */
  over50(): number;
  reset(): void;
  stop(): void;
};

export function holdMeter(): HoldMeter {
  let last = { at: performance.now(), ...schedstat() };
  let longest = 0;
  let longestCpu = 0;
  let over = 0;
  const timer = setInterval(() => {
    const now = { at: performance.now(), ...schedstat() };
    const held = now.at - last.at - TICK_MS;
    if (held > longest) longest = held;
    longestCpu = Math.max(longestCpu, now.cpu - last.cpu);
    if (held > 50) over++;
    last = now;
  }, TICK_MS);
  return {
    longest: () => Math.max(0, longest),
    longestCpu: () => longestCpu,
    over50: () => over,
    reset() {
      longest = 0;
      longestCpu = 0;
      over = 0;
      last = { at: performance.now(), ...schedstat() };
    },
    stop: () => clearInterval(timer),
  };
}

/** The longest hold (and its own CPU part) while `work` runs, with its result. */
export async function holdDuring<T>(meter: HoldMeter, work: () => Promise<T>): Promise<{ value: T; holdMs: number; cpuMs: number; over50: number }> {
  meter.reset();
  const value = await work();
  // One more turn, so a hold at the very end of `work` is seen by the timer.
  await Bun.sleep(TICK_MS * 2);
  return { value, holdMs: meter.longest(), cpuMs: meter.longestCpu(), over50: meter.over50() };
}

/** The load average, for the line a bench prints beside its holds. */
export const loadAverage = () => loadavg().map((n) => n.toFixed(2)).join(" ");
