// Issue 27 item 2 against dist/smsdesk: the executable inspects an archive's database in a worker thread that must
// be inside it (scripts/build.ts lists it), and refuses one that carries code at upload, drill and restore.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alteredArchive, KEEP_SESSIONS_ALIVE, plantBackup } from "../support/backup-archives";
import { childApi, publicOrigin } from "../support/child-server";
import { startBuiltExecutable } from "../support/executable";

const dir = mkdtempSync(join(tmpdir(), "smsdesk-exe-restore-"));
const dataDir = join(dir, "data");
let proc: ReturnType<typeof Bun.spawn> | null = null;

afterAll(() => {
  proc?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test(
  "dist/smsdesk refuses an archive whose database has a trigger and a view at upload, drill and restore; a revoked session stays revoked",
  async () => {
    const started = await startBuiltExecutable(dir, { DATA_DIR: dataDir, ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "executable-check" });
    proc = started.proc;
    const base = started.base;
    const signIn = async () => (await childApi(base, "/api/auth/login", { body: { email: "owner@example.com", password: "executable-check" } })).body.token as string;
    const token = await signIn();
    const stolen = await signIn();
    const made = await childApi(base, "/api/admin/backups", { token, body: {} });
    expect(made.status).toBe(201);
    expect((await childApi(base, "/api/auth/sessions/revoke-others", { token, body: {} })).body).toMatchObject({ success: true, revoked: 1 });

    const refusal =
      "The archive's database has a trigger the appliance never creates: keep_sessions on sessions; has a view the appliance never creates: every_session: a backup holds data only, never code";
    const altered = await alteredArchive(join(dataDir, "backups", `${made.body.id}.tar.gz`), KEEP_SESSIONS_ALIVE);
    const uploaded = await fetch(`${base}/api/admin/backups/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip", origin: publicOrigin(base) },
      body: new Blob([altered.bytes as Uint8Array<ArrayBuffer>]),
    });
    expect([uploaded.status, ((await uploaded.json()) as { message: string }).message]).toEqual([400, `This file is not a valid backup: ${refusal}`]);
    // A good archive passes the same worker.
    const good = await alteredArchive(join(dataDir, "backups", `${made.body.id}.tar.gz`), []);
    const accepted = await fetch(`${base}/api/admin/backups/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip", origin: publicOrigin(base) },
      body: new Blob([good.bytes as Uint8Array<ArrayBuffer>]),
    });
    expect(accepted.status).toBe(201);

    const planted = await plantBackup(dataDir, "smsdesk-20260101-000000-uploaded-c0de00", altered);
    expect((await childApi(base, `/api/admin/backups/${planted.id}/drill`, { token, body: {} })).body.drill).toMatchObject({ ok: false, error: refusal });
    expect((await childApi(base, "/api/auth/confirm", { token, body: { password: "executable-check" } })).status).toBe(200);
    expect(await childApi(base, `/api/admin/backups/${planted.id}/restore`, { token, body: {} })).toEqual({
      status: 400,
      body: { message: `The backup cannot be restored: ${refusal}`, code: "validation" },
    });
    expect((await childApi(base, "/api/auth/user", { token: stolen })).status).toBe(401);
    const later = await signIn();
    expect((await childApi(base, "/api/auth/logout", { token: later, body: {} })).status).toBe(200);
    expect((await childApi(base, "/api/auth/user", { token: later })).status).toBe(401);
    // The good backup drills and restores in the executable.
    expect((await childApi(base, `/api/admin/backups/${made.body.id}/drill`, { token, body: {} })).body.drill).toMatchObject({ ok: true, error: null });
    expect((await childApi(base, `/api/admin/backups/${made.body.id}/restore`, { token, body: {} })).status).toBe(200);
    expect((await childApi(base, "/api/auth/user", { token: stolen })).status).toBe(401);
    expect((await childApi(base, "/api/auth/user", { token })).status).toBe(200);

    proc.kill("SIGTERM");
    await proc.exited;
    const log = (await new Response(proc.stdout as ReadableStream).text()) + (await new Response(proc.stderr as ReadableStream).text());
    expect(log).not.toContain("inspection worker");
  },
  240_000,
);
