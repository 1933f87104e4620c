// Dashboards at scale (issue 17 items 1-3):
//   bun scripts/bench/dashboards.ts [messages=1000000] [contacts=100000] [zone=America/Chicago] [days=90] [spread]
// 1. One account's history seeded by scripts/bench/seed-results.ts (1,000,000 campaign messages across 200
//    campaigns over 90 days, three sender numbers, 1% replies) plus `contacts` contacts added over the same days, 2%
//    of them opted out; the account in `zone`. `spread` spreads each campaign's messages until the next one starts,
//    so every quarter hour has messages (the worst case: in Asia/Kathmandu, a bucket per quarter hour; with
//    days=365, a year of them); then the 50th and 95th percentiles of every dashboard read (the advanced home's and the
//    dashboard's overview, the charts over 7, 30 and 90 days, the simple home's summary). Baseline, in the same
//    run: GET /api/health through the same server and client. Also: migration 0034 on these messages and contacts.
// 2. What the rollup triggers (migrations 0020, 0034, and 0038's day rows) cost the send path's writes: 50,000
//    campaign messages inserted queued, then marked sending, sent and delivered in 1,000-row transactions on the real
//    schema in memory, without the triggers, with the fine buckets', and with the day rows' too, interleaved five
//    times; the best of each in CPU time.
// 3. The same for the contacts trigger on an import's inserts (100,000 contacts).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrationJournal, migrationSql } from "../../db/migrations/embedded";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { ensureBuckets } from "../../src/results/buckets";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";
import { seedResults } from "./seed-results";
import { benchSignUp } from "./sign-up";

const MESSAGES = Number(process.argv[2] ?? 1_000_000);
const CONTACTS = Number(process.argv[3] ?? 100_000);
const ZONE = process.argv[4] ?? "America/Chicago";
const DAYS = Number(process.argv[5] ?? 90);
const SPREAD = process.argv[6] === "spread";
const RUNS = 200;
const DAY = 86_400_000;
const f = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-dashboards-"));
// Development mode: sign-up's code reaches the log, read until the account is made and dropped after.
let logs: string[] | null = [];
const server = await startServer(
  loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []),
  (line) => void logs?.push(line),
);
rateLimiterFor(server.ctx).enabled = false;
const db = server.ctx.db.$client;
const origin = new URL(server.ctx.config.publicUrl).origin;

const reg = await benchSignUp(server.url, origin, logs!, "dashboards@example.com");
logs = null;
const { token } = reg;
const userId = reg.user.id;
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
db.run("UPDATE users SET email_verified = 1, timezone = ? WHERE id = ?", [ZONE, userId]);
await grantLicense(server.ctx, userId, "enterprise", 30);

const now = Date.now();
// The account's buckets set for its zone before the seed, as its first dashboard read would have.
await ensureBuckets(server.ctx, { id: userId, timezone: ZONE });
const seeded = seedResults(db, { userId, now, messages: MESSAGES, days: DAYS, spread: SPREAD });
const insertContact = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, source, created_at) VALUES (?, ?, 'Guest', ?, ?, 'import', ?)`);
const insertConsent = db.prepare(`INSERT INTO contact_consents (id, contact_id, user_id, kind, source, text, created_at) VALUES (?, ?, ?, 'opt_out', 'provider', 'STOP', ?)`);
db.transaction(() => {
  for (let i = 0; i < CONTACTS; i++) {
    const id = Bun.randomUUIDv7();
    const at = now - Math.floor(((i * 7919) % CONTACTS) / CONTACTS * DAYS * DAY);
    insertContact.run(id, userId, `N${i}`, `+1646${String(2_000_000 + i).padStart(7, "0")}`, at);
    if (i % 50 === 0) insertConsent.run(Bun.randomUUIDv7(), id, userId, Math.min(now - 1000, at + DAY));
  }
})();
const rollupRows = (db.query(`SELECT count(*) AS n FROM message_rollups WHERE user_id = ?`).get(userId) as { n: number }).n;
console.log(
  `seeded ${f(MESSAGES)} messages across ${seeded.campaignIds.length} campaigns (+${f(seeded.replies)} replies) in ${f(seeded.ms / 1000, 1)} s, ` +
    `and ${f(CONTACTS)} contacts; the account's rollups: ${f(rollupRows)} rows`,
);
db.exec("ANALYZE");

