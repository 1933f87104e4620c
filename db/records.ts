import type { Database } from "bun:sqlite";
import type { SQL } from "drizzle-orm";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import type * as schema from "./schema";

/**
 * The records' database, one type for both engines (issue 31 item 1): drizzle's asynchronous SQLite database, so
 * every statement is a Promise the record awaits (`await ctx.records.select()...get()`), and a statement left
 * unawaited is a type error where its rows are used (tests/api/promises.test.ts finds the rest).
 *
 * On SQLite it is the data folder's bun:sqlite database itself, typed as asynchronous: its statements still run
 * synchronously underneath (awaiting one costs a microtask, not a trip through drizzle's proxy driver; the send
 * bench's figures are in db/postgres/records-db.ts), so the records' rule stays: `ready(ctx.db)` once, then
 * statements, awaiting nothing but statements, and they all run before the next macrotask, when no transaction of
 * another caller can have begun (db/transaction.ts). On PostgreSQL it is db/postgres/records-db.ts's driver.
 *
 * A raw statement (SQLite's text, `?` parameters) goes through `$rows`/`$run`, which answer rows as objects and a
 * write's `{ changes }` on both engines, never through bun:sqlite's `$client`.
 */
export type RecordsDb = BaseSQLiteDatabase<"async", { changes: number }, typeof schema> & RawStatements;

export type RawStatements = {
  readonly $engine: "sqlite" | "postgres";
  /** A raw statement's rows, as objects keyed by column name: SQLite's text with `?` parameters, or drizzle's `sql`. */
  $rows<T = Record<string, unknown>>(query: string | SQL, params?: unknown[]): Promise<T[]>;
  /** A raw write: how many rows it changed. */
  $run(query: string | SQL, params?: unknown[]): Promise<{ changes: number }>;
};

type Dialect = { sqlToQuery(sql: SQL): { sql: string; params: unknown[] } };

/** A statement's text and parameters, from drizzle's `sql` template or given as they are. */
export function statementOf(dialect: Dialect, query: string | SQL, params: unknown[] = []): { text: string; params: unknown[] } {
  if (typeof query === "string") return { text: query, params };
  const built = dialect.sqlToQuery(query);
  return { text: built.sql, params: built.params };
}

const attached = new WeakSet<object>();

/**
 * The data folder's database as the records' (the same object, with `$rows`/`$run`): what `ctx.records` answers on
 * SQLite. Statements run synchronously on the connection; `query()` keeps each raw text's compiled statement.
 */
export function sqliteRecords(db: Db): RecordsDb {
  if (!attached.has(db)) {
    const client: Database = db.$client;
    const dialect = (db as unknown as { dialect: Dialect }).dialect;
    Object.assign(db, {
      $engine: "sqlite",
      $rows: async (query: string | SQL, params?: unknown[]) => {
        const s = statementOf(dialect, query, params);
        return client.query(s.text).all(...(s.params as never[]));
      },
      $run: async (query: string | SQL, params?: unknown[]) => {
        const s = statementOf(dialect, query, params);
        return { changes: client.query(s.text).run(...(s.params as never[])).changes };
      },
    });
    attached.add(db);
  }
  return db as unknown as RecordsDb;
}
