import { Database } from "bun:sqlite";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { openDatabase, type Db } from "../../db/client";
import { migrationJournal } from "../../db/migrations/embedded";
import type { AppContext } from "../context";
import { conflict, HttpError, notFound } from "../http/errors";
import { deriveKey, loadOrCreateSecretKey } from "../secrets/secret-key";
import { VERSION } from "../version";
import { ArchiveError, packArchive, unpackArchive } from "./archive";

/**
 * Verified backups of the database and secret.key, kept as .tar.gz archives in DATA_DIR/backups, each with a
 * sidecar <id>.json (status and manifest) so the list never opens an archive. A copy is taken with VACUUM INTO
 * (a consistent snapshot even while others write; bun:sqlite has no backup API), flushed, checked with
 * integrity_check, counted and hashed; only then is it listed as good.
 */

export type Manifest = {
  format: 1;
  app: string;
  /** The last migration applied to the copied database. */
  schema: string | null;
  createdAt: string;
  reason: string;
  tables: Record<string, number>;
  files: Record<string, { size: number; sha256: string }>;
};

export type BackupInfo = {
  id: string;
  size: number;
  createdAt: number;
  reason: string;
  status: "good" | "failed";
  error: string | null;
  manifest: Manifest | null;
};

const DB_FILE = "smsdesk.db";
const KEY_FILE = "secret.key";
const MANIFEST_FILE = "manifest.json";
export const BACKUP_ID = /^smsdesk-\d{8}-\d{6}-[a-z-]{1,20}-[0-9a-f]{6}$/;

export const backupsDir = (dataDir: string) => join(dataDir, "backups");
const archivePath = (dataDir: string, id: string) => join(backupsDir(dataDir), `${id}.tar.gz`);
const sidecarPath = (dataDir: string, id: string) => join(backupsDir(dataDir), `${id}.json`);

// Only one backup, upload or restore per data folder at a time: a restore must not swap files under a copy.
const busy = new Set<string>();

