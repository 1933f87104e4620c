// Replay benchmark (issue 27 item 7): bun scripts/bench/replay.ts [sockets=40] [rounds=3] [baseline git ref]
// One account with a log of MAX_REPLAY events (inbound texts from 300 phones: each a new_message frame read back
// from its thread), then `sockets` WebSockets of the account resuming from event 0 at the same moment. Measured:
// the time from the first resume sent to the last socket's ready (or reset), which grows with the machine's load;
// the CPU time the server used meanwhile (its work, whatever else the machine runs); the server's resident memory
// at its peak over what it held before (sampled every 10 ms); its longest event-loop hold: how late a 10 ms timer
// fired, counting no more of it than the CPU time the server used meanwhile (on a shared machine a process waiting
// for a core is late without holding anything); and the replay pages read from the log and built into frames.
// Each configuration is a fresh server in a child process on a fresh data folder, run `rounds` times in turn
// (medians given):
//   before  - the hub as it was before pages were shared (src/live/hub.ts at the baseline ref, loaded in place of
//             today's): each socket reads and builds its own pages, no cap. The baseline.
//   shared  - today's hub with the per-minute cap lifted: the account's sockets share the pages they walk;
//   shipped - today's hub as it ships: shared pages and REPLAYS_PER_MINUTE replays a minute (the rest reload);
//   one     - today's hub, a single socket: the floor.
// The baseline ref defaults to the parent of the commit that introduced the shared pages (HEAD while uncommitted).
// Every figure is given as it is and as a ratio to the baseline's, measured in the same run.
import { plugin } from "bun";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type Holds, holdPhase } from "./holds";

const SENDER = "+14155550100";
const PHONES = 300;
const phoneOf = (i: number) => `+1415${String(3000000 + (i % PHONES)).padStart(7, "0")}`;

type Mode = "before" | "shared" | "shipped" | "one";
type Ready = { url: string; token: string; events: number };
type Figures = { cpuSeconds: number; peakRssMb: number; holdMs: number; pagesBuilt: number; pagesShared: number; refused: number };

// ----------------------------------------------------------------------------------------------------------
// Child: the appliance with one account whose log holds MAX_REPLAY events; its figures once stdin closes.

