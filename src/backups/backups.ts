import type { Database } from "bun:sqlite";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/client";
import type { AppContext } from "../context";
import {
  closeWhenIdle,
  copyDatabase,
  integrityProblems,
  lastMigration,
  openDatabaseFile,
  readCopy,
  tableCounts,
} from "../database-file/database-file";
import { badRequest, conflict, HttpError, notFound } from "../http/errors";
import { beginMaintenance, type Maintenance } from "../http/maintenance";
import { revokeApiKeysExcept, unrevokedApiKeyIds } from "../api-keys/keys";
import { endSessionsExcept, unrevokedSessionIds } from "../auth/sessions";
import { pauseJobRunner, resumeJobRunner } from "../jobs/jobs";
import { deriveKey, loadOrCreateSecretKey } from "../secrets/secret-key";
import { VERSION } from "../version";
import { ArchiveError, extractArchive, writeArchive } from "./archive";
import { inspectArchiveDatabase } from "./inspect";
import { checkMedia, MAX_MEDIA_LIST_BYTES, MEDIA_LIST, mediaDirOf, mediaToArchive, parseMediaList, stageMedia, type MediaList } from "./media-files";

/**
 * Verified backups of the database and secret.key, kept as .tar.gz archives in DATA_DIR/backups, each with a
 * sidecar <id>.json (status and manifest) so the list never opens an archive. A copy is taken with VACUUM INTO
 * (a consistent snapshot even while others write; bun:sqlite has no backup API), flushed, checked with
 * integrity_check, counted and hashed; only then is it listed as good.
 */

export type Manifest = {
  /**
   * 2: the manifest is the archive's first entry, so a reader knows each file's size before it writes a byte of it.
   * 1 (older versions): the manifest is the last entry.
   */
  format: 1 | 2;
  app: string;
  /** The last migration applied to the copied database. */
  schema: string | null;
  createdAt: string;
  reason: string;
  tables: Record<string, number>;
  files: Record<string, { size: number; sha256: string }>;
  /** The pictures and files of MMS it holds (listed in its media.json); absent in backups made before they were kept. */
  media?: { count: number; bytes: number };
};

/** The last restore drill of a backup: restored into a temporary folder and checked (drillBackup). */
export type Drill = { at: number; ok: boolean; error: string | null };

export type BackupInfo = {
  id: string;
  size: number;
  createdAt: number;
  reason: string;
  status: "good" | "failed";
  error: string | null;
  manifest: Manifest | null;
  drill?: Drill;
  /** The copy to the S3-compatible destination (remote.ts), and the older objects its retention deleted. */
  remote?: { at: number; ok: boolean; key: string; error: string | null; deleted: string[] };
};

const DB_FILE = "smsdesk.db";
const KEY_FILE = "secret.key";
const MANIFEST_FILE = "manifest.json";
export const BACKUP_ID = /^smsdesk-\d{8}-\d{6}-[a-z-]{1,20}-[0-9a-f]{6}$/;

export const backupsDir = (dataDir: string) => join(dataDir, "backups");
const archivePath = (dataDir: string, id: string) => join(backupsDir(dataDir), `${id}.tar.gz`);
const sidecarPath = (dataDir: string, id: string) => join(backupsDir(dataDir), `${id}.json`);

// Only one backup, upload, drill or restore per data folder at a time: a restore must not swap files under a
// copy. The value settles when the holder releases it.
const busy = new Map<string, Promise<void>>();

/** Takes the data folder's backup lock (409 when another backup or restore holds it); returns its release. */
export function takeBackupLock(dataDir: string): () => void {
  if (busy.has(dataDir)) throw conflict("Another backup or restore is running; try again when it has finished");
  let settle!: () => void;
  busy.set(dataDir, new Promise<void>((resolve) => (settle = resolve)));
  return () => {
    busy.delete(dataDir);
    settle();
  };
}

/** The lock for background work (a scheduled backup, a drill): waits for the holder instead of failing. */
export async function waitForBackupLock(dataDir: string): Promise<() => void> {
  while (busy.has(dataDir)) await busy.get(dataDir);
  return takeBackupLock(dataDir);
}


