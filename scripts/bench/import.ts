// Contact import benchmark (issue 4): bun scripts/bench/import.ts [rows=1000000]
// Generates a CSV of realistic, partly messy phone numbers (several formats, ~2% invalid, ~3% duplicates),
// measures a bare prepared bun:sqlite insert baseline, imports the file through POST /api/contacts/import/csv
// on a real server, and times GET /api/contacts pages and searches over the result.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { loadConfig } from "../../src/config";
import { beginBulkWrites } from "../../src/contacts/importer";
import { grantLicense } from "../../src/licenses/licenses";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { startServer } from "../../src/server";

const N = Number(process.argv[2] ?? 1_000_000);
const FIRST = ["James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "David", "Maria", "José", "Wei", "Aisha", "Olga"];
const LAST = ["Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Nguyen", "Kim", "O'Brien"];
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;

const AREAS = [201,202,203,205,206,207,208,209,210,212,213,214,215,216,217,218,219,224,225,228,229,231,234,239,240,248,251,252,253,254,256,260,262,267,269,270,272,276,281,301,302,303,304,305,307,308,309,310,312,313,314,315,316,317,318,319,320,321,323,325,330,331,334,336,337,339,346,347,351,352,360,361,385,386,401,402,404,405,406,407,408,409,410,412,413,414,415,417,419,423,424,425,430,432,434,435,440,442,443,458,469,470,475,478,479,480,484,501,502,503,504,505,507,508,509,510,512,513,515,516,517,518,520,530,531,534,539,540,541,551,559,561,562,563,567,570,571,573,574,575,580,585,586,601,602,603,605,606,607,608,609,610,612,614,615,616,617,618,619,620,623,626,628,629,630,631,636,641,646,650,651,657,660,661,662,667,669,678,681,682,701,702,703,704,706,707,708,712,713,714,715,716,717,718,719,720,724,725,727,731,732,734,737,740,747,754,757,760,762,763,765,769,770,772,773,774,775,779,781,785,786,801,802,803,804,805,806,808,810,812,813,814,815,816,817,818,828,830,831,832,843,845,847,848,850,856,857,858,859,860,862,863,864,865,870,872,878,901,903,904,906,907,908,909,910,912,913,914,915,916,917,918,919,920,925,928,929,931,936,937,940,941,947,949,951,952,954,956,959,970,971,972,973,978,979,980,984,985,989];
function phone(i: number): string {
  // unique per i: area code from a list of real US area codes, exchange 200-999, line 0000-9999
  const area = AREAS[i % AREAS.length]!;
  const rest = Math.floor(i / AREAS.length);
  const ex = 200 + (rest % 800);
  const line = String(Math.floor(rest / 800) % 10000).padStart(4, "0");
  if (rand() < 0.02) return pick(["12345", "555", "n/a", "+1 (000) 000-0000", "call me"]);
  switch (i % 6) {
    case 0: return `(${area}) ${ex}-${line}`;
    case 1: return `+1${area}${ex}${line}`;
    case 2: return `${area}.${ex}.${line}`;
    case 3: return `1-${area}-${ex}-${line}`;
    case 4: return `${area} ${ex} ${line}`;
    default: return `${area}${ex}${line}`;
  }
}

console.log(`generating ${N.toLocaleString()} rows...`);
const lines: string[] = ["first_name,last_name,email,phone"];
const rows: [string, string, string | null, string][] = [];
for (let i = 0; i < N; i++) {
  const src = rand() < 0.03 && i > 0 ? Math.floor(rand() * i) : i;
  const f = pick(FIRST), l = pick(LAST);
  const p = phone(src);
  const email = rand() < 0.6 ? `${f.toLowerCase()}.${i}@example.com` : "";
  rows.push([f, l, email || null, p]);
  lines.push(`${f},"${l}",${email},${p.includes(",") ? `"${p}"` : p}`);
}
let csv: Blob | null = new Blob([lines.join("\r\n") + "\r\n"]);
lines.length = 0;
console.log(`csv: ${(csv.size / 1e6).toFixed(1)} MB`);

// Baseline: the same rows (names, email, phone as written in the file) into the same table, created by the
// app's migrations with all its indexes and triggers, on a connection with the app's pragmas and the same bulk
// settings the import uses; one bare prepared statement, 10,000-row transactions. Source 'import' keeps the
// search-index trigger out, as for imported rows: indexing is part of the import's work, not of a bare insert.
const baseDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-base-"));
const bdb = openDatabase(join(baseDir, "b.db")).$client;
const owner = Bun.randomUUIDv7();
bdb.run("INSERT INTO users (id, email) VALUES (?, 'owner@example.com')", [owner]);
const endBulk = beginBulkWrites(bdb);
const ins = bdb.prepare(
  "INSERT OR IGNORE INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, ?, ?, ?, ?, ?, 'import')",
);
let t0 = performance.now();
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
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
t0 = performance.now();
const start = await api("/api/contacts/import/csv", { method: "POST", token, headers: { "content-type": "text/csv" }, body: csv });
if (start.status !== 202) throw new Error(`upload failed: ${start.status} ${JSON.stringify(start.body)}`);
csv = null; // the client's copy: the server has the upload now
let job: any;
for (;;) {
  job = (await api(`/api/contacts/import/${start.body.id}`, { token })).body;
  if (job.state === "done" || job.state === "failed") break;
  await Bun.sleep(100);
}
const secs = (performance.now() - t0) / 1000;
clearInterval(sampler);
const rate = N / secs;

async function timed(paths: string[], rounds: number) {
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) for (const p of paths) {
    const a = performance.now();
    const res = await api(p, { token });
    if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
    ms.push(performance.now() - a);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]! };
}
const pages = await timed(["/api/contacts?page=1&pageSize=50", "/api/contacts?page=20&pageSize=50", "/api/contacts?page=3&pageSize=50&sort=name&order=asc", "/api/contacts?page=2&pageSize=50&sort=phone"], 10);
const searches = await timed(
  ["/api/contacts?q=" + encodeURIComponent("(415) 222"), "/api/contacts?q=olga.12", "/api/contacts?q=4152221", "/api/contacts?q=mary.99", "/api/contacts?q=" + encodeURIComponent("212-300-0"), "/api/contacts?q=Aisha"],
  8,
);

const f = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`\nrows                 ${f(N)}`);
console.log(`job                  ${job.state} created ${f(job.created)} updated ${f(job.updated)} duplicates ${f(job.duplicates)} invalid ${f(job.invalid)} (sum ${f(job.created + job.updated + job.duplicates + job.invalid)} of ${f(job.rowsRead)} read)`);
console.log(`baseline bare insert ${f(baseRate)} rows/s`);
console.log(`import end to end    ${f(rate)} rows/s (${secs.toFixed(1)} s, ${((rate / baseRate) * 100).toFixed(0)}% of baseline)`);
console.log(`peak RSS             ${(peakRss / 1048576).toFixed(0)} MB`);
console.log(`GET pages            median ${pages.median.toFixed(1)} ms, p95 ${pages.p95.toFixed(1)} ms`);
console.log(`GET searches         median ${searches.median.toFixed(1)} ms, p95 ${searches.p95.toFixed(1)} ms`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
