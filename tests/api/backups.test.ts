import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { AwsV4Signer } from "aws4fetch";
import { createHash, createHmac } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrationJournal, migrationSql } from "../../db/migrations/embedded";
import { extractArchive, writeArchive, type ArchiveEntry } from "../../src/backups/archive";
import { backupsDir, createBackup, findBackup, listBackups, receiveUpload, restoreBackup, sweepStaleStaging, verifyArchive } from "../../src/backups/backups";
import { INTERRUPTED } from "../../src/contacts/csv-import";
import { MAINTENANCE_MESSAGE } from "../../src/http/maintenance";
import { onEventsCommitted } from "../../src/events/events";
import { scheduleView, updateBackupSchedule } from "../../src/backups/schedule";
import { decryptArchive, setBackupPassphrase } from "../../src/backups/encryption";
import { loadConfig } from "../../src/config";
import { enqueueJob, findJob, pauseJobRunner, registerJobHandler, resumeJobRunner, runDueJobs } from "../../src/jobs/jobs";
import { openAppContext } from "../../src/server";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

let t: TestServer;
let admin: Account;
let user: Account;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  const email = t.newEmail("admin");
  await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
  admin = await t.confirm(await t.login(email, "admin-password-1"));
  user = await t.signUpVerified();
  // Downloads and copies to S3 are encrypted with it (src/backups/encryption.ts; its own tests: backup-encryption).
  await setBackupPassphrase(t.ctx.config.dataDir, PASSPHRASE, Date.now());
});
const PASSPHRASE = "correct horse battery staple";
afterAll(() => t?.stop());

