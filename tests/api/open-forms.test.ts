// What anyone can call without signing in cannot fill the database: the contact form, error reports and starting
// Google sign-in are limited per address, and the stored contact messages and error reports are capped in total.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { errorReports, supportMessages } from "../../db/schema";
import { ERROR_REPORTS_KEPT, ERROR_REPORTS_PER_DAY } from "../../src/error-reports/reports";
import { rateLimiterFor } from "../../src/http/rate-limit";
import { OPEN_MESSAGES_PER_DAY } from "../../src/support/messages";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let clock = Date.now();
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestServer({
    smtp: false,
    rateLimits: true,
    env: { GOOGLE_CLIENT_ID: "client-id", GOOGLE_CLIENT_SECRET: "client-secret" },
  });
  t.ctx.now = () => clock;
});
afterAll(() => t?.stop());
beforeEach(async () => {
  const limiter = rateLimiterFor(t.ctx);
  limiter.enabled = true;
  await limiter.reset();
  clock += 2 * 24 * HOUR;
});

const CONTACT = { name: "Ada Lovelace", email: "ada@example.com", subject: "Billing question", message: "How do I change plans?" };
const contact = () => t.api("/api/contact", { body: CONTACT });
const report = (message = "TypeError: x is undefined") => t.api("/api/admin/report-error", { body: { errorReport: { message } } });
const rows = (table: typeof supportMessages | typeof errorReports) => t.ctx.db.select().from(table).all().length;

function expectRateLimited(res: { status: number; body: any; headers: Headers }, seconds: number) {
  expect(res.status).toBe(429);
  expect(res.body.message).toBe(`Too many requests. Please try again in ${seconds} seconds.`);
  expect(res.headers.get("retry-after")).toBe(String(seconds));
}

describe("per address", () => {
  test("contact form: 5 per 10 minutes, and the sixth stores nothing", async () => {
    for (let i = 0; i < 5; i++) expect((await contact()).status).toBe(201);
    const before = rows(supportMessages);
    expectRateLimited(await contact(), 600);
    expect(rows(supportMessages)).toBe(before);
    clock += 10 * 60_000;
    expect((await contact()).status).toBe(201);
  });

  test("error reports: 20 per 10 minutes", async () => {
    for (let i = 0; i < 20; i++) expect((await report()).status).toBe(201);
    expectRateLimited(await report(), 600);
  });

  test("starting Google sign-in: 20 per 10 minutes", async () => {
    for (let i = 0; i < 20; i++) expect((await t.api("/api/auth/google")).status).toBe(302);
    expectRateLimited(await t.api("/api/auth/google"), 600);
  });
});

describe("in total, from every address together", () => {
  test(`at most ${OPEN_MESSAGES_PER_DAY} open contact messages per 24 hours, then 429 until the oldest is a day old`, async () => {
    rateLimiterFor(t.ctx).enabled = false;
    const start = clock;
    for (let i = 0; i < OPEN_MESSAGES_PER_DAY; i++) {
      clock = start + i * 60_000;
      expect((await contact()).status).toBe(201);
    }
    const before = rows(supportMessages);
    clock = start + 2 * HOUR;
    const res = await contact();
    expect(res.status).toBe(429);
    expect(res.body.message).toBe("We have received too many messages today. Please try again later.");
    expect(res.headers.get("retry-after")).toBe(String(22 * 3600));
    expect(rows(supportMessages)).toBe(before);
    clock = start + 24 * HOUR + 1;
    expect((await contact()).status).toBe(201);
  });

  test(`at most ${ERROR_REPORTS_PER_DAY} error reports per 24 hours`, async () => {
    rateLimiterFor(t.ctx).enabled = false;
    const start = clock;
    for (let i = 0; i < ERROR_REPORTS_PER_DAY; i++) expect((await report()).status).toBe(201);
    clock = start + HOUR;
    const res = await report();
    expect(res.status).toBe(429);
    expect(res.body.message).toBe("Too many error reports today. Please try again later.");
    expect(res.headers.get("retry-after")).toBe(String(23 * 3600));
    clock = start + 24 * HOUR + 1;
    expect((await report()).status).toBe(201);
  });

  test(`at most ${ERROR_REPORTS_KEPT} error reports are kept: the oldest go first`, async () => {
    rateLimiterFor(t.ctx).enabled = false;
    t.ctx.db.delete(errorReports).run();
    const old = new Date(clock - 7 * 24 * HOUR);
    t.ctx.db
      .insert(errorReports)
      .values(Array.from({ length: ERROR_REPORTS_KEPT }, (_, i) => ({ id: `old-${String(i).padStart(4, "0")}`, message: "old", createdAt: new Date(old.getTime() + i) })))
      .run();
    const res = await report("the newest");
    expect(res.status).toBe(201);
    expect(rows(errorReports)).toBe(ERROR_REPORTS_KEPT);
    const kept = new Set(t.ctx.db.select({ id: errorReports.id }).from(errorReports).all().map((r) => r.id));
    expect(kept.has(res.body.id)).toBe(true);
    expect(kept.has("old-0000")).toBe(false);
    expect(kept.has("old-0001")).toBe(true);
  });
});

describe("field bounds", () => {
  test("an error report's stack over 100,000 characters answers 400 and stores nothing", async () => {
    const before = rows(errorReports);
    const res = await t.api("/api/admin/report-error", { body: { errorReport: { message: "m", stack: "s".repeat(100_001) } } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid errorReport\.stack: /);
    expect(rows(errorReports)).toBe(before);
  });

  test("a contact message over 10,000 characters answers 400", async () => {
    const res = await t.api("/api/contact", { body: { ...CONTACT, message: "m".repeat(10_001) } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid message: /);
  });
});
