// Inbound benchmark (issue 13): bun scripts/bench/inbound.ts [perSecond=200] [seconds=30] [sockets=50]
// Twilio-signed inbound webhooks (form posts checked against X-Twilio-Signature) at a steady rate, every 20th
// delivered twice as a provider's retry, with `sockets` WebSockets of the account connected to /ws. Measured at
// the client, per socket and message: from just before the webhook is posted to its new_message frame arriving
// (p50/p95/p99); in the server, from each webhook's receipt (its request reaching Bun's fetch) to its new_message
// frame handed to the sockets (one publish to the account's topic, which Bun writes to every socket), the
// must-show's measure; the servers' and the client's longest event-loop delay during the run (a 10 ms interval's
// lateness); then every message stored once and every socket sent each exactly once.
// Baseline, same run, same rate and sockets: a bare Bun server that forwards each posted body to every socket.
// The servers run in a child process (this file with --serve-app / --serve-baseline), so the 10,000 frames a
// second the clients read do not share a thread with the server they measure.
import { Database } from "bun:sqlite";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadConfig } from "../../src/config";
import { grantLicense } from "../../src/licenses/licenses";
import { liveHubOf } from "../../src/live/socket";
import { startServer } from "../../src/server";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";
import { benchSignUp } from "./sign-up";
import { signTwilioWebhook, startTwilioFake, twilioInboundParams, twilioStatusParams } from "../../tests/support/fakes/twilio";

const SENDER = "+14155550100";
/** Distinct phones writing in: each message lands in one of this many threads. */
const PHONES = 300;
const phoneOf = (i: number) => `+1415${String(3000000 + (i % PHONES)).padStart(7, "0")}`;

type Ready = { url: string; publicUrl: string; token: string; userId: string; accountSid: string; authToken: string };
/** The header carrying a bench webhook's number, so the server can stamp its receipt (Twilio signs no header but its own). */
const INDEX_HEADER = "x-bench-index";
type Lag = { maxMs: number; over50: number; over100: number };

/**
 * The event loop's lateness: a 10 ms interval that fires late by the time the loop was held (a long synchronous
 * stretch, a GC pause). `from()` limits the figures to the lateness seen since a time (the run, not the set-up).
 */
function lagMonitor() {
  const seen: [at: number, lateMs: number][] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    seen.push([now, now - last - 10]);
    last = now;
  }, 10);
  return {
    stop(from = 0): Lag {
      clearInterval(timer);
      const late = seen.filter(([at]) => at >= from).map(([, ms]) => ms);
      return { maxMs: Math.max(0, ...late), over50: late.filter((ms) => ms > 50).length, over100: late.filter((ms) => ms > 100).length };
    },
  };
}

/** Bun.serve, with each request stamped on arrival when it carries INDEX_HEADER (the first arrival of a retried one). */
function stampReceipts(receivedAt: Map<number, number>) {
  const serve = Bun.serve;
  Bun.serve = ((options: Parameters<typeof Bun.serve>[0] & { fetch: (request: Request, server: unknown) => unknown }) =>
    serve({
      ...options,
      fetch(request: Request, server: unknown) {
        const i = request.headers.get(INDEX_HEADER);
        if (i !== null && !receivedAt.has(Number(i))) receivedAt.set(Number(i), performance.now());
        return options.fetch.call(this, request, server);
      },
    } as Parameters<typeof Bun.serve>[0])) as typeof Bun.serve;
}

/** Per bench message, receipt to its frame's publish (ms), for the messages both stamped. */
function receiptToSend(receivedAt: Map<number, number>, publishedAt: Map<number, number>): number[] {
  const out: number[] = [];
  for (const [i, at] of publishedAt) {
    const received = receivedAt.get(i);
    if (received !== undefined) out.push(at - received);
  }
  return out;
}

// ----------------------------------------------------------------------------------------------------------
// Child: the appliance, set up with one account, a Twilio account (against a local fake) and a sender number.

