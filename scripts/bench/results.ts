// Results at scale (issue 17): bun scripts/bench/results.ts [messages=1000000] [recipients=1000000]
// 1. One account's history seeded by scripts/bench/seed-results.ts (1,000,000 campaign messages across 200
//    campaigns over 90 days), then the 95th percentile of: the campaigns list, a Sent Messages page (plain, with a
//    search, with a phone search, with a date filter, by most recipients), its CSV export, GET /api/stats and
//    GET /api/campaign-logs. Baseline, in the same run: GET /api/health through the same server and client.
// 2. The longest /api/health wait (calls one after another from another process) while a campaign to `recipients`
//    contacts is started and its outbox written, against the longest wait on the idle server in the same run; the
//    server's own longest event-loop stall meanwhile (a wait longer than that is the machine's scheduling of the
//    calling process, not the server); the rows queued per second against the rate the same run wrote the contacts
//    at; the write-ahead log's largest size; the load average before and after.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";
import { seedResults } from "./seed-results";
import { benchSignUp } from "./sign-up";

const MESSAGES = Number(process.argv[2] ?? 1_000_000);
const RECIPIENTS = Number(process.argv[3] ?? 1_000_000);
const RUNS = 200;
const PROBE_GAP_MS = 5;
const f = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-results-"));
// Development mode: sign-up's code reaches the log (its last lines kept: the accounts are made at the start of each part).
const logs: string[] = [];
const server = await startServer(
  loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []),
  (line) => void (logs.push(line) > 200 && logs.shift()),
);
rateLimiterFor(server.ctx).enabled = false;
const db = server.ctx.db.$client;
const origin = new URL(server.ctx.config.publicUrl).origin;

async function account(email: string) {
  const reg = await benchSignUp(server.url, origin, logs, email);
  db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0, timezone = 'America/New_York' WHERE id = ?", [reg.user.id]);
  await grantLicense(server.ctx, reg.user.id, "enterprise", 30);
  return { token: reg.token, userId: reg.user.id };
}
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");

const call = async (token: string, path: string, body?: unknown) => {
  const res = await fetch(server.url + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
  return text;
};

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function p95(token: string, path: string) {
  for (let i = 0; i < 10; i++) await call(token, path);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await call(token, path);
    times.push(performance.now() - t0);
  }
  return pct(times, 0.95);
}

// 1. Reads on a million messages.
const reader = await account("results@example.com");
const seeded = seedResults(db, { userId: reader.userId, now: Date.now(), messages: MESSAGES });
console.log(`seeded ${f(MESSAGES)} messages across ${seeded.campaignIds.length} campaigns (+${f(seeded.replies)} replies) in ${f(seeded.ms / 1000, 1)} s`);
db.exec("ANALYZE");

const today = new Date(Date.now() - 5 * 3_600_000).toISOString().slice(0, 10);
const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
const aPhone = (db.query(`SELECT phone FROM messages WHERE campaign_id = ? LIMIT 1`).get(seeded.campaignIds[100]!) as { phone: string }).phone;
const reads: [string, string][] = [
  ["campaigns list (page 1 of 20)", "/api/campaigns?type=sms&page=1&pageSize=20"],
  ["Sent Messages page, newest", "/api/campaigns?type=sms&sent=true&sort=newest&page=1&pageSize=20"],
  ["Sent Messages page 5, most recipients", "/api/campaigns?type=sms&sent=true&sort=recipients&page=5&pageSize=20"],
  ["Sent Messages, search 'Weekend'", "/api/campaigns?type=sms&sent=true&q=Weekend&page=1&pageSize=20"],
  ["Sent Messages, search a phone", `/api/campaigns?type=sms&sent=true&q=${encodeURIComponent(aPhone)}&page=1&pageSize=20`],
  ["Sent Messages, last 7 days", "/api/campaigns?type=sms&sent=true&range=7d&page=1&pageSize=20"],
  ["Sent Messages, custom 30 days", `/api/campaigns?type=sms&sent=true&range=custom&from=${monthAgo}&to=${today}&page=1&pageSize=20`],
  ["dashboards: overview (the homes' and /dashboard's cards)", "/api/results/overview"],
  ["dashboards: charts, 7 days", "/api/results/series?days=7"],
  ["dashboards: charts, 30 days", "/api/results/series?days=30"],
  ["dashboards: charts, 90 days", "/api/results/series?days=90"],
  ["GET /api/stats", "/api/stats"],
  ["GET /api/campaign-logs (newest 50)", "/api/campaign-logs?pageSize=50"],
  ["GET /api/campaign-logs (one campaign, failed)", `/api/campaign-logs?campaignId=${seeded.campaignIds[0]}&status=failed&pageSize=50`],
  ["CSV export of the history (200 campaigns)", "/api/campaigns/export.csv?type=sms&sent=true"],
];
const base = await p95(reader.token, "/api/health");
console.log(`\n95th percentile of ${RUNS} sequential calls (baseline GET /api/health: ${f(base, 2)} ms)`);
for (const [label, path] of reads) {
  const phase = await holdPhase(server.url);
  const ms = await p95(reader.token, path);
  console.log(`  ${label.padEnd(58)} ${f(ms, 2).padStart(8)} ms  ${f(ms / base, 1).padStart(6)}x baseline  ${ms < 50 ? "< 50 ms" : "OVER 50 ms"}`);
  console.log(`    ${holdLine("during these reads", await phase.end())}`);
}