const backups = (path = "", opts: Record<string, unknown> = {}) => t.api(`/api/admin/backups${path}`, { token: admin.token, ...opts });
const ids = (table: string) => (t.ctx.db.$client.query(`SELECT id FROM ${table} ORDER BY id`).all() as { id: string }[]).map((r) => r.id);
const integrity = () => (t.ctx.db.$client.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((r) => r.integrity_check);

async function download(id: string): Promise<Uint8Array> {
  const res = await fetch(`${t.url}/api/admin/backups/${id}/download`, { headers: { authorization: `Bearer ${admin.token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${id}.tar.gz.enc"`);
  return new Uint8Array(await res.arrayBuffer());
}

/** The .tar.gz inside an encrypted archive. */
async function decrypted(bytes: Uint8Array): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-backup-decrypt-"));
  try {
    await Bun.write(join(dir, "a.enc"), bytes);
    await decryptArchive(join(dir, "a.enc"), join(dir, "a.tar.gz"), PASSPHRASE);
    return readFileSync(join(dir, "a.tar.gz"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const upload = (bytes: Uint8Array, passphrase?: string) =>
  fetch(`${t.url}/api/admin/backups/upload`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${admin.token}`,
      "content-type": "application/gzip",
      origin: t.ctx.config.publicUrl,
      ...(passphrase ? { "x-backup-passphrase": encodeURIComponent(passphrase) } : {}),
    },
    body: new Blob([bytes as Uint8Array<ArrayBuffer>]),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

/** Every file of an archive, in memory (small test archives only). */
async function unpack(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-backup-unpack-"));
  try {
    const path = join(dir, "a.tar.gz");
    await Bun.write(path, bytes);
    const names = ["manifest.json", "smsdesk.db", "secret.key", "media.json"];
    const files = await extractArchive(path, { toFile: {}, toMemory: Object.fromEntries(names.map((n) => [n, 1 << 30])) });
    return new Map(names.map((n) => [n, files.get(n)!.data!]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An archive of these entries, in memory (small test archives only). */
function packArchive(entries: ArchiveEntry[], mtimeMs: number): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-backup-pack-"));
  try {
    writeArchive(join(dir, "a.tar.gz"), entries, mtimeMs);
    return readFileSync(join(dir, "a.tar.gz"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A user with a simulator sender that delivers at once, sending at most `messagesPerSecond` (0: no pace). */
async function sender(messagesPerSecond = 0) {
  const acc = await t.signUpVerified();
  const provider = await t.api("/api/sms-providers", { token: acc.token, body: { provider: "simulator", displayName: "Sim" } });
  await t.api(`/api/sms-providers/${provider.body.id}`, { method: "PATCH", token: acc.token, body: { settings: { deliveryDelayMs: 0 } } });
  const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: acc.token });
  const number = numbers.body.numbers[0].phoneNumber as string;
  expect((await t.api("/api/phone-numbers", { token: acc.token, body: { providerId: provider.body.id, phoneNumber: number, messagesPerSecond } })).status).toBe(201);
  return acc;
}

describe("who may use the backup manager", () => {
  test("a user gets 403 and a visitor 401", async () => {
    expect((await t.api("/api/admin/backups", { token: user.token })).status).toBe(403);
    expect((await t.api("/api/admin/backups", { method: "POST", token: user.token })).status).toBe(403);
    expect((await t.api("/api/admin/backups")).status).toBe(401);
  });
});

describe("a backup taken while a campaign sends and an import runs", () => {
  test("is listed as good with its manifest, and restores with integrity_check ok and every row committed before it", async () => {
    // Paced at 4 a second, the campaign's 40 messages take ten seconds: it is still sending when the backup runs.
    const acc = await sender(4);
    const recipients = Array.from({ length: 40 }, (_, i) => `+1415555${String(100 + (i % 50)).padStart(4, "0")}`);
    const created = await t.api("/api/campaigns", { token: acc.token, body: { type: "sms", name: "Busy", content: "Hello", recipients: [...new Set(recipients)] } });
    const csv = "phone,first_name\n" + Array.from({ length: 3000 }, (_, i) => `+1212${String(5550000 + i)},P${i}`).join("\n") + "\n";
    const imported = await t.api("/api/contacts/import/csv", { token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
    expect(imported.status).toBe(202);
    expect((await t.api(`/api/campaigns/${created.body.id}/send`, { method: "POST", token: acc.token, body: {} })).status).toBe(202);

    // The backup runs in this process's single thread: what is committed now is what it must hold.
    const before = { messages: ids("messages"), contacts: ids("contacts"), users: ids("users") };
    const queued = () => (t.ctx.db.$client.query("SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status = 'queued'").get(created.body.id) as { n: number }).n;
    expect(queued()).toBeGreaterThan(0);
    const made = await backups("", { method: "POST" });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ status: "good", error: null, reason: "manual" });
    expect(made.body.manifest.tables.messages).toBe(before.messages.length);
    expect(made.body.manifest.tables.contacts).toBe(before.contacts.length);
    expect(made.body.manifest.schema).toBe(migrationJournal.entries.at(-1)!.tag);
    expect(made.body.manifest.files["smsdesk.db"].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(made.body.manifest.files["secret.key"].sha256).toMatch(/^[0-9a-f]{64}$/);

    const listed = await backups();
    expect(listed.body.data[0]).toEqual(made.body);

    // Writes go on after it; then the backup comes back.
    await waitFor(async () => (await t.api(`/api/contacts/import/${imported.body.id}`, { token: acc.token })).body.state, (state) => state === "done", 20_000);
    const restored = await backups(`/${made.body.id}/restore`, { method: "POST" });
    expect(restored.status).toBe(200);
    expect(restored.body.safety).toMatchObject({ status: "good", reason: "before-restore" });
    expect(integrity()).toEqual(["ok"]);
    for (const table of ["messages", "contacts", "users"] as const) {
      const now = new Set(ids(table));
      expect(before[table].filter((id) => !now.has(id))).toEqual([]);
    }
    expect(ids("messages")).toEqual(before.messages);
    // The appliance keeps serving on the restored data.
    expect((await t.api("/api/user/settings", { token: admin.token })).status).toBe(200);
  }, 60_000);
});

describe("uploads", () => {
  test("a good archive is accepted; a truncated or tampered one is refused and the running data is untouched", async () => {
    const made = await backups("", { method: "POST" });
    const sealed = await download(made.body.id);
    const good = await upload(sealed, PASSPHRASE);
    expect(good.status).toBe(201);
    // Archives of older versions were not encrypted: still taken (the checks below apply to them too).
    const bytes = await decrypted(sealed);
    expect(good.body).toMatchObject({ status: "good", reason: "uploaded", manifest: made.body.manifest });

    const listBefore = (await backups()).body.data.length;
    const usersBefore = ids("users");
    const truncated = await upload(bytes.slice(0, Math.floor(bytes.length / 2)));
    expect(truncated).toEqual({ status: 400, body: { message: "This file is not a valid backup: The file is not a complete .tar.gz archive", code: "validation" } });

    const files = await unpack(bytes);
    const db = new Uint8Array(files.get("smsdesk.db")!);
    db[db.length - 100] = db[db.length - 100]! ^ 0xff;
    const tampered = packArchive(
      [...files].map(([name, data]) => ({ name, data: name === "smsdesk.db" ? db : data })),
      Date.now(),
    );
    expect(await upload(tampered)).toEqual({
      status: 400,
      body: { message: "This file is not a valid backup: smsdesk.db does not match the manifest's SHA-256: the archive was changed or damaged", code: "validation" },
    });
    // A manifest rewritten to match a changed database still has to match the database's own row counts.
    const manifest = JSON.parse(Buffer.from(files.get("manifest.json")!).toString());
    manifest.tables.users += 1;
    const recounted = packArchive(
      [...files].map(([name, data]) => ({ name, data: name === "manifest.json" ? Buffer.from(JSON.stringify(manifest)) : data })),
      Date.now(),
    );
    expect(await upload(recounted)).toEqual({
      status: 400,
      body: { message: "This file is not a valid backup: The database's row counts differ from the manifest's (users)", code: "validation" },
    });
    expect(await upload(new TextEncoder().encode("not an archive"))).toMatchObject({ status: 400 });
    // Refused uploads leave no file behind.
    expect(readdirSync(backupsDir(t.ctx.config.dataDir)).filter((f) => f.startsWith(".upload-") || f.startsWith(".staging-"))).toEqual([]);
    expect((await backups()).body.data.length).toBe(listBefore);
    expect(ids("users")).toEqual(usersBefore);
    expect(integrity()).toEqual(["ok"]);
  });
});

describe("receiving an upload", () => {
  test("is written to disk as it arrives, and refused past the limit with nothing left behind", async () => {
    const dir = backupsDir(t.ctx.config.dataDir);
    const partial = () => readdirSync(dir).filter((f) => f.startsWith(".upload-"));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* body() {
      yield new Uint8Array(1000).fill(1);
      await gate;
      yield new Uint8Array(1000).fill(2);
    }
    const receiving = receiveUpload(t.ctx.config.dataDir, body(), 1500);
    // The first chunk is on disk while the rest has not arrived: nothing holds the whole upload in memory.
    const [file] = await waitFor(partial, (files) => files.length === 1 && statSync(join(dir, files[0]!)).size === 1000);
    expect(readFileSync(join(dir, file!))).toEqual(Buffer.alloc(1000, 1));
    release();
    await expect(receiving).rejects.toMatchObject({ status: 413, message: "Request body too large" });
    expect(partial()).toEqual([]);
  });
});

describe("restoring", () => {
  test("a restore that fails midway leaves the previous data serving", async () => {
    const made = await backups("", { method: "POST" });
    const later = await t.signUpVerified();
    await expect(
      restoreBackup(t.ctx, made.body.id, {
        afterSwap: () => {
          throw new Error("disk full (injected)");
        },
      }),
    ).rejects.toThrow("The restore failed and the previous data was put back: disk full (injected)");
    expect(ids("users")).toContain(later.user.id);
    expect((await t.api("/api/user/settings", { token: later.token })).status).toBe(200);
    expect(integrity()).toEqual(["ok"]);
  });

  test("only one backup or restore runs at a time", async () => {
    const made = await backups("", { method: "POST" });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The engine stops as the default pause stops it (an engine left running would use the closed database).
    const pause = async () => {
      await t.ctx.sending.stop();
      await gate;
    };
    const running = restoreBackup(t.ctx, made.body.id, { pause, resume: () => t.ctx.sending.start() });
    // A backup made now is a write the restore would discard: refused like every write while it runs.
    const second = await backups("", { method: "POST" });
    expect(second).toMatchObject({ status: 503, body: { message: MAINTENANCE_MESSAGE, code: "maintenance" } });
    expect(second.headers.get("retry-after")).toBe("10");
    expect(await backups(`/${made.body.id}/restore`, { method: "POST" })).toMatchObject({
      status: 409,
      body: { message: "Another backup or restore is running; try again when it has finished", code: "conflict" },
    });
    release();
    await running;
    expect((await backups("", { method: "POST" })).status).toBe(201);
  });

  test("deleting removes it; an unknown id is 404", async () => {
    const made = await backups("", { method: "POST" });
    expect((await backups(`/${made.body.id}`, { method: "DELETE" })).body).toEqual({ success: true });
    expect((await backups()).body.data.map((b: { id: string }) => b.id)).not.toContain(made.body.id);
    expect((await backups(`/${made.body.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await backups("/../../etc/download")).status).toBe(404);
  });
});

describe("jobs during a restore", () => {
  /** A job of its own kind that runs until `finish` is called, queued and claimed by the running runner. */
  async function heldJob(kind: string) {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    registerJobHandler(t.ctx, kind, async () => {
      await gate;
      return { result: "finished" };
    });
    const key = `${kind}:${crypto.randomUUID()}`;
    await enqueueJob(t.ctx, { kind, key, runAt: t.ctx.now() });
    await waitFor(async () => (await findJob(t.ctx, key))?.state, (state) => state === "running");
    return { key, finish };
  }

  test("the restore waits for a job in flight to end before the swap: it records nothing into the restored data", async () => {
    const { key, finish } = await heldJob("restore-test-held");
    // The backup holds the job as running, with the same id and attempt as the one in flight.
    const made = await createBackup(t.ctx);
    let pausing = false;
    let swapped = false;
    const restoring = restoreBackup(t.ctx, made.id, { beforePause: async () => void (pausing = true) }).then((r) => ((swapped = true), r));
    await waitFor(() => pausing, Boolean);
    // Time enough for a swap that did not wait (a few milliseconds on this small database) to have happened.
    await Promise.race([restoring, Bun.sleep(300)]);
    expect(swapped).toBe(false);
    finish();
    await restoring;
    // Finished in the data replaced; the restored data has it as the backup had it (its lease runs it again later).
    expect((await findJob(t.ctx, key))).toMatchObject({ state: "running", result: null, attempts: 1 });
    // The runner claims again after the restore.
    const after = await heldJob("restore-test-after");
    after.finish();
    await waitFor(async () => (await findJob(t.ctx, after.key))?.state, (state) => state === "done");
  });

  test("a job that does not end in time: the restore is refused with nothing swapped, and the runner goes on", async () => {
    const { key, finish } = await heldJob("restore-test-stuck");
    const made = await createBackup(t.ctx);
    const later = await t.signUpVerified();
    await expect(restoreBackup(t.ctx, made.id, { jobsDrainMs: 50 })).rejects.toMatchObject({
      status: 409,
      message: "Background jobs did not finish within 0.05 seconds; nothing was restored, try again",
    });
    expect(ids("users")).toContain(later.user.id);
    finish();
    expect(await waitFor(async () => (await findJob(t.ctx, key)), (job) => job?.state === "done")).toMatchObject({ result: "finished" });
    const after = await heldJob("restore-test-resumed");
    after.finish();
    await waitFor(async () => (await findJob(t.ctx, after.key))?.state, (state) => state === "done");
  });
});

describe("the services after a restore", () => {
  test("readers of the event log still hear of new events, and sockets reconnect to the restored data", async () => {
    const acc = await sender();
    const made = await createBackup(t.ctx);
    let heard = 0;
    onEventsCommitted(t.ctx, () => heard++, "backups-test");
    const connect = async () => {
      const ws = new WebSocket(`${t.url.replace("http:", "ws:")}/ws`, { headers: { cookie: `smsdesk_session=${acc.token}`, origin: new URL(t.ctx.config.publicUrl).origin } } as any);
      const frames: { type: string }[] = [];
      ws.onmessage = (m) => frames.push(JSON.parse(String(m.data)));
      const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
      await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)));
      ws.send(JSON.stringify({ type: "resume" }));
      await waitFor(() => frames.some((f) => f.type === "ready"), Boolean);
      return { ws, frames, closed };
    };
    try {
      const before = await connect();
      await restoreBackup(t.ctx, made.id);
      // Its position named an event of the data replaced: the server closes it (going away) and it reconnects.
      expect(await before.closed).toBe(1001);

      const after = await connect();
      expect((await t.api("/api/messages/send", { token: acc.token, body: { phone: "+14155550123", content: "After the restore" } })).status).toBeLessThan(300);
      await waitFor(() => after.frames.some((f) => f.type === "new_message"), Boolean);
      expect(heard).toBeGreaterThan(0);
      after.ws.close();
    } finally {
      onEventsCommitted(t.ctx, null, "backups-test");
    }
  });
});

