import { Database } from "bun:sqlite";
import { hasPendingMigrations, migrateUpTo, openDatabase, type Db } from "../../db/client";
import { migrationJournal } from "../../db/migrations/embedded";
import { openSqlite } from "../../db/sqlite";
import { ready, statementGate } from "../../db/transaction";

/**
 * The record of the database file itself, not of a table: a copy of it (VACUUM INTO), the checks of a copy
 * (integrity, row counts, last migration, schema objects), and opening a file the way the appliance does (applying
 * its migrations). Backups compose these. Each function takes a path or a raw connection, not the context: the
 * start's backup before migrations runs before the context exists, and a backup's inspection runs in a worker
 * thread no context reaches. The SQLite work runs synchronously underneath, in the turn the function is called.
 */

/** A database file opened read-only for its checks (a backup's copy, an archive's database). */
export type DatabaseCopy = Database;

/** One row of sqlite_master, its SQL with whitespace runs made one space. */
export type SchemaObject = { type: string; name: string; table: string; sql: string | null };

/**
 * Copies the database of `sqlite` into a new file at `path` with VACUUM INTO (a consistent snapshot even while others
 * write; bun:sqlite has no backup API) once no other caller's transaction is open on the connection: one awaiting
 * inside (a request's records between their awaits) is waited for, so the copy holds what it committed, never what
 * it may still roll back, and VACUUM INTO does not fail inside it ("cannot VACUUM from within a transaction"). The
 * copy runs in the same synchronous step as that check (db/transaction.ts `statementGate`): none can begin between.
 */
export async function copyDatabase(sqlite: Database, path: string): Promise<void> {
  const gate = statementGate(sqlite);
  const copy = () => void sqlite.query("VACUUM INTO ?").run(path);
  return gate.free() ? copy() : gate.later(copy);
}

/**
 * Closes the connection of `db` once no other caller's transaction is open on it, having run `readLast` with nothing
 * awaited after it: a transaction begun by another caller during `readLast`'s awaits is waited for and `readLast` is
 * run again (closed under it, its statements after would run on whatever replaces the file). Closing the last
 * connection checkpoints the WAL into the database file. Then `replace` is called with what `readLast` read, in the
 * turn of the close, so nothing runs on the closed connection before it is replaced; answers what it answers.
 */
export async function closeWhenIdle<T, R>(db: Db, readLast: () => Promise<T>, replace: (last: T) => Promise<R>): Promise<R> {
  for (;;) {
    const last = await readLast();
    const open = ready(db);
    if (!open) {
      db.$client.close();
      return await replace(last);
    }
    await open;
  }
}

/**
 * Opens the database file at `path` the way the appliance does (applying the migrations it lacks) and hands the
 * connection to `use` in the same turn: a connection closed for a swap is replaced before anything else runs.
 */
export async function openDatabaseFile(path: string, use: (db: Db) => Promise<void>): Promise<void> {
  await use(openDatabase(path));
}

/**
 * Opens the appliance's database at `path` (on `connection` when one is open already) and applies its migrations;
 * when some are pending on a database that has tables, `beforeMigrations` is awaited first (the appliance backs
 * itself up), and a failure of it leaves the database unmigrated.
 */
export async function openAppDatabase(
  path: string,
  options: { connection?: Database; beforeMigrations: (sqlite: Database) => Promise<void> },
): Promise<Db> {
  const sqlite = options.connection ?? openSqlite(path);
  if (hasPendingMigrations(sqlite)) await options.beforeMigrations(sqlite);
  return openDatabase(path, { connection: sqlite });
}

/** Opens the database file at `path` as the appliance would (applying newer migrations), then closes it: a drill. */
export async function openAndClose(path: string): Promise<void> {
  openDatabase(path).$client.close();
}

/** Opens the file at `path` read-only, runs `read` on it, and closes it. */
export async function readCopy<T>(path: string, read: (copy: DatabaseCopy) => Promise<T>): Promise<T> {
  const copy = new Database(path, { readonly: true });
  try {
    return await read(copy);
  } finally {
    copy.close();
  }
}

/** integrity_check of a copy: null when it passed, else the first three problems it found, joined by "; ". */
export async function integrityProblems(copy: DatabaseCopy): Promise<string | null> {
  const check = copy.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
  if (check.length === 1 && check[0]!.integrity_check === "ok") return null;
  return check
    .map((r) => r.integrity_check)
    .slice(0, 3)
    .join("; ");
}

/** Each table's row count, by name (SQLite's own tables left out). */
export async function tableCounts(copy: DatabaseCopy): Promise<Record<string, number>> {
  const names = copy
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const tables: Record<string, number> = {};
  for (const { name } of names)
    tables[name] = (copy.query(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number }).n;
  return tables;
}

/**
 * The last migration recorded in a copy: null when it has no record of its migrations (no __drizzle_migrations
 * table); `at` is its created_at (null when none is recorded), `entry` this version's journal entry of it (undefined
 * when this version does not know it).
 */
export async function lastMigration(
  copy: DatabaseCopy,
): Promise<{ at: number | string | null; entry: { when: number; tag: string } | undefined } | null> {
  const recorded = copy
    .query("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (!recorded) return null;
  const at = (copy.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | string | null }).at;
  const entry = migrationJournal.entries.find((e) => e.when === Number(at));
  return { at, entry: entry && { when: entry.when, tag: entry.tag } };
}

/** The objects of a database's schema, by type and name. sqlite_stat tables hold ANALYZE's figures, no SQL. */
export async function schemaObjects(copy: DatabaseCopy): Promise<SchemaObject[]> {
  const rows = copy
    .query("SELECT type, name, tbl_name AS tbl, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name")
    .all() as {
    type: string;
    name: string;
    tbl: string;
    sql: string | null;
  }[];
  return rows.map((r) => ({
    type: r.type,
    name: r.name,
    table: r.tbl,
    sql: r.sql === null ? null : r.sql.replace(/\s+/g, " ").trim(),
  }));
}

/** The schema the appliance creates at the version whose last migration was made at `when` (a fresh migration: ~50 ms). */
export async function applianceSchemaAt(when: number): Promise<SchemaObject[]> {
  const made = migrateUpTo(when);
  const objects = await schemaObjects(made);
  made.close();
  return objects;
}
