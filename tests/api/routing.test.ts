import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

describe("unknown API paths", () => {
  test("GET /api/whatever answers JSON 404 {message}", async () => {
    const res = await t.api("/api/whatever");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body).toEqual({ message: "Not found", code: "not_found" });
  });

  test("a nested unknown path and /api itself are JSON 404s too, never the UI", async () => {
    for (const path of ["/api/auth/nothing/here", "/api"]) {
      const res = await t.api(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found", code: "not_found" });
    }
  });

  test("a known path with the wrong method is a JSON 404", async () => {
    const res = await t.api("/api/health", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found", code: "not_found" });
  });
});

describe("single-page app deep links", () => {
  test("/pricing answers 200 text/html", async () => {
    const res = await t.api("/pricing");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toMatch(/<!doctype html/i);
  });

  test("/ and a deep app route answer the same HTML page", async () => {
    const root = await t.api("/");
    const deep = await t.api("/auth/reset-password?token=abc");
    expect(root.status).toBe(200);
    expect(deep.status).toBe(200);
    expect(deep.headers.get("content-type")).toContain("text/html");
    expect(deep.text).toBe(root.text);
  });

  test("a POST to a non-API path answers 405 JSON", async () => {
    const res = await t.api("/pricing", { method: "POST", body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: "Method not allowed", code: "method_not_allowed" });
  });
});

describe("request bodies", () => {
  test.each(["/api/auth/login", "/api/auth/register", "/api/contact", "/api/admin/report-error"])(
    "invalid JSON to %s answers 400 with a message, not 500",
    async (path) => {
      const res = await t.api(path, { body: '{"email": "a@b.co",' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "The request body is not valid JSON", code: "validation" });
    },
  );

  test("a JSON body of the wrong shape answers 400 with a message", async () => {
    const res = await t.api("/api/auth/login", { body: [1, 2, 3] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("The request body must be a JSON object");
  });

  test("no 500 was logged", () => {
    expect(t.logs.filter((l) => / 5\d\d [\d.]+ms/.test(l) || l.startsWith("error "))).toEqual([]);
  });
});

describe("GET /api/login", () => {
  test("redirects to /auth", async () => {
    const res = await t.api("/api/login");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/auth");
  });
});
