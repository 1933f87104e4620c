// Contact import benchmark (issues 4, 17 and 29):
//   bun scripts/bench/import.ts [rows=1000000] [--data diverse|plain] [--exe [path=dist/smsdesk]] [--memory-limit MB] [--rss-log]
// (where the writer's time goes: bun --cpu-prof-md --cpu-prof-dir=/tmp scripts/bench/import.ts)
// --data diverse (import-data.ts diverseContacts): random valid US and Canadian numbers and some UK, German and
// Mexican ones, in a dozen formats; a different last name on every row (accents, apostrophes, particles); an email on
// every row; four custom fields; ~2% invalid phones and ~3% duplicates (an earlier row's number, often written
// another way); posted with a mapping and country=US.
// --data plain (plainContacts): the shape of issue 29's file, "First Name,Last Name,Email,Phone Number", US numbers
// in six formats, ~3% invalid, ~5% duplicates written another way, few first names, formula-like cells; posted with
// no mapping and no country (the owner's: US).
// In the same run it measures the ceiling, one core of libphonenumber-js validating the file's phones with the calls
// the importer makes (parsePhoneNumberFromString + isValid), and a bare prepared bun:sqlite insert baseline; then
// imports the file through POST /api/contacts/import/csv on a real server and times GET /api/contacts pages and
// searches (name, phone, email) over the result. The server runs in this process, or with --exe as the built
// executable in a folder of its own, whose RSS and CPU are then its own (read from /proc, per thread too).
// The longest hold of the server's event loop comes from the server itself (GET /metrics, src/metrics/event-loop.ts).
// --memory-limit MB (with --exe) then imports the file once more into a new executable started inside a memory
// cgroup of that size (as systemd-run --scope -p MemoryMax=... does), and says whether it finished.
// Figures measured with it, before and after each change, with the load average they were taken at: README, Benchmarks.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { openDatabase } from "../../db/client";
import { loadConfig } from "../../src/config";
import { beginBulkWrites } from "../../src/contacts/importer";
import { normalizePhone, PhoneNormalizer } from "../../src/contacts/phones";
import { startServer } from "../../src/server";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { diverseContacts, MAPPING, plainContacts } from "./import-data";

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1] && !args[i + 1]!.startsWith("--") ? args[i + 1] : "";
};
const N = Number(args.find((a) => /^\d+$/.test(a) && args[args.indexOf(a) - 1] !== "--memory-limit") ?? 1_000_000);
const DATA = option("--data") || "diverse";
if (DATA !== "diverse" && DATA !== "plain") throw new Error("--data diverse or plain");
const exeOption = option("--exe");
const EXE = exeOption === undefined ? null : resolve(exeOption || "dist/smsdesk");
const LIMIT_MB = Number(option("--memory-limit") || 0);
const RSS_LOG = args.includes("--rss-log");
if (LIMIT_MB && !EXE) throw new Error("--memory-limit runs the executable: give --exe too");

