/**
 * What keeps one installation one (issue 31 item 2, the parts that need no PostgreSQL records): on SQLite a second
 * server on the same data folder refuses to start and names the one that holds it (two real processes; the lock
 * goes with a killed process); SECRET_KEY_FILE supplies the key; on PostgreSQL the key's fingerprint is stored and a
 * process with another key refuses to start and says why; and DATABASE_URL=postgres:// serves from PostgreSQL,
 * never from the data folder's SQLite.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instanceId } from "../../src/secrets/instance";
import { deriveKey } from "../../src/secrets/secret-key";
import { createBackup, restoreBackup } from "../../src/backups/backups";
import { childApi, startChildServer, type ChildServer } from "../support/child-server";
import { startTestServer } from "../support/test-server";
import { throwawayDatabase } from "../support/postgres";

const root = join(import.meta.dir, "../..");
const bun = join(root, "node_modules/.bin/bun");
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "smsdesk-guards-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `smsdesk` run to its end: its exit status and everything it printed. */
function run(env: Record<string, string>, args: string[] = []) {
  const r = spawnSync(bun, ["src/main.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SMSDESK_DEV: "", SMTP_URL: "", DATABASE_URL: "", SECRET_KEY_FILE: "", ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const keyText = () => `${randomBytes(32).toString("base64")}\n`;
const fingerprintOf = (text: string) => instanceId(deriveKey(Buffer.from(text.trim(), "base64"), "secrets"));

describe("SQLite mode: one server per data folder", () => {
  test("a second process on the same data folder refuses with the reason; after the first is killed, one starts", async () => {
    const dataDir = tempDir();
    const first = await startChildServer({ DATA_DIR: dataDir });
    try {
      expect((await childApi(first.url, "/api/health")).status).toBe(200);
      const second = run({ DATA_DIR: dataDir });
      expect(second.status).toBe(2);
      expect(second.out).toContain(
        `smsdesk: Another smsdesk process (pid ${first.process.pid}) is serving the data folder ${dataDir}. ` +
          "On SQLite one process serves a data folder: stop that one first, or run several processes on PostgreSQL (DATABASE_URL, see README).",
      );
      // The first is unharmed.
      expect((await childApi(first.url, "/api/health")).status).toBe(200);
    } finally {
      await first.kill("SIGKILL");
    }
    // The OS dropped the lock with the killed process: no stale lock to remove by hand.
    const third = await startChildServer({ DATA_DIR: dataDir });
    try {
      expect((await childApi(third.url, "/api/health")).status).toBe(200);
      expect(readFileSync(join(dataDir, "smsdesk.lock"), "utf8")).toBe(`${third.process.pid}\n`);
    } finally {
      await third.kill();
    }
  }, 90_000);

  test("another data folder is another installation: two servers run side by side", async () => {
    const a = await startChildServer({ DATA_DIR: tempDir() });
    const b = await startChildServer({ DATA_DIR: tempDir() });
    try {
      expect((await childApi(a.url, "/api/health")).status).toBe(200);
      expect((await childApi(b.url, "/api/health")).status).toBe(200);
    } finally {
      await Promise.all([a.kill(), b.kill()]);
    }
  }, 90_000);
});

describe("SECRET_KEY_FILE", () => {
  test("the server's key comes from the file (its instance id is the file's) and none is written to the data folder", async () => {
    const dataDir = tempDir();
    const keyFile = join(tempDir(), "smsdesk.key");
    const text = keyText();
    writeFileSync(keyFile, text, { mode: 0o400 });
    const server = await startChildServer({ DATA_DIR: dataDir, SECRET_KEY_FILE: keyFile });
    try {
      expect((await childApi(server.url, "/api/health")).body.instance).toBe(fingerprintOf(text));
    } finally {
      await server.kill();
    }
    expect(() => readFileSync(join(dataDir, "secret.key"))).toThrow();
  }, 60_000);

  test("a backup holds SECRET_KEY_FILE's key; a restore of a backup of another key is refused before anything changes", async () => {
    const keyFile = join(tempDir(), "a.key");
    const keyA = keyText();
    writeFileSync(keyFile, keyA, { mode: 0o600 });
    const t = await startTestServer({ smtp: false, env: { SECRET_KEY_FILE: keyFile } });
    try {
      const backup = await createBackup(t.ctx);
      expect(backup.status).toBe("good");
      const listing = spawnSync("tar", ["-xzOf", join(t.dataDir, "backups", `${backup.id}.tar.gz`), "secret.key"], { encoding: "utf8" });
      expect(listing.stdout).toBe(keyA);
      // The same installation pointed at another key file: its backups are of another key.
      const fileB = join(tempDir(), "b.key");
      writeFileSync(fileB, keyText(), { mode: 0o600 });
      t.ctx.config.secretKeyFile = fileB;
      await expect(restoreBackup(t.ctx, backup.id)).rejects.toThrow(
        `This backup holds another secret key than SECRET_KEY_FILE (${fileB}): put the backup's secret.key in that file, then restore`,
      );
      t.ctx.config.secretKeyFile = keyFile;
      const { restored } = await restoreBackup(t.ctx, backup.id);
      expect(restored.id).toBe(backup.id);
    } finally {
      await t.stop();
    }
  }, 60_000);

  test("a missing or damaged key file is refused with the file named; no key is made up", () => {
    const dataDir = tempDir();
    const missing = join(dataDir, "nope.key");
    const r1 = run({ DATA_DIR: dataDir, SECRET_KEY_FILE: missing });
    expect(r1.status).toBe(2);
    expect(r1.out).toContain(`smsdesk: SECRET_KEY_FILE ${missing} cannot be read: ENOENT`);
    const damaged = join(dataDir, "short.key");
    writeFileSync(damaged, "c2hvcnQ=\n");
    const r2 = run({ DATA_DIR: dataDir, SECRET_KEY_FILE: damaged });
    expect(r2.status).toBe(2);
    expect(r2.out).toContain(
      `smsdesk: SECRET_KEY_FILE ${damaged} is not a secret key: expected 32 bytes of base64 (a data folder's secret.key)`,
    );
  }, 60_000);
});

describe("DATABASE_URL=postgres://", () => {
  test("not a postgres URL: refused", () => {
    const r = run({ DATA_DIR: tempDir(), DATABASE_URL: "mysql://localhost/x" });
    expect(r.status).toBe(2);
    expect(r.out).toContain("smsdesk: DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database), or unset for SQLite");
  });

  test("the schema is migrated and the key's fingerprint stored; processes with the installation's key serve from it, another key is refused", async () => {
    const pg = await throwawayDatabase();
    const servers: ChildServer[] = [];
    try {
      const keyA = keyText();
      const fileA = join(tempDir(), "a.key");
      writeFileSync(fileA, keyA);
      const dataDir = tempDir();
      const first = await startChildServer({ DATA_DIR: dataDir, SECRET_KEY_FILE: fileA, DATABASE_URL: pg.url });
      servers.push(first);
      expect((await childApi(first.url, "/api/health")).body).toMatchObject({ status: "ok", db: "ok", instance: fingerprintOf(keyA) });
      expect(first.output()).toContain(`PostgreSQL: this installation's key fingerprint (instance ${fingerprintOf(keyA)}) stored`);
      expect(first.output()).toContain(`PostgreSQL: serving from 127.0.0.1:5432/${pg.name}`);
      // Nothing was served from, or written to, a SQLite database in the data folder.
      expect(() => readFileSync(join(dataDir, "smsdesk.db"))).toThrow();
      const rows = (await pg.sql`SELECT key_fingerprint FROM smsdesk_installation`) as { key_fingerprint: string }[];
      expect(rows.map((r) => r.key_fingerprint)).toEqual([fingerprintOf(keyA)]);

      // A second process with the same key (from its own data folder) serves the same installation; one with another
      // key is refused.
      const sameDir = tempDir();
      writeFileSync(join(sameDir, "secret.key"), keyA, { mode: 0o600 });
      const same = await startChildServer({ DATA_DIR: sameDir, DATABASE_URL: pg.url });
      servers.push(same);
      expect((await childApi(same.url, "/api/health")).body).toMatchObject({ status: "ok", db: "ok", instance: fingerprintOf(keyA) });
      expect(same.output()).not.toContain("stored");

      const otherDir = tempDir();
      const other = run({ DATA_DIR: otherDir, DATABASE_URL: pg.url });
      const otherFingerprint = fingerprintOf(readFileSync(join(otherDir, "secret.key"), "utf8"));
      expect(other.status).toBe(2);
      expect(other.out).toContain(
        `smsdesk: This process's secret key (${join(otherDir, "secret.key")}, instance ${otherFingerprint}) is not the one of the ` +
          `installation in this PostgreSQL database (instance ${fingerprintOf(keyA)}). Every process of one installation needs the ` +
          "same key: copy the installation's secret.key into this process's DATA_DIR, or point SECRET_KEY_FILE at it.",
      );
    } finally {
      for (const server of servers) await server.kill();
      await pg.drop();
    }
  }, 120_000);

  test("an unreachable server is named, without its password", () => {
    const r = run({ DATA_DIR: tempDir(), DATABASE_URL: "postgres://smsdesk:hunter2@127.0.0.1:1/smsdesk" });
    expect(r.status).toBe(2);
    expect(r.out).toContain("smsdesk: Cannot reach the PostgreSQL database of DATABASE_URL (127.0.0.1:1/smsdesk): ");
    expect(r.out).not.toContain("hunter2");
  }, 60_000);
});