// Migration 0034 on these messages and contacts, timed after its ADD COLUMN in transactions rolled back after: the
// prices recorded on the sent messages (without 0034's update trigger, which the database before it did not have
// and which would move each message's rollup as its price is written), then the rollups rebuilt in each account's
// buckets (an hour for this account in Chicago).
const [recordPrices, ...rebuild] = migrationSql["0034_rollups_by_quarter_hour_and_prices_at_sending"]!.split("--> statement-breakpoint").slice(1);
const timedSteps = (before: string, steps: string[]) => {
  db.exec("BEGIN");
  if (before) db.exec(before);
  const t0 = performance.now();
  for (const step of steps) db.exec(step);
  const ms = performance.now() - t0;
  db.exec("ROLLBACK");
  return ms;
};
const pricesMs = timedSteps("DROP TRIGGER message_rollups_update", [recordPrices!]);
const rebuildMs = timedSteps("DROP TRIGGER rollup_granularity_insert; DROP TRIGGER rollup_granularity_update; DROP TABLE rollup_granularity", rebuild);
console.log(
  `migration 0034 on ${f(MESSAGES + seeded.replies)} messages and ${f(CONTACTS)} contacts: ${f(pricesMs + rebuildMs)} ms ` +
    `(prices recorded on the sent messages ${f(pricesMs)} ms, rollups rebuilt ${f(rebuildMs)} ms)`,
);