/** A staging folder no running operation can still own: one older than this is left by a crash or a killed process. */
const STALE_STAGING_MS = 60 * 60 * 1000;

/**
 * Removes a staging folder and checks that it is gone. A worker thread still closing its SQLite connection can
 * leave a file behind for a moment, so the removal is tried again, briefly, before giving up with a log line.
 */
async function removeStaging(dir: string, log: (line: string) => void = console.error) {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // retried below
    }
    if (!existsSync(dir)) return;
    await Bun.sleep(20 * (attempt + 1));
  }
  log(`backups: the staging folder ${dir} could not be removed; it is removed at the next start`);
}

/**
 * Removes the staging folders a crash, a SIGKILL or a failed cleanup left in backups/ (each holds a whole database
 * copy). Only those older than STALE_STAGING_MS: a command-line import may be verifying its own right now.
 */
export function sweepStaleStaging(dataDir: string, now = Date.now()): string[] {
  const dir = backupsDir(dataDir);
  if (!existsSync(dir)) return [];
  const swept: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(".staging-")) continue;
    const path = join(dir, name);
    if (now - statSync(path).mtimeMs < STALE_STAGING_MS) continue;
    rmSync(path, { recursive: true, force: true });
    swept.push(name);
  }
  return swept;
}

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

/** A file's size and SHA-256, read piece by piece. */
function fileDigest(path: string): { size: number; sha256: string } {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  const piece = Buffer.allocUnsafe(8 * 1024 * 1024);
  let size = 0;
  try {
    for (let n; (n = readSync(fd, piece, 0, piece.length, size)) > 0; size += n) hash.update(piece.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return { size, sha256: hash.digest("hex") };
}

/**
 * integrity_check, per-table row counts and the last migration of the appliance's own database copy, opened
 * read-only. An archive's database from outside is inspected by inspect.ts instead, off the event loop.
 */
async function inspectDatabase(path: string): Promise<{ tables: Record<string, number>; schema: string | null }> {
  return readCopy(path, async (copy) => {
    const problems = await integrityProblems(copy);
    if (problems !== null) throw new ArchiveError(`The database copy failed its integrity check: ${problems}`);
    const tables = await tableCounts(copy);
    const last = await lastMigration(copy);
    const schema = last === null ? null : (last.entry?.tag ?? (last.at === null ? null : `unknown (${last.at})`));
    return { tables, schema };
  });
}

/**
 * Copies an open database and the key into a new archive (the lock must be held). A failure is recorded as a failed
 * backup and thrown. The key is the data folder's secret.key, or SECRET_KEY_FILE's (`keyFile`) where one is set.
 * The copy is taken on the connection itself once no other caller's transaction is open on it (`copyDatabase` waits
 * for one to end); the start's backup before migrations runs before any is.
 */
export async function writeBackup(sqlite: Database, dataDir: string, reason: string, now: number, keyFile: string | null = null): Promise<BackupInfo> {
  const dir = ensureDir(dataDir);
  const id = `smsdesk-${stamp(now)}-${reason}-${randomBytes(3).toString("hex")}`;
  const copyPath = join(dir, `.${id}.db`);
  try {
    await copyDatabase(sqlite, copyPath);
    fsyncFile(copyPath);
    const { tables, schema } = await inspectDatabase(copyPath);
    const sources = { [DB_FILE]: copyPath, [KEY_FILE]: keyFile ?? join(dataDir, KEY_FILE) };
    const files = Object.fromEntries(Object.entries(sources).map(([name, file]) => [name, fileDigest(file)]));
    // The pictures and files of MMS, after their list (media.json), whose own size and hash the manifest holds.
    const media = mediaToArchive(dataDir);
    const mediaList = Buffer.from(JSON.stringify(media.list));
    files[MEDIA_LIST] = { size: mediaList.length, sha256: createHash("sha256").update(mediaList).digest("hex") };
    const sizes = Object.values(media.list).map(([size]) => size);
    const manifest: Manifest = {
      format: 2,
      app: VERSION,
      schema,
      createdAt: new Date(now).toISOString(),
      reason,
      tables,
      files,
      media: { count: sizes.length, bytes: sizes.reduce((a, b) => a + b, 0) },
    };
    const tmp = `${archivePath(dataDir, id)}.tmp`;
    const written = writeArchive(
      tmp,
      [
        { name: MANIFEST_FILE, data: Buffer.from(JSON.stringify(manifest, null, 2)) },
        ...Object.entries(sources).map(([name, file]) => ({ name, file })),
        { name: MEDIA_LIST, data: mediaList },
        ...media.entries,
      ],
      now,
    );
    for (const name of Object.keys(sources))
      if (written[name]!.sha256 !== files[name]!.sha256) throw new Error(`${name} changed while it was archived`);
    for (const [name, [, sha256]] of Object.entries(media.list)) if (written[name]!.sha256 !== sha256) throw new Error(`${name} changed while it was archived`);
    fsyncFile(tmp);
    renameSync(tmp, archivePath(dataDir, id));
    return recordBackup(dataDir, { id, size: statSync(archivePath(dataDir, id)).size, createdAt: now, reason, status: "good", error: null, manifest });
  } catch (err) {
    rmSync(archivePath(dataDir, id), { force: true });
    rmSync(`${archivePath(dataDir, id)}.tmp`, { force: true });
    recordBackup(dataDir, { id, size: 0, createdAt: now, reason, status: "failed", error: (err as Error).message, manifest: null });
    throw err;
  } finally {
    rmSync(copyPath, { force: true });
  }
}

export function recordBackup(dataDir: string, info: BackupInfo): BackupInfo {
  writeDurably(sidecarPath(dataDir, info.id), JSON.stringify(info, null, 2));
  return info;
}

/**
 * Backs up the running database (the lock must be held) once no other caller's transaction is open on the
 * connection: one awaiting inside (a request's records between their awaits) is waited for, so the copy holds what
 * it committed, never what it may still roll back, and VACUUM INTO does not fail inside it.
 */
export async function backUp(ctx: AppContext, reason: string): Promise<BackupInfo> {
  return await writeBackup(ctx.db.$client, ctx.config.dataDir, reason, ctx.now(), ctx.config.secretKeyFile);
}

/** Backs up the running appliance now. */
export async function createBackup(ctx: AppContext, reason = "manual"): Promise<BackupInfo> {
  const release = takeBackupLock(ctx.config.dataDir);
  try {
    return await backUp(ctx, reason);
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

/** Free space a restore or upload leaves on the data's disk (the running appliance goes on writing meanwhile). */
const DISK_RESERVE = 256 * 1024 * 1024;
/**
 * How much larger than its archive a database may be. A database copy gzips to a third or a tenth of its size;
 * gzip of zeros to a thousandth (a 1 MB upload unpacked to 1 GB). Below DB_ALWAYS_ALLOWED any size is taken: a
 * nearly empty database is mostly zero-filled pages.
 */
const MAX_EXPANSION = 50;
const DB_ALWAYS_ALLOWED = 64 * 1024 * 1024;

/** `mediaDir`: the unpacked media folder; null for a backup made before media were kept (the current media stay). */
type Verified = { manifest: Manifest; dbPath: string; keyPath: string; stagingDir: string; mediaDir: string | null };

/**
 * Checks an archive on disk completely (its manifest, the hashes of both files, integrity_check of the database,
 * its row counts against the manifest's) while unpacking it as a stream into a staging folder inside backups/
 * (the same file system as the data, so the swap is a rename). Throws ArchiveError with the reason for anything
 * wrong (the staging folder is then gone); otherwise the caller removes stagingDir.
 */
export async function verifyArchive(dataDir: string, path: string, opts: { open?: boolean } = {}): Promise<Verified> {
  const stagingDir = join(ensureDir(dataDir), `.staging-${randomBytes(6).toString("hex")}`);
  mkdirSync(stagingDir, { mode: 0o700 });
  const dbPath = join(stagingDir, DB_FILE);
  const keyPath = join(stagingDir, KEY_FILE);
  try {
    // The database may take the disk's free space but for a reserve (the running data goes on writing); a key is 45 bytes.
    const disk = statfsSync(stagingDir);
    const roomForDb = Math.max(0, disk.bavail * disk.bsize - DISK_RESERVE);
    const toFile = {
      [DB_FILE]: { path: dbPath, maxBytes: Math.min(roomForDb, Math.max(DB_ALWAYS_ALLOWED, statSync(path).size * MAX_EXPANSION)) },
      [KEY_FILE]: { path: keyPath, maxBytes: 1024 },
    };
    const toMemory: Record<string, number> = { [MANIFEST_FILE]: 1024 * 1024, [MEDIA_LIST]: MAX_MEDIA_LIST_BYTES };
    const media: { list: MediaList | null; dir: string | null } = { list: null, dir: null };
    const files = await extractArchive(path, {
      toFile,
      toMemory,
      // A manifest read first declares each file's size: no entry may be larger, checked from its header. Then
      // media.json, so bounded, declares each media file's size the same way.
      kept: (name, data) => {
        if (name === MEDIA_LIST) {
          media.list = parseMediaList(data);
          media.dir = stageMedia(media.list, stagingDir, roomForDb - toFile[DB_FILE].maxBytes, toFile);
          return;
        }
        if (name !== MANIFEST_FILE) return;
        const declared = (parseManifest(data).files ?? {}) as Partial<Manifest["files"]>;
        for (const [file, bound] of Object.entries(toFile)) {
          const size = declared[file]?.size;
          bound.maxBytes = typeof size === "number" && size >= 0 ? Math.min(bound.maxBytes, size) : 0;
        }
        const listed = declared[MEDIA_LIST]?.size;
        toMemory[MEDIA_LIST] = typeof listed === "number" && listed >= 0 ? Math.min(MAX_MEDIA_LIST_BYTES, listed) : 0;
      },
    });
    const manifestBytes = files.get(MANIFEST_FILE)?.data;
    if (!manifestBytes) throw new ArchiveError("The archive has no manifest.json: not an smsdesk backup");
    const manifest = parseManifest(manifestBytes);
    for (const name of [DB_FILE, KEY_FILE]) {
      const found = files.get(name);
      const expected = manifest.files[name];
      if (!found || !expected) throw new ArchiveError(`The archive has no ${name}`);
      if (found.size !== expected.size || found.sha256 !== expected.sha256)
        throw new ArchiveError(`${name} does not match the manifest's SHA-256: the archive was changed or damaged`);
    }
    if (manifest.files[MEDIA_LIST]) {
      const found = files.get(MEDIA_LIST);
      const expected = manifest.files[MEDIA_LIST];
      if (!found || !media.list) throw new ArchiveError(`The archive has no ${MEDIA_LIST}`);
      if (found.size !== expected.size || found.sha256 !== expected.sha256)
        throw new ArchiveError(`${MEDIA_LIST} does not match the manifest's SHA-256: the archive was changed or damaged`);
      checkMedia(media.list, files);
    } else if (media.list) throw new ArchiveError(`The archive holds a ${MEDIA_LIST} its manifest does not list`);
    const { tables } = await inspectArchiveDatabase(dbPath, { open: opts.open ?? false });
    const differ = Object.keys({ ...tables, ...manifest.tables }).filter((name) => tables[name] !== manifest.tables?.[name]);
    if (differ.length) throw new ArchiveError(`The database's row counts differ from the manifest's (${differ.slice(0, 3).join(", ")})`);
    return { manifest, dbPath, keyPath, stagingDir, mediaDir: media.dir };
  } catch (err) {
    await removeStaging(stagingDir);
    throw err;
  }
}

function parseManifest(bytes: Uint8Array): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(bytes).toString("utf8")) as Manifest;
  } catch {
    throw new ArchiveError("The archive's manifest.json is not valid JSON");
  }
  if (
    (manifest?.format !== 1 && manifest?.format !== 2) ||
    typeof manifest.files !== "object" ||
    manifest.files === null ||
    typeof manifest.tables !== "object" ||
    manifest.tables === null
  )
    throw new ArchiveError("The archive's manifest is not an smsdesk backup manifest");
  return manifest;
}

/**
 * Writes an upload's body to a file in backups/ as it arrives, refusing it (413) as soon as it passes `limit`
 * bytes: an archive the size of the database is never held in memory. Answers the file's path; the caller
 * passes it to importArchive, which keeps or removes it.
 */
export async function receiveUpload(dataDir: string, body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const path = join(ensureDir(dataDir), `.upload-${randomBytes(6).toString("hex")}.tar.gz`);
  const fd = openSync(path, "wx", 0o600);
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) throw new HttpError(413, "Request body too large");
      writeSync(fd, chunk);
    }
    if (size === 0) throw badRequest("Please choose a backup file (.tar.gz)");
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
  return path;
}

