import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrationJournal, migrationSql } from "./migrations/embedded";
import * as schema from "./schema";
import { openSqlite, sqliteStatus } from "./sqlite";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export type OpenOptions = {
  /** Runs before migrations are applied to a database that already has tables (the appliance backs itself up). */
  beforeMigrations?: (sqlite: Database) => void;
  /** The connection to the database at `path`, opened already by openSqlite (a server opens it before it listens). */
  connection?: Database;
};

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const sqlite = options.connection ?? openSqlite(path);
  const db = drizzle(sqlite, { schema }) as Db;
  if (options.beforeMigrations && hasPendingMigrations(sqlite)) options.beforeMigrations(sqlite);
  applyMigrations(db);
  return db;
}

/** A database some migrations were applied to, missing newer ones (a fresh one has nothing worth backing up). */
export function hasPendingMigrations(sqlite: Database): boolean {
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

/** Whether the database answers a query; on PostgreSQL (`ctx.db` standing for it, src/server.ts), asked over the pool. */
export async function databaseStatus(db: Db): Promise<"ok" | "error"> {
  const postgres = (db as { $postgres?: { rows(text: string): Promise<unknown> } }).$postgres;
  if (postgres) return postgres.rows("SELECT 1").then(() => "ok" as const, () => "error" as const);
  return sqliteStatus(db.$client);
}