async function serve(mode: Mode, dataDir: string, hubSource?: string) {
  if (hubSource) {
    // The baseline: the hub's source as it was, compiled in place of today's (its imports resolve as they did).
    const contents = readFileSync(hubSource, "utf8");
    plugin({ name: "baseline-hub", setup: (build) => void build.onLoad({ filter: /[\\/]src[\\/]live[\\/]hub\.ts$/ }, () => ({ contents, loader: "ts" })) });
  }
  const { loadConfig } = await import("../../src/config");
  const { countEvents } = await import("../../src/events/events");
  const { grantLicense } = await import("../../src/licenses/licenses");
  const { MAX_REPLAY } = await import("../../src/live/hub");
  const { liveHubOf } = await import("../../src/live/socket");
  const { recordInbound } = await import("../../src/inbound/receive");
  const { findProviderById } = await import("../../src/providers/accounts");
  const { startServer } = await import("../../src/server");
  const { BENCH_METRICS_TOKEN } = await import("./holds");
  const { benchSignUp } = await import("./sign-up");
  // Development mode: sign-up's code reaches the log, read until the account is made and dropped after.
  let logs: string[] | null = [];
  const server = await startServer(
    loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []),
    (line) => void logs?.push(line),
  );
  const ctx = server.ctx;
  const origin = new URL(ctx.config.publicUrl).origin;
  const call = async (path: string, token: string | null, body: unknown) => {
    const res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const reg = await benchSignUp(server.url, origin, logs!);
  logs = null;
  const userId = reg.user.id as string;
  ctx.db.$client.run("UPDATE users SET email_verified = 1 WHERE id = ?", [userId]);
  ctx.db.$client.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
  await grantLicense(ctx, userId, "enterprise", 30);
  const provider = await call("/api/sms-providers", reg.token, { provider: "simulator", displayName: "Sim" });
  await call("/api/phone-numbers", reg.token, { providerId: provider.id, phoneNumber: SENDER });
  const account = (await findProviderById(ctx, provider.id))!;
  // Texts until the log is one event short of the most a socket may replay (each text appends two or three).
  const events = () => countEvents(ctx, { userId, afterId: 0, upTo: Number.MAX_SAFE_INTEGER, atMost: MAX_REPLAY + 1 });
  for (let i = 0; (await events()) <= MAX_REPLAY - 3; i++) {
    await recordInbound(ctx, account, { type: "inbound", providerMessageId: `R${i}`, from: phoneOf(i), to: SENDER, body: `Replay bench message ${i}: is the shop open on Sunday?` });
  }
  const hub = liveHubOf(ctx)! as ReturnType<typeof liveHubOf> & { replaysPerMinute?: number; replayShared?: { pages: number; refused: number } };
  if (mode === "shared") hub.replaysPerMinute = Infinity;
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  let hold = 0;
  let last = performance.now();
  const cpuAtStart = process.cpuUsage();
  let cpu = process.cpuUsage();
  const sampler = setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    hold = Math.max(hold, Math.min(now - last - 10, (used.user + used.system) / 1000));
    last = now;
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const ready: Ready = { url: server.url, token: reg.token, events: await events() };
  console.log(JSON.stringify(ready));
  await new Promise((resolve) => process.stdin.on("close", resolve).resume());
  clearInterval(sampler);
  const used = process.cpuUsage(cpuAtStart);
  const figures: Figures = {
    cpuSeconds: (used.user + used.system) / 1e6,
    peakRssMb: (peak - rssBefore) / 2 ** 20,
    holdMs: hold,
    pagesBuilt: hub!.replayed.pages,
    pagesShared: hub!.replayShared?.pages ?? 0,
    refused: hub!.replayShared?.refused ?? 0,
  };
  console.log(JSON.stringify(figures));
  await server.stop();
  process.exit(0);
}

if (process.argv[2] === "--serve") await serve(process.argv[3] as Mode, process.argv[4]!, process.argv[5]);

// ----------------------------------------------------------------------------------------------------------
// Parent: the sockets.

const SOCKETS = Number(process.argv[2] ?? 40);
const ROUNDS = Number(process.argv[3] ?? 3);
const MAX_REPLAY = (await import("../../src/live/hub")).MAX_REPLAY;
const root = join(import.meta.dir, "..", "..");
const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" }).trim();
const introduced = git("log", "--format=%H", "--reverse", "-S", "REPLAY_PAGE_TTL_MS", "--", "src/live/hub.ts").split("\n")[0];
const baselineRef = process.argv[4] ?? (introduced ? `${introduced}^` : "HEAD");
const baselineHub = join(mkdtempSync(join(tmpdir(), "smsdesk-bench-replay-hub-")), "hub.ts");
writeFileSync(baselineHub, git("show", `${baselineRef}:src/live/hub.ts`));

type Result = Figures & { mode: Mode; sockets: number; seconds: number; replayed: number; reset: number; framesEach: number; server: Holds };