// 2. /api/health while a campaign to a million contacts starts.
const sender = await account("sender@example.com");
const insert = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
let t0 = performance.now();
for (let i = 0; i < RECIPIENTS; i += 50_000) {
  db.transaction(() => {
    for (let j = i; j < Math.min(RECIPIENTS, i + 50_000); j++) insert.run(Bun.randomUUIDv7(), sender.userId, `Guest${j}`, `+1${[212, 312, 415, 617, 713][j % 5]}${String(2_000_000 + Math.floor(j / 5)).padStart(7, "0")}`, Date.now());
  })();
}
const contactsRate = RECIPIENTS / ((performance.now() - t0) / 1000);
console.log(`\n${f(RECIPIENTS)} contacts written in ${f(RECIPIENTS / contactsRate, 1)} s (${f(contactsRate)} rows/s, one prepared insert in 50,000-row transactions)`);
const provider = JSON.parse(await call(sender.token, "/api/sms-providers", { provider: "simulator", displayName: "Bench" }));
const numbers = JSON.parse(await call(sender.token, `/api/providers/${provider.id}/available-numbers`)).numbers;
// A number at 10 messages a second: the engine sends as it would, alongside the writing.
await call(sender.token, "/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 10 });
const campaign = JSON.parse(await call(sender.token, "/api/campaigns", { name: "Million", content: "Hi [Name], weekend sale: 20% off everything", audience: { kind: "all" } }));

/**
 * Health calls one after another from another process (its own event loop, so a wait is the server's, not this
 * script's), until stdin closes; answers each call's wait and the part of it the caller spent waiting for a CPU, in ms.
 * A pause of PROBE_GAP_MS between calls: called back to back, the caller was the busiest process on the machine
 * after the server (150,000 calls during a start), taking the CPU the server waited for; a stall longer than the
 * pause still falls on a call.
 */
function healthProber() {
  const code = `const waits = []; let open = true;
    const queued = () => Number(require("fs").readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1]) / 1e6;
    (async () => { for await (const _ of Bun.stdin.stream()) {} open = false; })();
    while (open) { const t = performance.now(), q = queued(); const r = await fetch(${JSON.stringify(server.url + "/api/health")}); await r.arrayBuffer(); waits.push([performance.now() - t, queued() - q]); await Bun.sleep(${PROBE_GAP_MS}); }
    console.log(JSON.stringify(waits));`;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdin: "pipe", stdout: "pipe" });
  return async () => {
    proc.stdin.end();
    return JSON.parse(await new Response(proc.stdout).text()) as [wait: number, queued: number][];
  };
}
const writing = () => (db.query(`SELECT outbox_writing IS NOT NULL AS w FROM campaigns WHERE id = ?`).get(campaign.id) as { w: number }).w === 1;

/**
 * This thread's time on a CPU and waiting for one, in ms (Linux's schedstat): what of a stall was its own work and
 * what was the machine's other processes holding both cores.
 */
