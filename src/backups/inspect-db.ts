import { Database } from "bun:sqlite";
import { migrateUpTo, openDatabase } from "../../db/client";
import { migrationJournal } from "../../db/migrations/embedded";

/**
 * What a restore checks in a database read out of an archive, run in a worker thread (inspect-worker.ts) so the
 * event loop goes on serving. An archive is data from outside: its database must hold data, never code. Triggers,
 * views, indexes and virtual tables run SQL whenever the appliance reads or writes (a trigger `BEFORE UPDATE OF
 * revoked_at ON sessions ... RAISE(IGNORE)` made sign-out stop working for good), so its schema must be exactly the
 * one the appliance itself creates at the archive's migration version.
 */

/** One row of sqlite_master, its SQL with whitespace runs made one space. */
export type SchemaObject = { type: string; name: string; table: string; sql: string | null };

export type InspectRequest = {
  path: string;
  /** The appliance's schema per migration version (`when`) already computed: a fresh migration takes ~50 ms. */
  known: Record<string, SchemaObject[]>;
  /** Also open it the way the appliance opens a database (applying newer migrations): a restore drill. */
  open: boolean;
};

export type InspectAnswer =
  | { ok: true; tables: Record<string, number>; schema: string; fresh: { when: number; objects: SchemaObject[] } | null }
  | { ok: false; error: string };

/** The objects of a database's schema, by type and name. sqlite_stat tables hold ANALYZE's figures, no SQL. */
export function schemaObjects(db: Database): SchemaObject[] {
  const rows = db.query("SELECT type, name, tbl_name AS tbl, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name").all() as {
    type: string;
    name: string;
    tbl: string;
    sql: string | null;
  }[];
  return rows.map((r) => ({ type: r.type, name: r.name, table: r.tbl, sql: r.sql === null ? null : r.sql.replace(/\s+/g, " ").trim() }));
}

const kindOf = (o: SchemaObject) => (o.type === "table" && o.sql?.startsWith("CREATE VIRTUAL TABLE") ? "virtual table" : o.type);
const named = (o: SchemaObject) => `${o.name}${o.type === "trigger" || o.type === "index" ? ` on ${o.table}` : ""}`;

/** How an archive's schema differs from the appliance's, in words; empty when it is the same. */
export function schemaDifferences(archive: SchemaObject[], appliance: SchemaObject[]): string[] {
  const key = (o: SchemaObject) => `${o.type}\0${o.name}`;
  const ours = new Map(appliance.map((o) => [key(o), o]));
  const theirs = new Map(archive.map((o) => [key(o), o]));
  const out: string[] = [];
  for (const o of archive) {
    const mine = ours.get(key(o));
    if (!mine) out.push(`has a ${kindOf(o)} the appliance never creates: ${named(o)}`);
    else if (mine.sql !== o.sql || mine.table !== o.table) out.push(`has a ${kindOf(o)} ${named(o)} that differs from the appliance's`);
  }
  for (const o of appliance) if (!theirs.has(key(o))) out.push(`lacks the ${kindOf(o)} ${named(o)} the appliance creates`);
  return out;
}

class Refused extends Error {}

function inspect(req: InspectRequest, db: Database): Extract<InspectAnswer, { ok: true }> {
  const check = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
  if (check.length !== 1 || check[0]!.integrity_check !== "ok")
    throw new Refused(`The database copy failed its integrity check: ${check.map((r) => r.integrity_check).slice(0, 3).join("; ")}`);
  const recorded = db.query("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!recorded) throw new Refused("The archive's database has no record of its migrations: not an smsdesk database");
  const last = (db.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | string | null }).at;
  const entry = migrationJournal.entries.find((e) => e.when === Number(last));
  if (!entry) throw new Refused("The archive's database is from a version of smsdesk this one does not know: update smsdesk first");
  let fresh: { when: number; objects: SchemaObject[] } | null = null;
  let appliance = req.known[String(entry.when)];
  if (!appliance) {
    const made = migrateUpTo(entry.when);
    appliance = schemaObjects(made);
    made.close();
    fresh = { when: entry.when, objects: appliance };
  }
  const differences = schemaDifferences(schemaObjects(db), appliance);
  if (differences.length)
    throw new Refused(
      `The archive's database ${differences.slice(0, 3).join("; ")}${differences.length > 3 ? ` (and ${differences.length - 3} more differences)` : ""}: a backup holds data only, never code`,
    );
  // Counted only once the schema is known to be ours: a virtual table runs its module's code when read.
  const tables: Record<string, number> = {};
  const names = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  for (const { name } of names) tables[name] = (db.query(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number }).n;
  return { ok: true, tables, schema: entry.tag, fresh };
}

/** Runs one inspection (in the worker thread); an unreadable file or a refused schema is an answer, not a throw. */
export function inspectInThread(req: InspectRequest): InspectAnswer {
  let answer: InspectAnswer;
  try {
    const db = new Database(req.path, { readonly: true });
    try {
      answer = inspect(req, db);
    } finally {
      db.close();
    }
  } catch (err) {
    return { ok: false, error: err instanceof Refused ? err.message : `The archive's database cannot be read: ${(err as Error).message}` };
  }
  try {
    if (req.open) openDatabase(req.path).$client.close();
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return answer;
}
