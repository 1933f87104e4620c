import type { Database } from "bun:sqlite";

/**
 * The schema of a SQLite database as PostgreSQL's DDL is written from it (db/postgres/ddl.ts) and as the two engines
 * are compared (tests/api/postgres-schema.test.ts): tables, their columns, keys and foreign keys, indexes, triggers.
 * Read from a database the SQLite migrations made, so those migrations stay the one source of truth.
 */
/** `generated`: the expression of a generated column (SQLite computes it; so does PostgreSQL, stored). */
export type Column = { name: string; type: string; notNull: boolean; default: string | null; generated: string | null };
export type ForeignKey = { columns: string[]; table: string; to: string[]; onDelete: string };
export type Table = {
  name: string;
  columns: Column[];
  primaryKey: string[];
  /** An INTEGER PRIMARY KEY: SQLite numbers new rows itself (PostgreSQL: an identity column). */
  numbered: boolean;
  foreignKeys: ForeignKey[];
};
export type Index = { name: string; table: string; unique: boolean; columns: string[]; where: string | null; sql: string };
export type Schema = { tables: Table[]; indexes: Index[]; triggers: string[]; virtualTables: string[] };

/** drizzle's bookkeeping and SQLite's own; PostgreSQL keeps its migrations in smsdesk_migrations. */
const NOT_OURS = (name: string) => name.startsWith("sqlite_") || name === "__drizzle_migrations";

type Row = Record<string, any>;

export function readSqliteSchema(db: Database): Schema {
  const master = db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").all() as Row[];
  const virtualTables = master.filter((m) => m.type === "table" && /^CREATE VIRTUAL TABLE/i.test(m.sql)).map((m) => m.name as string);
  // An FTS5 table keeps its index in shadow tables named after it (contacts_fts_data...).
  const shadow = (name: string) => virtualTables.some((v) => name.startsWith(`${v}_`));
  const tables: Table[] = master
    .filter((m) => m.type === "table" && !NOT_OURS(m.name) && !virtualTables.includes(m.name) && !shadow(m.name))
    .map((m) => {
      // table_xinfo also lists generated columns (hidden 2 or 3), which table_info leaves out.
      const info = db.query(`PRAGMA table_xinfo("${m.name}")`).all() as Row[];
      const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name as string);
      const fks = db.query(`PRAGMA foreign_key_list("${m.name}")`).all() as Row[];
      const byId = new Map<number, ForeignKey>();
      for (const fk of fks) {
        const entry: ForeignKey = byId.get(fk.id) ?? { columns: [], table: fk.table, to: [], onDelete: fk.on_delete };
        entry.columns.push(fk.from);
        entry.to.push(fk.to);
        byId.set(fk.id, entry);
      }
      return {
        name: m.name,
        columns: info.map((c) => ({
          name: c.name,
          type: String(c.type).toUpperCase(),
          notNull: c.notnull === 1 || c.pk > 0,
          default: c.dflt_value,
          generated: c.hidden === 2 || c.hidden === 3 ? generatedExpression(m.sql, c.name) : null,
        })),
        primaryKey,
        numbered: primaryKey.length === 1 && info.find((c) => c.name === primaryKey[0])!.type.toUpperCase() === "INTEGER",
        foreignKeys: [...byId.values()],
      };
    });
  const indexes: Index[] = master
    .filter((m) => m.type === "index" && m.sql && !NOT_OURS(m.tbl_name))
    .map((m) => {
      const cols = db.query(`PRAGMA index_info("${m.name}")`).all() as Row[];
      const where = /\)\s+WHERE\s+([\s\S]+)$/i.exec(m.sql)?.[1]?.trim() ?? null;
      return {
        name: m.name,
        table: m.tbl_name,
        unique: /^CREATE UNIQUE INDEX/i.test(m.sql),
        columns: cols.map((c) => c.name as string),
        where,
        sql: m.sql,
      };
    });
  const triggers = master.filter((m) => m.type === "trigger").map((m) => m.name as string);
  return { tables, indexes, triggers, virtualTables };
}

/** The expression of a generated column, read from its table's statement: what follows `GENERATED ALWAYS AS`, in balanced brackets. */
function generatedExpression(tableSql: string, column: string): string {
  const at = new RegExp(`[\`"]${column}[\`"][^,]*?GENERATED ALWAYS AS \\(`, "i").exec(tableSql);
  if (!at) throw new Error(`cannot read the expression of the generated column ${column}`);
  let depth = 1;
  let i = at.index + at[0].length;
  const from = i;
  for (; depth > 0; i++) {
    if (tableSql[i] === "(") depth++;
    else if (tableSql[i] === ")") depth--;
  }
  return tableSql.slice(from, i - 1);
}