describe("the schedule", () => {
  test("a preset or a cron expression; each run backs up and keeps the newest N scheduled backups", async () => {
    expect((await backups("/schedule")).body).toEqual({ enabled: false, preset: "daily", cron: "0 3 * * *", keep: 7, nextRunAt: null });
    expect((await backups("/schedule", { method: "PUT", body: { enabled: true, preset: "custom", cron: "every day", keep: 2 } })).body).toEqual({
      message: "Please enter a valid cron expression (5 fields: minute hour day month weekday)",
      code: "validation",
    });
    expect((await backups("/schedule", { method: "PUT", body: { enabled: true, preset: "daily", keep: 0 } })).status).toBe(400);

    const start = new Date(2030, 0, 1, 12, 0).getTime();
    const realNow = t.ctx.now;
    t.ctx.now = () => now;
    let now = start;
    try {
      // Sessions expire on this clock too: past the PUT's checks, the service is called directly.
      const set = await updateBackupSchedule(t.ctx, { enabled: true, preset: "custom", cron: "30 4 * * *", keep: 2 });
      expect(set).toEqual({ enabled: true, preset: "custom", cron: "30 4 * * *", keep: 2, nextRunAt: new Date(2030, 0, 2, 4, 30).getTime() });
      const manual = (await createBackup(t.ctx)).id;
      for (let day = 2; day <= 4; day++) {
        now = new Date(2030, 0, day, 4, 31).getTime();
        await (await runDueJobs(t.ctx)).settled;
      }
      const scheduled = listBackups(t.ctx.config.dataDir).filter((b) => b.reason === "scheduled");
      expect(scheduled.map((b) => b.createdAt)).toEqual([new Date(2030, 0, 4, 4, 31).getTime(), new Date(2030, 0, 3, 4, 31).getTime()]);
      expect(scheduled.every((b) => b.status === "good")).toBe(true);
      // Retention deletes only scheduled backups.
      expect(listBackups(t.ctx.config.dataDir).map((b) => b.id)).toContain(manual);
      expect(scheduleView(t.ctx).nextRunAt).toBe(new Date(2030, 0, 5, 4, 30).getTime());
    } finally {
      t.ctx.now = realNow;
      await backups("/schedule", { method: "PUT", body: { enabled: false, preset: "weekly", keep: 7 } });
    }
  });
});

