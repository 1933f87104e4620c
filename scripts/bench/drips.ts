// Drips benchmark (issue 15): bun scripts/bench/drips.ts [enrolments=10000] [drip pace=500] [campaign=3000] [campaign pace=100]
// 10,000 contacts enrolled in a drip whose first step is due one minute later (all in the same minute), sent from a
// simulator number limited to the drip pace, while an ordinary campaign sends from another number at its own pace.
// Reported: the time from the first step being due to every step's message in the outbox, the drip number's send
// rate against its configured pace and against a campaign of as many messages sent alone from the same number
// (measured first, in the same run: the engine's own rate at that pace), the campaign's rate with the drip load
// against the same campaign alone (also measured first), how late each run of that campaign started (it is
// scheduled: with the drip, for 3 s after the first step is due, so its start is a job among the steps), the event
// loop's worst lag in each phase (a 10 ms timer's lateness), the process's CPU per message (independent of the
// machine's load) and the load average.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, type Holds, holdLine, holdPhase } from "./holds";
import { benchSignUp } from "./sign-up";

const N = Number(process.argv[2] ?? 10_000);
const DRIP_PACE = Number(process.argv[3] ?? 500);
const M = Number(process.argv[4] ?? 3000);
const CAMPAIGN_PACE = Number(process.argv[5] ?? 100);
const f = (n: number) => Math.round(n).toLocaleString("en-US");
const phoneOf = (i: number) => `+1${[212, 312, 415, 617, 713][i % 5]}${String(2000000 + Math.floor(i / 5)).padStart(7, "0")}`;

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-drips-"));
// Development mode: sign-up's code reaches the log, read until the account is made and dropped after.
let logs: string[] | null = [];
const server = await startServer(
  loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []),
  (line) => void logs?.push(line),
);
rateLimiterFor(server.ctx).enabled = false;
const db = server.ctx.db.$client;
// Changes are accepted only from the appliance's own pages (src/http/csrf.ts).
const origin = new URL(server.ctx.config.publicUrl).origin;
const api = async (path: string, token: string, body?: unknown, method = body === undefined ? "GET" : "POST") => {
  const res = await fetch(server.url + path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = { status: res.status, body: (await res.json()) as any };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out.body)}`);
  return out;
};
const reg = await benchSignUp(server.url, origin, logs!);
logs = null;
const token = reg.token as string;
const userId = reg.user.id as string;
db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [userId]);
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
await grantLicense(server.ctx, userId, "enterprise", 30);

const insertContact = db.prepare(
  `INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`,
);
const contactIds: string[] = [];
db.transaction(() => {
  for (let i = 0; i < N; i++) {
    const id = Bun.randomUUIDv7();
    contactIds.push(id);
    insertContact.run(id, userId, `Guest${i}`, phoneOf(i), Date.now());
  }
})();
const provider = await api("/api/sms-providers", token, { provider: "simulator", displayName: "Bench" });
await api(`/api/sms-providers/${provider.body.id}`, token, { settings: { deliveryDelayMs: 0 } }, "PATCH");
const numbers = (await api(`/api/providers/${provider.body.id}/available-numbers`, token)).body.numbers;
const dripNumber = (await api("/api/phone-numbers", token, { providerId: provider.body.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: DRIP_PACE, isDefault: true })).body;
const campaignNumber = numbers[1].phoneNumber as string;
await api("/api/phone-numbers", token, { providerId: provider.body.id, phoneNumber: campaignNumber, messagesPerSecond: CAMPAIGN_PACE });

/**
 * While `work` runs: the event loop's worst lateness (ms) of a 10 ms timer, the process's CPU time (s, user +
 * system: what the work cost, whatever the machine's load) and the load average (1 min) at its end.
 */
async function withLag<T>(work: () => Promise<T>): Promise<{ value: T; lag: number; cpu: number; load: number; held: Holds & { load: number } }> {
  const phase = await holdPhase(server.url);
  let lag = 0;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - expected);
    expected = now + 10;
  }, 10);
  const cpuFrom = process.cpuUsage();
  try {
    const value = await work();
    const cpu = process.cpuUsage(cpuFrom);
    return { value, lag, cpu: (cpu.user + cpu.system) / 1e6, load: loadavg()[0]!, held: await phase.end() };
  } finally {
    clearInterval(timer);
  }
}

const count = (sql: string, ...args: (string | number)[]) => (db.query(sql).get(...args) as { n: number }).n;
// Polled every 200 ms: the counts scan the messages, and the bench must not take the CPU it measures.
async function until(check: () => boolean) {
  while (!check()) await Bun.sleep(200);
}
/** Messages per second over the span of their sent times. */
function rateOf(where: string, ...args: string[]) {
  const r = db.query(`SELECT count(*) AS n, min(sent_at) AS first, max(sent_at) AS last FROM messages WHERE ${where}`).get(...args) as { n: number; first: number; last: number };
  return { n: r.n, rate: r.n / Math.max(0.001, (r.last - r.first) / 1000), secs: (r.last - r.first) / 1000, first: r.first, last: r.last };
}

let campaigns = 0;
/**
 * Starts a campaign of `size` recipients none of the others has (the drip's contacts are the first N phones), now or
 * scheduled for `at` (its start is then a job among the drip's steps).
 */
async function startCampaign(from = campaignNumber, size = M, at?: number) {
  const c = await api("/api/campaigns", token, {
    name: `Bench ${++campaigns}`,
    content: "Weekend sale: 20% off everything",
    fromNumber: from,
    recipients: Array.from({ length: size }, (_, i) => phoneOf(N + campaigns * Math.max(M, N) + i)),
  });
  await api(`/api/campaigns/${c.body.id}/send`, token, at === undefined ? {} : { scheduledAt: new Date(at).toISOString() });
  return c.body.id as string;
}
/** How long after `at` the campaign's first message was written (ms). */
const startedAfter = (id: string, at: number) => count(`SELECT min(created_at) AS n FROM messages WHERE campaign_id = ?`, id) - at;
const campaignDone = (id: string, size = M) => () =>
  count(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status IN ('sent','delivered')`, id) === size;

