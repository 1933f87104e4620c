import {
  applianceSchemaAt,
  integrityProblems,
  lastMigration,
  openAndClose,
  readCopy,
  schemaObjects,
  tableCounts,
  type DatabaseCopy,
  type SchemaObject,
} from "../database-file/database-file";

/**
 * What a restore checks in a database read out of an archive, run in a worker thread (inspect-worker.ts) so the
 * event loop goes on serving. An archive is data from outside: its database must hold data, never code. Triggers,
 * views, indexes and virtual tables run SQL whenever the appliance reads or writes (a trigger `BEFORE UPDATE OF
 * revoked_at ON sessions ... RAISE(IGNORE)` made sign-out stop working for good), so its schema must be exactly the
 * one the appliance itself creates at the archive's migration version.
 */

export type { SchemaObject };

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

async function inspect(req: InspectRequest, db: DatabaseCopy): Promise<Extract<InspectAnswer, { ok: true }>> {
  const problems = await integrityProblems(db);
  if (problems !== null) throw new Refused(`The database copy failed its integrity check: ${problems}`);
  const last = await lastMigration(db);
  if (!last) throw new Refused("The archive's database has no record of its migrations: not an smsdesk database");
  const entry = last.entry;
  if (!entry) throw new Refused("The archive's database is from a version of smsdesk this one does not know: update smsdesk first");
  let fresh: { when: number; objects: SchemaObject[] } | null = null;
  let appliance = req.known[String(entry.when)];
  if (!appliance) {
    appliance = await applianceSchemaAt(entry.when);
    fresh = { when: entry.when, objects: appliance };
  }
  const differences = schemaDifferences(await schemaObjects(db), appliance);
  if (differences.length)
    throw new Refused(
      `The archive's database ${differences.slice(0, 3).join("; ")}${differences.length > 3 ? ` (and ${differences.length - 3} more differences)` : ""}: a backup holds data only, never code`,
    );
  // Counted only once the schema is known to be ours: a virtual table runs its module's code when read.
  return { ok: true, tables: await tableCounts(db), schema: entry.tag, fresh };
}

/** Runs one inspection (in the worker thread); an unreadable file or a refused schema is an answer, not a throw. */
export async function inspectInThread(req: InspectRequest): Promise<InspectAnswer> {
  let answer: InspectAnswer;
  try {
    answer = await readCopy(req.path, (db) => inspect(req, db));
  } catch (err) {
    return { ok: false, error: err instanceof Refused ? err.message : `The archive's database cannot be read: ${(err as Error).message}` };
  }
  try {
    if (req.open) await openAndClose(req.path);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return answer;
}
