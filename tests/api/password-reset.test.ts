import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { passkeys } from "../../db/schema";
import { updateUser } from "../../src/users/queries";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

const GENERIC = "If an account exists for that email, we have sent a link to reset its password.";
const INVALID = "Invalid reset token. Please request a new password reset.";

let t: TestServer;
let account: Account;
beforeAll(async () => {
  t = await startTestServer();
  account = await t.signUp();
});
afterAll(() => t?.stop());

const forgot = (body: Record<string, unknown>, server = t) => server.api("/api/auth/forgot-password", { body });
const reset = (body: Record<string, unknown>, server = t) => server.api("/api/auth/reset-password", { body });

describe("POST /api/auth/forgot-password", () => {
  test.each([[{}], [{ email: "" }], [{ email: "   " }]])("%p answers 400 'Please enter your email address'", async (body) => {
    const res = await forgot(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Please enter your email address", code: "validation" });
  });

  test("an invalid email answers 400", async () => {
    const res = await forgot({ email: "nope" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Please enter a valid email address", code: "validation" });
  });

  test("an existing and an unknown email get the same 200 answer, without debugToken outside dev mode", async () => {
    const known = await forgot({ email: account.email });
    const unknown = await forgot({ email: "nobody-at-all@example.com" });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual({ success: true, message: GENERIC });
    expect(unknown.body).toEqual(known.body);
    expect(known.body).not.toHaveProperty("debugToken");
  });

  test("only the existing account gets an email, with a reset link", async () => {
    expect(t.emailsTo("nobody-at-all@example.com")).toHaveLength(0);
    const mail = await t.waitForEmail(account.email, 3000, { match: /reset/i });
    expect(mail.subject).toBe("Reset your smsdesk password");
    expect(mail.text).toContain("/auth/reset-password?token=");
    const token = await t.resetLink(account.email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(mail.text).toContain(token);
  });

  test("the email's case does not matter", async () => {
    const before = t.lastSeq();
    const res = await forgot({ email: account.email.toUpperCase() });
    expect(res.status).toBe(200);
    const mail = await t.waitForEmail(account.email, 3000, { afterSeq: before, match: /reset/i });
    expect(mail.to).toEqual([account.email.toLowerCase()]);
  });
});

describe("POST /api/auth/reset-password validation", () => {
  test.each([
    ["no token", { password: "newpass1", confirmPassword: "newpass1" }, INVALID],
    ["empty token", { token: "", password: "newpass1" }, INVALID],
    ["unknown token", { token: "made-up-token-that-was-never-issued", password: "newpass1", confirmPassword: "newpass1" }, INVALID],
    ["no password", { token: "x".repeat(43) }, "Please enter a new password"],
    ["short password", { token: "x".repeat(43), password: "12345", confirmPassword: "12345" }, "Password must be at least 6 characters long"],
    ["mismatch", { token: "x".repeat(43), password: "newpass1", confirmPassword: "newpass2" }, "Passwords do not match"],
  ])("%s answers 400 with its message", async (_n, body, message) => {
    const res = await reset(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "validation" });
  });

  test("a real token with a mismatched confirmation is refused and stays usable", async () => {
    const a = await t.signUp();
    await forgot({ email: a.email });
    const token = await t.resetLink(a.email);
    const bad = await reset({ token, password: "newpass1", confirmPassword: "newpass2" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Passwords do not match");
    const ok = await reset({ token, password: "newpass1", confirmPassword: "newpass1" });
    expect(ok.status).toBe(200);
  });
});

describe("a successful reset", () => {
  let token: string;
  let earlierTokens: string[];
  let oldSession: string;
  const NEW_PASSWORD = "brand-new-pass";
  beforeAll(async () => {
    oldSession = (await t.login(account.email)).token;
    await forgot({ email: account.email });
    token = await t.resetLink(account.email);
    // Links from the earlier requests in this file, still within their 60 minutes.
    earlierTokens = t
      .emailsTo(account.email)
      .filter((m) => /reset/i.test(m.subject))
      .map((m) => /token=([A-Za-z0-9_-]+)/.exec(m.text)![1]!)
      .filter((x) => x !== token);
  });

  test("answers 200 with its message", async () => {
    const res = await reset({ token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Your password has been reset. You can now sign in.", credentials: { revoked: [], kept: [], summary: "" } });
  });

  test("the new password signs in and the old one does not", async () => {
    const oldLogin = await t.api("/api/auth/login", { body: { email: account.email, password: account.password } });
    expect(oldLogin.status).toBe(401);
    expect(oldLogin.body.message).toBe("Invalid credentials");
    const newLogin = await t.api("/api/auth/login", { body: { email: account.email, password: NEW_PASSWORD } });
    expect(newLogin.status).toBe(200);
    expect(newLogin.body.user.id).toBe(account.user.id);
  });

  test("revokes the sessions that existed before", async () => {
    expect((await t.api("/api/auth/user", { token: oldSession })).status).toBe(401);
    expect((await t.api("/api/auth/user", { token: account.token })).status).toBe(401);
  });

  test("the token cannot be used twice", async () => {
    const res = await reset({ token, password: "third-password", confirmPassword: "third-password" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: INVALID, code: "validation" });
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: "third-password" } })).status).toBe(401);
  });

  test("proves the mailbox, so the account counts as verified", async () => {
    const res = await t.login(account.email, NEW_PASSWORD);
    expect(res.user.emailVerified).toBe(true);
  });

  // Runs last in this group: if it fails, it has changed the password.
  test("earlier, unused reset links of the account stop working too", async () => {
    expect(earlierTokens.length).toBeGreaterThanOrEqual(1);
    for (const earlier of earlierTokens) {
      const res = await reset({ token: earlier, password: "attacker-pass", confirmPassword: "attacker-pass" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: INVALID, code: "validation" });
    }
  });
});

describe("reset token expiry", () => {
  test("a link older than 60 minutes is refused", async () => {
    const a = await t.signUp();
    await forgot({ email: a.email });
    const token = await t.resetLink(a.email);
    const realNow = t.ctx.now;
    t.ctx.now = () => Date.now() + 60 * 60_000 + 1000;
    try {
      const res = await reset({ token, password: "newpass1", confirmPassword: "newpass1" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: INVALID, code: "validation" });
    } finally {
      t.ctx.now = realNow;
    }
    expect((await t.api("/api/auth/login", { body: { email: a.email, password: a.password } })).status).toBe(200);
  });
});

describe("debugToken", () => {
  test("dev mode without SMTP answers with a debugToken that resets the password", async () => {
    const dev = await startTestServer({ smtp: false, dev: true });
    try {
      const a = await dev.signUp();
      const res = await forgot({ email: a.email }, dev);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe(GENERIC);
      expect(typeof res.body.debugToken).toBe("string");
      expect(res.body.debugToken.length).toBeGreaterThanOrEqual(40);
      // The same token the log-mailer wrote out.
      expect(await dev.resetLink(a.email)).toBe(res.body.debugToken);
      const unknown = await forgot({ email: "nobody-at-all@example.com" }, dev);
      expect(unknown.body).toEqual({ success: true, message: GENERIC });
      const done = await reset({ token: res.body.debugToken, password: "devpass1", confirmPassword: "devpass1" }, dev);
      expect(done.status).toBe(200);
      expect((await dev.api("/api/auth/login", { body: { email: a.email, password: "devpass1" } })).status).toBe(200);
    } finally {
      await dev.stop();
    }
  });

  test("dev mode with SMTP answers without debugToken", async () => {
    const dev = await startTestServer({ smtp: true, dev: true });
    try {
      const a = await dev.signUp();
      const res = await forgot({ email: a.email }, dev);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: GENERIC });
      expect(await dev.resetLink(a.email)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    } finally {
      await dev.stop();
    }
  });

  test("production mode without SMTP answers without debugToken", async () => {
    const prod = await startTestServer({ smtp: false, dev: false });
    try {
      const a = await prod.signUp();
      const res = await forgot({ email: a.email }, prod);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: GENERIC });
    } finally {
      await prod.stop();
    }
  });
});

