/**
 * The server's own event-loop figure for the benches (issue 29 item 5): GET /metrics (src/metrics/event-loop.ts, a
 * 10 ms timer measuring its own lateness) read at the start and end of a phase. A bench's server is started with
 * METRICS_TOKEN: BENCH_METRICS_TOKEN so /metrics answers it.
 *   const phase = await holdPhase(server.url);  ...  console.log(holdLine("the start", await phase.end()));
 * Reported: the longest hold over the phase, the longest counting no more of it than the loop's thread ran meanwhile
 * (on a machine whose cores are taken the timer is late while the process waits for one, holding nothing) and how
 * many holds passed 50 ms. A bench whose server shares its process also holds the loop with its own client work.
 *
 * Which benches report it (issue 29 item 5): every one that runs the appliance, through this file (ab-start,
 * campaign-start, dashboards, drips, inbound, redirect, replay, results, send, webhooks), through /metrics itself
 * (import, startup, search) or, a server per run in its own process, readEventLoopHolds (shorten). The others
 * measure one piece of work with no server and no other work on their loop, each timed piece run in one go by
 * design, so a hold there is that piece's own time, which they print: the statements of a write (counts, mms-mark,
 * fts-build, import-order, import-writer, shorten-writer), a migration (name-keys), the tag segments' queries
 * (tag-segments), a PostgreSQL client (pg-client, pg-records); pace runs the engine on a fake clock, whose turns
 * are not the real loop's. search-data, seed-results, import-data and sign-up make data for the others.
 */
import { loadavg } from "node:os";

export const BENCH_METRICS_TOKEN = "bench-metrics-token-29-0123456789";

export type Holds = { longestMs: number; busyMs: number | null; over: number };

/** The figures since the previous reading (the longest) and since the start (the count over 50 ms). */
export async function serverHolds(url: string): Promise<Holds> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} (start the server with METRICS_TOKEN: BENCH_METRICS_TOKEN)`);
  const text = await res.text();
  const value = (name: string) => {
    const line = text.split("\n").find((l) => l.startsWith(name + " "));
    return line === undefined ? null : Number(line.slice(name.length + 1));
  };
  const busy = value("smsdesk_event_loop_longest_busy_hold_seconds");
  return { longestMs: value("smsdesk_event_loop_longest_hold_seconds")! * 1000, busyMs: busy === null ? null : busy * 1000, over: value("smsdesk_event_loop_holds_total")! };
}

/** Starts a phase (the reading before it is dropped); end() answers the phase's own figures. */
export async function holdPhase(url: string) {
  // Read twice: a hold that ended just before the first reading may be noted by the server's timer only after it
  // (the request served first), and belongs to what came before.
  await serverHolds(url);
  await Bun.sleep(30);
  const before = await serverHolds(url);
  const load = loadavg()[0]!;
  return {
    end: async () => {
      const after = await serverHolds(url);
      return { ...after, over: after.over - before.over, load: Math.max(load, loadavg()[0]!) };
    },
  };
}

const ms = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

export function holdLine(label: string, h: Holds & { load: number }) {
  const busy = h.busyMs === null ? "" : `, ${ms(h.busyMs)} ms of it the loop's own work`;
  const verdict = (h.busyMs ?? h.longestMs) <= 50 ? "<= 50 ms" : "OVER 50 ms";
  return `the server's event loop, ${label}: longest hold ${ms(h.longestMs)} ms${busy} (${verdict}); ${h.over} holds over 50 ms; load average up to ${h.load.toFixed(1)}`;
}