/** Takes the data folder's backup lock (409 when another backup or restore holds it); returns its release. */
export function takeBackupLock(dataDir: string): () => void {
  if (busy.has(dataDir)) throw conflict("Another backup or restore is running; try again when it has finished");
  busy.add(dataDir);
  return () => busy.delete(dataDir);
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

function ensureDir(dataDir: string) {
  const dir = backupsDir(dataDir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Writes a file durably: a temporary name, fsync, then rename, so a crash never leaves half a file under the name. */
export function writeDurably(path: string, data: Uint8Array | string) {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

function fsyncFile(path: string) {
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function stamp(ms: number) {
  return new Date(ms).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
}

/** integrity_check, per-table row counts and the last migration of a database file, opened read-only. */
function inspectDatabase(path: string): { tables: Record<string, number>; schema: string | null } {
  const copy = new Database(path, { readonly: true });
  try {
    const check = copy.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    if (check.length !== 1 || check[0]!.integrity_check !== "ok")
      throw new ArchiveError(`The database copy failed its integrity check: ${check.map((r) => r.integrity_check).slice(0, 3).join("; ")}`);
    const names = copy.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    const tables: Record<string, number> = {};
    for (const { name } of names) tables[name] = (copy.query(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`).get() as { n: number }).n;
    let schema: string | null = null;
    if (tables.__drizzle_migrations !== undefined) {
      const last = copy.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | null };
      schema = migrationJournal.entries.find((e) => e.when === Number(last.at))?.tag ?? (last.at === null ? null : `unknown (${last.at})`);
    }
    return { tables, schema };
  } finally {
    copy.close();
  }
}

/**
 * Copies an open database and the key into a new archive (the lock must be held). A failure is recorded as a failed
 * backup and thrown.
 */
export function writeBackup(sqlite: Database, dataDir: string, reason: string, now: number): BackupInfo {
  const dir = ensureDir(dataDir);
  const id = `smsdesk-${stamp(now)}-${reason}-${randomBytes(3).toString("hex")}`;
  const copyPath = join(dir, `.${id}.db`);
  try {
    sqlite.query("VACUUM INTO ?").run(copyPath);
    fsyncFile(copyPath);
    const { tables, schema } = inspectDatabase(copyPath);
    const db = readFileSync(copyPath);
    const key = readFileSync(join(dataDir, KEY_FILE));
    const manifest: Manifest = {
      format: 1,
      app: VERSION,
      schema,
      createdAt: new Date(now).toISOString(),
      reason,
      tables,
      files: { [DB_FILE]: { size: db.length, sha256: sha256(db) }, [KEY_FILE]: { size: key.length, sha256: sha256(key) } },
    };
    const archive = packArchive(
      [
        { name: MANIFEST_FILE, data: Buffer.from(JSON.stringify(manifest, null, 2)) },
        { name: DB_FILE, data: db },
        { name: KEY_FILE, data: key },
      ],
      now,
    );
    writeDurably(archivePath(dataDir, id), archive);
    return recordBackup(dataDir, { id, size: archive.length, createdAt: now, reason, status: "good", error: null, manifest });
  } catch (err) {
    rmSync(archivePath(dataDir, id), { force: true });
    recordBackup(dataDir, { id, size: 0, createdAt: now, reason, status: "failed", error: (err as Error).message, manifest: null });
    throw err;
  } finally {
    rmSync(copyPath, { force: true });
  }
}

function recordBackup(dataDir: string, info: BackupInfo): BackupInfo {
  writeDurably(sidecarPath(dataDir, info.id), JSON.stringify(info, null, 2));
  return info;
}

/** Backs up the running appliance now. */
export function createBackup(ctx: AppContext, reason = "manual"): BackupInfo {
  const release = takeBackupLock(ctx.config.dataDir);
  try {
    return writeBackup(ctx.db.$client, ctx.config.dataDir, reason, ctx.now());
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(500, `The backup failed: ${(err as Error).message}`);
  } finally {
    release();
  }
}

/** Every recorded backup, newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  const dir = backupsDir(dataDir);
  if (!existsSync(dir)) return [];
  const out: BackupInfo[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json") || !BACKUP_ID.test(name.slice(0, -5))) continue;
    try {
      out.push(JSON.parse(readFileSync(join(dir, name), "utf8")) as BackupInfo);
    } catch {
      // A sidecar being written right now (or damaged by hand) is left out rather than failing the whole list.
    }
  }
  return out.sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
}

export function findBackup(dataDir: string, id: string): BackupInfo {
  if (!BACKUP_ID.test(id) || !existsSync(sidecarPath(dataDir, id))) throw notFound("Backup not found");
  return JSON.parse(readFileSync(sidecarPath(dataDir, id), "utf8")) as BackupInfo;
}

/** The archive file of a good backup, for download. */
export function backupFile(dataDir: string, id: string): string {
  const info = findBackup(dataDir, id);
  if (info.status !== "good" || !existsSync(archivePath(dataDir, id))) throw notFound("This backup has no archive (it failed)");
  return archivePath(dataDir, id);
}

export function deleteBackup(dataDir: string, id: string) {
  findBackup(dataDir, id);
  const release = takeBackupLock(dataDir);
  try {
    rmSync(archivePath(dataDir, id), { force: true });
    rmSync(sidecarPath(dataDir, id), { force: true });
  } finally {
    release();
  }
}

type Verified = { manifest: Manifest; dbPath: string; keyPath: string; stagingDir: string };

/**
 * Checks an archive completely (its manifest, the hashes of both files, integrity_check of the database) and
 * unpacks it into a staging folder inside backups/ (the same file system as the data, so the swap is a rename).
 * Throws ArchiveError with the reason for anything wrong; the caller removes stagingDir.
 */
export function verifyArchive(dataDir: string, bytes: Uint8Array): Verified {
  const files = unpackArchive(bytes);
  const manifestBytes = files.get(MANIFEST_FILE);
  if (!manifestBytes) throw new ArchiveError("The archive has no manifest.json: not an smsdesk backup");
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString("utf8")) as Manifest;
  } catch {
    throw new ArchiveError("The archive's manifest.json is not valid JSON");
  }
  if (manifest?.format !== 1 || typeof manifest.files !== "object" || manifest.files === null)
    throw new ArchiveError("The archive's manifest is not an smsdesk backup manifest");
  for (const name of [DB_FILE, KEY_FILE]) {
    const data = files.get(name);
    const expected = manifest.files[name];
    if (!data || !expected) throw new ArchiveError(`The archive has no ${name}`);
    if (data.length !== expected.size || sha256(data) !== expected.sha256) throw new ArchiveError(`${name} does not match the manifest's SHA-256: the archive was changed or damaged`);
  }
  const stagingDir = join(ensureDir(dataDir), `.staging-${randomBytes(6).toString("hex")}`);
  mkdirSync(stagingDir, { mode: 0o700 });
  const dbPath = join(stagingDir, DB_FILE);
  const keyPath = join(stagingDir, KEY_FILE);
  try {
    writeDurably(dbPath, files.get(DB_FILE)!);
    writeDurably(keyPath, files.get(KEY_FILE)!);
    inspectDatabase(dbPath);
  } catch (err) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw err;
  }
  return { manifest, dbPath, keyPath, stagingDir };
}

/** Stores an archive from outside (an upload, a file given to the CLI) as a backup, after verifying it completely. */
export function importArchive(dataDir: string, bytes: Uint8Array, now: number): BackupInfo {
  const release = takeBackupLock(dataDir);
  try {
    const { manifest, stagingDir } = verifyArchive(dataDir, bytes);
    rmSync(stagingDir, { recursive: true, force: true });
    const id = `smsdesk-${stamp(now)}-uploaded-${randomBytes(3).toString("hex")}`;
    writeDurably(archivePath(dataDir, id), bytes);
    return recordBackup(dataDir, { id, size: bytes.length, createdAt: now, reason: "uploaded", status: "good", error: null, manifest });
  } finally {
    release();
  }
}

export type RestoreOptions = {
  /** Stops the writers before the swap, and starts them again after it (or after the rollback). */
  pause?: () => Promise<void>;
  resume?: () => void;
  /** Tests inject a failure here: after the files are swapped, before the restored database is opened. */
  afterSwap?: () => void;
};

/**
 * Restores a backup into the running appliance: verify, back up the current state, stop the writers, swap the
 * files, reopen the database on the context (every domain reads ctx.db at call time) and re-derive the keys. The
 * swap itself is synchronous, so no request runs between the close and the reopen. Anything failing after the
 * current files were moved aside puts them back and reopens them.
 */
export async function restoreBackup(ctx: AppContext, id: string, options: RestoreOptions = {}): Promise<{ restored: BackupInfo; safety: BackupInfo }> {
  const dataDir = ctx.config.dataDir;
  const restored = findBackup(dataDir, id);
  if (restored.status !== "good") throw new HttpError(400, "A failed backup cannot be restored");
  const release = takeBackupLock(dataDir);
  let staged: Verified | null = null;
  try {
    try {
      staged = verifyArchive(dataDir, readFileSync(archivePath(dataDir, id)));
    } catch (err) {
      if (err instanceof ArchiveError) throw new HttpError(400, `The backup cannot be restored: ${err.message}`);
      throw err;
    }
    const safety = writeBackup(ctx.db.$client, dataDir, "before-restore", ctx.now());
    const pause = options.pause ?? (() => ctx.sending.stop());
    const resume = options.resume ?? (() => ctx.sending.start());
    await pause();
    try {
      swapFiles(ctx, staged, options.afterSwap);
    } finally {
      resume();
    }
    ctx.log(`backups: restored ${id} (the state before it is backup ${safety.id})`);
    return { restored, safety };
  } finally {
    if (staged) rmSync(staged.stagingDir, { recursive: true, force: true });
    release();
  }
}

function swapFiles(ctx: AppContext, staged: Verified, afterSwap?: () => void) {
  const dataDir = ctx.config.dataDir;
  const dbPath = join(dataDir, DB_FILE);
  const keyPath = join(dataDir, KEY_FILE);
  const aside = join(staged.stagingDir, "previous");
  mkdirSync(aside, { mode: 0o700 });
  // Closing the last connection checkpoints the WAL into the database file; any -wal or -shm left moves with it,
  // so the restored database never opens with the old one's log.
  ctx.db.$client.close();
  const moved: [string, string][] = [];
  for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, KEY_FILE]) {
    const from = join(dataDir, name);
    if (existsSync(from)) {
      renameSync(from, join(aside, name));
      moved.push([from, join(aside, name)]);
    }
  }
  let opened: Db | null = null;
  try {
    renameSync(staged.dbPath, dbPath);
    renameSync(staged.keyPath, keyPath);
    chmodSync(dbPath, 0o600);
    chmodSync(keyPath, 0o600);
    afterSwap?.();
    // Opening applies the migrations a backup from an older version lacks.
    opened = openDatabase(dbPath);
    setDatabase(ctx, opened, loadOrCreateSecretKey(dataDir));
  } catch (err) {
    try {
      opened?.$client.close();
    } catch {
      // already closed
    }
    for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, KEY_FILE]) rmSync(join(dataDir, name), { force: true });
    for (const [original, movedTo] of moved) renameSync(movedTo, original);
    setDatabase(ctx, openDatabase(dbPath), loadOrCreateSecretKey(dataDir));
    ctx.log(`backups: the restore failed and the previous data is back: ${(err as Error).message}`);
    throw new HttpError(500, `The restore failed and the previous data was put back: ${(err as Error).message}`);
  }
}

const replacedHooks = new WeakMap<AppContext, (() => void)[]>();

/**
 * Services that prepared statements on the connection once (the sending engine's outbox store) register here to
 * rebuild them when a restore replaces ctx.db.
 */
export function onDatabaseReplaced(ctx: AppContext, hook: () => void) {
  replacedHooks.set(ctx, [...(replacedHooks.get(ctx) ?? []), hook]);
}

function setDatabase(ctx: AppContext, db: Db, master: Buffer) {
  ctx.db = db;
  // In place: code holding ctx.keys sees the restored key's derivations.
  Object.assign(ctx.keys, {
    sessions: deriveKey(master, "sessions"),
    codes: deriveKey(master, "codes"),
    secrets: deriveKey(master, "secrets"),
    webhooks: deriveKey(master, "webhooks"),
  });
  for (const hook of replacedHooks.get(ctx) ?? []) hook();
}
