// Campaign start and draft holds (issue 29 item 5), against the built executable (bun scripts/build.ts first):
//   bun scripts/bench/campaign-start.ts [contacts=1000000] [typed=100000] [seconds each outbox is watched=120]
// The server's longest event-loop hold (its own timer, read from /metrics by scripts/bench/holds.ts) while: a draft to
// `typed` numbers typed in is created (POST /api/campaigns), read back (GET), edited (PUT) and sent; a draft to all
// `contacts` is created, its delivery preview asked for, and it is sent; each outbox watched being written to its end
// (or for the time given), with its rows per second. Baseline in the same run: the longest hold over 3 s of the idle
// server. Each hold is also given as the part of it the loop's thread ran (on 2 shared cores much of a hold can be
// the wait for a CPU), with the load average.
// The data folder is made in this process (the owner, the contacts, a simulator number at 10/s); the server then runs
// in its own (dist/smsdesk, or SMSDESK_CMD, e.g. "bun src/main.ts"), so the bench's own work (1.7 MB bodies made and
// answers parsed) is not counted in the server's holds; the bench reads the outbox's progress on its own connection.
import { Database } from "bun:sqlite";
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
const root = join(import.meta.dir, "..", "..");
const command = process.env.SMSDESK_CMD?.split(" ") ?? [join(root, "dist", "smsdesk")];

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-start-"));
// The owner account the server creates at its first start, signed in (a sign-up now waits for an emailed code).
const owner = { email: "start@example.com", password: "bench-password-1" };
{
  const setup = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, ADMIN_EMAIL: owner.email, ADMIN_PASSWORD: owner.password }, []), () => {});
  rateLimiterFor(setup.ctx).enabled = false;
  const db = setup.ctx.db.$client;
  const userId = (db.query(`SELECT id FROM users WHERE email = ?`).get(owner.email) as { id: string }).id;
  db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [userId]);
  db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
  await grantLicense(setup.ctx, userId, "enterprise", 30);
  const insert = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
  for (let i = 0; i < CONTACTS; i += 50_000) {
    db.transaction(() => {
      for (let j = i; j < Math.min(CONTACTS, i + 50_000); j++) insert.run(Bun.randomUUIDv7(), userId, `Guest${j}`, phoneOf(j), Date.now());
    })();
  }
  await setup.stop();
}

const port = await (async () => {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const p = s.port!;
  await s.stop(true);
  return p;
})();
const base = `http://127.0.0.1:${port}`;
const proc = Bun.spawn(command, {
  env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DATA_DIR: dataDir, METRICS_TOKEN: BENCH_METRICS_TOKEN },
  stdout: "ignore",
  stderr: "inherit",
});
// A failed run leaves no server behind.
process.on("exit", () => proc.kill());
for (const began = performance.now(); ; await Bun.sleep(20)) {
  if (await fetch(`${base}/api/health`).then((r) => r.status === 200, () => false)) break;
  if (performance.now() - began > 60_000) throw new Error(`${command.join(" ")} did not answer within 60 s`);
}
const reg = (await fetch(base + "/api/auth/login", {
  method: "POST",
  headers: { "content-type": "application/json", origin: base },
  body: JSON.stringify(owner),
}).then((r) => r.json())) as { token: string; user: { id: string } };
const token = reg.token;
// The outbox's progress, read on the bench's own connection (the server's write-ahead log lets it read alongside).
const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });

async function api(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: base },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const provider = await api("/api/sms-providers", { provider: "simulator", displayName: "Bench" });
const numbers = (await api(`/api/providers/${provider.id}/available-numbers`)).numbers;
// A number at 10 messages a second: the engine sends as it would, alongside the writing.
await api("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 10 });
const writing = (id: string) => (db.query(`SELECT outbox_writing IS NOT NULL AS w FROM campaigns WHERE id = ?`).get(id) as { w: number }).w === 1;
const queuedOf = (id: string) => (db.query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(id) as { n: number }).n;

const idlePhase = await holdPhase(base);
await Bun.sleep(3000);
const idle = await idlePhase.end();
const lines: string[] = [];
const measure = async <T>(label: string, work: () => Promise<T>) => {
  const t0 = performance.now();
  const phase = await holdPhase(base);
  const value = await work();
  const line = `${holdLine(label, await phase.end())}; took ${f((performance.now() - t0) / 1000, 2)} s`;
  lines.push(line);
  console.log(`  ${line}`);
  return value;
};
const watchWriting = async (id: string) => {
  const t0 = performance.now();
  await api(`/api/campaigns/${id}/send`, {});
  while (writing(id) && performance.now() - t0 < WRITE_LIMIT_S * 1000) await Bun.sleep(50);
  const s = (performance.now() - t0) / 1000;
  console.log(`  ${f(queuedOf(id))} rows written in ${f(s, 1)} s (${f(queuedOf(id) / s)} rows/s)`);
};

const typed = Array.from({ length: TYPED }, (_, i) => phoneOf(i));
const draftBody = JSON.stringify({ name: "Typed", content: "Weekend sale: 20% off", recipients: typed });
const draft = await measure(`draft to ${f(TYPED)} typed numbers (POST /api/campaigns)`, () => api("/api/campaigns", draftBody));
await measure(`the same draft read back (GET /api/campaigns/:id)`, () => api(`/api/campaigns/${draft.id}`));
const editBody = JSON.stringify({ recipients: [...typed.slice(1), phoneOf(TYPED)] });
await measure(`the same draft edited (PUT, one more number)`, () => api(`/api/campaigns/${draft.id}`, editBody, "PUT"));
const typedPreview = JSON.stringify({ audience: { kind: "manual" }, recipients: typed, content: "Hi [Name], weekend sale" });
await measure(`delivery preview of ${f(TYPED)} typed numbers`, () => api("/api/campaigns/preview-delivery", typedPreview));
await measure(`its start, outbox written (${f(TYPED)} rows; ${WRITE_LIMIT_S} s at most)`, () => watchWriting(draft.id));
const all = await measure(`draft to all ${f(CONTACTS)} contacts`, () => api("/api/campaigns", { name: "All", content: "Hi [Name], weekend sale: 20% off everything", audience: { kind: "all" } }));
await measure(`delivery preview of all ${f(CONTACTS)} contacts (a merge field)`, () =>
  api("/api/campaigns/preview-delivery", { audience: { kind: "all" }, content: "Hi [Name], weekend sale: 20% off everything" }),
);
await measure(`its start, outbox written (${f(CONTACTS)} rows; ${WRITE_LIMIT_S} s at most)`, () => watchWriting(all.id));

console.log(`\n${holdLine("idle, 3 s", idle)}`);
for (const line of lines) console.log(`  ${line}`);
db.close();
proc.kill();
await proc.exited;
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