async function serveApp(dataDir: string) {
  const receivedAt = new Map<number, number>();
  stampReceipts(receivedAt);
  const fake = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }] });
  // Development mode: sign-up's code reaches the log, read until the account is made and dropped after.
  let logs: string[] | null = [];
  const server = await startServer(
    loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, TWILIO_API_BASE: fake.url, SMSDESK_DEV: "1", METRICS_TOKEN: BENCH_METRICS_TOKEN }, []),
    (line) => void logs?.push(line),
  );
  const origin = new URL(server.ctx.config.publicUrl).origin;
  const call = async (path: string, token: string | null, body: unknown) => {
    const res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", origin, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const reg = await benchSignUp(server.url, origin, logs!);
  logs = null;
  const userId = reg.user.id;
  // Verified, on a plan with room for every phone that writes in.
  server.ctx.db.$client.run("UPDATE users SET email_verified = 1 WHERE id = ?", [userId]);
  server.ctx.db.$client.run("UPDATE plans SET monthly_contacts = -1, monthly_messages = -1 WHERE id = 'enterprise'");
  await grantLicense(server.ctx, userId, "enterprise", 30);
  const provider = await call("/api/sms-providers", reg.token, { provider: "twilio", displayName: "Twilio", accountSid: fake.accountSid, authToken: fake.authToken });
  await call("/api/phone-numbers", reg.token, { providerId: provider.id, phoneNumber: SENDER });
  const ready: Ready = { url: server.url, publicUrl: server.ctx.config.publicUrl, token: reg.token, userId, accountSid: fake.accountSid, authToken: fake.authToken };
  console.log(JSON.stringify(ready));
  const cpu = process.cpuUsage();
  const lag = lagMonitor();
  // Each bench message's new_message frame handed to the sockets: one publish to the account's topic.
  const publishedAt = new Map<number, number>();
  const hub = liveHubOf(server.ctx)!;
  const watch = setInterval(() => {
    if (!hub.server) return;
    clearInterval(watch);
    const publish = hub.server.publish.bind(hub.server);
    hub.server.publish = ((topic: string, data: string, ...rest: unknown[]) => {
      const i = /^\{"type":"new_message".*?"content":"Bench message (\d+)"/.exec(data)?.[1];
      if (i !== undefined && !publishedAt.has(Number(i))) publishedAt.set(Number(i), performance.now());
      return (publish as (...a: unknown[]) => number)(topic, data, ...rest);
    }) as typeof publish;
  }, 10);
  await new Promise((resolve) => process.stdin.on("close", resolve).resume());
  const used = process.cpuUsage(cpu);
  // The run: from the first bench webhook's arrival (the sockets' set-up and the warm-up's SDK load excluded).
  const loop = lag.stop(Math.min(...receivedAt.values()));
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, receiptToSend: receiptToSend(receivedAt, publishedAt), lag: loop }));
  await server.stop();
  await fake.stop();
  process.exit(0);
}

/** Child: the floor. Each posted body goes to every connected socket, nothing else. */
async function serveBaseline() {
  const receivedAt = new Map<number, number>();
  const publishedAt = new Map<number, number>();
  stampReceipts(receivedAt);
  const server = Bun.serve<undefined>({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request, srv) {
      if (new URL(request.url).pathname === "/ws") return srv.upgrade(request, { data: undefined }) ? undefined : new Response("no", { status: 400 });
      const content = await request.text();
      srv.publish("all", JSON.stringify({ type: "new_message", content }));
      publishedAt.set(Number(content), performance.now());
      return new Response("ok");
    },
    websocket: {
      open(ws) {
        ws.subscribe("all");
        ws.send(JSON.stringify({ type: "ready" }));
      },
      message() {},
    },
  });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
  const lag = lagMonitor();
  await new Promise((resolve) => process.stdin.on("close", resolve).resume());
  console.log(JSON.stringify({ receiptToSend: receiptToSend(receivedAt, publishedAt), lag: lag.stop(Math.min(...receivedAt.values())) }));
  process.exit(0);
}

