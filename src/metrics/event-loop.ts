import { readFileSync } from "node:fs";
import type { AppContext } from "../context";

/** How often the timer that measures the event loop's holds fires; a hold is known to within this. */
const TICK_MS = 10;
/** Holds longer than this are counted: a request that arrives meanwhile waits that long before it is read. */
export const HOLD_COUNTED_MS = 50;

/**
 * This thread's time on a CPU in ms (Linux's schedstat), or null where it cannot be read. On a machine whose cores
 * are all taken, a timer fires late while its process waits for one, holding nothing: the CPU time the loop's thread
 * spent meanwhile bounds what of the lateness was its own work.
 */
function threadCpuMs(): number | null {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  } catch {
    return null;
  }
}

/**
 * How long the event loop was held at a time (long work between two turns: a transaction, a parse, a collection):
 * a timer every TICK_MS notes how late it fires. GET /metrics reports the longest hold since the previous reading,
 * the longest counting no more of each than the loop's thread ran meanwhile (its own work, apart from waiting for a
 * core), and how many holds passed HOLD_COUNTED_MS since the start.
 */
export type EventLoopHolds = { longestMs: number; longestBusyMs: number | null; over: number; stop: () => void };

const watched = new WeakMap<AppContext, EventLoopHolds>();

/**
 * Starts the timer. A server starts it as it begins listening (src/listen.ts), before the rest of the program is
 * loaded, so the holds of that loading are counted too; watchEventLoop then reports them for its app.
 */
export function eventLoopTimer(): EventLoopHolds {
  let last = performance.now();
  let lastCpu = threadCpuMs();
  const holds: EventLoopHolds = {
    longestMs: 0,
    longestBusyMs: lastCpu === null ? null : 0,
    over: 0,
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    const now = performance.now();
    const held = now - last - TICK_MS;
    last = now;
    if (held > holds.longestMs) holds.longestMs = held;
    if (held > HOLD_COUNTED_MS) holds.over++;
    if (lastCpu !== null) {
      const cpu = threadCpuMs()!;
      const busy = Math.min(held, cpu - lastCpu);
      lastCpu = cpu;
      if (busy > holds.longestBusyMs!) holds.longestBusyMs = busy;
    }
  }, TICK_MS);
  // Measures, never keeps the process alive on its own.
  timer.unref();
  return holds;
}

/** The app's holds, read by GET /metrics: those of `holds` (a timer started earlier), else of a timer started now. */
export function watchEventLoop(ctx: AppContext, holds: EventLoopHolds = eventLoopTimer()): EventLoopHolds {
  watched.set(ctx, holds);
  ctx.onStop.push(holds.stop);
  return holds;
}

/**
 * The longest hold since the previous reading (0 when nothing watches this app), the longest of the loop's own work
 * (null where the thread's CPU time cannot be read), and the count since the start.
 */
export function readEventLoopHolds(ctx: AppContext): { longestMs: number; longestBusyMs: number | null; over: number } {
  const holds = watched.get(ctx);
  if (!holds) return { longestMs: 0, longestBusyMs: null, over: 0 };
  const read = { longestMs: Math.max(0, holds.longestMs), longestBusyMs: holds.longestBusyMs === null ? null : Math.max(0, holds.longestBusyMs), over: holds.over };
  holds.longestMs = 0;
  if (holds.longestBusyMs !== null) holds.longestBusyMs = 0;
  return read;
}
