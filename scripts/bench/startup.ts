// Startup benchmark for the built executable (run `npm run build` first):
//   bun scripts/bench/startup.ts [runs=10] [existing data folder]
// Prints the binary's size, the time from spawn to the first 200 from /api/health (median of N cold
// starts, each on a fresh data folder, plus warm starts on an existing one: the folder given, e.g. one made by
// search-data.ts with a million contacts and a million messages, else one the first start made), the idle resident
// memory, and the longest hold of the server's event loop from its start to the first page and idle after it
// (the server's own timer, GET /metrics: src/metrics/event-loop.ts), with the load average.
// Baseline measured in the same run: a bare Bun.serve answering 200, so the ratios say what smsdesk adds
// on this machine at this moment.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
// SMSDESK_BIN: another build to measure (a before and an after, side by side).
const binary = process.env.SMSDESK_BIN ?? join(root, "dist", "smsdesk");
const runs = Number(process.argv[2] ?? 10);
const existing = process.argv[3];
const METRICS_TOKEN = "startup-bench-metrics-token-0123456789";

/**
 * The server's longest event-loop hold since the previous reading, in ms, and the longest of its own work (the part
 * of a hold the loop's thread ran: on a loaded machine a timer is also late while the process waits for a core).
 */
async function longestHold(port: number): Promise<{ ms: number; busy: number }> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text());
  const read = (name: string) => Number(new RegExp(`${name} ([\\d.e-]+)`).exec(text)?.[1] ?? NaN) * 1000;
  return { ms: read("smsdesk_event_loop_longest_hold_seconds"), busy: read("smsdesk_event_loop_longest_busy_hold_seconds") };
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  await s.stop(true);
  return port;
}

async function timeToFirst200(cmd: string[], env: Record<string, string>, port: number) {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "ignore", stderr: "ignore" });
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.status === 200) break;
    } catch {}
    if (performance.now() - started > 15_000) throw new Error(`${cmd.join(" ")} did not answer within 15 s`);
    await Bun.sleep(2);
  }
  const ms = performance.now() - started;
  return { ms, proc };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const baselineFile = join(mkdtempSync(join(tmpdir(), "bench-baseline-")), "baseline.ts");
writeFileSync(
  baselineFile,
  `Bun.serve({ port: Number(process.env.PORT), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });`,
);

const baseline: number[] = [];
const cold: number[] = [];
const warm: number[] = [];
let baselineRss = 0;
let idleRss = 0;
const startHolds: number[] = [];
const startBusy: number[] = [];
let idleHold = { ms: 0, busy: 0 };
const loads: number[] = [loadavg()[0]!];
const warmDir = existing ?? mkdtempSync(join(tmpdir(), "bench-warm-"));

for (let i = 0; i < runs; i++) {
  {
    const port = await freePort();
    const { ms, proc } = await timeToFirst200([process.execPath, baselineFile], { PORT: String(port) }, port);
    baseline.push(ms);
    if (i === runs - 1) {
      await Bun.sleep(1000);
      baselineRss = rssMb(proc.pid);
    }
    proc.kill();
    await proc.exited;
  }
  {
    const dataDir = mkdtempSync(join(tmpdir(), "bench-cold-"));
    const port = await freePort();
    const { ms, proc } = await timeToFirst200([binary], { PORT: String(port), DATA_DIR: dataDir }, port);
    cold.push(ms);
    proc.kill();
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  {
    const port = await freePort();
    const { ms, proc } = await timeToFirst200([binary], { PORT: String(port), DATA_DIR: warmDir, METRICS_TOKEN }, port);
    warm.push(ms);
    // Idle after serving the app shell once, as after a first visit.
    await fetch(`http://127.0.0.1:${port}/`);
    const hold = await longestHold(port);
    startHolds.push(hold.ms);
    startBusy.push(hold.busy);
    if (i === runs - 1) {
      await Bun.sleep(2000);
      idleRss = rssMb(proc.pid);
      idleHold = await longestHold(port);
    }
    proc.kill();
    await proc.exited;
  }
}
if (!existing) rmSync(warmDir, { recursive: true, force: true });
loads.push(loadavg()[0]!);

const size = statSync(binary).size / 1024 / 1024;
const b = median(baseline);
console.log(`binary size            ${size.toFixed(1)} MB (the Bun runtime is most of it)`);
console.log(`baseline first 200     ${b.toFixed(0)} ms median of ${runs} (bare Bun.serve script)`);
console.log(`smsdesk first 200      ${median(cold).toFixed(0)} ms median, fresh data folder (${(median(cold) / b).toFixed(2)}x baseline)`);
console.log(`smsdesk first 200      ${median(warm).toFixed(0)} ms median, existing data folder${existing ? ` ${existing}` : ""} (${(median(warm) / b).toFixed(2)}x baseline)`);
console.log(`idle RSS               ${idleRss.toFixed(0)} MB (baseline ${baselineRss.toFixed(0)} MB, ${(idleRss / baselineRss).toFixed(2)}x)`);
console.log(`event loop             held at most ${median(startHolds).toFixed(0)} ms (median of ${runs} starts, from listening to the first page; longest ${Math.max(...startHolds).toFixed(0)} ms), ${idleHold.ms.toFixed(0)} ms idle for 2 s after it`);
console.log(`  its own work          at most ${median(startBusy).toFixed(0)} ms (median; longest ${Math.max(...startBusy).toFixed(0)} ms), ${idleHold.busy.toFixed(0)} ms idle (the rest of a hold: waiting for a core)`);
console.log(`load average           ${loads.map((l) => l.toFixed(1)).join(" -> ")} (1 min, before and after; ${navigator.hardwareConcurrency} cores)`);