/**
 * Stores an archive from outside (an upload received into backups/, or a file given to the CLI) as a backup,
 * after verifying it completely. An upload's file is moved into place (or removed when refused); another file is
 * copied.
 */
export async function importArchive(dataDir: string, path: string, now: number, opts: { move: boolean }): Promise<BackupInfo> {
  const release = takeBackupLock(dataDir);
  try {
    const { manifest, stagingDir } = await verifyArchive(dataDir, path);
    await removeStaging(stagingDir);
    const id = `smsdesk-${stamp(now)}-uploaded-${randomBytes(3).toString("hex")}`;
    if (opts.move) renameSync(path, archivePath(dataDir, id));
    else {
      copyFileSync(path, archivePath(dataDir, id));
      fsyncFile(archivePath(dataDir, id));
    }
    return recordBackup(dataDir, { id, size: statSync(archivePath(dataDir, id)).size, createdAt: now, reason: "uploaded", status: "good", error: null, manifest });
  } finally {
    if (opts.move) rmSync(path, { force: true });
    release();
  }
}

/**
 * A restore drill: the backup is unpacked into a temporary folder as a restore would (hashes, integrity_check, row
 * counts against the manifest), its key read, and the database opened the way the appliance opens it (applying
 * the migrations an older backup lacks), then thrown away. The outcome is kept with the backup; a failure is
 * recorded, not thrown.
 */
