import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";

/**
 * The database's connection, opened with the appliance's settings, without drizzle, the schema or the migrations
 * (db/client.ts adds them): what a server opens before it listens (src/listen.ts), so that its health check asks the
 * database itself while the rest of the program loads (issue 29 item 6).
 */

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

export function openSqlite(path: string): Database {
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
  return sqlite;
}

/** Whether the connection answers a query. */
export function sqliteStatus(sqlite: Database): "ok" | "error" {
  try {
    sqlite.query("select 1").get();
    return "ok";
  } catch {
    return "error";
  }
}
