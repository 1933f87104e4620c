// Issue 27 items 2 and 3: a restore brings back data, never code, and never acknowledges a write it then erases.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ready } from "../../db/transaction";
import { backupsDir, createBackup, findBackup, restoreBackup } from "../../src/backups/backups";
import { MAINTENANCE_MESSAGE, throughMaintenance } from "../../src/http/maintenance";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { alteredArchive, KEEP_SESSIONS_ALIVE, plantBackup } from "../support/backup-archives";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let admin: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
  admin = await t.login(email, "admin-password-1");
});
afterAll(() => t?.stop());

const backups = (path = "", opts: Record<string, unknown> = {}) => t.api(`/api/admin/backups${path}`, { token: admin.token, ...opts });
/** Sudo mode for the restore, asked explicitly: whether a sign-in counts as a confirmation is not this test's matter. */
const confirm = async () => expect((await t.api("/api/auth/confirm", { token: admin.token, body: { password: "admin-password-1" } })).status).toBe(200);
const upload = (bytes: Uint8Array) =>
  fetch(`${t.url}/api/admin/backups/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/gzip", origin: t.ctx.config.publicUrl },
    body: new Blob([bytes as Uint8Array<ArrayBuffer>]),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
const leftovers = () => readdirSync(backupsDir(t.ctx.config.dataDir)).filter((f) => f.startsWith(".upload-") || f.startsWith(".staging-"));
const archiveOf = (id: string) => join(backupsDir(t.ctx.config.dataDir), `${id}.tar.gz`);

describe("an archive whose database carries code", () => {
  const refusal =
    "The archive's database has a trigger the appliance never creates: keep_sessions on sessions; has a view the appliance never creates: every_session: a backup holds data only, never code";

  test("is refused at upload, drill and restore, and a session revoked before stays revoked", async () => {
    const acc = await t.signUpVerified();
    const stolen = await t.login(acc.user.email);
    const made = await createBackup(t.ctx);
    // After the backup the owner ends the stolen session. A restore of the altered archive would bring it back (the
    // trigger ignores the restore's own revocation) and make every later sign-out a no-op.
    expect((await t.api("/api/auth/sessions/revoke-others", { method: "POST", token: acc.token })).body).toMatchObject({ success: true, revoked: 1 });
    const altered = await alteredArchive(archiveOf(made.id), KEEP_SESSIONS_ALIVE);

    expect(await upload(altered.bytes)).toEqual({ status: 400, body: { message: `This file is not a valid backup: ${refusal}`, code: "validation" } });
    expect(leftovers()).toEqual([]);

    // One stored before these checks existed (or altered on disk): the drill reports it, the restore refuses it.
    const planted = await plantBackup(t.ctx.config.dataDir, "smsdesk-20260101-000000-uploaded-c0de00", altered);
    const drilled = await backups(`/${planted.id}/drill`, { method: "POST" });
    expect(drilled.body.drill).toMatchObject({ ok: false, error: refusal });
    await confirm();
    expect(await backups(`/${planted.id}/restore`, { method: "POST" })).toMatchObject({
      status: 400,
      body: { message: `The backup cannot be restored: ${refusal}`, code: "validation" },
    });
    expect((await t.api("/api/auth/user", { token: stolen.token })).status).toBe(401);
    // Sign-out still works.
    const later = await t.login(acc.user.email);
    expect((await t.api("/api/auth/logout", { method: "POST", token: later.token })).status).toBe(200);
    expect((await t.api("/api/auth/user", { token: later.token })).status).toBe(401);
    expect(t.ctx.db.$client.query("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view') AND name IN ('keep_sessions', 'every_session')").all()).toEqual([]);
    expect(findBackup(t.ctx.config.dataDir, planted.id).drill?.ok).toBe(false);
  }, 60_000);

  test("one lacking an index or with a virtual table of its own is refused too; a good one of the older format is taken", async () => {
    const made = await createBackup(t.ctx);
    const index = t.ctx.db.$client.query("SELECT name, tbl_name AS tbl FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name LIMIT 1").get() as {
      name: string;
      tbl: string;
    };
    const lacking = await alteredArchive(archiveOf(made.id), [`DROP INDEX "${index.name}"`]);
    expect((await upload(lacking.bytes)).body.message).toBe(
      `This file is not a valid backup: The archive's database lacks the index ${index.name} on ${index.tbl} the appliance creates: a backup holds data only, never code`,
    );
    const virtual = await alteredArchive(archiveOf(made.id), ["CREATE VIRTUAL TABLE notes USING fts5(body)"]);
    expect((await upload(virtual.bytes)).body.message).toStartWith(
      "This file is not a valid backup: The archive's database has a virtual table the appliance never creates: notes; has a table the appliance never creates: notes_config",
    );
    // Older versions wrote the manifest last: still read.
    const older = await alteredArchive(archiveOf(made.id), [], 1);
    expect(await upload(older.bytes)).toMatchObject({ status: 201, body: { status: "good", reason: "uploaded", manifest: { format: 1 } } });
    expect(leftovers()).toEqual([]);
  }, 60_000);
});