export async function drillBackup(dataDir: string, id: string, now: number, opts: { wait: boolean }): Promise<BackupInfo> {
  const info = findBackup(dataDir, id);
  if (info.status !== "good") throw badRequest("A failed backup cannot be drilled");
  const release = opts.wait ? await waitForBackupLock(dataDir) : takeBackupLock(dataDir);
  let drill: Drill;
  try {
    // The database is opened as the appliance opens it, in the inspection's worker thread.
    const staged = await verifyArchive(dataDir, archivePath(dataDir, id), { open: true }).catch((err: Error) => err);
    if (staged instanceof Error) drill = { at: now, ok: false, error: staged.message };
    else {
      try {
        loadOrCreateSecretKey(staged.stagingDir);
        drill = { at: now, ok: true, error: null };
      } catch (err) {
        drill = { at: now, ok: false, error: (err as Error).message };
      } finally {
        await removeStaging(staged.stagingDir);
      }
    }
    return recordBackup(dataDir, { ...findBackup(dataDir, id), drill });
  } finally {
    release();
  }
}

/** The newest backup that is good and passed its restore drill: what a disaster would be recovered from. */
export function lastDrilledBackup(dataDir: string): BackupInfo | null {
  return listBackups(dataDir).find((b) => b.status === "good" && b.drill?.ok) ?? null;
}

