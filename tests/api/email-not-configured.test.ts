import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openAppContext } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { findUserById } from "../../src/users/queries";
import { type Account, DEFAULT_PASSWORD, startTestServer, type TestServer } from "../support/test-server";

const ADMIN_PASSWORD = "admin-password-1";
const NOT_CONFIGURED =
  "SMTP_URL is not set: email is not configured, so no verification code or reset link is sent. An administrator can mark users verified and send reset links from the admin portal";

describe("production without SMTP", () => {
  let t: TestServer;
  let admin: Account;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false, dev: false });
    const email = t.newEmail("admin");
    await createOrPromoteAdmin(t.ctx, email, ADMIN_PASSWORD);
    admin = await t.confirm(await t.login(email, ADMIN_PASSWORD));
  });
  afterAll(() => t.stop());

  test("the start-up log says email is not configured, once", () => {
    expect(t.logs.filter((l) => l.startsWith("SMTP_URL is not set"))).toEqual([NOT_CONFIGURED]);
  });

  test("a sign-up logs that its verification code was not sent, without the code", async () => {
    const a = await t.signUp();
    expect(t.logs).toContain(`email not sent (SMTP_URL not set): verification code for ${a.email}`);
    expect(t.emails).toEqual([]);
    for (const line of t.logs) expect(line).not.toMatch(/\b\d{6}\b/);
  });

  test("a forgotten password logs that the reset link was not sent, without the link", async () => {
    const a = await t.signUp();
    expect((await t.api("/api/auth/forgot-password", { body: { email: a.email } })).status).toBe(200);
    expect(t.logs).toContain(`email not sent (SMTP_URL not set): password reset link for ${a.email}`);
    for (const line of t.logs) expect(line).not.toContain("token=");
  });

  test("POST /api/admin/users/:id/verify-email: the administrator marks the user verified; the user gets in", async () => {
    const a = await t.signUp();
    expect((await t.api("/api/contacts", { token: a.token })).status).toBe(403);
    const res = await t.api(`/api/admin/users/${a.user.id}/verify-email`, { method: "POST", token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: a.user.id, email: a.email, emailVerified: true } });
    expect((await findUserById(t.ctx, a.user.id))!.emailVerified).toBe(true);
    expect((await t.api("/api/contacts", { token: a.token })).status).toBe(200);
    expect(t.logs).toContain(`administrator ${admin.email} marked the email of ${a.email} verified`);
    // Again: nothing more to do, same answer.
    expect((await t.api(`/api/admin/users/${a.user.id}/verify-email`, { method: "POST", token: admin.token })).body.data.emailVerified).toBe(true);
  });

  test("POST /api/admin/users/:id/send-password-reset: the link is the answer (never the log), and it works once", async () => {
    const a = await t.signUp();
    const res = await t.api(`/api/admin/users/${a.user.id}/send-password-reset`, { method: "POST", token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(`Email is not configured. Give this link to ${a.email}: it works once and expires in 60 minutes.`);
    expect(res.body.data).toMatchObject({ emailed: false, expiresInMinutes: 60 });
    const link = res.body.data.link as string;
    expect(link).toMatch(new RegExp(`^http://localhost:${t.port}/auth/reset-password\\?token=[A-Za-z0-9_-]{40,}$`));
    const token = new URL(link).searchParams.get("token")!;
    for (const line of t.logs) expect(line).not.toContain(token);
    expect(t.logs).toContain(`administrator ${admin.email} started a password reset for ${a.email}`);

    const reset = await t.api("/api/auth/reset-password", { body: { token, password: "chosen-by-user" } });
    expect(reset.status).toBe(200);
    expect((await t.api("/api/auth/login", { body: { email: a.email, password: "chosen-by-user" } })).status).toBe(200);
    expect((await t.api("/api/auth/reset-password", { body: { token, password: "second-try-1" } })).status).toBe(400);
  });

  test("a reset link for a disabled or unknown user: 400 and 404 with clear messages", async () => {
    const a = await t.signUp();
    await t.api(`/api/admin/users/${a.user.id}/disable`, { method: "POST", token: admin.token });
    const disabled = await t.api(`/api/admin/users/${a.user.id}/send-password-reset`, { method: "POST", token: admin.token });
    expect(disabled.status).toBe(400);
    expect(disabled.body.message).toBe("This account is disabled. Enable it before sending a reset link.");
    for (const action of ["send-password-reset", "verify-email"]) {
      const missing = await t.api(`/api/admin/users/no-such-user/${action}`, { method: "POST", token: admin.token });
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe("User not found");
    }
  });

  test("both calls are the administrator's only: 403 for a user, 401 signed out", async () => {
    const u = await t.signUp();
    await t.api(`/api/admin/users/${u.user.id}/verify-email`, { method: "POST", token: admin.token });
    for (const action of ["verify-email", "send-password-reset"]) {
      expect((await t.api(`/api/admin/users/${u.user.id}/${action}`, { method: "POST", token: u.token })).status).toBe(403);
      expect((await t.api(`/api/admin/users/${u.user.id}/${action}`, { method: "POST" })).status).toBe(401);
    }
  });
});

