import type { Database } from "bun:sqlite";
import type { SQL } from "drizzle-orm";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { BunSQLiteDatabase, PreparedQuery, SQLiteBunSession } from "drizzle-orm/bun-sqlite";
import type { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import { statementGate, type StatementGate } from "./transaction";
import type * as schema from "./schema";

/**
 * The records' database, one type for both engines (issue 31 item 1): drizzle's asynchronous SQLite database, so
 * every statement is a Promise the record awaits (`await ctx.records.select()...get()`), and a statement left
 * unawaited is a type error where its rows are used (tests/api/promises.test.ts finds the rest).
 *
 * On SQLite it is a drizzle database over the data folder's bun:sqlite connection (the same connection as `ctx.db`)
 * whose every statement checks, at the moment it would run, that no transaction of another caller is open
 * (db/transaction.ts `statementGate`): then it runs at once, synchronously underneath (awaiting it costs a microtask,
 * not a trip through drizzle's proxy driver; the send bench's figures are in db/postgres/records-db.ts); otherwise it
 * waits for its turn. So a record on `ctx.records` may await anything between its statements and none of them joins
 * another caller's transaction. On PostgreSQL it is db/postgres/records-db.ts's driver.
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

/**
 * drizzle's bun:sqlite prepared statement, each execution gated: run at once when the caller may use the connection,
 * otherwise once it may. `all` and `get` call `values` underneath: by then the gate is free, and it answers at once.
 */
class GatedQuery extends PreparedQuery {
  gate!: StatementGate;
  override run(placeholders?: Record<string, unknown>) {
    return this.gate.free() ? super.run(placeholders) : (this.gate.later(() => super.run(placeholders)) as never);
  }
  override all(placeholders?: Record<string, unknown>) {
    return this.gate.free() ? super.all(placeholders) : (this.gate.later(() => super.all(placeholders)) as never);
  }
  override get(placeholders?: Record<string, unknown>) {
    return this.gate.free() ? super.get(placeholders) : (this.gate.later(() => super.get(placeholders)) as never);
  }
  override values(placeholders?: Record<string, unknown>) {
    return this.gate.free() ? super.values(placeholders) : (this.gate.later(() => super.values(placeholders)) as never);
  }
}

type Session = { client: Database; logger: unknown; prepareQuery: (...args: unknown[]) => unknown };

/** drizzle's bun:sqlite session, preparing gated statements (its own `prepareQuery`, with the class above). */
function gatedSession(session: Session, gate: StatementGate) {
  session.prepareQuery = (query, fields, executeMethod, isResponseInArrayMode, customResultMapper) => {
    const { sql } = query as { sql: string };
    const prepared = new (GatedQuery as unknown as new (...args: unknown[]) => GatedQuery)(
      session.client.prepare(sql), query, session.logger, fields, executeMethod, isResponseInArrayMode, customResultMapper,
    );
    prepared.gate = gate;
    return prepared;
  };
}

const gated = new WeakMap<Db, RecordsDb>();

/**
 * The data folder's database as the records' (what `ctx.records` answers on SQLite): a drizzle database of its own
 * over `db`'s connection, its statements gated (above), with `$rows`/`$run` gated the same way; `query()` keeps each
 * raw text's compiled statement.
 */
export function sqliteRecords(db: Db): RecordsDb {
  let records = gated.get(db);
  if (records) return records;
  const client: Database = db.$client;
  const gate = statementGate(client);
  const dialect = (db as unknown as { dialect: SQLiteSyncDialect }).dialect;
  const { schema, fullSchema, tableNamesMap } = db._;
  const relational = schema ? { schema, fullSchema, tableNamesMap } : undefined;
  const session = new SQLiteBunSession(client, dialect, relational as never);
  gatedSession(session as unknown as Session, gate);
  const raw = <T>(statement: () => T): T | Promise<T> => (gate.free() ? statement() : gate.later(statement));
  records = Object.assign(new BunSQLiteDatabase("sync", dialect, session, relational as never), {
    $client: client,
    $engine: "sqlite" as const,
    $rows: async (query: string | SQL, params?: unknown[]) => {
      const s = statementOf(dialect, query, params);
      return raw(() => client.query(s.text).all(...(s.params as never[])));
    },
    $run: async (query: string | SQL, params?: unknown[]) => {
      const s = statementOf(dialect, query, params);
      return raw(() => ({ changes: client.query(s.text).run(...(s.params as never[])).changes }));
    },
  }) as unknown as RecordsDb;
  gated.set(db, records);
  return records;
}
