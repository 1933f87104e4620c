import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { errorReports } from "../../db/schema";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

const send = (body: unknown, opts: { token?: string; headers?: Record<string, string> } = {}) =>
  t.api("/api/admin/report-error", { body, ...opts });
const stored = (id: string) => t.ctx.db.select().from(errorReports).where(eq(errorReports.id, id)).get();

describe("POST /api/admin/report-error", () => {
  test("the generic error screen's {errorReport} shape is stored signed out (201)", async () => {
    const report = {
      message: "Cannot read properties of undefined (reading 'map')",
      stack: "TypeError: Cannot read properties...\n    at Home (home.tsx:12)",
      componentStack: "\n    at Home\n    at App",
      timestamp: "2026-01-02T03:04:05.000Z",
      userAgent: "Mozilla/5.0 (Test)",
      url: "http://localhost/home",
    };
    const res = await send({ errorReport: report });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const row = stored(res.body.id)!;
    expect(row).toBeDefined();
    expect(row.type).toBe("react_error");
    expect(row.message).toBe(report.message);
    expect(row.stack).toBe(report.stack);
    expect(row.componentStack).toBe(report.componentStack);
    expect(row.url).toBe(report.url);
    expect(row.userAgent).toBe(report.userAgent);
    expect(row.occurredAt).toBe(report.timestamp);
    expect(row.userId).toBeNull();
  });

  test("the mobile Safari {error} shape is stored with its type (201)", async () => {
    const res = await send({ error: { message: "Render failed", type: "safari_render_error", url: "http://localhost/x" } });
    expect(res.status).toBe(201);
    const row = stored(res.body.id)!;
    expect(row.message).toBe("Render failed");
    expect(row.type).toBe("safari_render_error");
    expect(row.url).toBe("http://localhost/x");
  });

  test("the {error} shape without a type is recorded as a mobile error; the browser's user agent fills in", async () => {
    const res = await send({ error: { message: "Oops" } }, { headers: { "user-agent": "MobileSafari/17" } });
    expect(res.status).toBe(201);
    const row = stored(res.body.id)!;
    expect(row.type).toBe("mobile_error");
    expect(row.userAgent).toBe("MobileSafari/17");
  });

  test.each([
    ["an empty body", {}],
    ["a report without message", { errorReport: { stack: "at x" } }],
    ["a blank message", { error: { message: "   " } }],
    ["a null message", { errorReport: { message: null } }],
  ])("%s answers 400 'An error report needs a message'", async (_n, body) => {
    const before = t.ctx.db.select().from(errorReports).all().length;
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "An error report needs a message", code: "validation" });
    expect(t.ctx.db.select().from(errorReports).all().length).toBe(before);
  });

  test("a signed-in reporter is recorded", async () => {
    const account = await t.signUp();
    const res = await send({ errorReport: { message: "Signed-in failure" } }, { token: account.token });
    expect(res.status).toBe(201);
    expect(stored(res.body.id)!.userId).toBe(account.user.id);
  });

  test("very long fields are clipped, not refused", async () => {
    const res = await send({ errorReport: { message: "m".repeat(5000), stack: "s".repeat(30_000) } });
    expect(res.status).toBe(201);
    const row = stored(res.body.id)!;
    expect(row.message).toHaveLength(2000);
    expect(row.stack).toHaveLength(20_000);
  });
});