describe("the restore drill", () => {
  test("restores the newest good backup into a temporary folder every day and checks it; a damaged one is reported", async () => {
    const dataDir = t.ctx.config.dataDir;
    const realNow = t.ctx.now;
    // The server's own job runner is held: on its next tick it would claim the drill at the fake time itself, and
    // this test's pass would then find nothing due and settle before the drill had run (it failed so in CI).
    expect(await pauseJobRunner(t.ctx, 10_000)).toBe(true);
    const staging = () => readdirSync(backupsDir(dataDir)).filter((f) => f.startsWith(".staging-"));
    // What an earlier test's restore may still be removing is not this drill's to answer for.
    const before = new Set(staging());
    let now = new Date(2035, 0, 1, 4, 0).getTime();
    t.ctx.now = () => now;
    // The newest backups by their time (the clock is fake here).
    const a = await createBackup(t.ctx);
    let b!: Awaited<ReturnType<typeof createBackup>>;
    now = new Date(2035, 0, 1, 5, 1).getTime();
    const drillJob = () => t.ctx.db.$client.query("SELECT state, run_at FROM jobs WHERE key = 'backups.drill'").get() as { state: string; run_at: number };
    try {
      await (await runDueJobs(t.ctx)).settled;
      expect(findBackup(dataDir, a.id).drill).toEqual({ at: now, ok: true, error: null });
      expect(drillJob()).toEqual({ state: "pending", run_at: new Date(2035, 0, 2, 5, 0).getTime() });
      expect(staging().filter((f) => !before.has(f))).toEqual([]);

      now = new Date(2035, 0, 2, 4, 0).getTime();
      b = await createBackup(t.ctx);
      const archive = join(backupsDir(dataDir), `${b.id}.tar.gz`);
      writeFileSync(archive, readFileSync(archive).subarray(0, 2000));
      now = new Date(2035, 0, 2, 5, 1).getTime();
      await (await runDueJobs(t.ctx)).settled;
      expect(findBackup(dataDir, b.id).drill).toEqual({ at: now, ok: false, error: "The file is not a complete .tar.gz archive" });
      expect(t.logs).toContain(`backups: the restore drill of ${b.id} failed: The file is not a complete .tar.gz archive`);
    } finally {
      t.ctx.now = realNow;
      resumeJobRunner(t.ctx);
    }
    // What the backup manager and the dashboard show: the newest good backup that passed its drill.
    const listed = await backups();
    expect(listed.body.lastDrilled).toMatchObject({ id: a.id, status: "good", drill: { ok: true } });
    // A drill on demand.
    const drilled = await backups(`/${a.id}/drill`, { method: "POST" });
    expect(drilled.status).toBe(200);
    expect(drilled.body).toMatchObject({ id: a.id, drill: { ok: true, error: null } });
    expect((await backups(`/${b.id}`, { method: "DELETE" })).status).toBe(200);
  });

  test("staging folders a crash left behind are removed at start and before each drill; a fresh one is kept", () => {
    const dir = backupsDir(t.ctx.config.dataDir);
    const old = join(dir, ".staging-0000000000aa");
    const fresh = join(dir, ".staging-0000000000bb");
    for (const d of [old, fresh]) {
      mkdirSync(d);
      writeFileSync(join(d, "smsdesk.db"), "x".repeat(1000));
    }
    const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    expect(sweepStaleStaging(t.ctx.config.dataDir)).toEqual([".staging-0000000000aa"]);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    rmSync(fresh, { recursive: true });
  });
});

