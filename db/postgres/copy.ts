import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { migrationJournal } from "../migrations/embedded";
import { createHash } from "node:crypto";
import { byReferences, KEPT_ROWIDS, q } from "./ddl";
import { checkKeyFingerprint } from "./installation";
import { migratePostgres } from "./migrate";
import { readSqliteSchema, type Table } from "./sqlite-schema";
import { describeDatabase } from "./start";

/**
 * `smsdesk migrate --to postgres://...` (issue 31 item 3): copies a SQLite installation's database into an EMPTY
 * PostgreSQL database, then verifies every table on both sides.
 *
 * - The target must be empty (no table in its public schema): a copy over an installation's data would mix two.
 * - The schema is PostgreSQL's migrations (db/postgres/migrate.ts), so the copy lands in the tables a process of this
 *   version expects; the installation's key fingerprint is stored as a first process would.
 * - One transaction: an interrupted copy leaves the database as empty as it was, and the command can run again.
 *   Triggers are off during it (ALTER TABLE ... DISABLE TRIGGER USER: the counters and rollups are copied as SQLite
 *   kept them, not counted twice); tables are filled in the order of their foreign keys, which stay checked.
 * - Streamed: rows are read from SQLite one at a time (a statement's iterator) and written `batchRows` at a time, so
 *   a million contacts take a batch of memory, not a million rows.
 * - Verified: each table's row count, and a checksum computed the same way over the rows read back from each side
 *   (sha256 of each row's values in a canonical text, summed modulo 2^256: it does not depend on the order rows come
 *   in, which differs between the engines' collations).
 */

export type CopiedTable = { table: string; rows: number; checksum: string; batches: number };
export type CopyReport = { tables: CopiedTable[]; rows: number; database: string };

/** What the operator fixes before a copy can be made: a target not empty or unreachable, an older source. */
export class CopyRefusedError extends Error {}
export class VerificationError extends Error {}

/**
 * The copy of a data folder's database file, opened read-only: it must be at this version's schema (the last
 * migration this version knows), so that it fits PostgreSQL's tables; an older one is refused, to be started once
 * with this version first (which migrates it, after a backup).
 */
export async function copyDatabaseFile(
  path: string,
  url: string,
  options: Parameters<typeof copySqliteToPostgres>[2],
): Promise<CopyReport> {
  const sqlite = new Database(path, { readonly: true });
  try {
    const last = sqlite.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | null };
    const newest = migrationJournal.entries.at(-1)!.when;
    if (Number(last.at) !== newest)
      throw new CopyRefusedError(
        Number(last.at) > newest
          ? `${path} was migrated by a newer smsdesk: copy it with that version`
          : `${path} is from an older smsdesk: start this version on it once (it migrates it, after a backup), stop it, then copy`,
      );
    return await copySqliteToPostgres(sqlite, url, options);
  } finally {
    sqlite.close();
  }
}

const PARAMS_PER_STATEMENT = 60_000;
export const DEFAULT_BATCH_ROWS = 2_000;

/** The columns copied: all but generated ones (PostgreSQL computes them), plus the kept rowid. */
function copiedColumns(t: Table): { name: string; select: string; type: string }[] {
  const cols = t.columns.filter((c) => c.generated === null).map((c) => ({ name: c.name, select: q(c.name), type: c.type }));
  if (KEPT_ROWIDS.includes(t.name)) cols.push({ name: "rowid", select: "rowid", type: "INTEGER" });
  return cols;
}

/** A value in the text both sides' checksums read: by the column's SQLite type, whatever each driver returned. */
function canonical(value: unknown, type: string): string {
  if (value === null || value === undefined) return "\u2205";
  if (value instanceof Uint8Array) return `x${Buffer.from(value).toString("hex")}`;
  if (type === "INTEGER" && (typeof value === "number" || typeof value === "bigint" || /^-?\d+$/.test(String(value))))
    return `i${BigInt(value as number | bigint | string).toString()}`;
  if (type === "REAL" && typeof value !== "object") return `r${Number(value)}`;
  return `s${String(value)}`;
}

const MOD = 1n << 256n;

class Checksum {
  private sum = 0n;
  add(values: unknown[], types: string[]) {
    const text = values.map((v, i) => canonical(v, types[i]!)).join("\u0001");
    this.sum = (this.sum + BigInt(`0x${createHash("sha256").update(text).digest("hex")}`)) % MOD;
  }
  hex() {
    return this.sum.toString(16).padStart(64, "0");
  }
}

