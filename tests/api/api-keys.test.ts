// API keys (issue 16 item 1): shown once, stored as a SHA-256 hash with a visible prefix and a checksum, scoped,
// revocable, expiring, last use noted at most once a minute, and only on plans with API access.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { isWellFormedKey } from "../../src/api-keys/keys";
import { grantLicense } from "../../src/licenses/licenses";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let realNow: () => number;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  realNow = t.ctx.now;
});
afterAll(async () => {
  await t?.stop();
});

const stored = async (id: string) => (await t.ctx.records.$rows<any>(`SELECT * FROM api_keys WHERE id = ?`, [id]))[0];

async function professional(): Promise<Account> {
  const acc = await t.signUpVerified();
  await grantLicense(t.ctx, acc.user.id, "professional", 30);
  return t.confirm(acc);
}

const create = (acc: Account, body: Record<string, unknown>) => t.api("/api/api-keys", { method: "POST", token: acc.token, body });
const v1 = (key: string, path: string) => t.api(path, { token: key });

describe("creating a key", () => {
  test("the key is answered once, stored only as its SHA-256, and listed masked", async () => {
    const acc = await professional();
    const res = await create(acc, { name: " Shop sync ", service: "Shopify", permissions: ["contacts:read", "contacts:write"] });
    expect(res.status).toBe(201);
    const key: string = res.body.key;
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    expect(isWellFormedKey(key)).toBe(true);
    expect(res.body).toMatchObject({ name: "Shop sync", service: "Shopify", permissions: ["contacts:read", "contacts:write"], status: "active", lastUsedAt: null, expiresAt: null });
    expect(res.body.maskedKey).toBe(`${key.slice(0, 14)}••••••••`);

    const row = await stored(res.body.id);
    expect(row.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(row.prefix).toBe(key.slice(0, 14));
    expect(JSON.stringify(row)).not.toContain(key);

    const list = await t.api("/api/api-keys", { token: acc.token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].maskedKey).toBe(`${key.slice(0, 14)}••••••••`);
    expect(list.body[0].key).toBeUndefined();
    expect(list.text).not.toContain(key);
  });

  test("a plan without API access gets 402 with the plan's name", async () => {
    const acc = await t.signUpVerified();
    const res = await create(acc, { name: "Zapier", permissions: ["contacts:read"] });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: "plan_limit",
      feature: "api_access",
      message: "Your Starter plan does not include API access. Upgrade to a plan with API access or redeem a license code.",
    });
  });

  test("unknown permissions, none, and an expiry in the past are refused with 400", async () => {
    const acc = await professional();
    expect((await create(acc, { name: "x", permissions: ["contacts:delete"] })).status).toBe(400);
    expect((await create(acc, { name: "x", permissions: [] })).body.message).toBe("Choose at least one permission");
    const past = await create(acc, { name: "x", permissions: ["contacts:read"], expiresAt: Date.now() - 1000 });
    expect(past.status).toBe(400);
    expect(past.body.message).toBe("The expiry must be in the future");
  });

  test("another account's key cannot be revoked or deleted", async () => {
    const owner = await professional();
    const other = await professional();
    const { id } = (await create(owner, { name: "Mine", permissions: ["contacts:read"] })).body;
    expect((await t.api(`/api/api-keys/${id}/revoke`, { method: "POST", token: other.token })).status).toBe(404);
    expect((await t.api(`/api/api-keys/${id}`, { method: "DELETE", token: other.token })).status).toBe(404);
    expect((await stored(id)).revoked_at).toBeNull();
  });
});

describe("using a key", () => {
  test("scopes are enforced with a message naming the missing permission", async () => {
    const acc = await professional();
    const { key } = (await create(acc, { name: "Read only", permissions: ["contacts:read"] })).body;
    expect((await v1(key, "/api/v1/contacts")).status).toBe(200);
    const denied = await t.api("/api/v1/contacts", { method: "POST", token: key, body: { phone: "+14155550123" } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe("This API key lacks the 'contacts:write' permission. Create a key with it under Integrations.");
  });

  test("a mistyped key fails its checksum; an unknown, revoked or expired key answers 401", async () => {
    const acc = await professional();
    const made = (await create(acc, { name: "Soon", permissions: ["contacts:read"], expiresAt: Date.now() + 60_000 })).body;
    const key: string = made.key;
    const typo = key.slice(0, 20) + (key[20] === "a" ? "b" : "a") + key.slice(21);
    expect((await v1(typo, "/api/v1/contacts")).body.message).toBe("This is not a valid API key (check it was copied whole)");
    expect((await v1("", "/api/v1/contacts")).status).toBe(401);

    try {
      t.ctx.now = () => realNow() + 61_000;
      const expired = await v1(key, "/api/v1/contacts");
      expect(expired.status).toBe(401);
      expect(expired.body.message).toBe("This API key has expired");
    } finally {
      t.ctx.now = realNow;
    }

    const other = (await create(acc, { name: "Revoked", permissions: ["contacts:read"] })).body;
    expect((await v1(other.key, "/api/v1/contacts")).status).toBe(200);
    const revoked = await t.api(`/api/api-keys/${other.id}/revoke`, { method: "POST", token: acc.token });
    expect(revoked.body.status).toBe("revoked");
    const after = await v1(other.key, "/api/v1/contacts");
    expect(after.status).toBe(401);
    expect(after.body.message).toBe("This API key has been revoked");

    expect((await t.api(`/api/api-keys/${other.id}`, { method: "DELETE", token: acc.token })).status).toBe(204);
    expect((await v1(other.key, "/api/v1/contacts")).body.message).toBe("Unknown API key");
  });

  test("a key never opens a session route, and a session never opens /api/v1", async () => {
    const acc = await professional();
    const { key } = (await create(acc, { name: "K", permissions: ["contacts:read"] })).body;
    expect((await t.api("/api/contacts", { token: key })).status).toBe(401);
    expect((await t.api("/api/api-keys", { token: key })).status).toBe(401);
    expect((await t.api("/api/v1/contacts", { token: acc.token })).status).toBe(401);
  });

  test("last use is written at most once a minute", async () => {
    const acc = await professional();
    const { id, key } = (await create(acc, { name: "K", permissions: ["contacts:read"] })).body;
    const start = realNow();
    try {
      t.ctx.now = () => start;
      await v1(key, "/api/v1/contacts");
      expect((await stored(id)).last_used_at).toBe(start);
      t.ctx.now = () => start + 59_000;
      await v1(key, "/api/v1/contacts");
      expect((await stored(id)).last_used_at).toBe(start);
      t.ctx.now = () => start + 60_000;
      await v1(key, "/api/v1/contacts");
      expect((await stored(id)).last_used_at).toBe(start + 60_000);
    } finally {
      t.ctx.now = realNow;
    }
  });
});
