// Campaign start and draft holds (issue 29 item 5):
//   bun scripts/bench/campaign-start.ts [contacts=1000000] [typed=100000] [seconds each outbox is watched=120]
// The server's longest event-loop hold (its own timer, read from /metrics by scripts/bench/holds.ts) while: a draft to `typed` numbers
// typed in is created (POST /api/campaigns), read back (GET), edited (PUT) and sent; a draft to all `contacts` is
// created and sent; each outbox watched being written to its end (or for the time given), with its rows per second.
// Baseline in the same run: the longest hold over 3 s of the idle server. Each hold is also given as the part of it
// the loop's thread ran (on 2 shared cores much of a hold can be the wait for a CPU), with the load average.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";

const CONTACTS = Number(process.argv[2] ?? 1_000_000);
const TYPED = Number(process.argv[3] ?? 100_000);
/** How long each outbox is watched being written (a loaded machine writes a million rows in minutes). */
const WRITE_LIMIT_S = Number(process.argv[4] ?? 120);
const f = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const phoneOf = (i: number) => `+1${[212, 312, 415, 617, 713][i % 5]}${String(2_000_000 + Math.floor(i / 5)).padStart(7, "0")}`;

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-start-"));
// The owner account the server creates at its first start, signed in (a sign-up now waits for an emailed code).
const owner = { email: "start@example.com", password: "bench-password-1" };
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ADMIN_EMAIL: owner.email, ADMIN_PASSWORD: owner.password, METRICS_TOKEN: BENCH_METRICS_TOKEN }, []), () => {});
rateLimiterFor(server.ctx).enabled = false;
const db = server.ctx.db.$client;
const origin = new URL(server.ctx.config.publicUrl).origin;
const reg = (await fetch(server.url + "/api/auth/login", {
  method: "POST",
  headers: { "content-type": "application/json", origin },
  body: JSON.stringify(owner),
}).then((r) => r.json())) as { token: string; user: { id: string } };
const token = reg.token;
db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [reg.user.id]);
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
await grantLicense(server.ctx, reg.user.id, "enterprise", 30);

async function api(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(server.url + path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin },
    // A body given as text is sent as is: the bench serialises the large ones before a phase, as its own work on
    // this thread (the server's) would count in the server's holds.
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const insert = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
for (let i = 0; i < CONTACTS; i += 50_000) {
  db.transaction(() => {
    for (let j = i; j < Math.min(CONTACTS, i + 50_000); j++) insert.run(Bun.randomUUIDv7(), reg.user.id, `Guest${j}`, phoneOf(j), Date.now());
  })();
}
const provider = await api("/api/sms-providers", { provider: "simulator", displayName: "Bench" });
const numbers = (await api(`/api/providers/${provider.id}/available-numbers`)).numbers;
// A number at 10 messages a second: the engine sends as it would, alongside the writing.
await api("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 10 });
const writing = (id: string) => (db.query(`SELECT outbox_writing IS NOT NULL AS w FROM campaigns WHERE id = ?`).get(id) as { w: number }).w === 1;

Bun.gc(true);
const idlePhase = await holdPhase(server.url);
await Bun.sleep(3000);
const idle = await idlePhase.end();
const lines: string[] = [];
const measure = async <T>(label: string, work: () => Promise<T>) => {
  const t0 = performance.now();
  const phase = await holdPhase(server.url);
  const value = await work();
  const line = `${holdLine(label, await phase.end())}; took ${f((performance.now() - t0) / 1000, 2)} s`;
  lines.push(line);
  console.log(`  ${line}`);
  return value;
};

const typed = Array.from({ length: TYPED }, (_, i) => phoneOf(i));
const draftBody = JSON.stringify({ name: "Typed", content: "Weekend sale: 20% off", recipients: typed });
const draft = await measure(`draft to ${f(TYPED)} typed numbers (POST /api/campaigns)`, () => api("/api/campaigns", draftBody));
await measure(`the same draft read back (GET /api/campaigns/:id)`, () => api(`/api/campaigns/${draft.id}`));
const editBody = JSON.stringify({ recipients: [...typed.slice(1), phoneOf(TYPED)] });
await measure(`the same draft edited (PUT, one more number)`, () => api(`/api/campaigns/${draft.id}`, editBody, "PUT"));
const queuedOf = (id: string) => (db.query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(id) as { n: number }).n;
await measure(`its start, outbox written (${f(TYPED)} rows; ${WRITE_LIMIT_S} s at most)`, async () => {
  const t0 = performance.now();
  await api(`/api/campaigns/${draft.id}/send`, {});
  while (writing(draft.id) && performance.now() - t0 < WRITE_LIMIT_S * 1000) await Bun.sleep(20);
  const s = (performance.now() - t0) / 1000;
  console.log(`  ${f(queuedOf(draft.id))} rows written in ${f(s, 1)} s (${f(queuedOf(draft.id) / s)} rows/s)`);
});
const all = await measure(`draft to all ${f(CONTACTS)} contacts`, () => api("/api/campaigns", { name: "All", content: "Hi [Name], weekend sale: 20% off everything", audience: { kind: "all" } }));
await measure(`its start, outbox written (${f(CONTACTS)} rows; ${WRITE_LIMIT_S} s at most)`, async () => {
  const t0 = performance.now();
  await api(`/api/campaigns/${all.id}/send`, {});
  while (writing(all.id) && performance.now() - t0 < WRITE_LIMIT_S * 1000) await Bun.sleep(20);
  const s = (performance.now() - t0) / 1000;
  console.log(`  ${f(queuedOf(all.id))} rows written in ${f(s, 1)} s (${f(queuedOf(all.id) / s)} rows/s)`);
});

console.log(`\n${holdLine("idle, 3 s", idle)}`);
for (const line of lines) console.log(`  ${line}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
