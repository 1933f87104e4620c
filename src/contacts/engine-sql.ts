import { sql, type SQL } from "drizzle-orm";

/**
 * The few pieces of the contacts' SQL that the two engines write differently (issue 31 item 1); the rest of a
 * statement is the same text on both.
 */

/** The engine a statement is written for (the records' `$engine`). */
export type Engine = "sqlite" | "postgres";

/** `a`, at most `b` (SQLite's scalar min(), which PostgreSQL has no function for). */
export const atMost = (a: SQL, b: number): SQL => sql`CASE WHEN ${a} > ${b} THEN ${b} ELSE ${a} END`;
