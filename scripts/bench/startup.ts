// Startup benchmark for the built executable (run `npm run build` first):
//   bun scripts/bench/startup.ts [runs=10]
// Prints the binary's size, the time from spawn to the first 200 from /api/health (median of N cold
// starts, each on a fresh data folder, plus warm starts on an existing one) and the idle resident memory.
// Baseline measured in the same run: a bare Bun.serve answering 200, so the ratios say what smsdesk adds
// on this machine at this moment.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const binary = join(root, "dist", "smsdesk");
const runs = Number(process.argv[2] ?? 10);

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
const warmDir = mkdtempSync(join(tmpdir(), "bench-warm-"));

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
    const { ms, proc } = await timeToFirst200([binary], { PORT: String(port), DATA_DIR: warmDir }, port);
    warm.push(ms);
    if (i === runs - 1) {
      // Idle after serving the app shell once, as after a first visit.
      await fetch(`http://127.0.0.1:${port}/`);
      await Bun.sleep(2000);
      idleRss = rssMb(proc.pid);
    }
    proc.kill();
    await proc.exited;
  }
}
rmSync(warmDir, { recursive: true, force: true });

const size = statSync(binary).size / 1024 / 1024;
const b = median(baseline);
console.log(`binary size            ${size.toFixed(1)} MB (the Bun runtime is most of it)`);
console.log(`baseline first 200     ${b.toFixed(0)} ms median of ${runs} (bare Bun.serve script)`);
console.log(`smsdesk first 200      ${median(cold).toFixed(0)} ms median, fresh data folder (${(median(cold) / b).toFixed(2)}x baseline)`);
console.log(`smsdesk first 200      ${median(warm).toFixed(0)} ms median, existing data folder (${(median(warm) / b).toFixed(2)}x baseline)`);
console.log(`idle RSS               ${idleRss.toFixed(0)} MB (baseline ${baselineRss.toFixed(0)} MB, ${(idleRss / baselineRss).toFixed(2)}x)`);