console.log(`generating ${N.toLocaleString()} rows (${DATA})...`);
let t0 = performance.now();
const { lines, rows } = DATA === "plain" ? plainContacts(N) : diverseContacts(N);
const work = mkdtempSync(join(tmpdir(), "smsdesk-bench-"));
const csvPath = join(work, "contacts.csv");
writeFileSync(csvPath, lines.join("\r\n") + "\r\n");
lines.length = 0;
const csvBytes = Bun.file(csvPath).size;
console.log(`csv: ${(csvBytes / 1e6).toFixed(1)} MB (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
const query = DATA === "plain" ? "" : `?country=US&mapping=${encodeURIComponent(JSON.stringify(MAPPING))}`;

// The ceiling: one core validating this file's phones the way the importer's library path does (no cache, no
// fast path), on up to 300,000 of them after a warm-up; and the importer's own normaliser (phones.ts), which
// validates each distinct number once with the library and skips its string extraction for bare NANP digits.
const sample = rows.slice(0, Math.min(N, 300_000)).map((r) => r[3]);
// Measured before and again after the import, as the machine's load may change meanwhile; the ratio uses the mean.
for (const p of sample.slice(0, 20_000)) normalizePhone(p, "US");
let valid = 0;
const validationRate = () => {
  const start = performance.now();
  valid = 0;
  for (const p of sample) if (normalizePhone(p, "US")) valid++;
  return sample.length / ((performance.now() - start) / 1000);
};
const ceilingBefore = validationRate();
const sampled = sample.length;
const normalizer = new PhoneNormalizer("US", 4096);
t0 = performance.now();
for (const p of sample) normalizer.normalize(p);
const normalizerRate = sample.length / ((performance.now() - t0) / 1000);

// Baseline: the same rows (names, email, phone as written in the file) into the same table, created by the
// app's migrations with all its indexes and triggers, on a connection with the app's pragmas and the same bulk
// settings the import uses; one bare prepared statement, 10,000-row transactions. Source 'import' keeps the
// search-index trigger out, as for imported rows: indexing is part of the import's work, not of a bare insert.
const baseDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-base-"));
const base = openDatabase(join(baseDir, "b.db"));
const bdb = base.$client;
const owner = Bun.randomUUIDv7();
bdb.run("INSERT INTO users (id, email) VALUES (?, 'owner@example.com')", [owner]);
const endBulk = await beginBulkWrites(base);
// As measured before imports checkpointed off the main thread: the connection's own checkpoint every 128 MB of log,
// so this figure compares with earlier runs.
bdb.exec("PRAGMA wal_autocheckpoint = 32768");
const ins = bdb.prepare(
  "INSERT OR IGNORE INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, ?, ?, ?, ?, ?, 'import')",
);
t0 = performance.now();
for (let i = 0; i < N; i += 10_000) {
  bdb.transaction(() => {
    for (let j = i; j < Math.min(N, i + 10_000); j++) {
      const [f, l, e, p] = rows[j]!;
      ins.run(Bun.randomUUIDv7(), owner, f, l, e, p);
    }
  })();
}
const baseRate = N / ((performance.now() - t0) / 1000);
await endBulk();
bdb.close();
rmSync(baseDir, { recursive: true, force: true });

const ADMIN = { ADMIN_EMAIL: "bench@example.com", ADMIN_PASSWORD: "bench-password-1", METRICS_TOKEN: "bench-metrics-token-29-0123456789" };

/** The server under test: its address, and what its process spent (CPU in us, memory in bytes). */
type Server = {
  base: string;
  /** Its folder: the database is under data/. */
  dir: string;
  origin: string;
  cpu: () => { user: number; system: number };
  /** CPU of each thread (us) by its id, with its name (the main thread's is "main"), for a process of its own. */
  threads: () => Map<string, { name: string; us: number }> | null;
  rss: () => number;
  /** The kernel's own peak (VmHWM) of a process of its own. */
  peakRss: () => number | null;
  /** Bytes the process wrote with write calls (/proc/<pid>/io wchar), for a process of its own. */
  written: () => number | null;
  stop: () => Promise<void>;
};

async function inThisProcess(dataDir: string): Promise<Server> {
  const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: join(dataDir, "data"), ...ADMIN }, []), () => {});
  rateLimiterFor(server.ctx).enabled = false;
  return {
    base: server.url,
    dir: dataDir,
    origin: new URL(server.ctx.config.publicUrl).origin,
    cpu: () => process.cpuUsage(),
    threads: () => null,
    rss: () => process.memoryUsage.rss(),
    peakRss: () => null,
    written: () => null,
    stop: () => server.stop(),
  };
}

const TICK_US = 1e6 / 100; // /proc's clock ticks (USER_HZ)
const statusKb = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
/** utime and stime (us) of /proc/<pid>/stat or a task's, and its name. */
function procStat(path: string) {
  const text = readFileSync(path, "utf8");
  const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { name, user: Number(f[11]) * TICK_US, system: Number(f[12]) * TICK_US };
}

/**
 * A memory cgroup of `mb` under this process's own (cgroup v1 or v2), to start the executable in; null when none
 * can be made here. The same limit as `systemd-run --scope -p MemoryMax=...`, on machines without systemd.
 */
function memoryCgroup(mb: number): { dir: string; peak: () => number; failed: () => number; remove: () => void } | null {
  const lines = readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
  const v1 = lines.find((l) => /^\d+:memory:/.test(l))?.split(":")[2];
  const v2 = lines.find((l) => l.startsWith("0::"))?.slice(3);
  const root = v1 !== undefined ? `/sys/fs/cgroup/memory${v1}` : `/sys/fs/cgroup${v2 ?? ""}`;
  const dir = join(root, `smsdesk-bench-${process.pid}`);
  try {
    mkdirSync(dir);
    if (v1 !== undefined) writeFileSync(join(dir, "memory.limit_in_bytes"), String(mb * 1048576));
    else writeFileSync(join(dir, "memory.max"), String(mb * 1048576));
  } catch (err) {
    console.log(`memory limit: no cgroup could be made under ${root} (${(err as Error).message})`);
    return null;
  }
  const read = (file: string) => Number(readFileSync(join(dir, file), "utf8").trim().split(/\s/).at(-1));
  return {
    dir,
    peak: () => (v1 !== undefined ? read("memory.max_usage_in_bytes") : read("memory.peak")),
    failed: () => (v1 !== undefined ? read("memory.failcnt") : Number(/oom_kill (\d+)/.exec(readFileSync(join(dir, "memory.events"), "utf8"))?.[1] ?? 0)),
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {}
    },
  };
}

/** The executable in a folder of its own, inside a memory cgroup when given one. */
async function executable(dir: string, cgroup: string | null): Promise<Server> {
  const free = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = free.port!;
  await free.stop(true);
  const log = Bun.file(join(dir, "server.log"));
  const cmd = cgroup ? ["/bin/sh", "-c", `echo $$ > ${cgroup}/cgroup.procs && exec "$0"`, EXE!] : [EXE!];
  const proc = Bun.spawn(cmd, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: `http://localhost:${port}`, DATA_DIR: join(dir, "data"), ...ADMIN },
    stdout: log,
    stderr: log,
  });
  // Ended with the bench, however it ends.
  process.on("exit", () => proc.kill("SIGKILL"));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${base}/api/health`).then((r) => r.status).catch(() => 0)) === 200) break;
    if (i > 400 || proc.exitCode !== null) throw new Error(`the executable did not start:\n${readFileSync(join(dir, "server.log"), "utf8")}`);
    await Bun.sleep(50);
  }
  const pid = proc.pid;
  return {
    base,
    dir,
    origin: `http://localhost:${port}`,
    cpu: () => procStat(`/proc/${pid}/stat`),
    threads: () => {
      const by = new Map<string, { name: string; us: number }>();
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        try {
          const t = procStat(`/proc/${pid}/task/${task}/stat`);
          by.set(task, { name: task === String(pid) ? "main" : t.name, us: t.user + t.system });
        } catch {} // a thread that ended meanwhile
      }
      return by;
    },
    rss: () => statusKb(pid, "VmRSS"),
    peakRss: () => statusKb(pid, "VmHWM"),
    written: () => Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

