import { AsyncLocalStorage } from "node:async_hooks";
import type { ReservedSQL, SQL } from "bun";
import type { SQL as Query } from "drizzle-orm";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import { statementOf, type RecordsDb } from "../records";
import * as schema from "../schema";

/**
 * The records' statements, served by PostgreSQL (issue 31 item 1): one schema (db/schema.ts, drizzle's SQLite
 * tables) and one query text, two engines.
 *
 * A record builds its statements with drizzle's SQLite builders, as on the data folder's database. Here drizzle's
 * `sqlite-proxy` driver hands each built statement to Bun.sql instead of bun:sqlite: the same builders, the same
 * mapping of rows to values (dates, flags, JSON), every call a Promise. What differs between the engines is settled
 * in this one place, on the statement's text and on the values that come back:
 *
 * - `?` parameters become PostgreSQL's `$1, $2, ...` (outside quoted text and names).
 * - SQLite's time default `cast(unixepoch('subsec') * 1000 as integer)` becomes PostgreSQL's clock in milliseconds,
 *   as the schema's defaults are translated (db/postgres/ddl.ts); SQLite's 64-bit `cast(... as integer)` is a
 *   PostgreSQL `bigint`; `ifnull` is `coalesce`; an upsert's conflict target names its columns without their table.
 * - Every SQLite INTEGER is a PostgreSQL bigint (db/postgres/ddl.ts), which Bun.sql answers as a string: it is
 *   read back as a number (times are epoch milliseconds and ids are counters, all far below 2^53).
 * - A write answers `{ changes }`, as bun:sqlite's `run()` does.
 *
 * Transactions are the records' `withTransaction` (ARCHITECTURE.md): the outermost one reserves a connection of the
 * pool and runs BEGIN ... COMMIT on it, and every statement the callback's code runs (known by an AsyncLocalStorage
 * frame carried across its awaits) goes to that connection; anyone else's statements go to other connections, so
 * they neither see nor join its writes, and PostgreSQL's row locks, not turns on one connection, order the writers.
 * A transaction begun inside another is a savepoint of it, taken one at a time per frame.
 *
 * A raw statement (what records run today on bun:sqlite's `$client`) goes through `rows`/`run` below (the records'
 * `$rows`/`$run`, db/records.ts), which answer objects and `{ changes }` as bun:sqlite does; drizzle's own
 * `db.all(sql\`...\`)` would answer PostgreSQL's arrays.
 */

