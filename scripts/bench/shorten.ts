// Send rate with link shortening on and off (issue 32): bun scripts/bench/shorten.ts [recipients=10000] [rounds=6]
//
// What a run measures: the whole appliance (startServer, a process of its own) sending one campaign, a text with
// one link, to its subscribed contacts through the simulator provider (no rate limit, delivery reported at once):
// the start, the outbox written in chunks (where links are shortened: one short_links row and code per message),
// the engine's claims, checks and marks, the provider's calls, the delivery reports through the webhook route and
// the settle. Its rate is messages delivered per second from the send call to the last delivery; its CPU time a
// message is the process's (every thread) and its main thread's (the event loop's), over the whole campaign.
//
// Rounds. A round is an off run and an on run one after the other, off first in odd rounds and on first in even
// ones (a load that rises or falls over the bench weighs on both modes alike), each a process of its own on a fresh
// copy of one prepared data folder (account, license, contacts, provider and number; nothing sent), so no run meets
// a database grown by runs before it or a heap warmed by them. Each warms up alike (two campaigns to 2,000 contacts,
// off then on, so both paths are compiled) before its measured campaign. Reported: each run's rate, CPU a message
// and the cores it held (its CPU time over its wall time: what the scheduler gave it); then the on/off ratios round
// by round with their median and spread, the ratio of the two modes' medians, and how far each mode's runs lie from
// their own median: the same build run again, the noise any on/off ratio sits in. A quiet machine gives each run
// both cores; under other work, the CPU a message is the steadier figure (it counts no waiting for a core). A run's
// measured campaign starts once the warm-up's work is done: after its last delivery the process still spent 130-190
// ms of CPU a second (the readers of its events, the settle, the collector), which went into the measured campaign,
// more in one run than another; now each waits until it is idle (under 40 ms a second; a fresh server idles at 12-16).
// SHORTEN_PROFILE=<dir> writes each run's CPU profile in markdown (bun --cpu-prof-md) as round<N>-<on|off>.md.
//
// Rounds run this way since the session after 240a50dd (figures at the end). Before, the two runs of a round were
// sent off together, to share the machine second by second under load; on a quiet machine they shared its 2 cores
// with each other, and a run's deliveries by a given moment depended on how its outbox writer and engine took turns
// with the other process's, as much as on shortening: whole benches of one build gave 0.82-1.04. The figures from
// here to "Rounds one after the other" were measured that way.
//
// Measured (issue 32; main at 6b2472d, the last 2 rounds at 2261fb5 with the shortener async; 2 cores shared with
// other sessions' work), 10,000 timed x 8 rounds:
//   load 17-21: rate on/off median 0.999 (rounds 0.79-1.43), CPU a message on/off 1.036 (0.94-1.08), 304/314 µs
//   load 20-24: rate on/off median 0.991 (rounds 0.85-1.39), CPU a message on/off 1.041 (0.96-1.32), 347/363 µs
//   load 22-28: rate on/off median 0.786 (rounds 0.60-1.20), CPU a message on/off 1.159 (0.93-1.51), 397/500 µs
//   (and 2 rounds at load 13-18 after: rate 1.434, CPU 0.821, the other way round)
// Shortening's own work is 10-15 µs of the outbox writer's CPU a message (scripts/bench/shorten-writer.ts), 3-4% of
// the pipeline's; but one run's CPU a message moves by 20-50% with the load, in either direction (on dearer in some
// pairs, off in others), so even medians of 8 pairs differ by 12% between benches at load over 20. The chunks are
// not why: under that load both write at the smallest window, about 565 chunks of 26 rows for 15,000 (reported per
// run). A round's rates spread wider still: a run's deliveries by a given moment depend on how its outbox writer and
// engine took turns, not only on the CPU it had. The bench before ran the rounds one after the other in one process
// on one growing database: at load 0.5-5 the same build's runs spread 1,068-2,582 messages/s and 217-379 µs a
// message (the first rounds compiling, each round 10,000 messages more), and whole benches gave 0.82-1.04.
//
// What shortening costs, and what migration 0074 changed. Before it, each link of each message was one row of
// short_links keyed by its drawn random code, with three more indexes and two foreign-key probes; since 0074 a
// campaign's distinct links are rows of `links`, written once per chunk, and each recipient's short link a slim row
// appended to short_links whose code is its id encoded with the installation's key (src/links/codes.ts, 2-4 µs a
// code). writeOutbox alone, on minus off, went from +20/+25 µs of CPU a message to +10/+11 (load 13-19).
//
// Since 240a50dd a chunk's short links are written together after its messages: their ids reserved from
// short_links' AUTOINCREMENT counter (one statement a chunk), the rows in multi-row inserts of 128, 64 ... 1, so a
// message costs its code (about 1 µs), its text's links found and replaced (0.4 µs) and its share of a few
// statements, where it was a statement of its own. The shortener alone in a transaction per chunk (its rows and
// commit included): 4.1 -> 3.4 µs a message at chunks of 500, 5.8 -> 5.7 at chunks of 25 (load 14). writeOutbox on
// minus off at chunks of 26, both builds run together: 14.8 -> 10.8 µs (load 18.5); of that about 5 is not the
// shortener's but the segment counter's memo (src/messages/segments.ts), which shorten-writer.ts's off runs hit (the
// same texts every round) and its on runs never do (a new code each). This bench, 10,000 timed x 5 rounds:
//   before (f62edff1), load 20-22: rate on/off median 0.928 (rounds 0.81-1.27), CPU a message on/off 1.023
//     (0.86-1.10), 551/577 µs (main thread 483/506)
//   after (240a50dd), load 22-30: rate on/off median 0.954 (rounds 0.89-1.25), CPU a message on/off 1.044
//     (0.82-1.14), 757/771 µs (main thread 667/677)
//   both benches at once, load 23-28: before rate 1.150 (0.62-1.80), CPU 0.894 (0.75-1.39), 577/597 µs;
//     after rate 0.940 (0.70-1.90), CPU 1.080 (0.63-1.24), 612/563 µs
// At these loads a message costs 3-4 times its CPU on a quiet machine, and a pair's CPU ratio moves by up to 25-40%
// either way from round to round: what shortening still costs in the writer (about 4-5 µs a message, 2-3% of a quiet
// machine's 186 µs) is below what 5 rounds can tell apart. The quiet machine's +19 µs (last session) is more than
// the writer's share; what else the on runs pay was not found in profiles of whole runs, whose functions' self
// times differ more between two runs of one build than by that.
//
// Rounds one after the other (this file as it is; main at 872e976, 2 cores shared with 8 other sessions), 10,000 x 4:
//   load 21-24, runs started right after their warm-up: rate on/off median 0.877 (rounds 0.53-1.15), each mode's
//     runs -43% to +30% of their own median; CPU a message on/off 1.075 (0.98-1.32)
//   load 19-23, each run started once idle (1-3 s after its warm-up): rate on/off median 0.739 (0.41-0.86), off runs
//     -44% to +12% of their median, on runs -36% to +40%; CPU a message on/off 1.134 (1.03-1.32), 329/373 µs, main
//     thread 1.104 (1.05-1.32), 267/294 µs
//   load 22-25 (main at e6d6e47), 10,000 x 2: rate on/off median 1.036 (0.75-1.32), of the medians 0.995; CPU a
//     message on/off 1.005 (0.79-1.22), 323/317 µs
// At these loads one build's rates spread by 15-40% either way, more than the 10% to be shown: the rate's ratio can
// only be read on a quiet machine (where a run has both cores, 2-3 s for 10,000). The CPU a message came out dearer
// with shortening on in all 4 rounds of the second bench (3-32%), in the third 1.22 and 0.79: the rounds' spread,
// not shortening's cost. Where shortening's cost is: the measured campaign's main-thread CPU by function
// (thread CPU summed over each call, the third bench's runs), writeOutbox outside enqueue (personalising, shortening,
// the short links' rows) 47/69 ms off, 189/162 ms on for 10,000: 12-14 µs a message at that load (the writer's
// 4-5 µs on a quiet machine, shorten-writer.ts); enqueue 514/600 off, 576/446 on and the delivery reports
// (applyStatusEvents) 423/546 off, 451/386 on, alike within the runs' spread.
//   load 9.6-11 (main at 71a2fda, the quietest hour of the session), 10,000 x 4: rate on/off median 0.794 (rounds
//     0.66-0.90), of the medians 0.728, NOT within 10%; off runs -26% to +11% of their median, on -13% to +25%; CPU
//     a message on/off 1.151 (1.04-1.24, dearer in every round), 248/288 µs, main thread 202/236; cores held on/off
//     0.927 (0.76-0.98); chunks 228-274 off, 284-319 on.
// So at a lower load shortening costs about 40 µs a message of CPU in the whole pipeline, three times the writer's
// share measured by function at load 22-25, and its runs also hold fewer cores (they wait more). Not yet measured:
// whether the outbox writer's chunks, sized by their wall time (outbox-writer.ts CHUNK_TARGET_MS), come out smaller
// with shortening on (more chunks: 284-319 against 228-274), each chunk's fixed cost (its transaction, events,
// checkpoint waits every 2,000 rows, the readers and the engine it wakes) paid more often; and whether the short
// links' rows make the writer's checkpoints longer to wait for. By function at load 9.3-9.9 (10,000 x 2, main at
// ad15e7c, thread CPU summed over each call): writeOutbox outside enqueue 40/36 ms off, 124/91 on (shortening's
// 5-9 µs a message); but the runs' chunks were 261 and 156 off, 273 and 281 on, and the off run of 156 chunks sent
// 3,246 messages/s at 190 µs a message where the one of 261 sent 1,305 at 236: how many chunks a run writes (their
// size follows their wall time, so the load of the moment) moves its cost and rate more than shortening does. A
// sound A/B of shortening needs the chunks alike in both runs (a fixed window for the bench), not yet done.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { grantLicense } from "../../src/licenses/licenses";
import { startServer } from "../../src/server";
import { benchSignUp } from "./sign-up";

