// Contact import benchmark (issues 4 and 17): bun scripts/bench/import.ts [rows=1000000]
// (where the writer's time goes: bun --cpu-prof-md --cpu-prof-dir=/tmp scripts/bench/import.ts)
// Generates a CSV of contacts as people have them (import-data.ts): random valid US and Canadian numbers and some UK,
// German and Mexican ones, in a dozen formats; a different last name on every row (accents, apostrophes, particles);
// an email on every row; four custom fields; ~2% invalid phones and ~3% duplicates (an earlier row's number, often
// written another way). In the same run it measures the ceiling, one core of libphonenumber-js validating the file's
// phones with the calls the importer makes (parsePhoneNumberFromString + isValid), and a bare prepared
// bun:sqlite insert baseline; then imports the file through POST /api/contacts/import/csv on a real server and
// times GET /api/contacts pages and searches (name, phone, email) over the result.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { loadConfig } from "../../src/config";
import { beginBulkWrites } from "../../src/contacts/importer";
import { normalizePhone, PhoneNormalizer } from "../../src/contacts/phones";
import { grantLicense } from "../../src/licenses/licenses";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { startServer } from "../../src/server";
import { diverseContacts, MAPPING } from "./import-data";

const N = Number(process.argv[2] ?? 1_000_000);

