// Send rate with link shortening on and off (issue 32): bun scripts/bench/shorten.ts [recipients=20000] [rounds=3]
// The appliance (startServer, in this process) sends the same campaign text with one link to N subscribed contacts
// through the simulator provider with no rate limit, timed from the send call to every message delivered, with
// shortening off (the baseline: the link as written) and on (a short link written per recipient and link). The two
// alternate, `rounds` times each, so the machine's load falls on both alike. Reported: each run's messages per
// second, the median of each, the ratio on/off (the issue asks for within 10%) and the short links written, and the
// process's CPU time a message (steadier than the wall time on a machine whose cores are shared).
//
// What shortening costs, and what migration 0074 changed (issue 32). Before it, each link of each message was one
// row of short_links keyed by its drawn random code, with three more indexes (campaign, user, message) and two
// foreign-key probes: five B-trees a row, one of them written at a random place, so every chunk's commit wrote about
// a page of the code index per message. A profile of a quiet run put the INSERT at 10.4 µs of CPU a message, the
// COMMIT at +7.6 µs and other writes at +8 µs; writing 20,000 such rows after 50,000 took 14 µs of CPU and 45-62 µs
// of wall time a row, against 2 µs and 5-8 µs for a row appended to an integer key with one index of its link (a
// file database in WAL mode, load 8). Since 0074 a campaign's distinct links are rows of `links`, written once per
// chunk, and each recipient's short link a slim row appended to short_links (its link, message, time and expiry),
// whose code is its id encoded with the installation's key (src/links/codes.ts, 2-4 µs a code), under one index of
// its link.
// Measured at a load of 13-19 on the 2 shared cores (other helpers' work), alternated with the commit before 0074
// (cb7a036), writeOutbox alone (scripts/bench/shorten-writer.ts: 10,000 recipients in chunks of 500, 6 rounds; CPU
// and wall time a message, on minus off in the same round, median): before +20 and +25 µs of CPU, +75 and +100 µs of wall time; after +10 and
// +11 µs of CPU, +12 and -9 µs of wall time. Whole runs of this bench, 10,000 x 5, alternated with the build before
// (1ac58e3) at load 11-19: before ratios 0.834 and 0.966 (CPU a message on/off 1.173, 1.090); after 0.947 and
// 0.825 (1.152, 1.204); earlier the same session after 0.955 (1.036, load 14) and before 0.779 (1.152, load 3).
// Identical runs differ by 25% or more on the shared machine, as much as on and off do: read the CPU line too.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { benchSignUp } from "./sign-up";
import { BENCH_METRICS_TOKEN } from "./holds";

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const f = (n: number) => Math.round(n).toLocaleString("en-US");
const phoneOf = (i: number) => `+1${[212, 312, 415, 617, 713][i % 5]}${String(2000000 + Math.floor(i / 5)).padStart(7, "0")}`;
const TEXT = "Hi [Name], weekend sale: 20% off everything at https://shop.example.com/weekend-sale?ref=sms";

const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-shorten-"));
// Development mode: sign-up's code reaches the log, read until the account is made and dropped after.
let logs: string[] | null = [];
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []), (line) => void logs?.push(line));
rateLimiterFor(server.ctx).enabled = false;
const origin = new URL(server.ctx.config.publicUrl).origin;
const api = async (path: string, token: string, body?: unknown, method = body === undefined ? "GET" : "POST") => {
  const res = await fetch(server.url + path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const reg = await benchSignUp(server.url, origin, logs!);
logs = null;
const token = reg.token;
const userId = reg.user.id;
const db = server.ctx.db.$client;
db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [userId]);
db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
await grantLicense(server.ctx, userId, "enterprise", 30);

const insertContact = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
db.transaction(() => {
  for (let i = 0; i < N; i++) insertContact.run(Bun.randomUUIDv7(), userId, `Guest${i}`, phoneOf(i), Date.now());
})();
const provider = await api("/api/sms-providers", token, { provider: "simulator", displayName: "Bench" });
await api(`/api/sms-providers/${provider.body.id}`, token, { settings: { deliveryDelayMs: 0 } }, "PATCH");
const numbers = (await api(`/api/providers/${provider.body.id}/available-numbers`, token)).body.numbers;
await api("/api/phone-numbers", token, { providerId: provider.body.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 0 });

const delivered = db.prepare(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'delivered'`);
const linksOf = db.prepare(`SELECT count(*) AS n FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.campaign_id = ?`);

/** One campaign to every contact: messages per second from the send call to the last delivered, and its links. */
async function run(shortenLinks: boolean, round: number) {
  const made = await api("/api/campaigns", token, { name: `Bench ${shortenLinks ? "on" : "off"} ${round}`, content: TEXT, audience: { kind: "all" }, shortenLinks, appendOptOut: false });
  if (made.status !== 201) throw new Error(`create failed: ${made.status} ${JSON.stringify(made.body)}`);
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const send = await api(`/api/campaigns/${made.body.id}/send`, token, {});
  if (send.status !== 202) throw new Error(`send failed: ${send.status} ${JSON.stringify(send.body)}`);
  while ((delivered.get(made.body.id) as { n: number }).n < N) await Bun.sleep(20);
  const secs = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  // The process's CPU time per message (its threads, the server's and this bench's polling): on a machine whose
  // cores are shared, steadier than the wall time, which counts the waits for a core too.
  const cpuUs = (used.user + used.system) / N;
  const links = (linksOf.get(made.body.id) as { n: number }).n;
  const sample = (db.query(`SELECT content FROM messages WHERE campaign_id = ? LIMIT 1`).get(made.body.id) as { content: string }).content;
  return { rate: N / secs, secs, links, sample, cpuUs };
}

const rates = { off: [] as number[], on: [] as number[] };
const cpu = { off: [] as number[], on: [] as number[] };
for (let round = 1; round <= ROUNDS; round++) {
  // Which goes first alternates too, so neither always meets a fresher or a fuller database.
  for (const on of round % 2 ? [false, true] : [true, false]) {
    const r = await run(on, round);
    rates[on ? "on" : "off"].push(r.rate);
    cpu[on ? "on" : "off"].push(r.cpuUs);
    console.log(`round ${round} shortening ${on ? "on " : "off"}  ${f(r.rate)} messages/s (${r.secs.toFixed(1)} s), ${f(r.cpuUs)} µs CPU a message, ${f(r.links)} short links; e.g. "${r.sample}"`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const off = median(rates.off);
const on = median(rates.on);
console.log(`\nrecipients                    ${f(N)} per campaign, ${ROUNDS} rounds`);
console.log(`baseline: shortening off     median ${f(off)} messages/s (${rates.off.map(f).join(", ")})`);
console.log(`shortening on                median ${f(on)} messages/s (${rates.on.map(f).join(", ")})`);
console.log(`ratio on/off                 ${(on / off).toFixed(3)} (${on / off >= 0.9 ? "within" : "NOT within"} 10%)`);
console.log(`CPU a message                off median ${f(median(cpu.off))} µs, on ${f(median(cpu.on))} µs (on/off ${(median(cpu.on) / median(cpu.off)).toFixed(3)}); load average ${loadavg()[0]!.toFixed(1)}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
