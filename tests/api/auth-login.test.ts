import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setCookie, startTestServer, tamperToken, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let account: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  account = await t.signUp();
});
afterAll(() => t?.stop());

const login = (body: Record<string, unknown>) => t.api("/api/auth/login", { body });

describe("POST /api/auth/login", () => {
  test.each([
    ["no email", { password: "secret1" }],
    ["no password", { email: "a@example.com" }],
    ["blank email", { email: "  ", password: "secret1" }],
    ["empty body", {}],
  ])("%s answers 400 'Please fill in all fields'", async (_n, body) => {
    const res = await login(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Please fill in all fields", code: "validation" });
  });

  test("a wrong password answers 401 'Invalid credentials'", async () => {
    const res = await login({ email: account.email, password: "wrong-password" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Invalid credentials", code: "unauthorized" });
    expect(setCookie(res.headers, "smsdesk_session")).toBeNull();
  });

  test("an unknown email answers exactly the same 401", async () => {
    const res = await login({ email: "nobody-here@example.com", password: "wrong-password" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Invalid credentials", code: "unauthorized" });
  });

  test("success answers 200 with a new token, the user and requires2FA false", async () => {
    const res = await login({ email: account.email, password: account.password });
    expect(res.status).toBe(200);
    expect(res.body.requires2FA).toBe(false);
    expect(res.body.user.id).toBe(account.user.id);
    expect(res.body.user).not.toHaveProperty("passwordHash");
    expect(res.body.token.split(".")).toHaveLength(3);
    expect(res.body.token).not.toBe(account.token);
    expect(setCookie(res.headers, "smsdesk_session")?.value).toBe(res.body.token);
  });

  test("the email is case-insensitive and trimmed", async () => {
    const res = await login({ email: `  ${account.email.toUpperCase()}  `, password: account.password });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(account.user.id);
  });
});

describe("GET /api/auth/user", () => {
  let token: string;
  beforeAll(async () => {
    token = (await t.login(account.email)).token;
  });

  test("without a token answers 401", async () => {
    const res = await t.api("/api/auth/user");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: "Unauthorized", code: "unauthorized" });
  });

  test("with a Bearer token returns the user without passwordHash", async () => {
    const res = await t.api("/api/auth/user", { token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.user.id);
    expect(res.body.email).toBe(account.email);
    expect(res.body).not.toHaveProperty("passwordHash");
    expect(res.body).not.toHaveProperty("disabled");
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(["emailVerified", "timezone", "locale", "dateFormat", "onboarding"]));
  });

  test("the token also works as the x-auth-token header (Safari)", async () => {
    const res = await t.api("/api/auth/user", { headers: { "x-auth-token": token } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.user.id);
  });

  test("the token also works as the session cookie", async () => {
    const res = await t.api("/api/auth/user", { cookie: token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(account.user.id);
  });

  test("HEAD with a token answers 200 (Safari preload)", async () => {
    expect((await t.api("/api/auth/user", { method: "HEAD", token })).status).toBe(200);
    expect((await t.api("/api/auth/user", { method: "HEAD" })).status).toBe(401);
  });

  test.each([
    ["header", 0],
    ["payload", 1],
    ["signature", 2],
  ] as const)("a token with a changed %s answers 401", async (_n, part) => {
    const forged = tamperToken(token, part);
    expect(forged).not.toBe(token);
    for (const opts of [{ token: forged }, { cookie: forged }, { headers: { "x-auth-token": forged } }]) {
      const res = await t.api("/api/auth/user", opts);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Unauthorized", code: "unauthorized" });
    }
  });

  test("a token re-signed with another key, or not a JWT at all, answers 401", async () => {
    const [h, p] = token.split(".");
    for (const bad of [`${h}.${p}.`, `${h}.${p}`, "garbage", `${h}.${p}.${"A".repeat(43)}`]) {
      expect((await t.api("/api/auth/user", { token: bad })).status).toBe(401);
    }
  });

  test("a payload naming another user with the original signature answers 401", async () => {
    const [h, p, s] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, "base64url").toString());
    claims.sub = "00000000-0000-0000-0000-000000000000";
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${s}`;
    expect((await t.api("/api/auth/user", { token: forged })).status).toBe(401);
  });
});

describe("POST /api/auth/logout", () => {
  test("revokes the session on the server and clears the cookie", async () => {
    const { token } = await t.login(account.email);
    expect((await t.api("/api/auth/user", { token })).status).toBe(200);

    const res = await t.api("/api/auth/logout", { method: "POST", cookie: token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const cleared = setCookie(res.headers, "smsdesk_session");
    expect(cleared).not.toBeNull();
    expect(cleared!.value).toBe("");
    expect(cleared!.attributes).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);

    // The same token is dead however it is presented, though its signature is still valid.
    expect((await t.api("/api/auth/user", { token })).status).toBe(401);
    expect((await t.api("/api/auth/user", { cookie: token })).status).toBe(401);
  });

  test("logging out with a Bearer token revokes that session only", async () => {
    const a = await t.login(account.email);
    const b = await t.login(account.email);
    expect((await t.api("/api/auth/logout", { method: "POST", token: a.token })).status).toBe(200);
    expect((await t.api("/api/auth/user", { token: a.token })).status).toBe(401);
    expect((await t.api("/api/auth/user", { token: b.token })).status).toBe(200);
  });

  test("logging out while signed out still answers 200", async () => {
    const res = await t.api("/api/auth/logout", { method: "POST" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
  });
});

describe("session lifetime", () => {
  test("a session expires after 30 days", async () => {
    const { token } = await t.login(account.email);
    const realNow = t.ctx.now;
    try {
      t.ctx.now = () => Date.now() + 29 * 86_400_000;
      expect((await t.api("/api/auth/user", { token })).status).toBe(200);
      t.ctx.now = () => Date.now() + 30 * 86_400_000 + 60_000;
      expect((await t.api("/api/auth/user", { token })).status).toBe(401);
    } finally {
      t.ctx.now = realNow;
    }
  });
});
