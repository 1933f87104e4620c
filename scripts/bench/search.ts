// Pages, searches and start of the built executable on a million contacts and a million messages (issue 29 items 3,
// 5 and 6). Build first (bun scripts/build.ts), then:
//   bun scripts/bench/search.ts [rounds=30] [starts=5] [contacts=1000000] [messages=1000000]
// The data folder is made by search-data.ts (about a minute) and kept under /tmp by the migrations it was made with.
// Measured against dist/smsdesk started on it, each figure beside a baseline from the same run:
// - start: the time from spawn to the first 200 of /api/health, and to the first signed-in page (the dashboard's
//   calls: /api/auth/user, then the overview and the 30-day series together), median of `starts` starts; a bare
//   Bun.serve script's first 200 is the baseline; the binary's size;
// - idle RSS after the first page (and after the reads), against the bare script's;
// - the 50th and 95th percentile of contact pages (first, deep, by name both ways, by phone, filtered by a tag
//   through a segment) and searches (names whole and in part, first letters, accented and unaccented forms, phones
//   whole and in part, emails whole and in part), `rounds` rounds interleaved; the baseline is /api/auth/user's p95
//   (a signed-in call that reads one row) in the same rounds; beside each, the CPU the server's main thread spent on
//   it (p50, p95), and the first answer's time and CPU (the list's saved positions not made yet);
// - the server's longest event-loop hold (its own 10 ms timer's lateness, read from /metrics: holds.ts) during the
//   start and during the reads, and how much of it was the loop's own work rather than a wait for a core;
// - the load average before and after.
import { readFileSync, statSync, writeFileSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase, serverHolds } from "./holds";
import { benchData, benchSession, lastName, phoneOf } from "./search-data";

const ROUNDS = Number(process.argv[2] ?? 30);
const STARTS = Number(process.argv[3] ?? 5);
const CONTACTS = Number(process.argv[4] ?? 1_000_000);
const MESSAGES = Number(process.argv[5] ?? 1_000_000);
const GOAL_MS = 50;

const root = join(import.meta.dir, "..", "..");
// SMSDESK_BIN: another build to measure (a before and an after, side by side).
const binary = process.env.SMSDESK_BIN ?? join(root, "dist", "smsdesk");
const f = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const data = await benchData(CONTACTS, MESSAGES);
const token = await benchSession(data);
const loadBefore = load();

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  await s.stop(true);
  return port;
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

type Started = { proc: ReturnType<typeof Bun.spawn>; base: string; health: number; page: number };

