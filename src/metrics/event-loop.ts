import type { AppContext } from "../context";

/** How often the timer that measures the event loop's holds fires; a hold is known to within this. */
const TICK_MS = 10;
/** Holds longer than this are counted: a request that arrives meanwhile waits that long before it is read. */
export const HOLD_COUNTED_MS = 50;

/**
 * How long the event loop was held at a time (long work between two turns: a transaction, a parse, a collection):
 * a timer every TICK_MS notes how late it fires. GET /metrics reports the longest hold since the previous reading,
 * and how many holds passed HOLD_COUNTED_MS since the start.
 */
export type EventLoopHolds = { longestMs: number; over: number; stop: () => void };

const watched = new WeakMap<AppContext, EventLoopHolds>();

export function watchEventLoop(ctx: AppContext): EventLoopHolds {
  let last = performance.now();
  const holds: EventLoopHolds = {
    longestMs: 0,
    over: 0,
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    const now = performance.now();
    const held = now - last - TICK_MS;
    last = now;
    if (held > holds.longestMs) holds.longestMs = held;
    if (held > HOLD_COUNTED_MS) holds.over++;
  }, TICK_MS);
  // Measures, never keeps the process alive on its own.
  timer.unref();
  watched.set(ctx, holds);
  ctx.onStop.push(holds.stop);
  return holds;
}

/** The longest hold since the previous reading (0 when nothing watches this app), and the count since the start. */
export function readEventLoopHolds(ctx: AppContext): { longestMs: number; over: number } {
  const holds = watched.get(ctx);
  if (!holds) return { longestMs: 0, over: 0 };
  const read = { longestMs: Math.max(0, holds.longestMs), over: holds.over };
  holds.longestMs = 0;
  return read;
}
