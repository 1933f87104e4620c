/**
 * Which backups are the backup manager's job and which the database's (issue 31 item 3): the backup list answers it,
 * the Backups screen shows it (backups.pw.ts), and `smsdesk backup list|create` prints it first on PostgreSQL. This
 * version does not serve from PostgreSQL, so its mode is set here on the running server's configuration.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { backupCommand } from "../../src/backups/cli";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let admin: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
  admin = await t.login(email, "admin-password-1");
});
afterAll(() => t.stop());

const URL_WITH_PASSWORD = "postgres://smsdesk:s3cret-pass@db.internal:6432/smsdesk";
const OURS_ON_POSTGRES =
  "An encrypted logical dump of the installation's PostgreSQL data, with secret.key and the MMS pictures and files, to move or restore a whole installation. " +
  'This version does not make it yet: it does not serve from PostgreSQL (README, "PostgreSQL mode"). The backups listed here hold this process\'s data folder only, not the PostgreSQL data.';
const DATABASE_ON_POSTGRES =
  "Keeping the data safe where it lives (db.internal:6432/smsdesk): continuous archiving with point-in-time recovery (WAL archiving with base backups, e.g. pgBackRest or pg_basebackup) " +
  "or your managed service's automated backups, and a standby for failover. smsdesk neither makes nor checks them: test their restores with your database's tools.";

describe("GET /api/admin/backups says whose backups are whose", () => {
  test("on SQLite: everything is the manager's, the database being a file of the data folder", async () => {
    const res = await t.api("/api/admin/backups", { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.duties).toEqual({
      engine: "sqlite",
      ours: "Everything of this installation: the database (SQLite, in the data folder), secret.key and the MMS pictures and files. A restore here brings all of it back.",
      database: "Nothing apart: the database is a file of the data folder, and these backups hold it.",
    });
  });

  test("on PostgreSQL: the logical dump is the manager's (not made yet, said so), the data's safety is the database's, named without its password", async () => {
    t.ctx.config.databaseUrl = URL_WITH_PASSWORD;
    try {
      const res = await t.api("/api/admin/backups", { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body.duties).toEqual({ engine: "postgresql", ours: OURS_ON_POSTGRES, database: DATABASE_ON_POSTGRES });
      expect(res.text).not.toContain("s3cret-pass");
    } finally {
      t.ctx.config.databaseUrl = null;
    }
  });
});

describe("smsdesk backup on PostgreSQL", () => {
  test("list prints whose backups are whose before the data folder's (none here)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-duties-"));
    const printed: string[] = [];
    const log = spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
    try {
      await backupCommand(["list", "--data-dir", dataDir, "--database-url", URL_WITH_PASSWORD], () => Promise.reject(new Error("list opens nothing")));
    } finally {
      log.mockRestore();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(printed).toEqual([
      ["Backups on PostgreSQL:", `  smsdesk's job: ${OURS_ON_POSTGRES}`, `  the database's job: ${DATABASE_ON_POSTGRES}`].join("\n"),
      "No backups yet.",
    ]);
  });
});