// Phase 0: the engine's own rate at the drip's pace, in this run: a campaign of as many messages from the drip's
// number, alone (the pacing window keeps a small guard, so a number's rate stays a little under its pace).
const paceAlone = await withLag(async () => {
  const id = await startCampaign(dripNumber.phoneNumber, N);
  await until(campaignDone(id, N));
  return rateOf(`campaign_id = ?`, id);
});

// Phase 1: the campaign alone, scheduled 3 s ahead.
const alone = await withLag(async () => {
  const at = Date.now() + 3000;
  const id = await startCampaign(campaignNumber, M, at);
  await until(campaignDone(id));
  return { ...rateOf(`campaign_id = ?`, id), startedAfter: startedAfter(id, at) };
});

// Phase 2: the drip. Enrolled through the API; the first step is due a minute after each enrolment.
const drip = await api("/api/drip-campaigns", token, {
  name: "Bench drip",
  trigger: "manual",
  steps: [
    { delay: 1, unit: "minutes", content: "Hi {firstName}, thanks for joining!" },
    { delay: 1, unit: "days", content: "Day two, {firstName}." },
  ],
});
const enrolStart = performance.now();
const enrol = await withLag(() => api(`/api/drip-campaigns/${drip.body.id}/enrol`, token, { contactIds }));
const enrolSecs = (performance.now() - enrolStart) / 1000;
if (enrol.value.body.enrolled !== N) throw new Error(`enrolled ${enrol.value.body.enrolled}`);
const due = db.query(`SELECT min(run_at) AS first, max(run_at) AS last FROM jobs WHERE kind = 'drip_step' AND key LIKE '%:0'`).get() as { first: number; last: number };
// The same campaign, scheduled for 3 s after the first step is due: its start is a job behind the steps due before it.
const loadedAt = due.first + 3000;
const loadedId = await startCampaign(campaignNumber, M, loadedAt);
await Bun.sleep(Math.max(0, due.first - Date.now()));

