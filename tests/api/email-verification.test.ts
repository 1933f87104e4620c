import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.stop());

const verify = (token: string, code: unknown) => t.api("/api/auth/verify/email", { body: { code }, token });
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/** Runs fn with the server's clock moved forward. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = t.ctx.now;
  t.ctx.now = () => Date.now() + ms;
  try {
    return await fn();
  } finally {
    t.ctx.now = realNow;
  }
}

describe("an unverified account", () => {
  let account: Account;
  beforeAll(async () => {
    account = await t.signUp();
  });

  test.each(["/api/user/settings", "/api/analytics/summary", "/api/analytics/recent-activity"])(
    "gets 403 on %s",
    async (path) => {
      const res = await t.api(path, { token: account.token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: "Please verify your email address first", emailVerified: false, code: "forbidden" });
    },
  );

  test("gets 403 on PATCH settings and nothing changes", async () => {
    const res = await t.api("/api/user/settings", { method: "PATCH", body: { timezone: "UTC" }, token: account.token });
    expect(res.status).toBe(403);
    expect((await t.api("/api/auth/user", { token: account.token })).body.timezone).toBe("America/New_York");
  });

  test("the verification calls need a sign-in", async () => {
    expect((await t.api("/api/auth/verify/email", { body: { code: "123456" } })).status).toBe(401);
    expect((await t.api("/api/auth/verify/email/send", { method: "POST" })).status).toBe(401);
  });

  test.each([["12345"], ["1234567"], ["abcdef"], ["12 456"], [""], [123456], [null]])(
    "code %p answers 400 'Please enter a 6-digit verification code'",
    async (code) => {
      const res = await verify(account.token, code);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "Please enter a 6-digit verification code", code: "validation" });
    },
  );

  test("a missing code answers the same 400", async () => {
    const res = await t.api("/api/auth/verify/email", { body: {}, token: account.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Please enter a 6-digit verification code", code: "validation" });
  });

  test("resending within 60 s answers 429 with Retry-After", async () => {
    const sent = t.emailsTo(account.email).length;
    const res = await t.api("/api/auth/verify/email/send", { method: "POST", token: account.token });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.body.message).toBe(`Please wait ${retryAfter} seconds before requesting another code`);
    expect(res.body.retryAfter).toBe(retryAfter);
    expect(t.emailsTo(account.email)).toHaveLength(sent);
  });

  test("a wrong code answers 400 'Invalid verification code'", async () => {
    const code = await t.latestCode(account.email);
    const res = await verify(account.token, wrongCode(code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid verification code", code: "validation" });
    expect((await t.api("/api/auth/user", { token: account.token })).body.emailVerified).toBe(false);
  });

  test("the right code verifies and then settings work", async () => {
    const code = await t.latestCode(account.email);
    const res = await verify(account.token, code);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe("Email verified successfully!");
    expect(res.body.user.emailVerified).toBe(true);
    expect((await t.api("/api/auth/user", { token: account.token })).body.emailVerified).toBe(true);
    const settings = await t.api("/api/user/settings", { token: account.token });
    expect(settings.status).toBe(200);
    expect(settings.body.timezone).toBe("America/New_York");
    expect((await t.api("/api/analytics/summary", { token: account.token })).status).toBe(200);
  });

  test("once verified, sending another code answers 400", async () => {
    const res = await t.api("/api/auth/verify/email/send", { method: "POST", token: account.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Your email address is already verified", code: "validation" });
  });

  test("the account stays verified on a new sign-in", async () => {
    const again = await t.login(account.email);
    expect(again.user.emailVerified).toBe(true);
    expect((await t.api("/api/user/settings", { token: again.token })).status).toBe(200);
  });
});

describe("attempt limit and resend", () => {
  let account: Account;
  beforeAll(async () => {
    account = await t.signUp();
  });

  test("after 5 wrong codes even the right code is refused with 429", async () => {
    const code = await t.latestCode(account.email);
    for (let i = 0; i < 5; i++) {
      const res = await verify(account.token, wrongCode(code));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Invalid verification code");
    }
    const res = await verify(account.token, code);
    expect(res.status).toBe(429);
    expect(res.body.message).toBe("Too many attempts. Please request a new code.");
    expect((await t.api("/api/auth/user", { token: account.token })).body.emailVerified).toBe(false);
  });

  test("after the cooldown a new code is sent, the old one stops working and the new one verifies", async () => {
    const oldCode = await t.latestCode(account.email);
    const before = t.lastSeq();
    const res = await later(61_000, () => t.api("/api/auth/verify/email/send", { method: "POST", token: account.token }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: `Verification code sent to ${account.email}`, retryAfter: 60 });
    const mail = await t.waitForEmail(account.email, 3000, { afterSeq: before });
    const newCode = /\b(\d{6})\b/.exec(mail.text)![1]!;
    if (newCode !== oldCode) {
      const stale = await later(61_000, () => verify(account.token, oldCode));
      expect(stale.status).toBe(400);
      expect(stale.body.message).toBe("Invalid verification code");
    }
    const ok = await later(62_000, () => verify(account.token, newCode));
    expect(ok.status).toBe(200);
    expect(ok.body.user.emailVerified).toBe(true);
  });
});

describe("code expiry", () => {
  test("a code older than 15 minutes answers 400 'This code has expired. Please request a new one.'", async () => {
    const account = await t.signUp();
    const code = await t.latestCode(account.email);
    const res = await later(15 * 60_000 + 1000, () => verify(account.token, code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "This code has expired. Please request a new one.", code: "validation" });
    expect((await t.api("/api/auth/user", { token: account.token })).body.emailVerified).toBe(false);
  });
});

describe("codes are per account", () => {
  test("another account's code does not verify this one", async () => {
    const a = await t.signUp();
    const b = await t.signUp();
    const codeA = await t.latestCode(a.email);
    const codeB = await t.latestCode(b.email);
    if (codeA === codeB) return; // one in a million: nothing to tell apart
    const res = await verify(b.token, codeA);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Invalid verification code");
  });
});

describe("codes per account per day (issue 27 item 7)", () => {
  test("10 codes in 24 hours, the sign-up's included; the 11th answers 429 until the window's day is over", async () => {
    const realNow = t.ctx.now;
    const base = Date.now();
    let offset = 0;
    t.ctx.now = () => base + offset;
    try {
      const account = await t.signUp();
      await t.latestCode(account.email);
      const send = (afterMs: number) => {
        offset = afterMs;
        return t.api("/api/auth/verify/email/send", { method: "POST", token: account.token });
      };
      // Nine resends, each past the 60 s cooldown: ten codes in all.
      for (let i = 1; i <= 9; i++) expect((await send(i * 61_000)).status).toBe(200);
      const sent = t.emailsTo(account.email).length;

      const refused = await send(10 * 61_000);
      expect(refused.status).toBe(429);
      // The window began with the sign-up's code, 610 s before: 23 h 49 min 50 s are left.
      const left = 24 * 3600 - 610;
      expect(refused.headers.get("retry-after")).toBe(String(left));
      expect(refused.body).toEqual({
        message:
          "You have been sent 10 verification codes in the last 24 hours. Please use the newest one, or try again in 24 hours.",
        retryAfter: left,
        code: "rate_limited",
      });
      expect((await send(23 * 3600_000)).body.message).toBe(
        "You have been sent 10 verification codes in the last 24 hours. Please use the newest one, or try again in 1 hour.",
      );
      expect(t.emailsTo(account.email)).toHaveLength(sent);

      // A day after the first code, a new window.
      expect((await send(24 * 3600_000 + 1000)).status).toBe(200);
    } finally {
      t.ctx.now = realNow;
    }
  });
});