const schedstat = () => {
  const [cpu, queued] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ").map(Number);
  return { cpu: cpu! / 1e6, queued: queued! / 1e6 };
};
// The server's event loop: a 2 ms timer's lateness is how long the loop was held. The heap's size on each side of
// the longest stall tells a collection of this process's garbage (the seeding's and the reads' too: the server runs
// in this process) from the server's own work.
type Stall = { ms: number; cpu: number; queued: number; heapBefore: number; heapAfter: number };
const noStall = (): Stall => ({ ms: 0, cpu: 0, queued: 0, heapBefore: 0, heapAfter: 0 });
let stall = noStall();
/** Every stall over 50 ms, with when it began (ms after the send was asked for) and the same breakdown. */
let over50: (Stall & { at: number })[] = [];
let startedAt = 0;
let tick = { at: performance.now(), heap: process.memoryUsage().heapUsed, ...schedstat() };
const loopTimer = setInterval(() => {
  const now = { at: performance.now(), heap: process.memoryUsage().heapUsed, ...schedstat() };
  const held = now.at - tick.at - 2;
  const seen = { ms: held, cpu: now.cpu - tick.cpu, queued: now.queued - tick.queued, heapBefore: tick.heap, heapAfter: now.heap };
  if (held > 50) over50.push({ ...seen, at: tick.at - startedAt });
  if (held > stall.ms) stall = seen;
  tick = now;
}, 2);

// Baseline: health calls on the same server, idle, for five seconds.
let stopProbe = healthProber();
await Bun.sleep(5_000);
const idleCalls = await stopProbe();
const idle = idleCalls.map(([ms]) => ms);
const idleStall = stall.ms;

// The log's file keeps the size of its longest run: emptied here, its size afterwards is the most the start made it hold.
db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
const loadBefore = loadavg();
stall = noStall();
over50 = [];
stopProbe = healthProber();
await Bun.sleep(500);
const startPhase = await holdPhase(server.url);
t0 = performance.now();
startedAt = t0;
const sendAnswered = await call(sender.token, `/api/campaigns/${campaign.id}/send`, {}).then(() => performance.now() - t0);
while (writing()) await Bun.sleep(20);
const writeSeconds = (performance.now() - t0) / 1000;
const startHeld = await startPhase.end();
const duringCalls = await stopProbe();
const during = duringCalls.map(([ms]) => ms);
// The longest wait once the calling process's own time waiting for a CPU is taken out of each.
const duringServed = Math.max(...duringCalls.map(([ms, queued]) => ms - queued));
clearInterval(loopTimer);
const loadAfter = loadavg();
const walBytes = statSync(join(dataDir, "smsdesk.db-wal")).size;
const queued = (db.query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(campaign.id) as { n: number }).n;

const loads = (l: number[]) => l.map((n) => f(n, 2)).join(" ");
console.log(`campaign to ${f(RECIPIENTS)} contacts (load average ${loads(loadBefore)} before, ${loads(loadAfter)} after):`);
console.log(`  send answered in ${f(sendAnswered, 1)} ms; ${f(queued)} rows queued in ${f(writeSeconds, 1)} s (${f(queued / writeSeconds)} rows/s, ${f(queued / writeSeconds / contactsRate, 2)}x the contacts' insert rate)`);
console.log(`  /api/health during the start: ${f(during.length)} calls, longest wait ${f(Math.max(...during), 2)} ms, p99 ${f(pct(during, 0.99), 2)} ms, median ${f(pct(during, 0.5), 2)} ms ${Math.max(...during) < 50 ? "(< 50 ms)" : "(OVER 50 ms)"}`);
console.log(`  baseline, ${f(idle.length)} calls on the idle server: longest wait ${f(Math.max(...idle), 2)} ms, p99 ${f(pct(idle, 0.99), 2)} ms, median ${f(pct(idle, 0.5), 2)} ms; ratio of longest waits ${f(Math.max(...during) / Math.max(...idle), 1)}x`);
console.log(`  the longest wait during the start less the calling process's own wait for a CPU: ${f(duringServed, 2)} ms ${duringServed < 50 ? "(< 50 ms)" : "(OVER 50 ms)"}`);
console.log(`  the server's event loop during the start: longest stall ${f(stall.ms, 1)} ms (idle: ${f(idleStall, 1)} ms), of which ${f(stall.cpu, 1)} ms its own work and ${f(stall.queued, 1)} ms waiting for a CPU; the write-ahead log at most ${f(walBytes / 1e6, 1)} MB`);
console.log(`  the JS heap ${f(stall.heapBefore / 1e6)} MB before the longest stall, ${f(stall.heapAfter / 1e6)} MB after; stalls over 50 ms: ${over50.length}`);
console.log(`  ${holdLine("during the start (its own figure)", startHeld)}`);
for (const o of over50) {
  console.log(`    at ${f(o.at / 1000, 1)} s: ${f(o.ms, 1)} ms, ${f(o.cpu, 1)} ms its own work, ${f(o.queued, 1)} ms waiting for a CPU, heap ${f(o.heapBefore / 1e6)} -> ${f(o.heapAfter / 1e6)} MB`);
}

await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
