// One tenant's delivery reports cannot stall the appliance: reports for ids we never sent are handled in time
// proportional to their number, /api/health keeps answering fast meanwhile, a webhook request carries at most
// 1,000 events, and the reports held for messages not recorded yet stay bounded per account and expire.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EARLY_REPORT_TTL_MS, EARLY_REPORTS_PER_ACCOUNT, earlyReportCount, takeEarlyReport } from "../../src/messages/messages";
import { startChildServer, type ChildServer } from "../support/child-server";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

let t: TestServer;
let acc: Account;
let providerId: string;
let hookUrl: string;

beforeAll(async () => {
  t = await startTestServer({ smtp: false, dev: true });
  acc = await t.signUpVerified();
  const created = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  expect(created.status).toBe(201);
  providerId = created.body.id;
  hookUrl = created.body.webhookUrl.replace(t.ctx.config.publicUrl, t.url);
});
afterAll(() => t?.stop());

/** Delivery reports in the simulator's webhook format, for provider ids nobody sent. */
const unknownReports = (prefix: string, n: number) =>
  JSON.stringify({ events: Array.from({ length: n }, (_, i) => ({ type: "status", id: `${prefix}-${i}`, status: "delivered" })) });

const postTo = (url: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
const postHook = (body: string) => postTo(hookUrl, body);

describe("a flood of delivery reports for unknown message ids", () => {
  test("one request of 40,000 events answers 413 at once and applies nothing", async () => {
    const started = performance.now();
    const res = await postHook(unknownReports("big", 40_000));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: "Request body too large", code: "too_large" });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(0);
  });

  test("a request within the size limit but over 1,000 events answers 413 and applies nothing", async () => {
    const events = Array.from({ length: 1001 }, (_, i) => ({ type: "status", id: `x${i}` }));
    const res = await postHook(JSON.stringify({ events }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      message: "A webhook request can carry at most 1,000 events; this one has 1,001. Nothing was applied: send them in smaller batches.",
      code: "too_large",
    });
    expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(0);
  });

  test("40 requests of 1,000 answer 200 each, and the account holds at most 10,000 early reports: the oldest went first", async () => {
    for (let i = 0; i < 40; i++) expect((await postHook(unknownReports(`batch${i}`, 1000))).status).toBe(200);
    expect(EARLY_REPORTS_PER_ACCOUNT).toBe(10_000);
    expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(10_000);
    expect(await takeEarlyReport(t.ctx, providerId, "batch0-0")).toBeUndefined();
    expect(await takeEarlyReport(t.ctx, providerId, "batch29-999")).toBeUndefined();
    expect(await takeEarlyReport(t.ctx, providerId, "batch30-0")).toEqual({
      type: "status",
      providerMessageId: "batch30-0",
      status: "delivered",
      errorCode: null,
      errorMessage: null,
    });
    expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(9_999);
  });

  test("early reports expire after 10 minutes", async () => {
    const realNow = t.ctx.now;
    try {
      t.ctx.now = () => Date.now() + EARLY_REPORT_TTL_MS + 1000;
      expect(await takeEarlyReport(t.ctx, providerId, "batch39-999")).toBeUndefined();
      expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(0);
      expect((await postHook(unknownReports("late", 3))).status).toBe(200);
      expect(await earlyReportCount(t.ctx, acc.user.id)).toBe(3);
    } finally {
      t.ctx.now = realNow;
    }
  });
});

describe("the server in its own process, as a provider and every other user see it", () => {
  let child: ChildServer;
  let dataDir: string;
  let childHook: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "smsdesk-webhooks-"));
    child = await startChildServer({ DATA_DIR: dataDir, SMSDESK_DEV: "1", PUBLIC_URL: "http://127.0.0.1:0" });
    const call = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(child.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", origin: child.url, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const email = "flood@example.com";
    const registered = await call("/api/auth/register", { email, password: "secret123", confirmPassword: "secret123", firstName: "F", lastName: "L" });
    expect(registered.status).toBe(201);
    // Development mode writes the verification email to the log.
    const code = await waitFor(() => /to=flood@example\.com[^\n]*\n[\s\S]*?\b(\d{6})\b/.exec(child.output())?.[1], (c) => !!c);
    const verified = await call("/api/auth/register/verify", { signupToken: registered.body.signupToken, code });
    expect(verified.status).toBe(200);
    const provider = await call("/api/sms-providers", { provider: "simulator", displayName: "Sim" }, verified.body.token);
    expect(provider.status).toBe(201);
    childHook = provider.body.webhookUrl;
  });
  afterAll(async () => {
    await child?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("40 requests of 1,000 unknown ids finish in bounded time while /api/health answers under 100 ms", async () => {
    const started = performance.now();
    const statuses: number[] = [];
    let done = false;
    const posting = (async () => {
      for (let i = 0; i < 40; i++) {
        const res = await postTo(childHook, unknownReports(`batch${i}`, 1000));
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    })().finally(() => (done = true));
    const health: number[] = [];
    while (!done) {
      const asked = performance.now();
      const res = await fetch(`${child.url}/api/health`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      health.push(performance.now() - asked);
    }
    await posting;
    const elapsed = performance.now() - started;
    console.log(`40 x 1,000 unknown-id reports: ${elapsed.toFixed(0)} ms; /api/health slowest ${Math.max(...health).toFixed(1)} ms of ${health.length}`);
    expect(statuses).toEqual(Array(40).fill(200));
    expect(elapsed).toBeLessThan(10_000);
    expect(health.length).toBeGreaterThan(10);
    expect(Math.max(...health)).toBeLessThan(100);
  });
});