/** Something that writes to the database on its own (an import): stopped before a restore swaps the files. */
export type Writer = { pause(): Promise<void>; resume(): void };
const writers = new WeakMap<AppContext, Writer[]>();

/** Registers a background writer that a restore stops first and starts again after the swap (or the rollback). */
export function registerWriter(ctx: AppContext, writer: Writer) {
  writers.set(ctx, [...(writers.get(ctx) ?? []), writer]);
}

/** How long a restore waits for the jobs in flight (a webhook call times out well before). */
export const JOBS_DRAIN_MS = 30_000;
/** How long a restore waits for the write requests in flight when it starts. */
export const WRITES_DRAIN_MS = 30_000;

export type RestoreOptions = {
  /** How long to wait for the jobs in flight before giving up (JOBS_DRAIN_MS). */
  jobsDrainMs?: number;
  /** Stops the writers before the swap, and starts them again after it (or after the rollback). */
  pause?: () => Promise<void>;
  resume?: () => void;
  /** Tests start work here that the pause must stop: before writes are refused and the writers stop. */
  beforePause?: () => Promise<void>;
  /** How long to wait for the write requests that started before the restore (WRITES_DRAIN_MS). */
  writesDrainMs?: number;
  /** Tests inject a failure here: after the files are swapped, before the restored database is opened. */
  afterSwap?: () => void;
};