// Phase 3: the same campaign while the 10,000 steps fall due.
const loaded = await withLag(async () => {
  const id = loadedId;
  const dripSent = `phone_number_id = ? AND campaign_id IS NULL AND status IN ('sent','delivered')`;
  await until(() => campaignDone(id)() && count(`SELECT count(*) AS n FROM messages WHERE ${dripSent}`, dripNumber.id) === N);
  return { campaign: { ...rateOf(`campaign_id = ?`, id), startedAfter: startedAfter(id, loadedAt) }, drip: rateOf(dripSent, dripNumber.id) };
});
const queued = db.query(`SELECT count(*) AS n, max(created_at) AS last FROM messages WHERE phone_number_id = ? AND campaign_id IS NULL`).get(dripNumber.id) as { n: number; last: number };
const steps = count(`SELECT count(*) AS n FROM drip_step_log WHERE outcome = 'sent'`);

const dripRun = loaded.value.drip;
console.log(
  `\nload average (1 min)    ${paceAlone.load.toFixed(1)} after the drip number's campaign, ${alone.load.toFixed(1)} after the campaign alone, ${loaded.load.toFixed(1)} after the drip phase`,
);
console.log(`enrolments              ${f(N)} (the enrol call took ${enrolSecs.toFixed(2)} s, event loop lag at most ${enrol.lag.toFixed(0)} ms)`);
console.log(`first steps due         within ${((due.last - due.first) / 1000).toFixed(1)} s of each other`);
console.log(`all steps in the outbox ${f(queued.n)} rows (${f(steps)} logged) ${((queued.last - due.first) / 1000).toFixed(2)} s after the first was due`);
console.log(
  `drip number             ${f(dripRun.rate)} messages/s over ${dripRun.secs.toFixed(1)} s (pace ${f(DRIP_PACE)}/s: ${((dripRun.rate / DRIP_PACE) * 100).toFixed(0)}%; ` +
    `a campaign of ${f(N)} alone from it: ${f(paceAlone.value.rate)}/s, ratio ${(dripRun.rate / paceAlone.value.rate).toFixed(2)})`,
);
console.log(`                        the last sent ${((dripRun.last - due.first) / 1000).toFixed(1)} s after the first step was due (at the pace: ${(N / DRIP_PACE).toFixed(1)} s)`);
console.log(
  `campaign alone          ${f(alone.value.rate)} messages/s (${f(M)} at pace ${f(CAMPAIGN_PACE)}/s), started ${f(alone.value.startedAfter)} ms after its time, event loop lag at most ${alone.lag.toFixed(0)} ms`,
);
console.log(
  `campaign with the drip  ${f(loaded.value.campaign.rate)} messages/s (ratio ${(loaded.value.campaign.rate / alone.value.rate).toFixed(2)}), started ${f(loaded.value.campaign.startedAfter)} ms after its time (3 s after the first step was due), event loop lag at most ${loaded.lag.toFixed(0)} ms`,
);
console.log(
  `process CPU             ${alone.cpu.toFixed(2)} s for the campaign alone (${((alone.cpu / M) * 1000).toFixed(3)} ms a message); ` +
    `${loaded.cpu.toFixed(2)} s with the drip (${(((loaded.cpu - alone.cpu) / N) * 1000).toFixed(3)} ms a drip step and its message, over the campaign's; ` +
    `a campaign message from the drip's number alone: ${((paceAlone.cpu / N) * 1000).toFixed(3)} ms)`,
);
// The bench's own polls (a count every 200 ms) run in this process too: the server's figures include them.
console.log(holdLine("the drip number's campaign alone", paceAlone.held));
console.log(holdLine("the campaign alone", alone.held));
console.log(holdLine(`enrolling ${f(N)}`, enrol.held));
console.log(holdLine("the drip's steps with the campaign", loaded.held));
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