if (process.argv[2] === "--serve-app") await serveApp(process.argv[3]!);
if (process.argv[2] === "--serve-baseline") await serveBaseline();

// ----------------------------------------------------------------------------------------------------------
// Parent: the clients and the load.

const RATE = Number(process.argv[2] ?? 200);
const SECONDS = Number(process.argv[3] ?? 30);
const SOCKETS = Number(process.argv[4] ?? 50);
const N = RATE * SECONDS;
const f = (n: number, digits = 1) => n.toFixed(digits);

/** A server in a child process: its first line says it is ready; closing its stdin stops it, and it says its figures. */
async function child(args: string[]) {
  const proc = spawn(process.execPath, [import.meta.path, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  createInterface({ input: proc.stdout! }).on("line", (line) => lines.push(line));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  while (!lines.length) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    await Bun.sleep(20);
  }
  return {
    ready: JSON.parse(lines[0]!),
    async stop(): Promise<{ cpuMs?: number; receiptToSend: number[]; lag: Lag }> {
      proc.stdin!.end();
      await exited;
      if (!lines[1]) throw new Error("the server said no figures");
      return JSON.parse(lines[1]);
    },
  };
}

type Run = {
  latencies: Float64Array;
  /** Each post's time to its answer. */
  answers: Float64Array;
  /** Frame arrival minus its webhook's answer: what pushing adds once the webhook is handled (below 0: before). */
  afterAnswer: Float64Array;
  duplicates: number;
  missing: number;
  postMs: number;
  failedPosts: number;
  /** The load's own process: a late client stamps frames late. */
  clientLag: Lag;
};

/**
 * Opens the sockets, posts N webhooks at RATE a second (`post(i)` builds request i), and records for each socket
 * when each message's frame arrived (`indexOf` reads the message number from a frame).
 */
async function run(
  wsUrl: string,
  auth: unknown,
  post: (i: number) => Promise<Response>,
  indexOf: (frame: any) => number | null,
  retries: boolean,
): Promise<Run> {
  const sentAt = new Float64Array(N);
  const answeredAt = new Float64Array(N);
  const arrivals: Float64Array[] = [];
  let duplicates = 0;
  const counts = new Array(SOCKETS).fill(0);
  const sockets = await Promise.all(
    Array.from({ length: SOCKETS }, (_, s) => {
      const seen = new Float64Array(N);
      arrivals.push(seen);
      return new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(wsUrl);
        ws.onopen = () => auth && ws.send(JSON.stringify(auth));
        ws.onerror = () => reject(new Error("socket error"));
        ws.onmessage = (m) => {
          const now = performance.now();
          const frame = JSON.parse(String(m.data));
          if (frame.type === "ready") return resolve(ws);
          const i = indexOf(frame);
          if (i === null) return;
          if (seen[i]) duplicates++;
          else {
            seen[i] = now;
            counts[s]++;
          }
        };
      });
    }),
  );

  let failedPosts = 0;
  const posts: Promise<void>[] = [];
  const answers: number[] = [];
  const timed = (i: number) => {
    const t0 = performance.now();
    return post(i).then((r) => {
      const now = performance.now();
      answers.push(now - t0);
      answeredAt[i] ||= now;
      if (!r.ok) failedPosts++;
    });
  };
  const start = performance.now();
  const lag = lagMonitor();
  for (let i = 0; i < N; i++) {
    // A steady rate: request i leaves at start + i/RATE seconds, whatever the previous ones took.
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await Bun.sleep(wait);
    sentAt[i] = performance.now();
    posts.push(timed(i));
    // A provider's retry of every 20th webhook, 50 ms later: stored once, pushed once.
    if (retries && i % 20 === 0) posts.push(Bun.sleep(50).then(() => timed(i)));
  }
  await Promise.all(posts);
  const postMs = performance.now() - start;
  const clientLag = lag.stop();
  // Frames still on their way: wait until every socket has every message, or 10 s.
  const deadline = performance.now() + 10_000;
  while (counts.some((c) => c < N) && performance.now() < deadline) await Bun.sleep(20);
  for (const ws of sockets) ws.close();

  const latencies: number[] = [];
  const afterAnswer: number[] = [];
  let missing = 0;
  for (const seen of arrivals) {
    for (let i = 0; i < N; i++) {
      if (!seen[i]) {
        missing++;
        continue;
      }
      latencies.push(seen[i]! - sentAt[i]!);
      afterAnswer.push(seen[i]! - answeredAt[i]!);
    }
  }
  const sorted = (a: number[]) => Float64Array.from(a).sort();
  return { latencies: sorted(latencies), answers: sorted(answers), afterAnswer: sorted(afterAnswer), duplicates, missing, postMs, failedPosts, clientLag };
}

