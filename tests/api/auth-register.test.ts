import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

  test("no account is created by a refused sign-up", () => {
    expect(t.ctx.db.select().from(users).where(eq(users.email, "a@example.com")).get()).toBeUndefined();
  });
});

describe("successful sign-up", () => {
  test("answers 201 with a well-formed token and an unverified user", () => {
    const { body } = account;
    expect(typeof body.token).toBe("string");
    const token: string = body.token;
    expect(token.split(".")).toHaveLength(3);
    expect(token.length).toBeGreaterThanOrEqual(20);
    expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(token).not.toContain("@");
    expect(body.user.emailVerified).toBe(false);
    expect(body.licenseRedeemed).toBe(false);
    expect(body.licensePlan).toBeNull();
    expect(body.user.role).toBe("user");
    expect(body.user.firstName).toBe("Test");
    expect(body.user.lastName).toBe("User");
  });

  test("stores the email in lower case and never returns the password hash", () => {
    expect(account.user.email).toBe(account.email.toLowerCase());
    expect(account.user).not.toHaveProperty("passwordHash");
    expect(JSON.stringify(account.body)).not.toContain("argon2");
  });

  test("stores an argon2id hash, not the password", () => {
    const row = t.ctx.db.select().from(users).where(eq(users.id, account.user.id)).get()!;
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

describe("duplicates", () => {
  test("the same email again answers 409", async () => {
    const res = await register({ email: account.email, password: "another1", confirmPassword: "another1" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: "An account with this email already exists. Please sign in instead.", code: "conflict" });
  });

  test("the same email in other case and with spaces answers 409", async () => {
    const res = await register({ email: `  ${account.email.toUpperCase()} `, password: "another1", confirmPassword: "another1" });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("An account with this email already exists. Please sign in instead.");
  });

  test("a refused duplicate sends no email and keeps one account", async () => {
    expect(t.emailsTo(account.email)).toHaveLength(1);
    const rows = t.ctx.db.select().from(users).where(eq(users.email, account.email.toLowerCase())).all();
    expect(rows).toHaveLength(1);
  });
});
