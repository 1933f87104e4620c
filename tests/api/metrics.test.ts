import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { enqueueJob } from "../../src/jobs/jobs";
import { liveHubOf } from "../../src/live/socket";
import { METRICS_RANGE, outboxMetrics } from "../../src/messages/metrics";
import { PROCESS } from "../../src/process-identity";
import { instanceId } from "../../src/secrets/instance";
import { VERSION } from "../../src/version";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { turnsDuring } from "../support/turns";
import { waitFor } from "../support/wait";

const TOKEN = "metrics-token-0123456789";
let t: TestServer;
let acc: Account;
let number: string;

beforeAll(async () => {
  t = await startTestServer({ smtp: false, env: { METRICS_TOKEN: TOKEN } });
  acc = await t.signUpVerified();
  // Campaigns to US numbers would otherwise wait for 8 AM there when the suite runs at night.
  expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
  const provider = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
  number = (await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token })).body.numbers[0].phoneNumber;
  expect((await t.api("/api/phone-numbers", { token: acc.token, body: { providerId: provider.body.id, phoneNumber: number, messagesPerSecond: 0 } })).status).toBe(201);
});
afterAll(() => t?.stop());

const scrape = (authorization?: string) => fetch(`${t.url}/metrics`, { headers: authorization ? { authorization } : {} });
/** The samples of a scrape, by their name and labels as printed. */
async function samples(): Promise<Map<string, number>> {
  const res = await scrape(`Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  return new Map(
    text
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => [l.slice(0, l.lastIndexOf(" ")), Number(l.slice(l.lastIndexOf(" ") + 1))]),
  );
}

describe("who may scrape /metrics", () => {
  test("only the METRICS_TOKEN bearer; without the setting it does not exist", async () => {
    expect(await scrape().then(async (r) => [r.status, r.headers.get("www-authenticate"), await r.json()])).toEqual([
      401,
      'Bearer realm="metrics"',
      { message: "Send the metrics token: Authorization: Bearer METRICS_TOKEN", code: "unauthorized" },
    ]);
    expect((await scrape("Bearer wrong-token-0123456789")).status).toBe(401);
    expect((await scrape(`Bearer ${TOKEN}x`)).status).toBe(401);
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(200);
    t.ctx.config.metricsToken = null;
    try {
      expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
    } finally {
      t.ctx.config.metricsToken = TOKEN;
    }
  });
});

describe("which process answers", () => {
  test("/metrics names its installation, its process (host:pid) and version, and when it started; /api/health its process", async () => {
    const m = await samples();
    const process_ = `${hostname()}:${process.pid}`;
    expect(m.get(`smsdesk_process_info{installation="${instanceId(t.ctx.keys.secrets)}",process="${process_}",version="${VERSION}"}`)).toBe(1);
    expect(m.get("smsdesk_process_start_time_seconds")).toBe(Number((PROCESS.startedAt / 1000).toFixed(3)));
    expect(PROCESS.startedAt).toBeLessThanOrEqual(Date.now());
    const health = (await t.api("/api/health")).body;
    expect([health.instance, health.process]).toEqual([instanceId(t.ctx.keys.secrets), process_]);
  });
});

describe("what /metrics shows", () => {
  test("messages by status, outbox depth and age, send rate, socket clients, job lag, webhook latency", async () => {
    // With the engine stopped, a campaign's messages wait in the outbox.
    await t.ctx.sending.stop();
    const recipients = ["+14155550101", "+14155550102", "+14155550103"];
    const campaign = await t.api("/api/campaigns", { token: acc.token, body: { type: "sms", name: "M", content: "Hi", recipients, fromNumber: number } });
    expect((await t.api(`/api/campaigns/${campaign.body.id}/send`, { method: "POST", token: acc.token, body: {} })).status).toBe(202);
    const oldest = (t.ctx.db.$client.query("SELECT min(created_at) AS at FROM messages WHERE status = 'queued'").get() as { at: number }).at;

    const realNow = t.ctx.now;
    t.ctx.now = () => oldest + 42_500;
    let m: Map<string, number>;
    try {
      m = await samples();
    } finally {
      t.ctx.now = realNow;
    }
    expect(m.get('smsdesk_messages{direction="outbound",status="queued"}')).toBe(3);
    expect(m.get(`smsdesk_outbox_queued{number="${number}"}`)).toBe(3);
    expect(m.get(`smsdesk_outbox_oldest_age_seconds{number="${number}"}`)).toBe(42.5);
    expect(m.get("smsdesk_socket_clients")).toBe(0);
    expect(m.get("smsdesk_webhook_delivery_latency_seconds_count")).toBe(0);

    // Sent: the rate over the last minute is three a minute.
    await t.ctx.sending.start();
    await waitFor(
      () => t.ctx.db.$client.query("SELECT count(*) AS n FROM messages WHERE status = 'delivered'").get() as { n: number },
      (r) => r.n === 3,
    );
    const socket = new WebSocket(`${t.url.replace("http:", "ws:")}/ws`, { headers: { cookie: `smsdesk_session=${acc.token}`, origin: new URL(t.ctx.config.publicUrl).origin } } as any);
    await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
    // Counted once the socket says where to resume and joins its account.
    socket.send(JSON.stringify({ type: "resume" }));
    await waitFor(() => liveHubOf(t.ctx)?.socketCount(), (n) => n === 1);
    // A job of a kind no worker handles, an hour overdue.
    const due = Date.now() - 3600_000;
    await enqueueJob(t.ctx, { kind: "metrics.test", key: "metrics.test", runAt: due });
    // Three delivery attempts of an outbound webhook in the last hour, answered in 100, 200 and 900 ms.
    const db = t.ctx.db.$client;
    db.query("INSERT INTO webhook_endpoints (id, user_id, name, url, secret, created_at) VALUES ('we1', ?, 'W', 'https://example.com/h', 'whsec_x', ?)").run(acc.user.id, Date.now());
    for (const [i, ms] of [100, 200, 900].entries())
      db.query("INSERT INTO webhook_deliveries (id, endpoint_id, user_id, event_type, payload, status, latency_ms, last_attempt_at, created_at) VALUES (?, 'we1', ?, 'message_sent', '{}', 'delivered', ?, ?, ?)").run(
        `wd${i}`,
        acc.user.id,
        ms,
        Date.now(),
        Date.now(),
      );

    t.ctx.now = () => due + 3600_000;
    try {
      m = await samples();
    } finally {
      t.ctx.now = realNow;
      socket.close();
    }
    expect(m.get('smsdesk_messages{direction="outbound",status="delivered"}')).toBe(3);
    expect(m.has('smsdesk_messages{direction="outbound",status="queued"}')).toBe(false);
    expect(m.has(`smsdesk_outbox_queued{number="${number}"}`)).toBe(false);
    expect(m.get(`smsdesk_send_rate_per_second{number="${number}"}`)).toBe(0.05);
    expect(m.get("smsdesk_socket_clients")).toBe(1);
    expect(m.get("smsdesk_job_lag_seconds")).toBe(3600);
    expect(m.get("smsdesk_jobs_due")).toBeGreaterThanOrEqual(1);
    expect(m.get('smsdesk_jobs{state="pending"}')).toBeGreaterThanOrEqual(1);
    expect(m.get('smsdesk_webhook_delivery_latency_seconds{quantile="0.5"}')).toBe(0.2);
    expect(m.get('smsdesk_webhook_delivery_latency_seconds{quantile="0.99"}')).toBe(0.9);
    expect(m.get("smsdesk_webhook_delivery_latency_seconds_sum")).toBe(1.2);
    expect(m.get("smsdesk_webhook_delivery_latency_seconds_count")).toBe(3);
  });
});

describe("a scrape over many messages", () => {
  test("reads them METRICS_RANGE at a time with turns of the event loop between, every message counted once", async () => {
    const n = METRICS_RANGE * 2 + 1;
    const db = t.ctx.db.$client;
    const insert = db.prepare(
      `INSERT INTO messages (id, user_id, phone, content, direction, status, kind, from_number, created_at, sent_at) VALUES (?, ?, ?, 'x', 'outbound', 'expired', 'single', ?, ?, ?)`,
    );
    const now = t.ctx.now();
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(Bun.randomUUIDv7(), acc.user.id, `+1312558${String(i % 10_000).padStart(4, "0")}`, i % 2 ? "+15550000001" : "+15550000002", now, i < 10 ? now : null);
    })();
    let figures: Awaited<ReturnType<typeof outboxMetrics>> | undefined;
    expect(await turnsDuring(async () => (figures = await outboxMetrics(t.ctx, now - 1000)))).toBeGreaterThanOrEqual(2);
    expect(figures!.byStatus.find((s) => s.status === "expired")).toEqual({ direction: "outbound", status: "expired", count: n });
    expect(figures!.sentSince.filter((s) => s.number.startsWith("+1555"))).toEqual([
      { number: "+15550000001", count: 5 },
      { number: "+15550000002", count: 5 },
    ]);
    expect((await samples()).get('smsdesk_messages{direction="outbound",status="expired"}')).toBe(n);
  });
});

describe("the event loop's holds", () => {
  test("the longest hold since the previous scrape, and the count over 50 ms since the start", async () => {
    await samples();
    const before = (await samples()).get("smsdesk_event_loop_holds_total")!;
    // Holds the event loop for 400 ms (longer than anything else here, on a loaded machine too), then lets the timer see it.
    const threadCpu = () => (process.platform === "linux" ? Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e9 : 0);
    const cpu0 = threadCpu();
    const until = performance.now() + 400;
    while (performance.now() < until);
    const spun = threadCpu() - cpu0;
    await Bun.sleep(30);
    const m = await samples();
    const longest = m.get("smsdesk_event_loop_longest_hold_seconds")!;
    expect(longest).toBeGreaterThanOrEqual(0.38);
    expect(longest).toBeLessThan(2);
    expect(m.get("smsdesk_event_loop_holds_total")).toBeGreaterThanOrEqual(before + 1);
    // That hold was the loop's own work, as much of it as the thread got a core for (Linux; elsewhere not given).
    if (process.platform === "linux") {
      expect(m.get("smsdesk_event_loop_longest_busy_hold_seconds")!).toBeGreaterThanOrEqual(spun - 0.02);
      expect(m.get("smsdesk_event_loop_longest_busy_hold_seconds")!).toBeLessThanOrEqual(longest);
    }
    // Read, it starts again: that hold is not reported twice.
    expect((await samples()).get("smsdesk_event_loop_longest_hold_seconds")).toBeLessThan(longest);
  });

  test("a pause that holds nothing is late without being the loop's work", async () => {
    await samples();
    // This process stopped 300 ms (as when it waits for a core on a loaded machine): the timer fires late while the
    // loop's thread ran not.
    await Bun.spawn(["sh", "-c", `kill -STOP ${process.pid}; sleep 0.3; kill -CONT ${process.pid}`]).exited;
    await Bun.sleep(30);
    const m = await samples();
    expect(m.get("smsdesk_event_loop_longest_hold_seconds")!).toBeGreaterThanOrEqual(0.25);
    if (process.platform === "linux") expect(m.get("smsdesk_event_loop_longest_busy_hold_seconds")!).toBeLessThan(0.15);
  });
});