describe("the reset email lists the account's passkeys (issue 27 item 7)", () => {
  test("each passkey's name and when it was added, newest first, in the account's locale and time zone", async () => {
    const owner = await t.signUpVerified();
    await updateUser(t.ctx, owner.user.id, { timezone: "Asia/Tokyo", locale: "en-GB" });
    const passkey = (id: string, name: string, createdAt: string) =>
      t.ctx.db.insert(passkeys).values({ id, userId: owner.user.id, publicKey: "pk", name, createdAt: new Date(createdAt) }).run();
    passkey(`${owner.user.id}-a`, "Work laptop", "2026-03-01T09:30:00Z");
    // A name with a line break cannot forge a line of the email.
    passkey(`${owner.user.id}-b`, "Phone\nIf you did not ask, call 555", "2026-11-20T23:05:00Z");

    const before = t.lastSeq();
    expect((await forgot({ email: owner.email })).status).toBe(200);
    const mail = await t.waitForEmail(owner.email, 3000, { afterSeq: before, match: /reset/i });
    expect(mail.text.split("\n\n").at(-1)).toBe(
      "Passkeys on this account sign in without its password, so a new password does not remove them. They are:\n" +
        '- "Phone If you did not ask, call 555", added 21 Nov 2026, 08:05\n' +
        '- "Work laptop", added 1 Mar 2026, 18:30\n' +
        "(times in Asia/Tokyo). If you did not add one of them, remove it under Settings > Security once you are signed in.",
    );
  });

  test("an account without passkeys is told it has none", async () => {
    const owner = await t.signUpVerified();
    const before = t.lastSeq();
    expect((await forgot({ email: owner.email })).status).toBe(200);
    const mail = await t.waitForEmail(owner.email, 3000, { afterSeq: before, match: /reset/i });
    expect(mail.text.split("\n\n").at(-1)).toBe("This account has no passkeys.");
  });
});
