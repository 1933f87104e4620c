// Outbound webhooks benchmark (issue 16): bun scripts/bench/webhooks.ts [events=6000] [perSecond=200]
// The appliance (startServer, in this process) with one endpoint subscribed to contact_created; `events` contact
// events appended at `perSecond`, each in its own transaction as an inbound webhook commits it, to a receiver in a
// child process that checks every delivery with the reference verifier (standardwebhooks' Webhook.verify) and
// de-duplicates by webhook-id. Reported: the delivery lag per event (its commit to its verified receipt) p50, p95
// and max, the total time (first commit to last receipt), duplicates and failures, and this process's longest
// event-loop delay (a 10 ms interval's lateness). Baseline, same run, same receiver and pace: a bare fetch loop
// that signs each body and posts it when its event would have been committed (no database, no feed, no jobs).
// The receiver's clock and ours are compared as performance.timeOrigin + performance.now() (the same machine).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Webhook } from "standardwebhooks";
import { loadConfig } from "../../src/config";
import { appendEvent } from "../../src/events/events";
import { createEndpoint, newSecret, sign } from "../../src/outbound-webhooks/webhooks";
import { startServer } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { BENCH_METRICS_TOKEN, holdLine, holdPhase } from "./holds";
import { receiversStandFor } from "../../tests/support/webhook-network";

const clock = () => performance.timeOrigin + performance.now();

// ----------------------------------------------------------------------------------------------------------
// Child: the receiver. Verifies each request, keeps the first receipt per webhook-id, reports on GET /report.
if (process.argv[2] === "--receiver") {
  const webhook = new Webhook(process.argv[3]!);
  let received = new Map<number, number>(); // seq -> receipt time
  let seen = new Set<string>();
  let duplicates = 0;
  let refused = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/report") return Response.json({ received: [...received], duplicates, refused });
      if (path === "/reset") {
        received = new Map();
        seen = new Set();
        duplicates = refused = 0;
        return new Response("ok");
      }
      const at = clock();
      const body = await req.text();
      const headers = { "webhook-id": req.headers.get("webhook-id") ?? "", "webhook-timestamp": req.headers.get("webhook-timestamp") ?? "", "webhook-signature": req.headers.get("webhook-signature") ?? "" };
      let payload: { data: { seq?: number } };
      try {
        payload = webhook.verify(body, headers) as typeof payload;
      } catch {
        refused++;
        return new Response("bad signature", { status: 400 });
      }
      if (seen.has(headers["webhook-id"])) duplicates++;
      else {
        seen.add(headers["webhook-id"]);
        received.set(payload.data.seq!, at);
      }
      return new Response("ok");
    },
  });
  console.log(`listening ${server.port}`);
  await new Promise(() => {});
}

// ----------------------------------------------------------------------------------------------------------
// Parent.
const EVENTS = Number(process.argv[2] ?? 6000);
const RATE = Number(process.argv[3] ?? 200);
const secret = newSecret();

const child = spawn(process.execPath, [import.meta.path, "--receiver", secret], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<number>((resolve) => {
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const m = /^listening (\d+)$/.exec(line);
    if (m) resolve(Number(m[1]));
  });
});
const receiverUrl = `http://127.0.0.1:${port}`;
type Report = { received: [number, number][]; duplicates: number; refused: number };
const report = async (): Promise<Report> => (await fetch(`${receiverUrl}/report`)).json() as Promise<Report>;

/** The event loop's lateness: a 10 ms interval that fires late by the time the loop was held. */
function lagMonitor() {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  return () => (clearInterval(timer), worst);
}

/** Calls `each(i)` for i in [0, EVENTS) at RATE per second (as many as are due every 5 ms); answers when each ran. */
async function paced(each: (i: number) => unknown): Promise<number[]> {
  const at: number[] = [];
  const start = performance.now();
  while (at.length < EVENTS) {
    const due = Math.min(EVENTS, Math.floor(((performance.now() - start) / 1000) * RATE) + 1);
    while (at.length < due) {
      at.push(clock());
      await each(at.length - 1);
    }
    await Bun.sleep(5);
  }
  return at;
}

