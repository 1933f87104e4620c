import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

test("GET /api/health: 200 ok while the database answers, 503 degraded when it does not (read at each call)", async () => {
  const ok = await t.api("/api/health");
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ status: "ok", db: "ok" });
  // The connection of the moment (a restore replaces ctx.db) is the one asked: here one that is closed.
  const open = t.ctx.db;
  const closed = new Database(":memory:");
  closed.close();
  t.ctx.db = { ...open, $client: closed } as typeof open;
  try {
    const down = await t.api("/api/health");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: "degraded", db: "error" });
  } finally {
    t.ctx.db = open;
  }
  expect((await t.api("/api/health")).status).toBe(200);
});
