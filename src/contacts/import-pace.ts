// The pace of a CSV import's transactions (csv-import.ts) and of the names it adds after its contacts (name-order.ts).
import { readFileSync } from "node:fs";
import { BATCH_ROWS } from "./csv-stream";

/**
 * The time a transaction of the import aims at (ownTime): a request waits for at most about one (the event loop is
 * free between them).
 */
export const SLICE_TARGET_MS = 20;
/** Rows per transaction: the first, and the bounds the pace keeps to (a prepared batch is BATCH_ROWS). */
export const SLICE_ROWS = { first: 500, min: 50, max: BATCH_ROWS };

/**
 * The rows of the next transaction: as many as SLICE_TARGET_MS allows at the pace of the last one that took all the
 * rows it was given, growing by half at most. A slice the end of a batch cut short (a few rows in a few ms: a commit
 * costs about as much for ten rows as for hundreds) tells nothing of the pace unless it was slower; it once doubled
 * the next slice, and a million rows held the event loop over 50 ms 97 times, up to 218 ms (scripts/bench/import.ts).
 */
export function nextSlice(pace: { msPerRow: number }, planned: number, stored: number, took: number): number {
  const msPerRow = took / Math.max(stored, 1);
  if (stored >= planned || msPerRow > pace.msPerRow) pace.msPerRow = msPerRow;
  const fits = SLICE_TARGET_MS / Math.max(pace.msPerRow, 1e-3);
  return Math.round(Math.max(SLICE_ROWS.min, Math.min(SLICE_ROWS.max, planned * 1.5, fits)));
}

/** Linux's account of this thread: its second figure is the time it spent runnable but waiting for a CPU (ns). */
const SCHEDSTAT = "/proc/thread-self/schedstat";
const waitedForCpu = (() => {
  try {
    readFileSync(SCHEDSTAT, "utf8");
    return () => Number(readFileSync(SCHEDSTAT, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return () => 0;
  }
})();

/**
 * A clock for timing a transaction (ms): wall time less the time this thread waited for a CPU, i.e. what the
 * transaction takes with a core to itself (its own work and its waits on the disk); wall time where Linux does not
 * say. Paced on wall time, an import on a machine whose cores other processes keep busy took its waits for a turn
 * as its own slowness and shrank its transactions towards SLICE_ROWS.min: the same rows in more commits, each
 * writing the pages it changed, so it fell further behind (scripts/bench/import.ts at a load average of 10 to 24).
 */
export const ownTime = () => performance.now() - waitedForCpu();

/**
 * Whether a CSV import runs a full collection now (csv-import.ts GC_ABOVE): the process holds over `above` bytes and
 * has grown by `grown` since the least it held after the last collection (`memory.floor`, kept here; the caller sets it
 * to what the process holds right after collecting). What a collection cannot free (the page cache, the threads'
 * heaps, the executable's own pages) stays in the floor, so a process whose floor is over `above` collects once per
 * `grown` of garbage instead of after every transaction.
 */
export function collectionDue(memory: { floor: number }, rss: number, above: number, grown: number): boolean {
  memory.floor = Math.min(memory.floor, rss);
  return rss > above && rss - memory.floor >= grown;
}
