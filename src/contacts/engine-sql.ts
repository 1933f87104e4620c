import { sql, type SQL } from "drizzle-orm";

/**
 * The few pieces of the contacts' SQL that the two engines write differently (issue 31 item 1); the rest of a
 * statement is the same text on both.
 */

/**
 * A list of values handed as one parameter (a JSON array), as rows of one column `value`: a statement's text stays
 * the same whatever the list's length, so SQLite keeps its compiled statement. PostgreSQL reads the array with jsonb's
 * own function; `integers` casts its elements, which jsonb answers as text.
 */
/** The engine a statement is written for (the records' `$engine`). */
export type Engine = "sqlite" | "postgres";

export function listed(engine: Engine, values: readonly (string | number)[], integers = false): SQL {
  const json = JSON.stringify(values);
  if (engine === "sqlite") return sql`SELECT value FROM json_each(${json})`;
  return integers ? sql`SELECT value::bigint AS value FROM jsonb_array_elements_text(${json}::text::jsonb) AS value` : sql`SELECT value FROM jsonb_array_elements_text(${json}::text::jsonb) AS value`;
}

/** `a`, at most `b` (SQLite's scalar min(), which PostgreSQL has no function for). */
export const atMost = (a: SQL, b: number): SQL => sql`CASE WHEN ${a} > ${b} THEN ${b} ELSE ${a} END`;
