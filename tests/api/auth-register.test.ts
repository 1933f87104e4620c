import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { DEFAULT_PASSWORD, setCookie, startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let account: Account;
beforeAll(async () => {
  t = await startTestServer();
  account = await t.signUp(t.newEmail("Reg").replace("Reg", "Mixed.Case"));
});
afterAll(() => t?.stop());

const register = (body: Record<string, unknown>) => t.api("/api/auth/register", { body });

describe("POST /api/auth/register validation (spec order)", () => {
  test.each([
    ["no email", { password: "secret1", confirmPassword: "secret1" }, "Email and password are required"],
    ["no password", { email: "a@example.com", confirmPassword: "secret1" }, "Email and password are required"],
    ["blank email", { email: "   ", password: "secret1", confirmPassword: "secret1" }, "Email and password are required"],
    ["empty body", {}, "Email and password are required"],
    ["invalid email", { email: "not-an-email", password: "secret1", confirmPassword: "secret1" }, "Please enter a valid email address"],
    ["email without domain dot", { email: "a@b", password: "secret1", confirmPassword: "secret1" }, "Please enter a valid email address"],
    ["no confirmation", { email: "a@example.com", password: "secret1" }, "Please confirm your password"],
    ["short password", { email: "a@example.com", password: "12345", confirmPassword: "12345" }, "Password must be at least 6 characters"],
    ["mismatch", { email: "a@example.com", password: "secret1", confirmPassword: "secret2" }, "Passwords do not match"],
  ])("%s answers 400 with its message", async (_name, body, message) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "validation" });
  });

  test("a short password that also mismatches reports the length first", async () => {
    const res = await register({ email: "a@example.com", password: "123", confirmPassword: "456" });
    expect(res.body.message).toBe("Password must be at least 6 characters");
  });

  test("no account is created by a refused sign-up", async () => {
    expect(await t.ctx.records.select().from(users).where(eq(users.email, "a@example.com")).get()).toBeUndefined();
  });
});