/**
 * Restores a backup into the running appliance: refuse writes (src/http/maintenance.ts: what they changed would
 * be discarded by the swap), verify, wait for the write requests already running, stop the writers (the engine,
 * the jobs runner once its jobs in flight have ended, and every registered writer), back up the current state,
 * swap the files, reopen the database on the context (every domain reads ctx.db at call time), re-derive the
 * keys, and start the writers again; then writes are let in. The swap itself is synchronous, so no request runs
 * between the close and the reopen. Anything failing after the current files were moved aside puts them back and
 * reopens them.
 */
export async function restoreBackup(ctx: AppContext, id: string, options: RestoreOptions = {}): Promise<{ restored: BackupInfo; safety: BackupInfo }> {
  const dataDir = ctx.config.dataDir;
  const restored = findBackup(dataDir, id);
  if (restored.status !== "good") throw new HttpError(400, "A failed backup cannot be restored");
  const release = takeBackupLock(dataDir);
  let staged: Verified | null = null;
  let maintenance: Maintenance | null = null;
  try {
    await options.beforePause?.();
    maintenance = beginMaintenance(ctx);
    try {
      staged = await verifyArchive(dataDir, archivePath(dataDir, id));
    } catch (err) {
      if (err instanceof ArchiveError) throw new HttpError(400, `The backup cannot be restored: ${err.message}`);
      throw err;
    }
    // With SECRET_KEY_FILE the next start reads that file, not the restored secret.key: a backup of another key
    // would come back with credentials and 2FA secrets nothing could open.
    const keyFile = ctx.config.secretKeyFile;
    if (keyFile && !loadOrCreateSecretKey(dataDir, keyFile).equals(loadOrCreateSecretKey(staged.stagingDir)))
      throw conflict(`This backup holds another secret key than SECRET_KEY_FILE (${keyFile}): put the backup's secret.key in that file, then restore`);
    const writesDrainMs = options.writesDrainMs ?? WRITES_DRAIN_MS;
    if (!(await maintenance.writesEnded(writesDrainMs)))
      throw conflict(`Requests that change data did not finish within ${writesDrainMs / 1000} seconds; nothing was restored, try again`);
    const registered = writers.get(ctx) ?? [];
    const pause =
      options.pause ??
      (async () => {
        await ctx.sending.stop();
        // A job finishing after the swap would record its outcome (a delivery, a drip step) into the restored data.
        if (!(await pauseJobRunner(ctx, options.jobsDrainMs ?? JOBS_DRAIN_MS))) {
          throw conflict(`Background jobs did not finish within ${(options.jobsDrainMs ?? JOBS_DRAIN_MS) / 1000} seconds; nothing was restored, try again`);
        }
        for (const writer of registered) await writer.pause();
      });
    const resume =
      options.resume ??
      (() => {
        for (const writer of registered) writer.resume();
        resumeJobRunner(ctx);
        void ctx.sending.start().catch((err) => ctx.log(`sending: could not start again after the restore: ${(err as Error)?.stack ?? err}`));
      });
    let safety: BackupInfo;
    try {
      await pause();
      // Taken with the writers stopped, once a transaction still open (a request's reads between their awaits) has
      // ended: the state a rollback would return to.
      safety = await backUp(ctx, "before-restore");
      await swapFiles(ctx, staged, options.afterSwap);
    } finally {
      resume();
    }
    ctx.log(`backups: restored ${id} (the state before it is backup ${safety.id})`);
    return { restored, safety };
  } finally {
    maintenance?.end();
    if (staged) await removeStaging(staged.stagingDir, ctx.log);
    release();
  }
}

