// An A/B test's start and its winner's sending, held against the event loop (issue 32 item 3):
//   bun scripts/bench/ab-start.ts [sizes=1000,10000,100000] [seconds each writing is watched=180]
// For each size: N contacts, an A/B campaign to all of them (two variants with a link and a merge field, shortened,
// a 20% test share, decided by hand), sent; then the winner picked by hand. Each phase is watched from the call to
// its outbox written (the campaign's outbox_writing cleared and the rows there), and reported with the server's
// longest event-loop hold (its own 10 ms timer measuring its lateness, read from /metrics by scripts/bench/holds.ts)
// and the part of it the loop's thread ran. Baseline in the same run: the idle server over 3 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";

const SIZES = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const WRITE_LIMIT_S = Number(process.argv[3] ?? 180);
const f = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const phoneOf = (i: number) => `+1${[212, 312, 415, 617, 713][i % 5]}${String(2_000_000 + Math.floor(i / 5)).padStart(7, "0")}`;

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-ab-"));
const owner = { email: "ab@example.com", password: "bench-password-1" };
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ADMIN_EMAIL: owner.email, ADMIN_PASSWORD: owner.password, METRICS_TOKEN: BENCH_METRICS_TOKEN }, []), () => {});
rateLimiterFor(server.ctx).enabled = false;
const db = server.ctx.db.$client;
const origin = new URL(server.ctx.config.publicUrl).origin;
const reg = (await fetch(server.url + "/api/auth/login", { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify(owner) }).then((r) => r.json())) as {
  token: string;
  user: { id: string };
};
db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [reg.user.id]);
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
await grantLicense(server.ctx, reg.user.id, "enterprise", 30);

async function api(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(server.url + path, { method, headers: { "content-type": "application/json", authorization: `Bearer ${reg.token}`, origin }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const provider = await api("/api/sms-providers", { provider: "simulator", displayName: "Bench" });
const numbers = (await api(`/api/providers/${provider.id}/available-numbers`)).numbers;
// One message a second: the engine's own work stays out of the figures; the writing is what is measured.
await api("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 1 });

const insert = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
let contacts = 0;
const writing = (id: string) => (db.query(`SELECT outbox_writing IS NOT NULL AS w FROM campaigns WHERE id = ?`).get(id) as { w: number }).w === 1;
const rows = (id: string) => (db.query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(id) as { n: number }).n;

Bun.gc(true);
const idlePhase = await holdPhase(server.url);
await Bun.sleep(3000);
const lines = [holdLine("idle, 3 s", await idlePhase.end())];

async function measure(label: string, call: () => Promise<unknown>, id: string, expected: number) {
  Bun.gc(true);
  const phase = await holdPhase(server.url);
  const t0 = performance.now();
  await call();
  while ((writing(id) || rows(id) < expected) && performance.now() - t0 < WRITE_LIMIT_S * 1000) await Bun.sleep(20);
  const s = (performance.now() - t0) / 1000;
  const line = `${holdLine(label, await phase.end())}; ${f(rows(id))} of ${f(expected)} rows in ${f(s, 2)} s`;
  lines.push(line);
  console.log(line);
}

for (const size of SIZES) {
  db.transaction(() => {
    for (; contacts < size; contacts++) insert.run(Bun.randomUUIDv7(), reg.user.id, `Guest${contacts}`, phoneOf(contacts), Date.now());
  })();
  const c = await api("/api/campaigns", {
    name: `A/B ${size}`,
    audience: { kind: "all" },
    appendOptOut: false,
    abTest: { variants: ["Hi [Name], spring sale: https://shop.example.com/a", "[Name], half off today: https://shop.example.com/b"], testPercent: 20, measure: "clicks", decideAfterHours: null },
  });
  const test = Math.round(size * 0.2);
  await measure(`A/B start, ${f(size)} recipients (${f(test)} test messages)`, () => api(`/api/campaigns/${c.id}/send`, {}), c.id, test);
  await measure(`A/B winner sent to the rest (${f(size - test)})`, () => api(`/api/campaigns/${c.id}/ab-test/winner`, { variant: "B" }), c.id, size);
  await api(`/api/campaigns/${c.id}/cancel`, {}).catch(() => undefined);
}

console.log("");
for (const line of lines) console.log(line);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
