import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { hostname } from "node:os";
import { instanceId } from "../../src/secrets/instance";
import { VERSION } from "../../src/version";
import { startTestServer, TEST_ENGINE, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

describe("GET /api/health", () => {
  test("answers 200 with status ok, the version, db ok, the installation's instance id and this process (host:pid)", async () => {
    const res = await t.api("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body).toEqual({ status: "ok", version: VERSION, db: "ok", instance: instanceId(t.ctx.keys.secrets), process: `${hostname()}:${process.pid}` });
    expect(res.body.instance).toMatch(/^[0-9a-f]{16}$/);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("answers HEAD (the UI's API health check) with 200", async () => {
    const res = await t.api("/api/health", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
  });

  test("needs no sign-in", async () => {
    const res = await t.api("/api/health", { token: "not-a-token" });
    expect(res.status).toBe(200);
  });

  test("answers 503 degraded when the database does not answer, asking the connection of the moment", async () => {
    // A restore replaces ctx.db, so the check reads it at each call (ctx.databaseStatus): here a closed one.
    const open = t.ctx.db;
    const closed = new Database(":memory:");
    closed.close();
    // On PostgreSQL ctx.db stands for the installation's database (src/server.ts): here one whose queries fail.
    const unreachable = { $postgres: { rows: () => Promise.reject(new Error("connection refused")) } };
    t.ctx.db = (TEST_ENGINE === "postgres" ? unreachable : { ...open, $client: closed }) as typeof open;
    try {
      const down = await t.api("/api/health");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: "degraded", db: "error" });
    } finally {
      t.ctx.db = open;
    }
    expect((await t.api("/api/health")).body).toMatchObject({ status: "ok", db: "ok" });
  });
});

describe("security headers", () => {
  const expectSecurityHeaders = (h: Headers) => {
    expect(h.get("x-content-type-options")).toBe("nosniff");
    expect(h.get("x-frame-options")).toBe("DENY");
    const csp = h.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(h.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  };

  test("on API answers", async () => {
    expectSecurityHeaders((await t.api("/api/health")).headers);
  });

  test("on API errors", async () => {
    const res = await t.api("/api/nope");
    expect(res.status).toBe(404);
    expectSecurityHeaders(res.headers);
  });

  test("on UI pages", async () => {
    const res = await t.api("/pricing");
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers);
  });

  test("no HSTS over plain http", async () => {
    expect((await t.api("/api/health")).headers.get("strict-transport-security")).toBeNull();
  });
});
