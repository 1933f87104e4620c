import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Account, startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
let account: Account;
let own: string;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  account = await t.signUpVerified();
  own = new URL(t.ctx.config.publicUrl).origin;
});
afterAll(() => t.stop());

const contact = () => ({ firstName: "Ada", phone: `+1415555${String(1000 + Math.floor(Math.random() * 8999))}` });
const contactCount = async () => (await t.api("/api/contacts", { token: account.token })).body.total as number;

const refusal = () => ({ message: `Cross-site request refused: open smsdesk at ${own}`, code: "csrf" });

describe("cookie-authenticated changes", () => {
  test("the public origin is http://localhost:PORT, not the 127.0.0.1 address the tests connect to", () => {
    expect(own).toBe(`http://localhost:${t.port}`);
    expect(t.url).toBe(`http://127.0.0.1:${t.port}`);
  });

  test("from another site: 403 'Cross-site request refused', code csrf, and nothing changes", async () => {
    const before = await contactCount();
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const res = await t.api("/api/contacts", { method, body: contact(), cookie: account.token, headers: { origin: "https://evil.example" } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusal());
    }
    expect(await contactCount()).toBe(before);
  });

  test("with neither Origin nor Referer: refused", async () => {
    const res = await t.api("/api/contacts", { body: contact(), cookie: account.token, origin: false });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refusal());
  });

  test.each([
    ["null (a sandboxed page)", "null"],
    ["the address the server was reached at", "http://127.0.0.1:PORT"],
    ["the public host over https", "https://localhost:PORT"],
    ["the public host on another port", "http://localhost:1"],
  ])("an Origin of %s: refused", async (_what, origin) => {
    const res = await t.api("/api/contacts", { body: contact(), cookie: account.token, headers: { origin: origin.replace("PORT", String(t.port)) } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("csrf");
  });

  test("the appliance's own Origin: accepted", async () => {
    const res = await t.api("/api/contacts", { body: contact(), cookie: account.token, headers: { origin: own } });
    expect(res.status).toBe(201);
  });

  test("no Origin but a Referer on the appliance's own pages: accepted; a foreign Referer: refused", async () => {
    const ok = await t.api("/api/contacts", { body: contact(), cookie: account.token, origin: false, headers: { referer: `${own}/contacts?page=2` } });
    expect(ok.status).toBe(201);
    const bad = await t.api("/api/contacts", { body: contact(), cookie: account.token, origin: false, headers: { referer: "https://evil.example/x" } });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual(refusal());
  });

  test("Origin wins over Referer when both are sent", async () => {
    const res = await t.api("/api/contacts", {
      body: contact(),
      cookie: account.token,
      headers: { origin: "https://evil.example", referer: `${own}/contacts` },
    });
    expect(res.status).toBe(403);
  });

  test("reading is not a change: a cross-site GET with the cookie answers", async () => {
    const res = await t.api("/api/contacts", { cookie: account.token, headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(200);
  });
});

describe("sign-in and sign-up set the cookie, so they are covered too", () => {
  test("sign-in from another site or without Origin: refused, no cookie set", async () => {
    for (const opts of [{ headers: { origin: "https://evil.example" } }, { origin: false as const }]) {
      const res = await t.api("/api/auth/login", { body: { email: account.email, password: account.password }, ...opts });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusal());
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect((await t.api("/api/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(200);
  });

  test("sign-up from another site: refused, no account made", async () => {
    const email = t.newEmail("csrf");
    const res = await t.api("/api/auth/register", {
      body: { email, password: "secret123", confirmPassword: "secret123" },
      headers: { origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    const again = await t.api("/api/auth/register", { body: { email, password: "secret123", confirmPassword: "secret123" } });
    expect(again.status).toBe(201);
  });
});

describe("calls that carry a token are unaffected", () => {
  test("Bearer from anywhere, or no Origin at all: accepted", async () => {
    for (const opts of [{ headers: { origin: "https://evil.example" } }, { origin: false as const }]) {
      const res = await t.api("/api/contacts", { body: contact(), token: account.token, cookie: account.token, ...opts });
      expect(res.status).toBe(201);
    }
  });

  test("x-auth-token without Origin: accepted", async () => {
    const res = await t.api("/api/contacts", { body: contact(), origin: false, headers: { "x-auth-token": account.token } });
    expect(res.status).toBe(201);
  });

  test("an empty Bearer proves nothing: refused", async () => {
    const res = await t.api("/api/contacts", { body: contact(), cookie: account.token, origin: false, headers: { authorization: "Bearer " } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("csrf");
  });
});

describe("provider webhooks are machine-to-machine", () => {
  test("a webhook from another origin, with a cookie even, reaches its own signature check (not the CSRF refusal)", async () => {
    const res = await t.api(`/api/webhooks/twilio/sms/${account.user.id}`, {
      body: "From=%2B14155550123&Body=STOP",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      cookie: account.token,
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Webhook verification failed", code: "forbidden" });
  });
});

describe("PUBLIC_URL on a domain", () => {
  test("pages of https://sms.example.com are accepted; the same host over http is not", async () => {
    const s = await startTestServer({ smtp: false, env: { PUBLIC_URL: "https://sms.example.com" } });
    try {
      const a = await s.signUpVerified();
      const ok = await s.api("/api/contacts", { body: contact(), cookie: a.token, headers: { origin: "https://sms.example.com" } });
      expect(ok.status).toBe(201);
      const bad = await s.api("/api/contacts", { body: contact(), cookie: a.token, headers: { origin: "http://sms.example.com" } });
      expect(bad.status).toBe(403);
      expect(bad.body).toEqual({ message: "Cross-site request refused: open smsdesk at https://sms.example.com", code: "csrf" });
    } finally {
      await s.stop();
    }
  });
});