const pct = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

const loadAtStart = loadavg();

// Baseline.
const base = await child(["--serve-baseline"]);
const baseUrl = base.ready.url as string;
const baseline = await run(
  baseUrl.replace("http:", "ws:") + "/ws",
  null,
  (i) => fetch(baseUrl + "/hook", { method: "POST", body: String(i), headers: { [INDEX_HEADER]: String(i) } }),
  (frame) => Number(frame.content),
  false,
);
const baseServer = await base.stop();

// The appliance.
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-inbound-"));
const app = await child(["--serve-app", dataDir]);
const ready = app.ready as Ready;
const hookPath = `/api/webhooks/twilio/sms/${ready.userId}`;
const paramsOf = (i: number) =>
  twilioInboundParams({ accountSid: ready.accountSid, from: phoneOf(i), to: SENDER, body: `Bench message ${i}`, messageSid: `SM${String(i).padStart(32, "0")}` });
// Signed up front: the load should measure the appliance, not the client's HMACs.
const requests = Array.from({ length: N }, (_, i) => {
  const params = paramsOf(i);
  return {
    body: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": signTwilioWebhook(ready.authToken, ready.publicUrl + hookPath, params),
      [INDEX_HEADER]: String(i),
    },
  };
});
// Warm-up: the first webhook loads the Twilio SDK (lazily, about 200 ms); a delivery report for a message nobody
// sent stores nothing.
const warmUp = twilioStatusParams({ accountSid: ready.accountSid, messageSid: `SM${"f".repeat(32)}`, status: "delivered", to: phoneOf(0), from: SENDER });
const warmed = await fetch(ready.url + hookPath, {
  method: "POST",
  body: new URLSearchParams(warmUp).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signTwilioWebhook(ready.authToken, ready.publicUrl + hookPath, warmUp) },
});
if (!warmed.ok) throw new Error(`warm-up webhook: ${warmed.status} ${await warmed.text()}`);
const phase = await holdPhase(ready.url);
const measured = await run(
  ready.url.replace("http:", "ws:") + "/ws",
  { type: "auth", token: ready.token },
  (i) => fetch(ready.url + hookPath, { method: "POST", ...requests[i]! }),
  (frame) => (frame.type === "new_message" ? Number(/^Bench message (\d+)$/.exec(frame.content)?.[1] ?? NaN) : null),
  true,
);
const held = await phase.end();
const appServer = await app.stop();
const { cpuMs } = appServer;
const serverSend = Float64Array.from(appServer.receiptToSend).sort();
const baseSend = Float64Array.from(baseServer.receiptToSend).sort();

const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
const stored = db.query(`SELECT count(*) AS n, count(DISTINCT provider_message_id) AS distinct_ids FROM messages WHERE direction = 'inbound'`).get() as { n: number; distinct_ids: number };
db.close();
rmSync(dataDir, { recursive: true, force: true });