export type PostgresRecords = {
  db: RecordsDb;
  /** Runs `fn` in a transaction (a savepoint when one is open in the caller's frame); rolls back if it throws. */
  withTransaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` once the caller's transaction has committed or rolled back (in a microtask when none is open). */
  afterTransaction(fn: () => void): void;
  /** Whether the caller runs inside a transaction. */
  inTransaction(): boolean;
  /** A raw statement's rows as objects keyed by column name (`?` parameters, SQLite's text, or drizzle's `sql`). */
  rows<T = Record<string, unknown>>(query: string | Query, params?: unknown[]): Promise<T[]>;
  /** A raw write: how many rows it changed. */
  run(query: string | Query, params?: unknown[]): Promise<{ changes: number }>;
  close(): Promise<void>;
};

/** PostgreSQL's type id of bigint (int8), which Bun.sql answers as a string. */
const INT8 = 20;

/** SQLite's clock in milliseconds, as drizzle writes a time column's default into an INSERT. */
const SQLITE_NOW_MS = "cast(unixepoch('subsec') * 1000 as integer)";
const POSTGRES_NOW_MS = "(floor(extract(epoch from clock_timestamp()) * 1000))::bigint";

/**
 * drizzle's SQLite dialect names an upsert's conflict target with its table (`on conflict ("t"."a")`), which SQLite
 * accepts and PostgreSQL's grammar does not (a syntax error): the target's columns are named bare.
 */
const CONFLICT_TARGET = /\bon conflict \([^)]*\)/gi;
const QUALIFIED_NAME = /"(?:[^"]|"")+"\.("(?:[^"]|"")+")/g;

/** Statements translated so far: built statements repeat, so each text is translated once. Bounded. */
const translations = new Map<string, string>();
const MAX_TRANSLATIONS = 5000;

/**
 * A statement of SQLite's text as PostgreSQL's: `?` numbered, SQLite's functions named as PostgreSQL names them.
 * Quoted text ('...', with '' inside) and quoted names ("...") are copied as they are.
 */
export function toPostgres(text: string): string {
  const known = translations.get(text);
  if (known !== undefined) return known;
  let out = "";
  let n = 0;
  let plain = "";
  const flush = () => {
    out += plain
      .replaceAll(SQLITE_NOW_MS, POSTGRES_NOW_MS)
      .replace(/\bas integer\)/gi, "as bigint)")
      .replace(/\bifnull\(/gi, "coalesce(");
    plain = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = closingQuote(text, i, c);
      // Quoted text inside the clock's default (unixepoch('subsec')) is part of what the rewrite matches.
      if (c === "'" && text.slice(i, end + 1) === "'subsec'") {
        plain += text.slice(i, end + 1);
      } else {
        flush();
        out += text.slice(i, end + 1);
      }
      i = end;
    } else if (c === "?") {
      plain += `$${++n}`;
    } else {
      plain += c;
    }
  }
  flush();
  out = out.replace(CONFLICT_TARGET, (target: string) => target.replace(QUALIFIED_NAME, "$1"));
  if (translations.size >= MAX_TRANSLATIONS) translations.clear();
  translations.set(text, out);
  return out;
}

/** The index of the quote closing the one at `start` (a doubled quote inside is part of the text). */
function closingQuote(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i;
    } else i++;
  }
  return text.length - 1;
}

type Columns = { type: number }[];

/** Bun.sql's answer with its bigint columns read as numbers, in place. */
function withNumbers<T extends unknown[]>(rows: T[], columns: Columns | undefined): T[];
function withNumbers<T extends Record<string, unknown>>(rows: T[], columns: Columns | undefined, names: string[]): T[];
function withNumbers(rows: any[], columns: Columns | undefined, names?: string[]) {
  if (!columns) return rows;
  const big: (number | string)[] = [];
  columns.forEach((c, i) => {
    if (c.type === INT8) big.push(names ? names[i]! : i);
  });
  if (big.length === 0) return rows;
  for (const row of rows) for (const k of big) if (row[k] !== null && row[k] !== undefined) row[k] = Number(row[k]);
  return rows;
}

type Frame = {
  conn: ReservedSQL;
  /** Savepoints taken directly in this frame run one after another: the last one's end. */
  children: Promise<unknown>;
  savepoints: { n: number };
  /** Run once the outermost transaction has ended (its frame's list, shared by its savepoints). */
  ended: (() => void)[];
};

export function openPostgresRecords(sql: SQL): PostgresRecords {
  const frames = new AsyncLocalStorage<Frame>();
  const connection = () => frames.getStore()?.conn ?? sql;

  const drizzled = drizzle(
    async (text, params, method) => {
      const result = await connection().unsafe(toPostgres(text), params as any[]).values();
      if (method === "run") return { rows: [], changes: result.count } as { rows: [] };
      const rows = withNumbers(result as unknown as unknown[][], (result as any).columns);
      return { rows: method === "get" ? (rows[0] as any) : rows };
    },
    { schema },
  );
  const dialect = (drizzled as unknown as { dialect: Parameters<typeof statementOf>[0] }).dialect;

  async function withTransaction<T>(fn: () => Promise<T>): Promise<T> {
    const frame = frames.getStore();
    if (frame) return savepoint(frame, fn);
    const conn = await sql.reserve();
    const ended: (() => void)[] = [];
    try {
      await conn.unsafe("BEGIN");
      try {
        const out = await frames.run({ conn, children: Promise.resolve(), savepoints: { n: 0 }, ended }, fn);
        await conn.unsafe("COMMIT");
        return out;
      } catch (err) {
        await conn.unsafe("ROLLBACK").catch(() => {});
        throw err;
      }
    } finally {
      await conn.release();
      for (const after of ended) frames.exit(() => queueMicrotask(after));
    }
  }

  function afterTransaction(fn: () => void) {
    const frame = frames.getStore();
    if (frame) frame.ended.push(fn);
    else queueMicrotask(fn);
  }

  function savepoint<T>(frame: Frame, fn: () => Promise<T>): Promise<T> {
    const turn = frame.children.then(async () => {
      const name = `sp${++frame.savepoints.n}`;
      await frame.conn.unsafe(`SAVEPOINT ${name}`);
      try {
        const out = await frames.run({ conn: frame.conn, children: Promise.resolve(), savepoints: frame.savepoints, ended: frame.ended }, fn);
        await frame.conn.unsafe(`RELEASE SAVEPOINT ${name}`);
        return out;
      } catch (err) {
        await frame.conn.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
        await frame.conn.unsafe(`RELEASE SAVEPOINT ${name}`);
        throw err;
      }
    });
    frame.children = turn.catch(() => {});
    return turn;
  }

  async function rows<T>(query: string | Query, params?: unknown[]): Promise<T[]> {
    const s = statementOf(dialect, query, params);
    const result = await connection().unsafe(toPostgres(s.text), s.params as any[]);
    const columns = (result as any).columns as { name: string; type: number }[] | undefined;
    return withNumbers([...result] as Record<string, unknown>[], columns, columns?.map((c) => c.name) ?? []) as T[];
  }

  async function run(query: string | Query, params?: unknown[]) {
    const s = statementOf(dialect, query, params);
    const result = await connection().unsafe(toPostgres(s.text), s.params as any[]);
    return { changes: result.count };
  }

  const db = Object.assign(drizzled, { $engine: "postgres" as const, $rows: rows, $run: run }) as unknown as RecordsDb;
  return {
    db,
    withTransaction,
    afterTransaction,
    inTransaction: () => frames.getStore() !== undefined,
    rows,
    run,
    close: () => sql.close(),
  };
}
