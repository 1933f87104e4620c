import { sql, type SQL } from "drizzle-orm";
import type { RawStatements } from "./records";

/**
 * A list of any length given to a raw statement as one parameter, a JSON array (one compiled text however many ids,
 * never SQLite's limit on parameters), read as rows on either engine (issue 31 item 1). SQLite reads it with
 * `json_each`, PostgreSQL with `jsonb_array_elements`: the one piece of these statements whose text differs.
 */
type Engine = Pick<RawStatements, "$engine">;

/**
 * A subquery of the array's values (one `?`): `x IN (${jsonValues(db)})`. `bigint` for numbers compared with an
 * INTEGER column (PostgreSQL compares no bigint with text).
 */
export function jsonValues(db: Engine, type: "text" | "bigint" = "text"): string {
  if (db.$engine === "sqlite") return `SELECT value FROM json_each(?)`;
  const value = type === "bigint" ? "CAST(value AS bigint)" : "value";
  return `SELECT ${value} FROM jsonb_array_elements_text(CAST(? AS text)::jsonb) AS value`;
}

/**
 * A FROM item (one `?`): a row per element, its column `value` the element itself, so `value ->> 0` reads an array
 * element of it on both engines (text on PostgreSQL: cast a number, `cast(value ->> 1 as integer)`).
 */
export function jsonElements(db: Engine): string {
  return db.$engine === "sqlite" ? `json_each(?)` : `jsonb_array_elements(CAST(? AS text)::jsonb) AS value`;
}

/** `jsonValues` with the list bound, for drizzle's `sql` template: `x IN (${jsonList(db, ids)})`. */
export function jsonList(db: Engine, values: readonly (string | number)[], type: "text" | "bigint" = "text"): SQL {
  const [before, after] = jsonValues(db, type).split("?");
  return sql`${sql.raw(before!)}${JSON.stringify(values)}${sql.raw(after!)}`;
}