const ms = (n: number) => `${f(n)} ms`;
const spread = (sorted: Float64Array) => `p50 ${ms(pct(sorted, 50))}, p95 ${ms(pct(sorted, 95))}, p99 ${ms(pct(sorted, 99))}, max ${ms(pct(sorted, 100))}`;
const lagLine = (l: Lag) => `max ${ms(l.maxMs)} (late by over 50 ms ${l.over50} times, over 100 ms ${l.over100})`;
const line = (name: string, r: Run) =>
  `${name.padEnd(10)} p50 ${f(pct(r.latencies, 50)).padStart(6)} ms  p95 ${f(pct(r.latencies, 95)).padStart(6)} ms  p99 ${f(pct(r.latencies, 99)).padStart(6)} ms  ` +
  `max ${f(pct(r.latencies, 100)).padStart(7)} ms  webhook answered p95 ${f(pct(r.answers, 95))} ms  posts took ${f(r.postMs / 1000, 2)} s, ${r.failedPosts} failed  missing ${r.missing}  duplicates ${r.duplicates}`;
const ratio = (a: Float64Array, b: Float64Array) => [50, 95, 99].map((p) => `p${p} ${f(pct(a, p) / pct(b, p), 2)}x`).join("  ");
const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");

console.log(`inbound: ${N.toLocaleString("en-US")} Twilio-signed webhooks at ${RATE}/s for ${SECONDS} s (+ every 20th retried), ${SOCKETS} sockets`);
console.log(`machine    ${navigator.hardwareConcurrency} cores, load average (1/5/15 min) ${load(loadAtStart)} at the start, ${load(loadavg())} at the end`);
console.log(`webhook receipt to its frame sent to the ${SOCKETS} sockets, in the server (the must-show's measure), per message:`);
console.log(`  baseline ${spread(baseSend)} over ${baseSend.length.toLocaleString("en-US")} messages`);
console.log(`  smsdesk  ${spread(serverSend)} over ${serverSend.length.toLocaleString("en-US")} messages`);
console.log(`  ratio    ${ratio(serverSend, baseSend)} (the baseline does nothing but publish: a floor, not a peer)`);
console.log(`webhook post to frame arrival, at the client, per socket and message:`);
console.log(line("  baseline", baseline));
console.log(line("  smsdesk", measured));
console.log(`  ratio    ${ratio(measured.latencies, baseline.latencies)}`);
console.log(`event loop, longest delay during the run:`);
console.log(`  baseline server ${lagLine(baseServer.lag)}; its load client ${lagLine(baseline.clientLag)}`);
console.log(`  smsdesk  server ${lagLine(appServer.lag)}; its load client ${lagLine(measured.clientLag)}`);
console.log(`  smsdesk  ${holdLine("during the run (its own figure)", held)}`);
console.log(
  `smsdesk    frame arrival minus the webhook's answer: p50 ${f(pct(measured.afterAnswer, 50))} ms, p95 ${f(pct(measured.afterAnswer, 95))} ms; ` +
    `server CPU ${f((cpuMs ?? NaN) / (N + N / 20), 2)} ms per webhook (${f(((cpuMs ?? NaN) / measured.postMs) * 100, 0)}% of a core during the run)`,
);
console.log(`stored     ${stored.n.toLocaleString("en-US")} inbound messages, ${stored.distinct_ids.toLocaleString("en-US")} distinct provider ids (expected ${N.toLocaleString("en-US")} and ${N.toLocaleString("en-US")})`);
const ok =
  stored.n === N &&
  stored.distinct_ids === N &&
  measured.missing === 0 &&
  measured.duplicates === 0 &&
  measured.failedPosts === 0 &&
  serverSend.length === N &&
  pct(serverSend, 95) < 100;
console.log(ok ? "PASS: all stored once, pushed once to every socket, p95 from receipt to send under 100 ms" : "FAIL");
process.exit(ok ? 0 : 1);