/** Waits until the receiver has every event (or `timeoutMs` passed); answers its report. */
async function allReceived(timeoutMs: number): Promise<Report> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await report();
    if (r.received.length >= EVENTS || Date.now() > deadline) return r;
    await Bun.sleep(100);
  }
}

function figures(name: string, sentAt: number[], r: Report, loopMs: number) {
  const lags = r.received.map(([seq, at]) => at - sentAt[seq]!).sort((a, b) => a - b);
  const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))] ?? NaN;
  const total = Math.max(...r.received.map(([, at]) => at)) - sentAt[0]!;
  return { name, received: r.received.length, duplicates: r.duplicates, refused: r.refused, p50: pct(50), p95: pct(95), max: lags.at(-1) ?? NaN, totalS: total / 1000, loopMs };
}

// Baseline: the receiver reached directly at the same pace, each body signed as the appliance signs it.
const baseline = await (async () => {
  const stopLag = lagMonitor();
  const pending: Promise<unknown>[] = [];
  const sentAt = await paced((seq) => {
    const id = `msg_base_${seq}`;
    const body = JSON.stringify({ type: "contact_created", timestamp: new Date().toISOString(), data: { contactId: `c${seq}`, seq } });
    const ts = Math.floor(Date.now() / 1000);
    pending.push(
      fetch(`${receiverUrl}/base`, {
        method: "POST",
        headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": sign(secret, id, ts, body) },
        body,
      }).then((r) => r.text()),
    );
  });
  await Promise.all(pending);
  const r = await allReceived(60_000);
  return figures("bare fetch loop", sentAt, r, stopLag());
})();
await fetch(`${receiverUrl}/reset`);

// The appliance.
const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-bench-webhooks-"));
const server = await startServer(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, METRICS_TOKEN: BENCH_METRICS_TOKEN }, []), () => {});
const ctx = server.ctx;
const user = await createOrPromoteAdmin(ctx, "bench@example.com", "bench-secret-123");
// The receiver on 127.0.0.1 stands in for a public host (a test entry point may set this seam; the product cannot).
receiversStandFor(ctx, "public");
await createEndpoint(ctx, user.id, { name: "bench", url: `${receiverUrl}/hook`, events: ["contact_created"], secret });
const phase = await holdPhase(server.url);
const appliance = await (async () => {
  const stopLag = lagMonitor();
  const sentAt = await paced((seq) => {
    // Each event appended on its own, as a change appends it in its own transaction.
    return appendEvent(ctx, { userId: user.id, type: "contact.created", subject: { kind: "contact", id: `c${seq}` }, payload: { seq } });
  });
  const r = await allReceived(600_000);
  return figures("appliance (feed, jobs, signed attempts)", sentAt, r, stopLag());
})();
const held = await phase.end();
await server.stop();
child.kill();
rmSync(dataDir, { recursive: true, force: true });

const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(10);
console.log(`outbound webhooks: ${EVENTS} events at ${RATE}/s to a local receiver that verifies every signature (load average ${loadavg()[0]!.toFixed(2)})`);
console.log(`${"".padEnd(42)}${"p50".padStart(10)}${"p95".padStart(10)}${"max".padStart(10)}   total   received  dup  refused  loop max`);
for (const f of [baseline, appliance]) {
  console.log(
    `${f.name.padEnd(42)}${ms(f.p50)}${ms(f.p95)}${ms(f.max)}  ${f.totalS.toFixed(1).padStart(5)} s  ${String(f.received).padStart(8)}  ${String(f.duplicates).padStart(3)}  ${String(f.refused).padStart(7)}  ${ms(f.loopMs)}`,
  );
}
// The events are appended in this process too (one short transaction each): the server's figure includes them.
console.log(holdLine("during the appliance's run", held));
console.log(`ratios appliance/baseline: p50 ${(appliance.p50 / baseline.p50).toFixed(2)}, p95 ${(appliance.p95 / baseline.p95).toFixed(2)}, total ${(appliance.totalS / baseline.totalS).toFixed(3)}`);
process.exit(0);