const api = async (server: Server, path: string, init: RequestInit & { token?: string } = {}) => {
  const res = await fetch(server.base + path, {
    ...init,
    headers: { origin: server.origin, ...(init.headers as object), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  });
  return { status: res.status, body: (await res.json()) as any };
};
async function signIn(server: Server) {
  const login = await api(server, "/api/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${JSON.stringify(login.body)}`);
  return login.body.token as string;
}
/** The server's own figure of how long its event loop was held (since the previous reading), and the count over 50 ms. */
async function holds(server: Server) {
  const text = await (await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN.METRICS_TOKEN}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  // The longest hold counting no more of it than the loop's thread ran meanwhile: its own work, not its waits for a core.
  return { longestMs: value("smsdesk_event_loop_longest_hold_seconds") * 1000, busyMs: value("smsdesk_event_loop_longest_busy_hold_seconds") * 1000, over: value("smsdesk_event_loop_holds_total") };
}

/**
 * Uploads the file and waits for the job to end, sampling the server's RSS every 10 ms meanwhile. Answers the job,
 * the wall time, the CPU the server's process spent, its peak RSS and the longest hold of its event loop.
 */
async function importFile(server: Server) {
  const token = await signIn(server);
  const holdsBefore = await holds(server);
  let peakRss = server.rss();
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, server.rss());
    } catch {} // the process ended (killed by the memory limit): the job's state says so
  }, 10);
  const t0 = performance.now();
  const cpu0 = server.cpu();
  const threads0 = server.threads();
  const written0 = server.written();
  const start = await api(server, `/api/contacts/import/csv${query}`, { method: "POST", token, headers: { "content-type": "text/csv" }, body: Bun.file(csvPath) });
  if (start.status !== 202) throw new Error(`upload failed: ${start.status} ${JSON.stringify(start.body)}`);
  // The threads seen at each poll with the CPU they had spent then: the import's workers end before it does, and
  // each is counted up to its last poll.
  const seen = new Map<string, { name: string; us: number }>();
  const look = () => {
    for (const [tid, t] of server.threads() ?? []) seen.set(tid, t);
  };
  let job: any;
  let noted = 0;
  for (;;) {
    look();
    job = (await api(server, `/api/contacts/import/${start.body.id}`, { token })).body;
    // --rss-log: the server's RSS with the job's progress every 5 s, to see in which phase it peaks.
    if (RSS_LOG && performance.now() - noted >= 5000) {
      noted = performance.now();
      console.log(`  ${((noted - t0) / 1000).toFixed(0).padStart(4)} s rss ${(server.rss() / 1048576).toFixed(0)} MB (peak so far ${(peakRss / 1048576).toFixed(0)}) ${job.state} progress ${job.progress} rows ${job.rowsRead}`);
    }
    if (job.state === "done" || job.state === "failed") break;
    // As often as the import dialog asks (ui/routes/app/contacts/import-dialog.tsx).
    await Bun.sleep(500);
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = server.cpu();
  look();
  const written = written0 === null ? null : server.written()! - written0;
  clearInterval(sampler);
  const held = await holds(server);
  // CPU per thread name during the import.
  const threads = threads0 && new Map<string, number>();
  for (const [tid, t] of seen) threads?.set(t.name, (threads.get(t.name) ?? 0) + t.us - (threads0?.get(tid)?.us ?? 0));
  // Each of the import's transactions of contacts appends one event with its counts.
  const db = new Database(join(server.dir, "data", "smsdesk.db"), { readonly: true });
  const transactions = (db.query("SELECT count(*) AS n FROM events WHERE subject_kind = 'import' AND subject_id = ?").get(start.body.id) as { n: number }).n;
  db.close();
  return {
    token, job, secs, peakRss: server.peakRss() ?? peakRss, sampledRss: peakRss,
    cpu: { user: cpu1.user - cpu0.user, system: cpu1.system - cpu0.system }, threads, written, transactions,
    longestHoldMs: held.longestMs, longestBusyMs: held.busyMs, over50: held.over - holdsBefore.over,
  };
}