describe("successful sign-up", () => {
  test("answers 201 with a sign-up token and where the code went; the emailed code signs in an unverified user", async () => {
    const email = t.newEmail("fresh");
    const res = await register({ email, password: "secret123", confirmPassword: "secret123", firstName: "Test", lastName: "User" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["email", "message", "signupToken"]);
    expect(res.body.signupToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.email).toBe(email.toLowerCase());
    expect(res.body.message).toBe(`We sent a 6-digit code to ${email.toLowerCase()}. Enter it to finish creating your account.`);
    expect(setCookie(res.headers, "smsdesk_session")).toBeNull();

    const done = await t.api("/api/auth/register/verify", { body: { signupToken: res.body.signupToken, code: await t.latestCode(email) } });
    expect(done.status).toBe(200);
    const token: string = done.body.token;
    expect(token.split(".")).toHaveLength(3);
    expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(done.body.user).toMatchObject({ emailVerified: true, role: "user", firstName: "Test", lastName: "User" });
    expect(done.body.licenseRedeemed).toBe(false);
    expect(done.body.licensePlan).toBeNull();
    expect(setCookie(done.headers, "smsdesk_session")!.value).toBe(token);
    // The token works once: a second try says the sign-up is over.
    const again = await t.api("/api/auth/register/verify", { body: { signupToken: res.body.signupToken, code: "123456" } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Your sign-up has expired. Please sign in to finish it.");
  });

  test("an account left unverified is an unverified user when it signs in", () => {
    expect(account.user.emailVerified).toBe(false);
    expect(account.user.role).toBe("user");
  });

  test("stores the email in lower case and never returns the password hash", () => {
    expect(account.user.email).toBe(account.email.toLowerCase());
    expect(account.user).not.toHaveProperty("passwordHash");
    expect(JSON.stringify(account.body)).not.toContain("argon2");
  });

  test("stores an argon2id hash, not the password", async () => {
    const row = (await t.ctx.records.select().from(users).where(eq(users.id, account.user.id)).get())!;
    expect(row.passwordHash).toStartWith("$argon2id$");
    expect(row.passwordHash).not.toContain(DEFAULT_PASSWORD);
  });

  test("sets the httpOnly session cookie holding the token", () => {
    const cookie = setCookie(account.headers, "smsdesk_session");
    expect(cookie).not.toBeNull();
    expect(cookie!.value).toBe(account.token);
    expect(cookie!.attributes).toMatch(/HttpOnly/i);
    expect(cookie!.attributes).toMatch(/SameSite=Lax/i);
    expect(cookie!.attributes).toMatch(/Path=\//);
    // Plain http: a Secure cookie would never come back.
    expect(cookie!.attributes).not.toMatch(/Secure/i);
  });

  test("the token works right away for the unverified user's own calls", async () => {
    const res = await t.api("/api/auth/user", { token: account.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.user.id);
    expect(res.body.emailVerified).toBe(false);
  });

  test("sends a verification email with a 6-digit code over SMTP", async () => {
    const mail = await t.waitForEmail(account.email, 3000, { match: /verification code/i });
    expect(mail.subject).toMatch(/^Your smsdesk verification code: \d{6}$/);
    const code = await t.latestCode(account.email);
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(`Your verification code is ${code}.`);
    expect(mail.text).toContain("expires in 15 minutes");
  });
});

describe("an address that already has an account (issue 27 item 7: answered 409)", () => {
  /** Everything a client sees, the token and the address (equal lengths here) written alike. */
  const seen = (res: Awaited<ReturnType<typeof register>>, email: string) => ({
    status: res.status,
    body: res.text.replaceAll(res.body.signupToken, "TOKEN").replaceAll(email.toLowerCase(), "EMAIL"),
    headers: [...res.headers].filter(([name]) => name !== "date"),
  });

  test("answers exactly as for a new address, with the same work: one argon2 hash, one email", async () => {
    const known = account.email;
    const fresh = `z${known.slice(1)}`;
    const body = (email: string) => ({ email, password: "another1", confirmPassword: "another1" });
    const hash = spyOn(Bun.password, "hash");
    const sent = spyOn(t.ctx.mailer, "send");
    try {
      const forKnown = await register(body(known.toUpperCase()));
      const knownWork = { hashes: hash.mock.calls.length, emails: sent.mock.calls.length };
      hash.mockClear();
      sent.mockClear();
      const forNew = await register(body(fresh));
      expect(seen(forKnown, known)).toEqual(seen(forNew, fresh));
      expect(knownWork).toEqual({ hashes: 1, emails: 1 });
      expect({ hashes: hash.mock.calls.length, emails: sent.mock.calls.length }).toEqual(knownWork);
    } finally {
      hash.mockRestore();
      sent.mockRestore();
    }
  });

  test("the owner is emailed instead of a code; the account is unchanged and still one", async () => {
    const notice = await t.waitForEmail(account.email, 3000, { match: /already have/ });
    expect(notice.subject).toBe("You already have an smsdesk account");
    const url = t.ctx.config.publicUrl;
    expect(notice.text).toBe(
      "Someone, perhaps you, tried to create an smsdesk account with this email address, which already has one. No new account was made and nothing about yours changed.\n\n" +
        `To use your account, sign in at ${url}/auth.\n\nForgot your password? Choose a new one at ${url}/auth/forgot-password\n\nIf it was not you, you can ignore this email.`,
    );
    expect(t.emailsTo(account.email).filter((m) => /verification code/i.test(m.subject))).toHaveLength(1);
    const rows = await t.ctx.records.select().from(users).where(eq(users.email, account.email.toLowerCase())).all();
    expect(rows).toHaveLength(1);
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(200);
  });

  test("its code step behaves as a real one: 5 wrong codes, then 429; a resend waits out the cooldown", async () => {
    const res = await register({ email: account.email, password: "another1", confirmPassword: "another1" });
    const signupToken = res.body.signupToken;
    const tries = [];
    for (let i = 0; i < 6; i++) {
      const r = await t.api("/api/auth/register/verify", { body: { signupToken, code: "000000" } });
      tries.push([r.status, r.body.message]);
    }
    expect(tries).toEqual([
      ...Array.from({ length: 5 }, () => [400, "Invalid verification code"]),
      [429, "Too many attempts. Please request a new code."],
    ]);
    const resend = await t.api("/api/auth/register/resend", { body: { signupToken } });
    expect(resend.status).toBe(429);
    expect(resend.body.message).toMatch(/^Please wait (60|59) seconds before requesting another code$/);
  });
});
