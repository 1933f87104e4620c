import { ArchiveError } from "./archive";
import type { InspectAnswer, InspectRequest, SchemaObject } from "./inspect-db";
import { startWorker } from "../threads/start-worker";

/**
 * Inspects a database read out of an archive in a worker thread (inspect-worker.ts, inspect-db.ts): integrity
 * check, the schema against the appliance's at the same migration version, row counts. An 80 MB database takes
 * about a second to check; on the event loop every request waited that long.
 */

/**
 * Where the worker's entry point is: next to this module when run from source; in the single executable
 * (scripts/build.ts lists it as an entry point) under backups/ at the executable's root.
 */
const WORKER_URLS = [new URL("./inspect-worker.ts", import.meta.url), new URL("./backups/inspect-worker.ts", import.meta.url)];

/** The appliance's schema per migration version, computed once per process (a migration from nothing: ~50 ms). */
const known: Record<string, SchemaObject[]> = {};

/**
 * The row counts and last migration of the database at `path`, once it passed its integrity check and its schema is
 * the appliance's; `open` also opens it as the appliance would (a drill). A refusal throws ArchiveError.
 */
export async function inspectArchiveDatabase(path: string, opts: { open: boolean }): Promise<{ tables: Record<string, number>; schema: string }> {
  const worker = await startWorker(WORKER_URLS, "backup inspection");
  try {
    const answer = await new Promise<InspectAnswer>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<InspectAnswer>) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(`the backup inspection worker failed: ${e.message}`));
      worker.postMessage({ path, known, open: opts.open } satisfies InspectRequest);
    });
    if (!answer.ok) throw new ArchiveError(answer.error);
    if (answer.fresh) known[String(answer.fresh.when)] = answer.fresh.objects;
    return { tables: answer.tables, schema: answer.schema };
  } finally {
    worker.terminate();
  }
}
