import { ArchiveError } from "./archive";
import type { InspectAnswer, InspectRequest, SchemaObject } from "./inspect-db";

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
const WORKER_START_MS = 10_000;

/** The appliance's schema per migration version, computed once per process (a migration from nothing: ~50 ms). */
const known: Record<string, SchemaObject[]> = {};

function startWorker(urls: URL[]): Promise<Worker> {
  const [url, ...rest] = urls;
  if (!url) return Promise.reject(new Error("the backup inspection worker does not start"));
  return new Promise<Worker | null>((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url);
    } catch {
      return resolve(null);
    }
    const give = (ready: boolean) => {
      clearTimeout(timer);
      worker.onmessage = null;
      worker.onerror = null;
      if (!ready) worker.terminate();
      resolve(ready ? worker : null);
    };
    const timer = setTimeout(() => give(false), WORKER_START_MS);
    worker.onmessage = (e: MessageEvent<{ type?: string }>) => give(e.data?.type === "ready");
    worker.onerror = () => give(false);
  }).then((w) => w ?? startWorker(rest));
}

/**
 * The row counts and last migration of the database at `path`, once it passed its integrity check and its schema is
 * the appliance's; `open` also opens it as the appliance would (a drill). A refusal throws ArchiveError.
 */
export async function inspectArchiveDatabase(path: string, opts: { open: boolean }): Promise<{ tables: Record<string, number>; schema: string }> {
  const worker = await startWorker(WORKER_URLS);
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