/**
 * A fake S3-compatible store: objects in memory, ListObjectsV2, PUT and DELETE, each request refused (403) unless
 * its AWS Signature V4 checks out by this independent implementation of the algorithm, and a PUT's body unless it
 * matches its signed SHA-256.
 */
function fakeS3(creds: { accessKeyId: string; secretAccessKey: string; region: string; bucket: string }) {
  const objects = new Map<string, Buffer>();
  const refused: string[] = [];
  let failPuts = false;
  const sha256hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  const rfc3986 = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  function check(req: Request, body: Buffer): string | null {
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(req.headers.get("authorization") ?? "");
    if (!m) return "no AWS4-HMAC-SHA256 authorization";
    const [, keyId, date, region, signedHeaders, signature] = m as unknown as string[];
    if (keyId !== creds.accessKeyId || region !== creds.region) return "wrong credential scope";
    for (const h of ["host", "x-amz-date", "x-amz-content-sha256"]) if (!signedHeaders!.split(";").includes(h)) return `${h} not signed`;
    const amzDate = req.headers.get("x-amz-date")!;
    if (amzDate.slice(0, 8) !== date) return "date outside the scope";
    const payload = req.headers.get("x-amz-content-sha256")!;
    if (req.method === "PUT" && payload !== sha256hex(body)) return "body does not match x-amz-content-sha256";
    const url = new URL(req.url);
    const query = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : 1)).map((p) => p.join("=")).join("&");
    const headers = signedHeaders!.split(";").map((h) => `${h}:${(req.headers.get(h) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
    const canonical = [req.method, url.pathname, query, headers, signedHeaders, payload].join("\n");
    const toSign = ["AWS4-HMAC-SHA256", amzDate, `${date}/${region}/s3/aws4_request`, sha256hex(canonical)].join("\n");
    const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, date!), region!), "s3"), "aws4_request");
    return hmac(key, toSign).toString("hex") === signature ? null : "signature does not match";
  }
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const body = Buffer.from(await req.arrayBuffer());
      const problem = check(req, body);
      const url = new URL(req.url);
      if (problem) {
        refused.push(`${req.method} ${url.pathname}: ${problem}`);
        return new Response(`<Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`, { status: 403 });
      }
      const prefix = `/${creds.bucket}`;
      if (!url.pathname.startsWith(prefix)) return new Response("<Error><Code>NoSuchBucket</Code></Error>", { status: 404 });
      const key = decodeURIComponent(url.pathname.slice(prefix.length + 1));
      if (req.method === "GET" && !key) {
        const keys = [...objects.keys()].filter((k) => k.startsWith(url.searchParams.get("prefix") ?? "")).sort();
        return new Response(`<?xml version="1.0"?><ListBucketResult><IsTruncated>false</IsTruncated>${keys.map((k) => `<Contents><Key>${k}</Key></Contents>`).join("")}</ListBucketResult>`);
      }
      if (req.method === "PUT") {
        if (failPuts) return new Response("<Error><Code>InternalError</Code></Error>", { status: 500 });
        objects.set(key, body);
        return new Response("");
      }
      if (req.method === "DELETE") {
        objects.delete(key);
        return new Response(null, { status: 204 });
      }
      return new Response("<Error><Code>NotImplemented</Code></Error>", { status: 501 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    objects,
    refused,
    failPuts: (on: boolean) => (failPuts = on),
    stop: () => server.stop(true),
  };
}

describe("the S3-compatible destination", () => {
  test("each scheduled backup is uploaded, signed with SigV4, and the same number of scheduled backups is kept there", async () => {
    const creds = { accessKeyId: "AKIDSMSDESKTEST", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCY", region: "eu-test-1", bucket: "smsdesk-backups" };
    const s3 = fakeS3(creds);
    const dataDir = t.ctx.config.dataDir;
    try {
      const settings = { enabled: true, endpoint: s3.url, bucket: creds.bucket, region: creds.region, accessKeyId: creds.accessKeyId, prefix: "nightly/" };
      expect((await backups("/remote", { method: "PUT", body: settings })).body).toEqual({ message: "Please enter the secret access key", code: "validation" });
      const saved = await backups("/remote", { method: "PUT", body: { ...settings, secretAccessKey: creds.secretAccessKey } });
      expect(saved.body).toEqual({ ...settings, secretSet: true });
      expect((await backups("/remote")).body).toEqual({ ...settings, secretSet: true });
      // Sealed like provider credentials: the file beside the backups does not hold the secret.
      expect(readFileSync(join(backupsDir(dataDir), "remote.json"), "utf8")).not.toContain(creds.secretAccessKey);
      expect((await backups("/remote", { method: "PUT", body: { ...settings, bucket: "No_Such" } })).status).toBe(400);

      // What was there before: an older scheduled backup (retention counts it) and a file of someone else's.
      s3.objects.set("nightly/smsdesk-20200101-043100-scheduled-aaaaaa.tar.gz", Buffer.from("old"));
      s3.objects.set("nightly/notes.txt", Buffer.from("keep me"));

      const realNow = t.ctx.now;
      let now = new Date(2040, 0, 1, 12, 0).getTime();
      t.ctx.now = () => now;
      try {
        await updateBackupSchedule(t.ctx, { enabled: true, preset: "custom", cron: "30 4 * * *", keep: 2 });
        for (let day = 2; day <= 4; day++) {
          now = new Date(2040, 0, day, 4, 31).getTime();
          await (await runDueJobs(t.ctx)).settled;
        }
        const scheduled = listBackups(dataDir).filter((b) => b.reason === "scheduled");
        expect(scheduled.map((b) => b.createdAt)).toEqual([new Date(2040, 0, 4, 4, 31).getTime(), new Date(2040, 0, 3, 4, 31).getTime()]);
        expect(s3.refused).toEqual([]);
        expect([...s3.objects.keys()].sort()).toEqual(["nightly/notes.txt", ...scheduled.map((b) => `nightly/${b.id}.tar.gz.enc`).sort()]);
        for (const b of scheduled) {
          // Encrypted for the passphrase: it opens to the local archive.
          expect(Buffer.from(await decrypted(s3.objects.get(`nightly/${b.id}.tar.gz.enc`)!))).toEqual(readFileSync(join(backupsDir(dataDir), `${b.id}.tar.gz`)));
          expect(b.remote).toMatchObject({ ok: true, key: `nightly/${b.id}.tar.gz.enc`, error: null });
        }

        // The store refuses: recorded and logged; the local backup is good all the same.
        s3.failPuts(true);
        now = new Date(2040, 0, 5, 4, 31).getTime();
        await (await runDueJobs(t.ctx)).settled;
        const [failed] = listBackups(dataDir).filter((b) => b.reason === "scheduled");
        expect(failed).toMatchObject({ status: "good", createdAt: now, remote: { ok: false, error: `PUT /smsdesk-backups/nightly/${failed!.id}.tar.gz.enc answered 500 InternalError` } });
        expect(t.logs).toContain(`backups: the copy of ${failed!.id} to S3 failed: PUT /smsdesk-backups/nightly/${failed!.id}.tar.gz.enc answered 500 InternalError`);
      } finally {
        t.ctx.now = realNow;
        await updateBackupSchedule(t.ctx, { enabled: false, preset: "daily", keep: 7 });
        await backups("/remote", { method: "PUT", body: { ...settings, enabled: false } });
      }

      // The fake does check signatures: a request signed with another secret is refused.
      const forged = await new AwsV4Signer({ method: "GET", url: `${s3.url}/${creds.bucket}/?list-type=2`, accessKeyId: creds.accessKeyId, secretAccessKey: "not-the-secret", service: "s3", region: creds.region }).sign();
      expect((await fetch(forged.url, { headers: forged.headers })).status).toBe(403);
      expect(s3.refused).toEqual([`GET /${creds.bucket}/: signature does not match`]);
    } finally {
      s3.stop();
    }
  }, 30_000);
});

describe("before new migrations", () => {
  test("a data folder of an older version is backed up before they apply; a fresh one is not", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-backup-upgrade-"));
    try {
      // The database as the version before the newest migration left it.
      const old = new Database(join(dataDir, "smsdesk.db"), { create: true });
      old.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
      const previous = migrationJournal.entries.slice(0, -1);
      for (const entry of previous) {
        for (const statement of migrationSql[entry.tag]!.split("--> statement-breakpoint")) if (statement.trim()) old.exec(statement);
        old.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('x', ?)").run(entry.when);
      }
      old.close();
      const logs: string[] = [];
      const ctx = await openAppContext(loadConfig({ DATA_DIR: dataDir }, []), (line) => logs.push(line));
      ctx.db.$client.close();
      const [backup, ...more] = listBackups(dataDir);
      expect(more).toEqual([]);
      expect(backup).toMatchObject({ status: "good", reason: "before-migrations", manifest: { schema: previous.at(-1)!.tag } });
      expect(logs).toContain(`backups: the data was backed up before applying new migrations (${backup!.id})`);

      // Opened again, nothing is pending: no second backup.
      (await openAppContext(loadConfig({ DATA_DIR: dataDir }, []), () => {})).db.$client.close();
      expect(listBackups(dataDir)).toHaveLength(1);
      // A fresh data folder has nothing to back up.
      const fresh = join(dataDir, "fresh");
      (await openAppContext(loadConfig({ DATA_DIR: fresh }, []), () => {})).db.$client.close();
      expect(listBackups(fresh)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("smsdesk backup on the command line", () => {
  const root = join(import.meta.dir, "..", "..");
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-backup-cli-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const smsdesk = (args: string[]) => {
    const { PORT: _p, PUBLIC_URL: _u, HOST: _h, ...rest } = process.env;
    const r = Bun.spawnSync([process.execPath, "src/main.ts", ...args], { cwd: root, env: { ...rest, DATA_DIR: dataDir }, stdin: "ignore" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };

  test("create, list, restore FILE", () => {
    expect(smsdesk(["backup", "list"]).out).toBe("No backups yet.\n");
    const made = smsdesk(["backup", "create"]);
    expect(made.code).toBe(0);
    const id = /^Backup (smsdesk-\S+) is good/.exec(made.out)![1]!;
    const listed = smsdesk(["backup", "list"]);
    expect(listed.out).toMatch(new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  good  \\d+\\.\\d MB\\n$`));

    const file = join(dataDir, "backups", `${id}.tar.gz`);
    const restored = smsdesk(["backup", "restore", file]);
    expect(restored.code).toBe(0);
    expect(restored.out).toMatch(/^Restored .* The data before it is backup smsdesk-\S+-before-restore-[0-9a-f]{6}\.\n$/);
    const db = new Database(join(dataDir, "smsdesk.db"), { readonly: true });
    expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
    db.close();

    expect(smsdesk(["backup", "restore", join(dataDir, "nope.tar.gz")])).toMatchObject({ code: 2, err: `smsdesk: No such file: ${join(dataDir, "nope.tar.gz")}\n` });
    expect(smsdesk(["backup", "drop"])).toMatchObject({ code: 2 });
    expect(readFileSync(file).length).toBeGreaterThan(0);
  }, 30_000);

  test("restore refuses while the service of that data folder is running", async () => {
    const made = await createBackup(t.ctx);
    const port = new URL(t.url).port;
    const { PUBLIC_URL: _u, HOST: _h, ...rest } = process.env;
    // Spawned without blocking: the server that must answer runs in this process.
    const p = Bun.spawn([process.execPath, "src/main.ts", "backup", "restore", join(backupsDir(t.dataDir), `${made.id}.tar.gz`)], {
      cwd: root,
      env: { ...rest, DATA_DIR: t.dataDir, PORT: port },
      stdin: "ignore",
      stderr: "pipe",
    });
    expect(await p.exited).toBe(2);
    expect(await new Response(p.stderr).text()).toBe(
      `smsdesk: smsdesk is running on port ${port} with this data folder: stop it first (systemctl stop smsdesk), or restore from /admin/backup-manager\n`,
    );
    expect(listBackups(t.dataDir).filter((b) => b.reason === "before-restore" && b.createdAt > made.createdAt)).toEqual([]);
  }, 30_000);
});