console.log(`generating ${N.toLocaleString()} rows...`);
let t0 = performance.now();
const { lines, rows } = diverseContacts(N);
let csv: Blob | null = new Blob([lines.join("\r\n") + "\r\n"]);
lines.length = 0;
console.log(`csv: ${(csv.size / 1e6).toFixed(1)} MB (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

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
const bdb = openDatabase(join(baseDir, "b.db")).$client;
const owner = Bun.randomUUIDv7();
bdb.run("INSERT INTO users (id, email) VALUES (?, 'owner@example.com')", [owner]);
const endBulk = beginBulkWrites(bdb);
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
endBulk();
bdb.close();
rmSync(baseDir, { recursive: true, force: true });

// Searches people make, some drawn from the file: a whole last name, a fragment with an accent, a first name,
// two letters, an area code and exchange as typed, a number's last seven digits, a whole number, an email's
// local part, a mail provider.
const probe = rows[Math.floor(N * 0.37)]!;
const probePhone = normalizePhone(rows.find((r, i) => i > N * 0.61 && normalizePhone(r[3], "US")?.startsWith("+1"))![3], "US")!;
const searchTerms = [probe[1], "Müll", "José", "Jo", probePhone.slice(-7), `(${probePhone.slice(2, 5)}) ${probePhone.slice(5, 8)}`, probePhone, probe[2].split("@")[0]!, "gmail"];
rows.length = 0;
Bun.gc(true);

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-"));
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir }, []), () => {});
rateLimiterFor(server.ctx).enabled = false;
const api = async (path: string, init: RequestInit & { token?: string } = {}) => {
  // Sign-up carries no token: it comes from the appliance's own origin, as a browser's would (src/http/csrf.ts).
  const origin = new URL(server.ctx.config.publicUrl).origin;
  const res = await fetch(server.url + path, { ...init, headers: { origin, ...(init.headers as object), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } });
  return { status: res.status, body: (await res.json()) as any };
};
const reg = await api("/api/auth/register", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ email: "bench@example.com", password: "bench-password-1", confirmPassword: "bench-password-1", firstName: "B", lastName: "M" }),
});
const token = reg.body.token as string;
server.ctx.db.$client.run("UPDATE users SET email_verified = 1 WHERE id = ?", [reg.body.user.id]);
grantLicense(server.ctx, reg.body.user.id, "enterprise", 30);

let peakRss = process.memoryUsage.rss();
// The server runs in this process: a 10 ms timer that fires late shows how long the import held the event loop (to
// within those 10 ms).
const SAMPLE_MS = 10;
let tick = performance.now();
let longestPause = 0;
let pausesOver50 = 0;
const sampler = setInterval(() => {
  const now = performance.now();
  longestPause = Math.max(longestPause, now - tick - SAMPLE_MS);
  if (now - tick - SAMPLE_MS > 50) pausesOver50++;
  tick = now;
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, SAMPLE_MS);
t0 = performance.now();
const cpuAtStart = process.cpuUsage();
const query = `?country=US&mapping=${encodeURIComponent(JSON.stringify(MAPPING))}`;
const start = await api(`/api/contacts/import/csv${query}`, { method: "POST", token, headers: { "content-type": "text/csv" }, body: csv });
if (start.status !== 202) throw new Error(`upload failed: ${start.status} ${JSON.stringify(start.body)}`);
csv = null; // the client's copy: the server has the upload now
let job: any;
for (;;) {
  job = (await api(`/api/contacts/import/${start.body.id}`, { token })).body;
  if (job.state === "done" || job.state === "failed") break;
  await Bun.sleep(100);
}
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
clearInterval(sampler);
const rate = N / secs;
// Each of the import's transactions appends one event with its counts.
const transactions = (
  server.ctx.db.$client.query("SELECT count(*) AS n FROM events WHERE subject_kind = 'import' AND subject_id = ?").get(start.body.id) as { n: number }
).n;
const ceilingAfter = validationRate();
const ceiling = (ceilingBefore + ceilingAfter) / 2;
sample.length = 0;

async function timed(paths: string[], rounds: number) {
  const ms: number[] = [];
  const worst = new Map<string, number>();
  for (let r = 0; r < rounds; r++)
    for (const p of paths) {
      const a = performance.now();
      const res = await api(p, { token });
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
      const took = performance.now() - a;
      ms.push(took);
      if (r > 0) worst.set(p, Math.max(worst.get(p) ?? 0, took));
    }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]!, worst };
}
const pages = await timed(
  ["/api/contacts?page=1&pageSize=50", "/api/contacts?page=20&pageSize=50", "/api/contacts?page=3&pageSize=50&sort=name&order=asc", "/api/contacts?page=2&pageSize=50&sort=phone", "/api/contacts?page=5&pageSize=100&sort=name&order=desc"],
  10,
);
const searches = await timed(
  searchTerms.flatMap((q) => [`/api/contacts?q=${encodeURIComponent(q)}`, `/api/contacts?q=${encodeURIComponent(q)}&sort=name&order=asc`]),
  6,
);

const f = (n: number) => Math.round(n).toLocaleString("en-US");
const load = loadavg().map((l) => l.toFixed(2)).join(" ");
console.log(`\nrows                 ${f(N)}`);
console.log(`job                  ${job.state} created ${f(job.created)} updated ${f(job.updated)} duplicates ${f(job.duplicates)} invalid ${f(job.invalid)} (sum ${f(job.created + job.updated + job.duplicates + job.invalid)} of ${f(job.rowsRead)} read)`);
console.log(`ceiling              ${f(ceiling)} phones/s validated by one core (libphonenumber-js max: parse + isValid; ${f(valid)} of ${f(sampled)} valid; ${f(ceilingBefore)} before the import, ${f(ceilingAfter)} after)`);
console.log(`importer normaliser  ${f(normalizerRate)} phones/s on one core (phones.ts PhoneNormalizer, same phones)`);
console.log(`baseline bare insert ${f(baseRate)} rows/s`);
console.log(`import end to end    ${f(rate)} rows/s (${secs.toFixed(1)} s; ${(rate / ceiling).toFixed(2)} of the ceiling, ${((rate / baseRate) * 100).toFixed(0)}% of the bare insert)`);
console.log(`transactions         ${f(transactions)} (${f(job.created / Math.max(1, transactions))} contacts created in each on average)`);
console.log(`import CPU           ${((cpu.user + cpu.system) / N).toFixed(1)} us a row on all threads (${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, ${(cpu.system / 1e6).toFixed(1)} s of it in the kernel; wall ${secs.toFixed(1)} s)`);
console.log(`peak RSS             ${(peakRss / 1048576).toFixed(0)} MB`);
console.log(`event loop           held at most ${longestPause.toFixed(0)} ms at a time during the import; ${f(pausesOver50)} times over 50 ms`);
console.log(`GET pages            median ${pages.median.toFixed(1)} ms, p95 ${pages.p95.toFixed(1)} ms`);
console.log(`GET searches         median ${searches.median.toFixed(1)} ms, p95 ${searches.p95.toFixed(1)} ms`);
for (const [p, ms] of [...pages.worst, ...searches.worst].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  slowest ${ms.toFixed(1)} ms ${decodeURIComponent(p)}`);
console.log(`load average         ${load} (1, 5, 15 min; ${navigator.hardwareConcurrency} cores)`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