describe("development mode without SMTP", () => {
  test("codes and reset links are written to the log, and the harness reads them from there", async () => {
    const t = await startTestServer({ smtp: false, dev: true });
    try {
      expect(t.logs).toContain("SMTP_URL is not set: development mode, so verification codes and reset links are written to this log");
      const a = await t.signUpVerified();
      expect(t.logs.some((l) => l.startsWith(`mail (SMTP_URL not set, not sent) to=${a.email} subject="Your smsdesk verification code: `))).toBe(true);
      await t.api("/api/auth/forgot-password", { body: { email: a.email } });
      expect(await t.resetLink(a.email)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    } finally {
      await t.stop();
    }
  });
});

describe("with SMTP", () => {
  test("the administrator's reset link goes by email and is not in the answer", async () => {
    const t = await startTestServer();
    try {
      const email = t.newEmail("admin");
      await createOrPromoteAdmin(t.ctx, email, ADMIN_PASSWORD);
      const admin = await t.login(email, ADMIN_PASSWORD);
      const a = await t.signUpVerified();
      const res = await t.api(`/api/admin/users/${a.user.id}/send-password-reset`, { method: "POST", token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: `A password reset link was emailed to ${a.email}.`,
        data: { emailed: true, link: null, expiresInMinutes: 60 },
      });
      const token = await t.resetLink(a.email);
      expect((await t.api("/api/auth/reset-password", { body: { token, password: DEFAULT_PASSWORD + "x" } })).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe("file permissions", () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  test("a new data folder is 0700; the database, its WAL files and secret.key are 0600", async () => {
    const parent = mkdtempSync(join(tmpdir(), "smsdesk-perm-"));
    const dataDir = join(parent, "data");
    try {
      const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir }, []), () => {});
      ctx.db.$client.exec("PRAGMA user_version = 1");
      expect(mode(dataDir)).toBe(0o700);
      for (const file of ["smsdesk.db", "smsdesk.db-wal", "smsdesk.db-shm", "secret.key"]) {
        expect(existsSync(join(dataDir, file))).toBe(true);
        expect(mode(join(dataDir, file))).toBe(0o600);
      }
      ctx.db.$client.close();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test("files an older version left readable are made 0600 at start; an open folder gets a warning", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-perm-"));
    try {
      // Still open, so its -wal and -shm files exist when the next start looks.
      const first = await openAppContext(loadConfig({ DATA_DIR: dataDir }, []), () => {});
      const files = ["smsdesk.db", "smsdesk.db-wal", "smsdesk.db-shm", "secret.key"];
      for (const file of files) chmodSync(join(dataDir, file), 0o644);
      chmodSync(dataDir, 0o755);
      const logs: string[] = [];
      const again = await openAppContext(loadConfig({ DATA_DIR: dataDir }, []), (l) => logs.push(l));
      for (const file of files) expect(mode(join(dataDir, file))).toBe(0o600);
      expect(logs).toContain(`warning: the data folder ${dataDir} is readable by other users; chmod 700 it`);
      again.db.$client.close();
      first.db.$client.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