describe("a CSV import running during a restore", () => {
  test("stops between two batches before the swap; the restored data shows it interrupted and a new import runs", async () => {
    // An administrator has no contact limit: every row is stored.
    const importCsv = (rows: number, from: number) =>
      t.api("/api/contacts/import/csv", {
        token: admin.token,
        body: "phone,first_name\n" + Array.from({ length: rows }, (_, i) => `+1646${String(from + i)},Q${i}`).join("\n") + "\n",
        headers: { "content-type": "text/csv" },
      });
    const job = async (id: string) => (await t.api(`/api/contacts/import/${id}`, { token: admin.token })).body;
    // Read from the database directly: a poll through HTTP can miss a short window between two batches.
    const stateOf = (id: string) => t.ctx.db.$client.query("SELECT state, rows_read AS rowsRead FROM contact_imports WHERE id = ?").get(id) as { state: string; rowsRead: number } | null;
    const running = (j: { state: string; rowsRead: number } | null) => j?.state === "running" && j.rowsRead >= 10_000;

    // A backup taken while one import runs...
    const first = await importCsv(100_000, 2_000_000);
    expect(first.status).toBe(202);
    await waitFor(() => stateOf(first.body.id), running, 30_000, 5);
    expect(stateOf(first.body.id)?.state).toBe("running");
    const made = await createBackup(t.ctx);
    await waitFor(() => job(first.body.id), (j) => j.state === "done", 60_000);

    // ...is restored while another runs.
    let second = "";
    const logsBefore = t.logs.length;
    const { safety } = await restoreBackup(t.ctx, made.id, {
      beforePause: async () => {
        second = (await importCsv(100_000, 3_000_000)).body.id;
        await waitFor(() => stateOf(second), running, 30_000, 5);
      },
    });
    // The state just before the restore (taken with the writers stopped) shows the second import stopped there.
    const dir = mkdtempSync(join(tmpdir(), "smsdesk-backup-safety-"));
    try {
      const { dbPath } = await verifyArchive(dir, join(backupsDir(t.ctx.config.dataDir), `${safety.id}.tar.gz`));
      const before = new Database(dbPath, { readonly: true });
      expect(before.query("SELECT state, error FROM contact_imports WHERE id = ?").get(second)).toEqual({
        state: "failed",
        error: "The server stopped during the import. Please upload the file again.",
      });
      before.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(t.logs.slice(logsBefore).filter((line) => /closed database|import .* failed/i.test(line))).toEqual([]);
    expect(integrity()).toEqual(["ok"]);
    // In the restored data the first import is running; no process runs it now, so it says so instead of blocking
    // the next one.
    expect(await job(first.body.id)).toMatchObject({ state: "failed", error: INTERRUPTED });
    expect((await t.api(`/api/contacts/import/${second}`, { token: admin.token })).status).toBe(404);
    const next = await importCsv(50, 4_000_000);
    expect(next.status).toBe(202);
    expect(await waitFor(() => job(next.body.id), (j) => j.state !== "running" && j.state !== "queued", 20_000)).toMatchObject({ state: "done", created: 50 });
    // The names the first import had not yet added to the list by name when the backup was taken are added now.
    const db = () => t.ctx.db.$client;
    const unnamed = () =>
      db().query("SELECT count(*) AS n FROM (SELECT user_id, rowid FROM contacts EXCEPT SELECT user_id, contact_rowid FROM contact_names)").get() as { n: number };
    expect(await waitFor(unnamed, (u) => u.n === 0, 20_000)).toEqual({ n: 0 });
    expect(db().query("SELECT names_from AS namesFrom FROM contact_imports WHERE id = ?").get(first.body.id)).toEqual({ namesFrom: null });
  }, 120_000);
});