/** A ustar header (the archive module's own is not exported: this builds what an attacker would). */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write("0000600\0", 100);
  h.write("0000000\0", 108);
  h.write("0000000\0", 116);
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  h.write("00000000000\0", 136);
  h.write("        ", 148);
  h.write("0", 156);
  h.write("ustar\0", 257);
  h.write("00", 263);
  h.write(`${h.reduce((a, b) => a + b, 0).toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}
const padded = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** About 1 MB of gzip: a manifest declaring the database's size, then a database entry of 1 GB of zeros. */
function bomb(declaredDbSize: number): Uint8Array {
  const GB = 1024 ** 3;
  const manifest = Buffer.from(JSON.stringify({ format: 2, app: "x", schema: null, createdAt: "", reason: "manual", tables: {}, files: { "smsdesk.db": { size: declaredDbSize, sha256: "0".repeat(64) }, "secret.key": { size: 45, sha256: "0".repeat(64) } } }));
  const megabyteOfZeros = gzipSync(Buffer.alloc(1024 * 1024));
  return Buffer.concat([
    gzipSync(Buffer.concat([tarHeader("manifest.json", manifest.length), padded(manifest), tarHeader("smsdesk.db", GB)])),
    ...Array.from({ length: 1024 }, () => megabyteOfZeros),
    gzipSync(Buffer.alloc(1024)),
  ]);
}

describe("a database entry larger than it may be", () => {
  test("is refused from its header in well under a second, nothing written: larger than declared, or than an archive unpacks to", async () => {
    for (const [declared, bound] of [
      [4096, "4,096"],
      [1024 ** 3, "67,108,864"],
    ] as const) {
      const bytes = bomb(declared);
      expect(bytes.length).toBeLessThan(1.2 * 1024 * 1024);
      const started = performance.now();
      const answer = await upload(bytes);
      const ms = performance.now() - started;
      expect(answer).toEqual({
        status: 400,
        body: { message: `This file is not a valid backup: The archive's smsdesk.db is 1,073,741,824 bytes, more than the ${bound} it may be here`, code: "validation" },
      });
      // Writing the gigabyte takes seconds; reading the manifest and one header takes milliseconds.
      expect(ms).toBeLessThan(1000);
      expect(leftovers()).toEqual([]);
    }
  }, 30_000);
});

describe("a transaction another caller holds open on the connection (records between their awaits)", () => {
  const settingsKept = () => (t.ctx.db.$client.query("SELECT count(*) AS n FROM system_settings WHERE key LIKE 'interleaved-%'").get() as { n: number }).n;
  /** A transaction that writes a row, then waits for `held` (another caller's turns run meanwhile), then commits or rolls back. */
  const holding = (key: string, held: Promise<void>, order: string[], fail = false) =>
    t.ctx
      .withTransaction(async () => {
        t.ctx.db.$client.query("INSERT INTO system_settings (key, value, updated_at) VALUES (?, '1', 0)").run(key);
        await held;
        if (fail) throw new Error("rolled back");
        order.push(`${key} committed`);
      })
      .catch((err: Error) => void order.push(`${key} ${err.message}`));
  const turns = () => new Promise<void>((resolve) => setTimeout(resolve, 50));

  test("a backup waits for it to end: it holds what committed, never what rolled back", async () => {
    const before = settingsKept();
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const kept = holding("interleaved-kept", held, order);
    // Before, VACUUM INTO ran inside the open transaction and failed: 500 "cannot VACUUM from within a transaction".
    const first = createBackup(t.ctx).then((b) => (order.push("backed up"), b));
    await turns();
    expect(order).toEqual([]);
    release();
    const [made] = await Promise.all([first, kept]);
    expect(order).toEqual(["interleaved-kept committed", "backed up"]);
    expect(made.manifest!.tables.system_settings).toBe((t.ctx.db.$client.query("SELECT count(*) AS n FROM system_settings").get() as { n: number }).n);
    expect(settingsKept()).toBe(before + 1);

    let releaseDoomed!: () => void;
    const doomed = holding("interleaved-doomed", new Promise<void>((resolve) => (releaseDoomed = resolve)), order, true);
    const second = createBackup(t.ctx);
    await turns();
    releaseDoomed();
    const [again] = await Promise.all([second, doomed]);
    expect(order.slice(2)).toEqual(["interleaved-doomed rolled back"]);
    expect(again.manifest!.tables.system_settings).toBe(made.manifest!.tables.system_settings);
  }, 60_000);

  test("a restore takes its safety backup and swaps only once it has ended, and the safety backup holds what it wrote", async () => {
    const made = await createBackup(t.ctx);
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let open: Promise<void> | undefined;
    const restoring = restoreBackup(t.ctx, made.id, {
      beforePause: async () => void (open = holding("interleaved-during-restore", held, order)),
      afterSwap: () => void order.push("swapped"),
    });
    await turns();
    expect(order).toEqual([]);
    release();
    // Before, the safety backup's VACUUM INTO failed inside the open transaction and the restore with it.
    const { safety } = await restoring;
    await open!;
    expect(order).toEqual(["interleaved-during-restore committed", "swapped"]);
    expect(safety.manifest!.tables.system_settings).toBe(made.manifest!.tables.system_settings! + 1);
    // The restored data is the backup's: the row written after it is in the safety backup only.
    expect(t.ctx.db.$client.query("SELECT count(*) AS n FROM system_settings WHERE key = 'interleaved-during-restore'").get()).toEqual({ n: 0 });
    // The restore left no transaction open: once the jobs runner's pass it resumed (begun at once, no longer held to
    // the next turn) has ended, the connection is in none.
    await ready(t.ctx.db);
    expect(t.ctx.db.$client.inTransaction).toBe(false);
  }, 60_000);
});

