import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { rateWindowsOf } from "../../src/auth/rate-windows";
import { DEFAULT_RULES, RateLimiter, rateLimiterFor } from "../../src/http/rate-limit";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let clock = Date.now();

beforeAll(async () => {
  t = await startTestServer({ rateLimits: true });
  t.ctx.now = () => clock;
});
afterAll(() => t.stop());
beforeEach(() => rateLimiterFor(t.ctx).reset());

const MESSAGE = /^Too many requests\. Please try again in (\d+) seconds\.$/;

function expectLimited(res: { status: number; body: any; headers: Headers }, maxSeconds: number) {
  expect(res.status).toBe(429);
  const m = MESSAGE.exec(res.body.message);
  expect(m).not.toBeNull();
  const seconds = Number(m![1]);
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers.get("retry-after")).toBe(String(seconds));
  return seconds;
}

describe("rate limits per client address", () => {
  test("the test server keeps production limits when asked; others switch them off", async () => {
    expect(rateLimiterFor(t.ctx).enabled).toBe(true);
    const relaxed = await startTestServer({ smtp: false });
    try {
      expect(rateLimiterFor(relaxed.ctx).enabled).toBe(false);
    } finally {
      await relaxed.stop();
    }
  });

  test("sign-in: 10 per minute, then 429 with Retry-After; the window passes", async () => {
    const body = { email: "nobody@example.com", password: "wrong-password" };
    // Other emails, so no sign-in block (423 after 5 for one email and address) stands in for the rate limit.
    for (let i = 0; i < 10; i++) expect((await t.api("/api/auth/login", { body: { ...body, email: `nobody${i}@example.com` } })).status).toBe(401);
    const limited = await t.api("/api/auth/login", { body });
    expect(expectLimited(limited, 60)).toBe(60);

    clock += 30_000;
    expect(expectLimited(await t.api("/api/auth/login", { body }), 30)).toBe(30);
    clock += 30_001;
    expect((await t.api("/api/auth/login", { body })).status).toBe(401);
  });

  test("the right password is limited too once the address is over its limit", async () => {
    const account = await t.signUp();
    await rateLimiterFor(t.ctx).reset();
    for (let i = 0; i < 10; i++) await t.api("/api/auth/login", { body: { email: account.email, password: "wrong" } });
    const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
    expect(res.status).toBe(429);
    expect(res.body.token).toBeUndefined();
  });

  test("sign-up: 5 per 10 minutes", async () => {
    for (let i = 0; i < 5; i++) {
      const email = t.newEmail("rl");
      const res = await t.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123" } });
      expect(res.status).toBe(201);
    }
    const res = await t.api("/api/auth/register", { body: { email: t.newEmail("rl"), password: "secret123", confirmPassword: "secret123" } });
    expectLimited(res, 600);
  });

  test("X-Forwarded-For is not trusted: a forged address does not get a fresh allowance", async () => {
    const body = { email: "nobody@example.com", password: "wrong-password" };
    for (let i = 0; i < 10; i++) await t.api("/api/auth/login", { body, headers: { "x-forwarded-for": `10.0.0.${i}` } });
    const res = await t.api("/api/auth/login", { body, headers: { "x-forwarded-for": "10.9.9.9", "x-real-ip": "10.9.9.9" } });
    expect(res.status).toBe(429);
  });

  const limitedCalls: [rule: string, path: string, body: unknown][] = [
    ["sign-in", "/api/auth/login", { email: "a@example.com", password: "x" }],
    ["sign-in", "/api/admin/auth/login", { email: "a@example.com", password: "x" }],
    ["sign-in-2fa", "/api/auth/login/2fa", { userId: "x", token: "123456" }],
    ["sign-up", "/api/auth/register", {}],
    ["two-factor", "/api/auth/2fa/setup", {}],
    ["two-factor", "/api/auth/2fa/enable", { token: "123456" }],
    ["two-factor", "/api/auth/2fa/disable", {}],
    ["two-factor", "/api/auth/2fa/regenerate-backup-codes", {}],
    ["email-verification", "/api/auth/verify/email", { code: "123456" }],
    ["email-verification", "/api/auth/verify/email/send", {}],
    ["forgot-password", "/api/auth/forgot-password", { email: "" }],
    ["reset-password", "/api/auth/reset-password", {}],
    ["passkey-sign-in", "/api/webauthn/authenticate/begin", { email: "a@example.com" }],
    ["passkey-sign-in", "/api/webauthn/authenticate/complete", {}],
    ["confirm", "/api/auth/confirm", { password: "x" }],
    ["confirm", "/api/webauthn/confirm", {}],
  ];

  for (const [rule, path, body] of limitedCalls) {
    test(`POST ${path} is limited (${rule})`, async () => {
      const limiter = rateLimiterFor(t.ctx);
      const production = DEFAULT_RULES.find((r) => r.name === rule)!;
      expect(production.limit).toBeGreaterThan(0);
      limiter.setRule(rule, { limit: 2 });
      try {
        for (let i = 0; i < 2; i++) expect((await t.api(path, { body })).status).not.toBe(429);
        expectLimited(await t.api(path, { body }), production.windowMs / 1000);
        // A trailing slash is the same call.
        expect((await t.api(`${path}/`, { body })).status).toBe(429);
      } finally {
        limiter.setRule(rule, { limit: production.limit });
      }
    });
  }

  test("each rule counts separately, and reads are not limited", async () => {
    for (let i = 0; i < 10; i++) await t.api("/api/auth/login", { body: { email: "a@example.com", password: "x" } });
    expect((await t.api("/api/auth/login", { body: { email: "a@example.com", password: "x" } })).status).toBe(429);
    expect((await t.api("/api/auth/forgot-password", { body: { email: "a@example.com" } })).status).toBe(200);
    for (let i = 0; i < 50; i++) expect((await t.api("/api/health")).status).not.toBe(429);
    const account = await t.signUpVerified();
    for (let i = 0; i < 30; i++) expect((await t.api("/api/auth/2fa/status", { token: account.token })).status).toBe(200);
  });

  test("the limiter counts each address on its own", async () => {
    let now = 0;
    const clocked = { ...t.ctx, now: () => now };
    const limiter = new RateLimiter(() => now, rateWindowsOf(clocked));
    for (let i = 0; i < 10; i++) expect(await limiter.hit("POST", "/api/auth/login", "203.0.113.1")).toBeNull();
    expect(await limiter.hit("POST", "/api/auth/login", "203.0.113.1")).toBe(60);
    expect(await limiter.hit("POST", "/api/auth/login", "203.0.113.2")).toBeNull();
    expect(await limiter.hit("GET", "/api/auth/login", "203.0.113.1")).toBeNull();
    now += 60_000;
    expect(await limiter.hit("POST", "/api/auth/login", "203.0.113.1")).toBeNull();
  });
});