const TEXT = "Hi [Name], weekend sale: 20% off everything at https://shop.example.com/weekend-sale?ref=sms";
const WARM = 2_000;
/** The share of a core under which a warmed-up process is idle (a fresh server idles at 0.012-0.016 at load 23). */
const IDLE_SHARE = 0.04;
const f = (n: number) => Math.round(n).toLocaleString("en-US");
const config = (dir: string, extra: Record<string, string> = {}) =>
  // A fixed link domain: every run's texts (and their segments) are alike whatever port it listens on.
  loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, LINK_DOMAIN: "https://go.example.com", ...extra }, []);

/** A run's figures: when the send was called and each message's delivery (ms since the epoch). */
type Run = { t0: number; delivered: number[]; cpuUs: number; idleShare: number; settledMs: number; mainUs: number; share: number; chunks: number; links: number; sample: string };

// ----------------------------------------------------------------------------------------------------------
// Child: one run on its own copy of the data folder. Warms up, says "ready", sends the measured campaign on "go".
if (process.argv[2] === "--one") {
  const [dir, mode, token] = [process.argv[3]!, process.argv[4]!, process.argv[5]!];
  const server = await startServer(config(dir), () => {});
  rateLimiterFor(server.ctx).enabled = false;
  const origin = new URL(server.ctx.config.publicUrl).origin;
  const db = server.ctx.db.$client;
  const api = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const deliveredCount = db.prepare(`SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'delivered'`);
  const create = async (name: string, audience: unknown, shortenLinks: boolean) => {
    const made = await api("/api/campaigns", { name, content: TEXT, audience, shortenLinks, appendOptOut: false });
    if (made.status !== 201) throw new Error(`create failed: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.id as string;
  };
  /** Sends a campaign and waits for `count` of its messages delivered; answers when the send was called. */
  const send = async (id: string, count: number) => {
    const t0 = Date.now();
    const sent = await api(`/api/campaigns/${id}/send`, {});
    if (sent.status !== 202) throw new Error(`send failed: ${sent.status} ${JSON.stringify(sent.body)}`);
    // Polled every 100 ms (a count on messages_campaign_status_idx): the times are read from delivered_at.
    while ((deliveredCount.get(id) as { n: number }).n < count) await Bun.sleep(100);
    return t0;
  };
  const warm = (db.query(`SELECT id FROM contacts ORDER BY rowid LIMIT ?`).all(WARM) as { id: string }[]).map((r) => r.id);
  await send(await create("Warm-up off", { kind: "contacts", contactIds: warm }, false), WARM);
  await send(await create("Warm-up on", { kind: "contacts", contactIds: warm }, true), WARM);
  const all = (db.query(`SELECT count(*) AS n FROM contacts`).get() as { n: number }).n;
  const id = await create(`Bench ${mode}`, { kind: "all" }, mode === "on");

  // The main thread's CPU time (utime + stime of its task, in clock ticks of 10 ms).
  const mainTicks = () => {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  Bun.gc(true);
  // The warm-up's work goes on after its last delivery (the readers of its events, the settle, the collector): the
  // measured campaign starts once the process is idle, its CPU under IDLE_SHARE of a core over half a second (at most
  // 20 s), or that work is counted in the campaign's time and CPU, more of it in one run than another.
  const settling = performance.now();
  let idleShare = 1;
  while (idleShare > IDLE_SHARE && performance.now() - settling < 20_000) {
    const idle0 = process.cpuUsage();
    const from = performance.now();
    await Bun.sleep(500);
    const idled = process.cpuUsage(idle0);
    idleShare = (idled.user + idled.system) / 1000 / (performance.now() - from);
  }
  const settledMs = performance.now() - settling;
  console.log("ready");
  for await (const line of console) if (line === "go") break;
  const cpu0 = process.cpuUsage();
  const main0 = mainTicks();
  const t0 = await send(id, all);
  const used = process.cpuUsage(cpu0);
  const wall = Date.now() - t0;
  const mainUs = ((mainTicks() - main0) * 10_000) / all;
  const delivered = (db.query(`SELECT delivered_at AS at FROM messages WHERE campaign_id = ? AND status = 'delivered' ORDER BY delivered_at`).all(id) as { at: number }[]).map((r) => r.at);
  const links = (db.query(`SELECT count(*) AS n FROM short_links s JOIN links l ON l.id = s.link_id WHERE l.campaign_id = ?`).get(id) as { n: number }).n;
  // The outbox's chunks: each appends one message.queued event for the campaign (src/messages/outbox.ts enqueue).
  const chunks = (db.query(`SELECT count(*) AS n FROM events WHERE type = 'message.queued' AND subject_kind = 'campaign' AND subject_id = ?`).get(id) as { n: number }).n;
  const sample = (db.query(`SELECT content FROM messages WHERE campaign_id = ? LIMIT 1`).get(id) as { content: string }).content;
  const run: Run = { t0, delivered, cpuUs: (used.user + used.system) / all, idleShare, settledMs, mainUs, share: (used.user + used.system) / 1000 / wall, chunks, links, sample };
  await server.stop();
  console.log(JSON.stringify(run));
  process.exit(0);
}

// ----------------------------------------------------------------------------------------------------------
// Parent: the prepared folder, then the rounds.
const N = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 6);
const phoneOf = (i: number) => `+1${[212, 312, 415, 617, 713][i % 5]}${String(2000000 + Math.floor(i / 5)).padStart(7, "0")}`;

const prepared = mkdtempSync(join(tmpdir(), "smsdesk-bench-shorten-"));
let token: string;
{
  // Development mode: sign-up's code reaches the log, read until the account is made.
  const logs: string[] = [];
  const server = await startServer(config(prepared, { SMSDESK_DEV: "1" }), (line) => void logs.push(line));
  rateLimiterFor(server.ctx).enabled = false;
  const origin = new URL(server.ctx.config.publicUrl).origin;
  const api = async (path: string, body?: unknown, method = body === undefined ? "GET" : "POST") => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as any;
  };
  const reg = await benchSignUp(server.url, origin, logs);
  token = reg.token;
  const db = server.ctx.db.$client;
  db.run("UPDATE users SET email_verified = 1, quiet_hours_enabled = 0 WHERE id = ?", [reg.user.id]);
  db.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
  await grantLicense(server.ctx, reg.user.id, "enterprise", 30);
  const insertContact = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, status, source, created_at) VALUES (?, ?, ?, '', ?, 'subscribed', 'import', ?)`);
  db.transaction(() => {
    for (let i = 0; i < N; i++) insertContact.run(Bun.randomUUIDv7(), reg.user.id, `Guest${i}`, phoneOf(i), Date.now());
  })();
  const provider = await api("/api/sms-providers", { provider: "simulator", displayName: "Bench" });
  await api(`/api/sms-providers/${provider.id}`, { settings: { deliveryDelayMs: 0 } }, "PATCH");
  const numbers = (await api(`/api/providers/${provider.id}/available-numbers`)).numbers;
  await api("/api/phone-numbers", { providerId: provider.id, phoneNumber: numbers[0].phoneNumber, messagesPerSecond: 0 });
  await server.stop();
}

/** One run: a process on a fresh copy of the prepared folder, warmed up, sent off with `go`, read until its figures. */
async function run(on: boolean, round: number): Promise<Run & { load: number }> {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-bench-shorten-run-"));
  cpSync(prepared, dir, { recursive: true });
  // SHORTEN_PROFILE=<dir>: each run's CPU profile in markdown (bun --cpu-prof-md), named by its round and mode.
  const profile = process.env.SHORTEN_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.SHORTEN_PROFILE}`, `--cpu-prof-name=round${round}-${on ? "on" : "off"}.md`] : [];
  const child = Bun.spawn([process.execPath, ...profile, import.meta.path, "--one", dir, on ? "on" : "off", token], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  const line = async () => {
    for (;;) {
      const at = text.indexOf("\n");
      if (at >= 0) {
        const l = text.slice(0, at);
        text = text.slice(at + 1);
        return l;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`a run ended early (exit ${await child.exited}): ${text}`);
      text += new TextDecoder().decode(value);
    }
  };
  while ((await line()) !== "ready");
  const load = loadavg()[0]!;
  child.stdin.write("go\n");
  child.stdin.flush();
  const result = JSON.parse(await line()) as Run;
  await child.exited;
  rmSync(dir, { recursive: true, force: true });
  return { ...result, load: Math.max(load, loadavg()[0]!) };
}

/** A run's rate: its messages delivered over the time from its send call to its last delivery. */
type Timed = Run & { rate: number; secs: number; load: number };
const timed = (r: Run & { load: number }): Timed => {
  const secs = (r.delivered.at(-1)! - r.t0) / 1000;
  return { ...r, secs, rate: r.delivered.length / secs };
};
const runs = { off: [] as Timed[], on: [] as Timed[] };
for (let round = 1; round <= ROUNDS; round++) {
  // Off then on in odd rounds, on then off in even ones: a load that rises or falls over the bench weighs on both alike.
  for (const on of round % 2 ? [false, true] : [true, false]) {
    const r = timed(await run(on, round));
    runs[on ? "on" : "off"].push(r);
    console.log(
      `round ${round} shortening ${on ? "on " : "off"}  ${f(r.rate)} messages/s (${r.secs.toFixed(1)} s), CPU a message ${f(r.cpuUs)} µs (main thread ${f(r.mainUs)}), ` +
        `idle at ${(r.idleShare * 1000).toFixed(0)} ms/s after ${(r.settledMs / 1000).toFixed(1)} s, ` +
        `${r.share.toFixed(3)} cores, ${f(r.chunks)} chunks, ${f(r.links)} short links, load ${r.load.toFixed(1)}${round === 1 ? `; e.g. "${r.sample}"` : ""}`,
    );
  }
}
rmSync(prepared, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ratios = (pick: (r: Timed) => number) => runs.on.map((r, i) => pick(r) / pick(runs.off[i]!));
const spread = (xs: number[]) => `median ${median(xs).toFixed(3)}, ${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)} (${xs.map((x) => x.toFixed(3)).join(", ")})`;
/** How far one mode's runs lie from their median (the same build run again): the noise an on/off ratio sits in. */
const noise = (xs: number[]) => `${((Math.min(...xs) / median(xs) - 1) * 100).toFixed(0)}% to +${((Math.max(...xs) / median(xs) - 1) * 100).toFixed(0)}% of its median`;
const rate = ratios((r) => r.rate);
const loads = [...runs.off, ...runs.on].map((r) => r.load);
console.log(`\nrecipients                    ${f(N)}, ${ROUNDS} rounds of an off and an on run one after the other (alternating which goes first), each a process on a fresh copy of the prepared folder`);
console.log(`messages/s off               median ${f(median(runs.off.map((r) => r.rate)))} (${runs.off.map((r) => f(r.rate)).join(", ")}): ${noise(runs.off.map((r) => r.rate))}`);
console.log(`messages/s on                median ${f(median(runs.on.map((r) => r.rate)))} (${runs.on.map((r) => f(r.rate)).join(", ")}): ${noise(runs.on.map((r) => r.rate))}`);
console.log(`rate on/off, round by round  ${spread(rate)}: ${median(rate) >= 0.9 ? "within" : "NOT within"} 10%`);
console.log(`rate on/off, of the medians  ${(median(runs.on.map((r) => r.rate)) / median(runs.off.map((r) => r.rate))).toFixed(3)}`);
console.log(`CPU µs a message             off median ${f(median(runs.off.map((r) => r.cpuUs)))}, on ${f(median(runs.on.map((r) => r.cpuUs)))}; main thread off ${f(median(runs.off.map((r) => r.mainUs)))}, on ${f(median(runs.on.map((r) => r.mainUs)))}`);
console.log(`CPU on/off, round by round   ${spread(ratios((r) => r.cpuUs))}`);
console.log(`main thread on/off           ${spread(ratios((r) => r.mainUs))}`);
console.log(`cores held on/off            ${spread(ratios((r) => r.share))} (the scheduler's share: the rate's ratio is about this divided by the CPU's)`);
console.log(`load average (1 min)         ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} over the runs`);
process.exit(0);