async function swapFiles(ctx: AppContext, staged: Verified, afterSwap?: () => void) {
  const dataDir = ctx.config.dataDir;
  const dbPath = join(dataDir, DB_FILE);
  const keyPath = join(dataDir, KEY_FILE);
  const aside = join(staged.stagingDir, "previous");
  mkdirSync(aside, { mode: 0o700 });
  // What may be signed in now: nothing revoked since the backup comes back with it (a stolen session, a leaked key).
  // Read last before the connection closes, with nothing awaited after: no transaction is open when it does. One
  // begun by another caller after the reads (a request's, in the turns they awaited) is waited for and the reads
  // are taken again: closed under it, its statements after the swap would run on the restored database.
  // Closing the last connection checkpoints the WAL into the database file; any -wal or -shm left moves with it,
  // so the restored database never opens with the old one's log.
  await closeWhenIdle(
    ctx.db,
    async () => ({ sessions: await unrevokedSessionIds(ctx), keys: await unrevokedApiKeyIds(ctx) }),
    // In the turn of the close: the files are swapped and the database reopened before anything else runs.
    async (alive) => {
      const moved: [string, string][] = [];
      for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, KEY_FILE]) {
        const from = join(dataDir, name);
        if (existsSync(from)) {
          renameSync(from, join(aside, name));
          moved.push([from, join(aside, name)]);
        }
      }
      // The media folder goes with the database it belongs to (a backup made before media were kept leaves it be).
      const mediaPath = mediaDirOf(dataDir);
      if (staged.mediaDir && existsSync(mediaPath)) {
        renameSync(mediaPath, join(aside, "media"));
        moved.push([mediaPath, join(aside, "media")]);
      }
      // Set in openDatabaseFile's callback: closed if anything after the open fails.
      let opened = null as Db | null;
      try {
        renameSync(staged.dbPath, dbPath);
        renameSync(staged.keyPath, keyPath);
        if (staged.mediaDir) renameSync(staged.mediaDir, mediaPath);
        chmodSync(dbPath, 0o600);
        chmodSync(keyPath, 0o600);
        afterSwap?.();
        // Opening applies the migrations a backup from an older version lacks.
        await openDatabaseFile(dbPath, (db) => {
          opened = db;
          return setDatabase(ctx, db, loadOrCreateSecretKey(dataDir, ctx.config.secretKeyFile));
        });
        await endSessionsExcept(ctx, alive.sessions);
        await revokeApiKeysExcept(ctx, alive.keys);
      } catch (err) {
        try {
          opened?.$client.close();
        } catch {
          // already closed
        }
        for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, KEY_FILE]) rmSync(join(dataDir, name), { force: true });
        if (staged.mediaDir) rmSync(mediaPath, { recursive: true, force: true });
        for (const [original, movedTo] of moved) renameSync(movedTo, original);
        await openDatabaseFile(dbPath, (db) => setDatabase(ctx, db, loadOrCreateSecretKey(dataDir, ctx.config.secretKeyFile)));
        ctx.log(`backups: the restore failed and the previous data is back: ${(err as Error).message}`);
        throw new HttpError(500, `The restore failed and the previous data was put back: ${(err as Error).message}`);
      }
    },
  );
}

type ReplacedHook = () => void | Promise<void>;
const replacedHooks = new WeakMap<AppContext, ReplacedHook[]>();

/**
 * Services that prepared statements on the connection once (the sending engine's outbox store) register here to
 * rebuild them when a restore replaces ctx.db, and those that put a restored database in order (webhooks' secrets
 * sealed, imports left running failed). The restore awaits each in turn: a hook's failure fails it.
 */
export function onDatabaseReplaced(ctx: AppContext, hook: ReplacedHook) {
  replacedHooks.set(ctx, [...(replacedHooks.get(ctx) ?? []), hook]);
}

async function setDatabase(ctx: AppContext, db: Db, master: Buffer) {
  ctx.db = db;
  // In place: code holding ctx.keys sees the restored key's derivations.
  Object.assign(ctx.keys, {
    sessions: deriveKey(master, "sessions"),
    codes: deriveKey(master, "codes"),
    secrets: deriveKey(master, "secrets"),
    webhooks: deriveKey(master, "webhooks"),
  });
  for (const hook of replacedHooks.get(ctx) ?? []) await hook();
}