describe("writes during a restore", () => {
  test("answer 503 with Retry-After: every 201 a client got while it ran is there afterwards", async () => {
    const made = await createBackup(t.ctx);
    type Sent = { client: number; seq: number; status: number; id?: string; retryAfter?: string | null; message?: string };
    const sent: Sent[] = [];
    const seqs = [0, 0, 0, 0];
    let stop = false;
    let phone = 7_000_000;
    const client = async (c: number) => {
      while (!stop) {
        const seq = ++seqs[c]!;
        const res = await fetch(`${t.url}/api/contacts`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json", origin: t.ctx.config.publicUrl },
          body: JSON.stringify({ firstName: `W${c}-${seq}`, phone: `+1415${++phone}` }),
        });
        const body = (await res.json()) as { id?: string; message?: string };
        sent.push({ client: c, seq, status: res.status, id: body.id, retryAfter: res.headers.get("retry-after"), message: body.message });
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    await Bun.sleep(100);
    /** Each client's request in flight when the restore began: those after it were sent during the restore. */
    let atStart: number[] = [];
    await restoreBackup(t.ctx, made.id, { beforePause: async () => void (atStart = [...seqs]) });
    await Bun.sleep(200);
    stop = true;
    await Promise.all(clients);

    const present = new Set((t.ctx.db.$client.query("SELECT id FROM contacts").all() as { id: string }[]).map((r) => r.id));
    const during = sent.filter((s) => s.seq > atStart[s.client]!);
    expect([...new Set(sent.map((s) => s.status))].sort()).toEqual([201, 503]);
    expect(during.filter((s) => s.status === 201 && !present.has(s.id!))).toEqual([]);
    const refused = during.filter((s) => s.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ retryAfter: "10", message: MAINTENANCE_MESSAGE });
    // After it, writes are taken again.
    expect(during.filter((s) => s.status === 201).length).toBeGreaterThan(0);
  }, 60_000);

  test("the swap waits for a write that started before the restore; one that does not end in time stops the restore", async () => {
    const made = await createBackup(t.ctx);
    const order: string[] = [];
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    const write = throughMaintenance(t.ctx, "POST", "/api/contacts", async () => {
      await held;
      order.push("write ended");
      return new Response(null, { status: 201 });
    });
    const restoring = restoreBackup(t.ctx, made.id, { afterSwap: () => void order.push("swapped") });
    await Bun.sleep(300);
    order.push("released");
    finish();
    await restoring;
    expect((await write).status).toBe(201);
    expect(order).toEqual(["released", "write ended", "swapped"]);

    const stuck = throughMaintenance(t.ctx, "PATCH", "/api/contacts/x", () => new Promise<Response>(() => {}));
    void stuck;
    const before = await createBackup(t.ctx);
    await expect(restoreBackup(t.ctx, before.id, { writesDrainMs: 200, afterSwap: () => void order.push("swapped again") })).rejects.toMatchObject({
      status: 409,
      message: "Requests that change data did not finish within 0.2 seconds; nothing was restored, try again",
    });
    expect(order).not.toContain("swapped again");
    // Writes are let in again.
    expect((await t.api("/api/contacts", { token: admin.token, body: { firstName: "After", phone: "+14155550199" } })).status).toBe(201);
  }, 60_000);
});