/** Spawns `cmd` and polls until /api/health answers 200, then (for smsdesk) the dashboard's calls. */
async function start(cmd: string[], env: Record<string, string>, signedIn: boolean): Promise<Started> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const began = performance.now();
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env, PORT: String(port) }, stdout: "ignore", stderr: "inherit" });
  // A failed run leaves no server behind.
  process.on("exit", () => proc.kill());
  for (;;) {
    const ok = await fetch(`${base}/api/health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (performance.now() - began > 60_000) throw new Error(`${cmd.join(" ")} did not answer within 60 s`);
    await Bun.sleep(2);
  }
  const health = performance.now() - began;
  if (!signedIn) return { proc, base, health, page: health };
  const get = async (path: string) => {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    await res.arrayBuffer();
  };
  await get("/api/auth/user");
  await Promise.all([get("/api/results/overview"), get("/api/results/series?days=30")]);
  return { proc, base, health, page: performance.now() - began };
}

async function stop(s: Started) {
  s.proc.kill();
  await s.proc.exited;
}

const baselineFile = join(mkdtempSync(join(tmpdir(), "bench-search-baseline-")), "baseline.ts");
writeFileSync(baselineFile, `Bun.serve({ port: Number(process.env.PORT), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });`);

// 1. Starts: the bare script and the executable alternately.
const bare: number[] = [];
const health: number[] = [];
const page: number[] = [];
let bareRss = 0;
let server: Started | null = null;
for (let i = 0; i < STARTS; i++) {
  const b = await start([process.execPath, baselineFile], {}, false);
  bare.push(b.health);
  if (i === STARTS - 1) {
    await Bun.sleep(2000);
    bareRss = rssMb(b.proc.pid);
  }
  await stop(b);
  const s = await start([binary], { DATA_DIR: data.dir, METRICS_TOKEN: BENCH_METRICS_TOKEN }, true);
  health.push(s.health);
  page.push(s.page);
  if (i < STARTS - 1) await stop(s);
  else server = s;
}
const s = server!;
await Bun.sleep(2000);
const idleRss = rssMb(s.proc.pid);

const call = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(s.base + path, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers as object) } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
  return text;
};
// The last start's holds: the server's timer starts as it listens, so its first reading covers the start.
const startHold = { ...(await serverHolds(s.base)), load: loadavg()[0]! };

// 2. Pages and searches. Terms drawn from the data: a whole last name, its start, a whole phone and as typed, its
// last 7 and 4 digits, an email whole and in part.
const row = Math.floor(CONTACTS * 0.37);
const last = lastName(row);
const phone = phoneOf(row - (row % 10)); // a North American one
const nat = phone.slice(2);
const email = JSON.parse(await call(`/api/contacts?q=${encodeURIComponent(phone)}`)).data[0]?.email ?? "nobody@example.com";
const segment = async (name: string, tag: string) => {
  const t0 = performance.now();
  const id = JSON.parse(await call("/api/segments", { method: "POST", body: JSON.stringify({ name, conditions: { tags: { eq: tag } } }) })).id as string;
  return { id, ms: performance.now() - t0 };
};
const vip = await segment(`bench vip ${Date.now()}`, "vip");
const newsletter = await segment(`bench newsletter ${Date.now()}`, "newsletter");
const lastPage = Math.ceil(CONTACTS / 50);
const q = (term: string, rest = "") => `/api/contacts?q=${encodeURIComponent(term)}${rest}`;
const byName = "&sort=name&order=asc";
const reads: [string, string][] = [
  ["BASELINE signed-in user", "/api/auth/user"],
  ["health", "/api/health"],
  ["page 1, newest", "/api/contacts?page=1&pageSize=50"],
  ["page 2, newest", "/api/contacts?page=2&pageSize=50"],
  ["page 200, newest", "/api/contacts?page=200&pageSize=50"],
  ["page 10,000, newest", "/api/contacts?page=10000&pageSize=50"],
  [`last page (${f(lastPage)}), newest`, `/api/contacts?page=${lastPage}&pageSize=50`],
  ["page 1, oldest", "/api/contacts?page=1&pageSize=50&order=asc"],
  ["page 1, name A-Z", "/api/contacts?page=1&pageSize=50&sort=name&order=asc"],
  ["page 1, name Z-A", "/api/contacts?page=1&pageSize=50&sort=name&order=desc"],
  ["page 200, name A-Z", "/api/contacts?page=200&pageSize=50&sort=name&order=asc"],
  ["page 1, phone", "/api/contacts?page=1&pageSize=50&sort=phone&order=asc"],
  ["stats", "/api/contacts/stats"],
  ["tag vip (1%), page 1", `/api/segments/${vip.id}/contacts?page=1&pageSize=50`],
  ["tag vip (1%), page 20", `/api/segments/${vip.id}/contacts?page=20&pageSize=50`],
  ["tag newsletter (30%), page 1", `/api/segments/${newsletter.id}/contacts?page=1&pageSize=50`],
  [`name "${last}"`, q(last)],
  [`name "${last.slice(0, 5)}"`, q(last.slice(0, 5))],
  [`name "${last}" by name`, q(last, byName)],
  ['name "José"', q("José")],
  ['name "jose"', q("jose")],
  ['name "José" by name', q("José", byName)],
  ['name "jose" by name', q("jose", byName)],
  ['name "Ángel"', q("Ángel")],
  ['name "angel" by name', q("angel", byName)],
  ['name "Zoë"', q("Zoë")],
  ['name "zoe" by name', q("zoe", byName)],
  ['first letters "jo"', q("jo")],
  ['first letters "jo" by name', q("jo", byName)],
  ['first letters "an"', q("an")],
  ['first letters "an" by name', q("an", byName)],
  ['first letter "z" by name', q("z", byName)],
  ['name "José Rap" (two words)', q(`José ${last.slice(0, 3)}`)],
  [`phone "${phone}"`, q(phone)],
  [`phone "(${nat.slice(0, 3)}) ${nat.slice(3, 6)}-${nat.slice(6)}"`, q(`(${nat.slice(0, 3)}) ${nat.slice(3, 6)}-${nat.slice(6)}`)],
  [`phone "${nat.slice(3)}" (last 7)`, q(nat.slice(3))],
  [`phone "${nat.slice(6)}" (last 4)`, q(nat.slice(6))],
  [`phone "${nat.slice(0, 3)}" (area code)`, q(nat.slice(0, 3))],
  [`phone "+4477" (start)`, q("+4477")],
  [`email "${email}"`, q(email)],
  [`email "${email.split("@")[0]}"`, q(email.split("@")[0]!)],
  ['email "gmail.com"', q("gmail.com")],
  ['email "gmail.com" by name', q("gmail.com", byName)],
];
const times = new Map<string, number[]>(reads.map(([, p]) => [p, []]));
// The server's main thread's CPU for each read (its run time from /proc, in ns: the requests are served there), which
// the machine's load changes far less than the time to answer; and the first answer's time and CPU (before any
// saved position of the list, or anything the reads leave cached).
const cpu = new Map<string, number[]>(reads.map(([, p]) => [p, []]));
const first = new Map<string, { ms: number; cpu: number }>();
const ranNs = () => Number(readFileSync(`/proc/${s.proc.pid}/schedstat`, "utf8").split(" ")[0]);
const answers = new Map<string, { total: number; capped: boolean; rows: number }>();
const readsPhase = await holdPhase(s.base);
for (let r = -3; r < ROUNDS; r++) {
  for (const [, path] of reads) {
    const ran = ranNs();
    const t0 = performance.now();
    const text = await call(path);
    const ms = performance.now() - t0;
    const cpuMs = (ranNs() - ran) / 1e6;
    if (r === -3) first.set(path, { ms, cpu: cpuMs });
    if (r >= 0) {
      times.get(path)!.push(ms);
      cpu.get(path)!.push(cpuMs);
    } else {
      const body = JSON.parse(text);
      if (Array.isArray(body.data)) answers.set(path, { total: body.total, capped: body.totalCapped, rows: body.data.length });
    }
  }
}
const readsHold = await readsPhase.end();
const rssAfter = rssMb(s.proc.pid);
await stop(s);

const baseP95 = pct(times.get(reads[0]![1])!, 0.95);
const bareStart = median(bare);
const size = statSync(binary).size / 1024 / 1024;
console.log(`\ndata                 ${f(data.contacts)} contacts, ${f(data.messages)} messages (${data.dir})`);
console.log(`binary size          ${f(size, 1)} MB`);
console.log(`first 200 /api/health ${f(median(health))} ms median of ${STARTS} starts (${(median(health) / bareStart).toFixed(2)}x a bare Bun.serve's ${f(bareStart)} ms)`);
console.log(`first signed-in page ${f(median(page))} ms median (user, overview, 30-day series; ${(median(page) / bareStart).toFixed(2)}x the bare start)`);
console.log(`idle RSS             ${f(idleRss)} MB after the first page, ${f(rssAfter)} MB after the reads (bare Bun.serve ${f(bareRss)} MB: ${(idleRss / bareRss).toFixed(2)}x)`);
console.log(holdLine("during the last start", startHold));
console.log(holdLine("during the reads", readsHold));
console.log(`segments created     vip ${f(vip.ms)} ms, newsletter ${f(newsletter.ms)} ms (each counted at creation)`);
console.log(`\n${"read".padEnd(44)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"p95/base".padStart(9)} ${"cpu p50".padStart(8)} ${"cpu p95".padStart(8)} ${"first ms".padStart(9)} ${"(cpu)".padStart(7)}  total`);
let over = 0;
for (const [label, path] of reads) {
  const xs = times.get(path)!;
  const p95 = pct(xs, 0.95);
  if (p95 > GOAL_MS) over++;
  const a = answers.get(path);
  const total = a ? `${f(a.total)}${a.capped ? "+" : ""} (${a.rows} rows)` : "";
  const c = cpu.get(path)!;
  const once = first.get(path)!;
  console.log(
    `${label.padEnd(44)} ${f(median(xs), 1).padStart(8)} ${f(p95, 1).padStart(8)} ${(p95 / baseP95).toFixed(1).padStart(8)}x ${f(median(c), 1).padStart(8)} ${f(pct(c, 0.95), 1).padStart(8)} ${f(once.ms, 1).padStart(9)} ${f(once.cpu, 1).padStart(7)}  ${total}${p95 > GOAL_MS ? "  OVER 50 ms" : ""}`,
  );
}
console.log(`\n${over} of ${reads.length} reads over ${GOAL_MS} ms at p95 (baseline p95 ${f(baseP95, 1)} ms; ${ROUNDS} rounds)`);
console.log(`load average         ${loadBefore} before, ${load()} after (1, 5, 15 min; ${navigator.hardwareConcurrency} cores)`);