// Searches people make, some drawn from the file: a whole last name, a fragment with an accent, a first name,
// two letters, an area code and exchange as typed, a number's last seven digits, a whole number, an email's
// local part, a mail provider.
const probe = rows[Math.floor(N * 0.37)]!;
const probePhone = normalizePhone(rows.find((r, i) => i > N * 0.61 && normalizePhone(r[3], "US")?.startsWith("+1"))![3], "US")!;
const searchTerms = [probe[1], "Müll", "José", "Jo", probePhone.slice(-7), `(${probePhone.slice(2, 5)}) ${probePhone.slice(5, 8)}`, probePhone, probe[2].split("@")[0]!, "gmail"];
rows.length = 0;
Bun.gc(true);

const serverDir = join(work, "server");
mkdirSync(serverDir);
const server = EXE ? await executable(serverDir, null) : await inThisProcess(serverDir);
const run = await importFile(server);
const { job, secs, cpu } = run;
const rate = N / secs;
const ceilingAfter = validationRate();
const ceiling = (ceilingBefore + ceilingAfter) / 2;
sample.length = 0;

async function timed(paths: string[], rounds: number) {
  const ms: number[] = [];
  const worst = new Map<string, number>();
  for (let r = 0; r < rounds; r++)
    for (const p of paths) {
      const a = performance.now();
      const res = await api(server, p, { token: run.token });
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
      const took = performance.now() - a;
      ms.push(took);
      if (r > 0) worst.set(p, Math.max(worst.get(p) ?? 0, took));
    }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]!, worst };
}
await holds(server);
const pages = await timed(
  ["/api/contacts?page=1&pageSize=50", "/api/contacts?page=20&pageSize=50", "/api/contacts?page=3&pageSize=50&sort=name&order=asc", "/api/contacts?page=2&pageSize=50&sort=phone", "/api/contacts?page=5&pageSize=100&sort=name&order=desc"],
  10,
);
const searches = await timed(
  searchTerms.flatMap((q) => [`/api/contacts?q=${encodeURIComponent(q)}`, `/api/contacts?q=${encodeURIComponent(q)}&sort=name&order=asc`]),
  6,
);
const readHolds = await holds(server);
const readHold = readHolds.longestMs;
await server.stop();