async function measure(mode: Mode, sockets: number): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-replay-"));
  const args = [import.meta.path, "--serve", mode, dataDir, ...(mode === "before" ? [baselineHub] : [])];
  const proc = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  createInterface({ input: proc.stdout! }).on("line", (line) => lines.push(line));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  while (!lines.length) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    await Bun.sleep(20);
  }
  const ready = JSON.parse(lines[0]!) as Ready;
  const wsUrl = ready.url.replace("http:", "ws:") + "/ws";
  const opened = await Promise.all(
    Array.from(
      { length: sockets },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(wsUrl);
          ws.onopen = () => resolve(ws);
          ws.onerror = () => reject(new Error("socket error"));
        }),
    ),
  );
  const phase = await holdPhase(ready.url);
  const frames = new Array(sockets).fill(0);
  const ends: ("ready" | "reset")[] = [];
  const start = performance.now();
  const done = Promise.all(
    opened.map(
      (ws, s) =>
        new Promise<void>((resolve) => {
          ws.onmessage = (m) => {
            const frame = JSON.parse(String(m.data));
            if (frame.type === "ready" || frame.type === "reset") {
              ends.push(frame.type);
              return resolve();
            }
            frames[s]++;
          };
          ws.send(JSON.stringify({ type: "auth", token: ready.token, lastEventId: 0 }));
        }),
    ),
  );
  await done;
  const seconds = (performance.now() - start) / 1000;
  const held = await phase.end();
  for (const ws of opened) ws.close();
  proc.stdin!.end();
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  const figures = JSON.parse(lines[1]!) as Figures;
  const replayedFrames = frames.filter((n) => n > 0);
  if (new Set(replayedFrames).size > 1) throw new Error(`sockets got different replays: ${[...new Set(replayedFrames)].join(", ")} frames`);
  return {
    mode,
    sockets,
    seconds,
    replayed: ends.filter((e) => e === "ready").length,
    reset: ends.filter((e) => e === "reset").length,
    framesEach: replayedFrames[0] ?? 0,
    server: held,
    ...figures,
  };
}

const modes = [["before", SOCKETS], ["shared", SOCKETS], ["shipped", SOCKETS], ["one", 1]] as const;
const rounds: Result[][] = modes.map(() => []);
for (let round = 1; round <= ROUNDS; round++) {
  for (const [i, [mode, sockets]] of modes.entries()) {
    const r = await measure(mode, sockets);
    rounds[i]!.push(r);
    console.log(`round ${round} ${mode}: ${r.seconds.toFixed(2)} s, CPU ${r.cpuSeconds.toFixed(2)} s, +${r.peakRssMb.toFixed(1)} MB, hold ${r.holdMs.toFixed(0)} ms (the server's own figure: ${r.server.longestMs.toFixed(0)} ms late, ${r.server.busyMs?.toFixed(0)} ms its own work, ${r.server.over} over 50 ms), ${r.pagesBuilt} pages built`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs = rounds.map((rs) => ({
  ...rs[0]!,
  seconds: median(rs.map((r) => r.seconds)),
  cpuSeconds: median(rs.map((r) => r.cpuSeconds)),
  peakRssMb: median(rs.map((r) => r.peakRssMb)),
  holdMs: median(rs.map((r) => r.holdMs)),
  pagesBuilt: median(rs.map((r) => r.pagesBuilt)),
  pagesShared: median(rs.map((r) => r.pagesShared)),
}));
const base = runs[0]!;
const ratio = (n: number, of: number) => (of ? `${(n / of).toFixed(3)}x` : "-");
console.log(`\n${SOCKETS} sockets of one account resuming from event 0, log of ${MAX_REPLAY} events; medians of ${ROUNDS} rounds, ratios to 'before' (${baselineRef}), same run\n`);
console.log(["mode", "sockets", "replayed/reset", "frames each", "time s", "server CPU s", "peak RSS +MB", "loop hold ms", "pages built", "pages shared"].join(" | "));
for (const r of runs) {
  console.log(
    [
      r.mode,
      r.sockets,
      `${r.replayed}/${r.reset}`,
      r.framesEach,
      `${r.seconds.toFixed(2)} (${ratio(r.seconds, base.seconds)})`,
      `${r.cpuSeconds.toFixed(2)} (${ratio(r.cpuSeconds, base.cpuSeconds)})`,
      `${r.peakRssMb.toFixed(1)} (${ratio(r.peakRssMb, base.peakRssMb)})`,
      `${r.holdMs.toFixed(0)} (${ratio(r.holdMs, base.holdMs)})`,
      `${r.pagesBuilt} (${ratio(r.pagesBuilt, base.pagesBuilt)})`,
      r.pagesShared,
    ].join(" | "),
  );
}
rmSync(baselineHub, { force: true });
