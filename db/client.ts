import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrationJournal, migrationSql } from "./migrations/embedded";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** Only the service's own user may read the data: the database and its -wal and -shm files are 0600. */
function restrictFiles(path: string) {
  // SQLite creates the -wal and -shm files with the database file's permissions, so it is made 0600 first.
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/**
 * What the write-ahead log file is cut back to when it starts again after a checkpoint. Left to itself SQLite
 * reuses the file at the largest size it ever reached: a million-row import left a 400 MB log on disk until the
 * process stopped. Long runs of writes lift the limit while they last (db/checkpoints.ts): cutting and growing the
 * file at every restart cost an import 2.5 s of kernel time in 40.
 */
const WAL_KEPT_BYTES = 64 * 1024 * 1024;

export type OpenOptions = {
  /** Runs before migrations are applied to a database that already has tables (the appliance backs itself up). */
  beforeMigrations?: (sqlite: Database) => void;
};

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const inMemory = path === ":memory:" || path === "";
  if (!inMemory) restrictFiles(path);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // Statement journals of trigger-firing writes otherwise go to temp files on disk, one write per row.
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec(`PRAGMA journal_size_limit = ${WAL_KEPT_BYTES}`);
  const db = drizzle(sqlite, { schema }) as Db;
  if (options.beforeMigrations && hasPendingMigrations(sqlite)) options.beforeMigrations(sqlite);
  applyMigrations(db);
  return db;
}

/** A database some migrations were applied to, missing newer ones (a fresh one has nothing worth backing up). */
function hasPendingMigrations(sqlite: Database): boolean {
  const table = sqlite.query("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return false;
  const last = sqlite.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | null };
  // drizzle's rule: a migration runs when it is newer than the last one recorded.
  return last.at !== null && migrationJournal.entries.some((e) => e.when > Number(last.at));
}

type MigrationRecord = { sql: string[]; bps: boolean; folderMillis: number; hash: string };

/**
 * Applies the migrations compiled into the program, the way drizzle's file-based migrator would: all of them, or
 * those up to the one made at `upTo` (a journal entry's `when`).
 */
function applyMigrations(db: Db, upTo = Infinity) {
  const records: MigrationRecord[] = migrationJournal.entries.filter((entry) => entry.when <= upTo).map((entry) => {
    const text = migrationSql[entry.tag];
    if (text === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      sql: text.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(text).digest("hex"),
    };
  });
  // drizzle-orm is pinned: dialect.migrate is the call its own migrator makes.
  (db as unknown as { dialect: { migrate: (m: MigrationRecord[], s: unknown, c: object) => void } }).dialect.migrate(
    records,
    (db as unknown as { session: unknown }).session,
    {},
  );
}

/**
 * A new in-memory database migrated to the version whose last migration was made at `when` (a journal entry's
 * `when`): the schema the appliance of that version creates. Restores compare an archive's schema with it.
 */
export function migrateUpTo(when: number): Database {
  const sqlite = new Database(":memory:", { strict: true });
  applyMigrations(drizzle(sqlite, { schema }) as Db, when);
  return sqlite;
}

export function databaseStatus(db: Db): "ok" | "error" {
  try {
    db.$client.query("select 1").get();
    return "ok";
  } catch {
    return "error";
  }
}
