import type { Db } from "./client";

/**
 * A statement built and prepared once per connection, on first use: for queries on a hot path (each inbound
 * webhook runs a dozen), where drizzle would otherwise build the SQL and SQLite compile it on every call. `build`
 * gets the connection and answers a drizzle `.prepare()`d query (with `sql.placeholder`s for its arguments) or a
 * bun:sqlite statement. Keyed by the connection: a restore that swaps `ctx.db` prepares afresh on the new one. `D`:
 * the records' database of both engines (`ctx.records`, db/records.ts) for a record whose statements are awaited.
 */
export function preparedPerDb<T, D extends object = Db>(build: (db: D) => T): (db: D) => T {
  const statements = new WeakMap<D, T>();
  return (db) => {
    let statement = statements.get(db);
    if (statement === undefined) statements.set(db, (statement = build(db)));
    return statement;
  };
}