const f = (n: number) => Math.round(n).toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const accounted = job.created + job.updated + job.duplicates + job.invalid;
console.log(`\nrows                 ${f(N)} (${DATA}, ${(csvBytes / 1e6).toFixed(1)} MB) into ${EXE ? `the executable ${EXE}` : "a server in this process"}`);
console.log(`job                  ${job.state} created ${f(job.created)} updated ${f(job.updated)} duplicates ${f(job.duplicates)} invalid ${f(job.invalid)} (sum ${f(accounted)} of ${f(job.rowsRead)} read; ${accounted === N && job.rowsRead === N ? "every row accounted" : "ROWS MISSING"})`);
console.log(`ceiling              ${f(ceiling)} phones/s validated by one core (libphonenumber-js max: parse + isValid; ${f(valid)} of ${f(sampled)} valid; ${f(ceilingBefore)} before the import, ${f(ceilingAfter)} after)`);
console.log(`importer normaliser  ${f(normalizerRate)} phones/s on one core (phones.ts PhoneNormalizer, same phones)`);
console.log(`baseline bare insert ${f(baseRate)} rows/s`);
console.log(`import end to end    ${f(rate)} rows/s (${secs.toFixed(1)} s; ${(rate / ceiling).toFixed(2)} of the ceiling, ${((rate / baseRate) * 100).toFixed(0)}% of the bare insert)`);
console.log(`transactions         ${f(run.transactions)} (${f(job.created / Math.max(1, run.transactions))} contacts created in each on average)`);
// Per row read: a job that failed part way spent its CPU on the rows it read, not on the file's.
const read = Math.max(1, job.rowsRead);
console.log(`import CPU           ${((cpu.user + cpu.system) / read).toFixed(1)} us a row on all threads (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, ${(cpu.system / 1e6).toFixed(1)} s of it in the kernel; wall ${secs.toFixed(1)} s)`);
if (run.threads) console.log("  by thread (sampled at each poll: a worker that ended counts to its last poll)");
if (run.threads)
  for (const [name, us] of [...run.threads].filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]))
    console.log(`  thread ${name.padEnd(16)} ${(us / read).toFixed(1)} us a row (${(us / 1e6).toFixed(1)} s)`);
if (run.written !== null) console.log(`written              ${(run.written / 1e9).toFixed(2)} GB by write calls (${(run.written / N / 1024).toFixed(1)} KB a row: the upload, the log, checkpoints)`);
console.log(`peak RSS             ${mb(run.peakRss)}${EXE ? ` (the executable's own, VmHWM; sampled every 10 ms: ${mb(run.sampledRss)})` : " (this process: the server and the bench)"}`);
console.log(`event loop           held at most ${run.longestHoldMs.toFixed(0)} ms at a time during the import (${run.longestBusyMs.toFixed(0)} ms of it the loop's own work); ${f(run.over50)} times over 50 ms (the server's own timer); at most ${readHold.toFixed(0)} ms during the reads (${readHolds.busyMs.toFixed(0)} own)`);
console.log(`GET pages            median ${pages.median.toFixed(1)} ms, p95 ${pages.p95.toFixed(1)} ms`);
console.log(`GET searches         median ${searches.median.toFixed(1)} ms, p95 ${searches.p95.toFixed(1)} ms`);
for (const [p, ms] of [...pages.worst, ...searches.worst].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  slowest ${ms.toFixed(1)} ms ${decodeURIComponent(p)}`);
console.log(`load average         ${load()} (1, 5, 15 min; ${navigator.hardwareConcurrency} cores)`);

if (LIMIT_MB) {
  // The same file into a new executable that may use at most LIMIT_MB (its page cache of the database included).
  const cgroup = memoryCgroup(LIMIT_MB);
  if (cgroup) {
    const limitedDir = join(work, "limited");
    mkdirSync(limitedDir);
    const limited = await executable(limitedDir, cgroup.dir);
    let outcome: string;
    try {
      const r = await importFile(limited);
      const sum = r.job.created + r.job.updated + r.job.duplicates + r.job.invalid;
      outcome = `${r.job.state} in ${r.secs.toFixed(1)} s (${f(N / r.secs)} rows/s, ${(N / r.secs / ceiling).toFixed(2)} of the ceiling), ${f(sum)} of ${f(N)} rows accounted; peak RSS ${mb(r.peakRss)}, held at most ${r.longestHoldMs.toFixed(0)} ms (${r.longestBusyMs.toFixed(0)} own work)`;
      await limited.stop();
    } catch (err) {
      outcome = `did not finish: ${(err as Error).message}`;
    }
    console.log(`memory limit         ${LIMIT_MB} MB (cgroup ${cgroup.dir}): ${outcome}; the cgroup's peak ${mb(cgroup.peak())} (with the page cache), ${f(cgroup.failed())} times it reached the limit`);
    console.log(`load average         ${load()}`);
    cgroup.remove();
  }
}
rmSync(work, { recursive: true, force: true });
process.exit(0);