const call = async (path: string) => {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}`, origin } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
  return text;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
async function timed(path: string) {
  for (let i = 0; i < 10; i++) await call(path);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await call(path);
    times.push(performance.now() - t);
  }
  return { p50: pct(times, 0.5), p95: pct(times, 0.95) };
}

const reads: [string, string][] = [
  ["baseline GET /api/health", "/api/health"],
  ["overview (homes, dashboard cards)", "/api/results/overview"],
  ["charts, 7 days", "/api/results/series?days=7"],
  ["charts, 30 days", "/api/results/series?days=30"],
  ["charts, 90 days", "/api/results/series?days=90"],
  ["simple home summary", "/api/analytics/summary"],
];
const sample = JSON.parse(await call("/api/results/series?days=90")) as { totals: { sent: number; replies: number; optOuts: number; newContacts: number } };
console.log(`90-day totals: ${f(sample.totals.sent)} sent, ${f(sample.totals.replies)} replies, ${f(sample.totals.optOuts)} opt-outs, ${f(sample.totals.newContacts)} new contacts`);
for (const [label, path] of reads) {
  const phase = await holdPhase(server.url);
  const r = await timed(path);
  console.log(`${label.padEnd(36)} p50 ${f(r.p50, 1).padStart(6)} ms   p95 ${f(r.p95, 1).padStart(6)} ms`);
  console.log(`  ${holdLine("during these reads", await phase.end())}`);
}
await server.stop();
rmSync(dataDir, { recursive: true, force: true });

// 2. The triggers' cost on the send path's writes.
const N = 50_000;
type Triggers = "none" | "fine" | "all";
function fresh(triggers: Triggers) {
  const mem = new Database(":memory:");
  mem.exec("PRAGMA foreign_keys = ON");
  for (const e of migrationJournal.entries) for (const s of migrationSql[e.tag]!.split("--> statement-breakpoint")) mem.exec(s);
  if (triggers === "none") for (const t of ["insert", "update", "delete"]) mem.exec(`DROP TRIGGER message_rollups_${t}`);
  if (triggers !== "all") for (const t of ["insert", "update", "delete"]) mem.exec(`DROP TRIGGER message_day_rollups_${t}`);
  mem.exec(`INSERT INTO users (id, email, password_hash) VALUES ('u','u@x','x')`);
  // The account's zone stored and its days known, as after its first dashboard read: UTC's 14,611 midnights of
  // 2000 to 2040 (src/results/buckets.ts), so each change of a bucket finds its day as the server's would.
  mem.exec(`WITH RECURSIVE d(q) AS (SELECT ${Date.UTC(2000, 0, 1) / 900_000} UNION ALL SELECT q + 96 FROM d WHERE q < ${Date.UTC(2040, 0, 1) / 900_000})
    INSERT INTO rollup_days (zone, quarter_hour) SELECT 'UTC', q FROM d`);
  mem.exec(`INSERT INTO rollup_granularity (user_id, quarters, zone) VALUES ('u', 4, 'UTC')`);
  mem.exec(`INSERT INTO campaigns (id, user_id, name) VALUES ('c','u','c')`);
  mem.exec(`INSERT INTO sms_providers (id, user_id, provider, display_name, credentials_encrypted) VALUES ('p','u','simulator','p','')`);
  mem.exec(`INSERT INTO phone_numbers (id, user_id, provider_id, phone_number) VALUES ('n','u','p','+14155550100')`);
  return mem;
}
function run(triggers: Triggers) {
  const mem = fresh(triggers);
  const ins = mem.prepare(`INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, phone_number_id, provider_id) VALUES (?, 'u', 'c', ?, 'Hi', 'outbound', 'queued', 'campaign', 'n', 'p')`);
  const up1 = mem.prepare(`UPDATE messages SET status = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ?`);
  const up2 = mem.prepare(`UPDATE messages SET status = 'sent', sent_at = ?, provider_message_id = ? WHERE id = ?`);
  const up3 = mem.prepare(`UPDATE messages SET status = 'delivered', delivered_at = ? WHERE id = ?`);
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i += 1000) mem.transaction(() => { for (let j = i; j < i + 1000; j++) ins.run(`m${j}`, `+1415${String(j).padStart(7, "0")}`); })();
  for (const st of [up1, up2, up3]) {
    for (let i = 0; i < N; i += 1000) {
      mem.transaction(() => {
        for (let j = i; j < i + 1000; j++) (st === up2 ? st.run(1_795_000_000_000 + j * 10, `p${j}`, `m${j}`) : st.run(1, `m${j}`));
      })();
    }
  }
  const u = process.cpuUsage(c0);
  const kept = (table: string) => mem.query(`SELECT status, sum(n) AS n FROM ${table} GROUP BY status`).all();
  const counts = triggers === "all" ? { fine: kept("message_rollups"), days: kept("message_day_rollups") } : null;
  mem.close();
  return { ms: (u.user + u.system) / 1000, counts };
}
const best = { none: Infinity, fine: Infinity, all: Infinity };
for (let r = 0; r < 5; r++) {
  for (const triggers of ["none", "fine", "all"] as const) {
    const { ms, counts } = run(triggers);
    best[triggers] = Math.min(best[triggers], ms);
    if (r === 0 && counts) console.log("kept by status, fine buckets:", JSON.stringify(counts.fine), "day rows:", JSON.stringify(counts.days));
  }
}
const plus = (ms: number) => `+${f((ms / best.none - 1) * 100, 1)}%`;
console.log(
  `send-path writes of ${f(N)} messages (insert + 3 status updates), best of 5, CPU: without the rollup triggers ${f(best.none)} ms, ` +
    `with the fine buckets' (0020, 0034) ${f(best.fine)} ms (${plus(best.fine)}), with the day rows' too (0038) ${f(best.all)} ms (${plus(best.all)})`,
);

// 3. What the contact_rollups trigger costs an import: 100,000 contacts in 10,000-row transactions.
function contactsRun(withRollups: boolean) {
  const mem = fresh("all");
  if (!withRollups) for (const t of ["insert", "update", "delete"]) mem.exec(`DROP TRIGGER contact_rollups_${t}`);
  const ins = mem.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, source, created_at) VALUES (?, 'u', 'A', ?, ?, 'import', ?)`);
  const c0 = process.cpuUsage();
  for (let i = 0; i < 100_000; i += 10_000) {
    mem.transaction(() => {
      for (let j = i; j < i + 10_000; j++) ins.run(`k${j}`, `L${j}`, `+1646${String(2_000_000 + j).padStart(7, "0")}`, 1_795_000_000_000 + j);
    })();
  }
  const u = process.cpuUsage(c0);
  mem.close();
  return (u.user + u.system) / 1000;
}
const bestContacts = { on: Infinity, off: Infinity };
for (let r = 0; r < 5; r++) {
  bestContacts.off = Math.min(bestContacts.off, contactsRun(false));
  bestContacts.on = Math.min(bestContacts.on, contactsRun(true));
}
console.log(`100,000 contact inserts, best of 5, CPU: without the contact_rollups trigger ${f(bestContacts.off)} ms, with ${f(bestContacts.on)} ms (+${f((bestContacts.on / bestContacts.off - 1) * 100, 1)}%)`);
process.exit(0);