export async function copySqliteToPostgres(
  sqlite: Database,
  url: string,
  options: { keyFingerprint: string; keySource: string; batchRows?: number; now?: number; log?: (line: string) => void },
): Promise<CopyReport> {
  const log = options.log ?? (() => {});
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const database = describeDatabase(url);
  const sql = new SQL(url, { max: 1, connectionTimeout: 10 });
  try {
    const existing = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`.catch((err: Error) => {
      throw new CopyRefusedError(`Cannot reach the PostgreSQL database ${database}: ${err.message}`);
    })) as { table_name: string }[];
    if (existing.length)
      throw new CopyRefusedError(
        `The PostgreSQL database ${database} is not empty (${existing.length} table(s): ${existing.slice(0, 5).map((t) => t.table_name).join(", ")}` +
          `${existing.length > 5 ? ", ..." : ""}). smsdesk migrate copies only into an empty database: create a new one (CREATE DATABASE ...) and give its URL.`,
      );
    await migratePostgres(sql, log);
    await checkKeyFingerprint(sql, options.keyFingerprint, options.keySource, options.now ?? Date.now());

    const tables = byReferences(readSqliteSchema(sqlite).tables);
    const copied: CopiedTable[] = [];
    const conn = await sql.reserve();
    try {
      await conn.unsafe("BEGIN");
      for (const t of tables) await conn.unsafe(`ALTER TABLE ${q(t.name)} DISABLE TRIGGER USER`);
      // The rows the migrations seed (plans, name_folds...) come from SQLite as the installation has them.
      for (const t of [...tables].reverse()) await conn.unsafe(`DELETE FROM ${q(t.name)}`);
      for (const t of tables) {
        const cols = copiedColumns(t);
        const types = cols.map((c) => c.type);
        const perBatch = Math.max(1, Math.min(batchRows, Math.floor(PARAMS_PER_STATEMENT / cols.length)));
        const insertHead = `INSERT INTO ${q(t.name)} (${cols.map((c) => q(c.name)).join(", ")}) VALUES `;
        const checksum = new Checksum();
        let rows = 0;
        let batches = 0;
        let batch: unknown[][] = [];
        const flush = async () => {
          if (!batch.length) return;
          const params: unknown[] = [];
          const tuples = batch.map((row) => `(${row.map((v) => (params.push(v), `$${params.length}`)).join(", ")})`);
          await conn.unsafe(insertHead + tuples.join(", "), params);
          batches++;
          batch = [];
        };
        // safeIntegers: an integer past 2^53 (a price in micros summed, an id) is read exactly, not rounded.
        const read = sqlite.query(`SELECT ${cols.map((c) => c.select).join(", ")} FROM ${q(t.name)}`).safeIntegers(true);
        for (const record of read.iterate() as Iterable<Record<string, unknown>>) {
          const row = cols.map((c) => record[c.name]);
          checksum.add(row, types);
          batch.push(row);
          rows++;
          if (batch.length >= perBatch) await flush();
        }
        await flush();
        copied.push({ table: t.name, rows, checksum: checksum.hex(), batches });
        if (rows) log(`copied ${t.name}: ${rows} row(s)`);
      }
      // Identity columns go on from the largest copied value, as SQLite's numbering would.
      for (const t of tables) {
        const numbered = [...(t.numbered ? [t.primaryKey[0]!] : []), ...(KEPT_ROWIDS.includes(t.name) ? ["rowid"] : [])];
        for (const col of numbered)
          await conn.unsafe(
            `SELECT setval(pg_get_serial_sequence('${q(t.name)}', '${col}'), coalesce((SELECT max(${q(col)}) FROM ${q(t.name)}), 0) + 1, false)`,
          );
      }
      for (const t of tables) await conn.unsafe(`ALTER TABLE ${q(t.name)} ENABLE TRIGGER USER`);
      await conn.unsafe("COMMIT");
    } catch (err) {
      await conn.unsafe("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      await conn.release();
    }

    await verify(sql, tables, copied);
    return { tables: copied, rows: copied.reduce((n, t) => n + t.rows, 0), database };
  } finally {
    await sql.close();
  }
}

/** Each table read back from PostgreSQL through a cursor, counted and summed as its SQLite rows were. */
async function verify(sql: SQL, tables: Table[], copied: CopiedTable[]): Promise<void> {
  const conn = await sql.reserve();
  try {
    await conn.unsafe("BEGIN READ ONLY");
    for (const t of tables) {
      const cols = copiedColumns(t);
      const types = cols.map((c) => c.type);
      await conn.unsafe(`DECLARE rows_of CURSOR FOR SELECT ${cols.map((c) => q(c.name)).join(", ")} FROM ${q(t.name)}`);
      const checksum = new Checksum();
      let rows = 0;
      for (;;) {
        const page = (await conn.unsafe(`FETCH ${DEFAULT_BATCH_ROWS} FROM rows_of`)) as Record<string, unknown>[];
        for (const r of page) checksum.add(cols.map((c) => r[c.name]), types);
        rows += page.length;
        if (page.length < DEFAULT_BATCH_ROWS) break;
      }
      await conn.unsafe("CLOSE rows_of");
      const expected = copied.find((c) => c.table === t.name)!;
      if (rows !== expected.rows) throw new VerificationError(`${t.name}: ${expected.rows} row(s) in SQLite, ${rows} in PostgreSQL`);
      if (checksum.hex() !== expected.checksum)
        throw new VerificationError(`${t.name}: the checksum of its rows differs between SQLite and PostgreSQL`);
    }
    await conn.unsafe("COMMIT");
  } finally {
    await conn.release();
  }
}
