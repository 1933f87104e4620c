import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { contactImports } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { MAX_CSV_BYTES } from "../http/body-limit";
import { badRequest, conflict, HttpError, notFound } from "../http/errors";
import type { CountryCode } from "libphonenumber-js";
import { checkImportHeader, EMPTY_CSV, fileChunks, PREVIEW_BYTES, previewCsv, type ColumnTarget } from "./csv-stream";
import { preparedBatches } from "./import-pipeline";
import { beginBulkWrites, beginSearchImport, ContactImporter, mergeSearchIndex, restoreSearchMerges, type OnDuplicate } from "./importer";
import { collectionDue, nextSlice, ownTime, SLICE_ROWS, SLICE_TARGET_MS } from "./import-pace";
import { ImportNames } from "./name-order";
import { rejectedCount } from "./import-rejects";
import { nextTurn } from "../time/next-turn";
import { holdCheckpoints } from "../../db/checkpoints";
import { registerWriter } from "../backups/backups";
import { defaultCountryOfId } from "../users/default-country";

const TOO_LARGE = "The CSV file is too large (100 MB at most).";

/** An import as the routes show it, its rejected rows counted. */
async function jobView(ctx: AppContext, j: typeof contactImports.$inferSelect) {
  return {
    id: j.id,
    state: j.state,
    rowsRead: j.rowsRead,
    created: j.created,
    updated: j.updated,
    duplicates: j.duplicates,
    invalid: j.invalid,
    errors: j.errors,
    duplicateDetails: j.duplicateDetails,
    /** Rows refused for their phone, in GET /api/contacts/import/:id/rejected.csv. */
    rejectedRows: await rejectedCount(ctx, j.id),
    progress: j.progress,
    ...(j.error ? { error: j.error } : {}),
    createdAt: j.createdAt.toISOString(),
    finishedAt: j.finishedAt ? j.finishedAt.toISOString() : null,
  };
}

export async function getImportJob(ctx: AppContext, userId: string, id: string) {
  await ready(ctx.db);
  const j = ctx.db.select().from(contactImports).where(and(eq(contactImports.userId, userId), eq(contactImports.id, id))).get();
  if (!j) throw notFound("Import not found");
  return jobView(ctx, j);
}

export async function listImportJobs(ctx: AppContext, userId: string) {
  await ready(ctx.db);
  const jobs = ctx.db.select().from(contactImports).where(eq(contactImports.userId, userId)).orderBy(desc(contactImports.createdAt)).limit(20).all();
  return Promise.all(jobs.map((j) => jobView(ctx, j)));
}

/** Uploads waiting for or being read by an import, one file per job (removed when the job ends). */
const uploadsDir = (ctx: AppContext) => join(ctx.config.dataDir, "imports");

export const INTERRUPTED =
  "The server restarted while this import was running. The rows counted here were imported and kept; upload the file again to import the rest (rows already imported count as duplicates).";

/**
 * At start: jobs a previous process left queued or running can never finish, and their uploads can go. Their
 * counts are exact (each batch's counts commit with its contacts), so the user sees what was kept. The names of
 * the contacts they stored that were not added yet (name-order.ts) are added in the background.
 */
export async function failInterruptedImports(ctx: AppContext): Promise<void> {
  // A CSV import's worker writes the data folder's SQLite: on PostgreSQL none ran, and none is left to fail.
  if (ctx.records.$engine === "postgres") return;
  rmSync(uploadsDir(ctx), { recursive: true, force: true });
  await restoreSearchMerges(ctx.db);
  await ready(ctx.db);
  ctx.db
    .update(contactImports)
    .set({ state: "failed", error: INTERRUPTED, finishedAt: new Date(ctx.now()) })
    .where(inArray(contactImports.state, ["queued", "running"]))
    .run();
  resumeImportNames(ctx);
}

const namesAdded = (ctx: AppContext, id: string) =>
  ctx.db.update(contactImports).set({ namesFrom: null }).where(eq(contactImports.id, id)).run();

/**
 * Adds the names an import left (it stopped or the process ended before its last transaction), one import after
 * another, as a run of the imports: stopping the server stops it between two transactions.
 */
function resumeImportNames(ctx: AppContext) {
  const left = ctx.db
    .select({ id: contactImports.id, userId: contactImports.userId, from: contactImports.namesFrom })
    .from(contactImports)
    .where(isNotNull(contactImports.namesFrom))
    .all();
  if (!left.length) return;
  const imports = runningImportsOf(ctx);
  const run: Promise<void> = (async () => {
    // After a restore this runs while the imports are still paused: they resume before the next turn.
    await nextTurn();
    for (const job of left) {
      const names = new ImportNames(ctx, job.userId, job.id, job.from);
      if (!(await names.finish(() => imports.stopping, () => namesAdded(ctx, job.id)))) return;
    }
  })()
    .catch((err) => ctx.log(`contacts: adding the names of an earlier import failed: ${(err as Error)?.stack ?? err}`))
    .finally(() => imports.runs.delete(run));
  imports.runs.add(run);
}

/** Writes a stream to a file, refusing more than MAX_CSV_BYTES; whether anything but whitespace came. */
async function spool(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, path: string): Promise<{ blank: boolean }> {
  const sink = Bun.file(path).writer();
  const decoder = new TextDecoder("utf-8");
  let blank = true;
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_CSV_BYTES) throw new HttpError(413, TOO_LARGE);
      if (blank && decoder.decode(chunk, { stream: true }).trim()) blank = false;
      await sink.write(chunk);
    }
  } finally {
    await sink.end();
  }
  return { blank };
}

/** The CSV bytes of an upload: the body itself, or the `file` field of a multipart form. 413 over 100 MB. */
async function uploadBody(request: Request): Promise<ReadableStream<Uint8Array> | null> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_CSV_BYTES) throw new HttpError(413, TOO_LARGE);
  if (!(request.headers.get("content-type") ?? "").includes("multipart/form-data")) return request.body;
  const form = await request.formData().catch(() => null);
  const file = form?.get("file");
  if (!file || typeof file === "string") throw badRequest("Please select a CSV file");
  return file.stream();
}

/**
 * Receives a CSV upload, a text/csv body or the `file` field of a multipart form, into a file of its own under
 * the data folder: a body is streamed there as it arrives, so a large upload is never held in memory. Answers
 * the file's path; 400 for a missing or blank file, 413 over 100 MB.
 */
export async function receiveCsvUpload(ctx: AppContext, request: Request): Promise<string> {
  const body = await uploadBody(request);
  mkdirSync(uploadsDir(ctx), { recursive: true });
  const path = join(uploadsDir(ctx), `${Bun.randomUUIDv7()}.csv`);
  try {
    const { blank } = await spool(body ?? [], path);
    if (blank) throw badRequest(EMPTY_CSV);
    return path;
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
}

/** What the user chose for one import (the dialog's mapping step); every field optional. */
export type CsvImportOptions = { mapping?: ColumnTarget[]; tag?: string; country?: CountryCode; onDuplicate?: OnDuplicate };

/**
 * The import dialog's first look at a file (the whole file or its first PREVIEW_BYTES): encoding, delimiter,
 * header, first rows, suggested mapping. Reads at most PREVIEW_BYTES of a raw body and leaves the rest unread (a
 * multipart form is read whole first, as receiveCsvUpload does).
 */
export async function previewUpload(request: Request) {
  const reader = (await uploadBody(request))?.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let whole = true;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
      if (size >= PREVIEW_BYTES) {
        whole = size === PREVIEW_BYTES && (await reader.read()).done;
        await reader.cancel().catch(() => {});
        break;
      }
    }
  }
  const head = new Uint8Array(Math.min(size, PREVIEW_BYTES));
  let at = 0;
  for (const p of parts) {
    const take = p.subarray(0, head.length - at);
    head.set(take, at);
    at += take.length;
  }
  if (!head.length) throw badRequest(EMPTY_CSV);
  return previewCsv(head, whole);
}

/**
 * Queues an import of an uploaded CSV file (receiveCsvUpload; the job removes it when done, as does a
 * refusal here) and runs it in the background; answers its id at once.
 */
export async function startCsvImport(ctx: AppContext, userId: string, path: string, options: CsvImportOptions = {}): Promise<string> {
  let header: string[] | null;
  try {
    // A file without a phone column (or a mapping that does not fit it) is the user's mistake: a 400 now, not a failed job.
    header = await checkImportHeader(fileChunks(path), { region: options.country, mapping: options.mapping, tag: options.tag });
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
  const running = and(eq(contactImports.userId, userId), inArray(contactImports.state, ["queued", "running"]));
  await ready(ctx.db);
  const busy = ctx.db.select({ id: contactImports.id }).from(contactImports).where(running).get();
  if (busy) {
    rmSync(path, { force: true });
    throw conflict("An import is already running. Please wait for it to finish.", { importId: busy.id });
  }
  const id = Bun.randomUUIDv7();
  ctx.db.insert(contactImports).values({ id, userId, state: "queued", header, createdAt: new Date(ctx.now()) }).run();
  const imports = runningImportsOf(ctx);
  const run = new Promise<void>((resolve) => setTimeout(resolve, 0))
    .then(() => runCsvImport(ctx, userId, id, path, options, imports))
    .catch((err) => {
      // A refusal of the file (HttpError) is the user's to fix: one line; anything else is a bug: its stack.
      if (err instanceof HttpError) ctx.log(`import ${id} failed: ${err.message}`);
      else if (!(err instanceof ImportStopped)) ctx.log(`import ${id} failed: ${(err as Error)?.stack ?? err}`);
      finish(ctx, id, { state: "failed", error: err instanceof HttpError || err instanceof ImportStopped ? err.message : "The import failed unexpectedly." });
    })
    .finally(() => {
      rmSync(path, { force: true });
      imports.runs.delete(run);
    });
  imports.runs.add(run);
  return id;
}

class ImportStopped extends Error {
  constructor() {
    super("The server stopped during the import. Please upload the file again.");
  }
}

type RunningImports = { stopping: boolean; runs: Set<Promise<void>> };
const runningImports = new WeakMap<AppContext, RunningImports>();

/**
 * The imports running in this app. Stopping the server stops each between two batches (what was stored stays,
 * with its counts) and waits for it, so none writes to a database that is being closed.
 */
function runningImportsOf(ctx: AppContext): RunningImports {
  let imports = runningImports.get(ctx);
  if (!imports) {
    const created: RunningImports = { stopping: false, runs: new Set() };
    const stop = async () => {
      created.stopping = true;
      // An import queued meanwhile stops at its first batch; wait for it too.
      while (created.runs.size) await Promise.all([...created.runs]);
    };
    ctx.onStop.unshift(stop);
    // A restore swaps the database under the imports: they stop first, and new ones may start after it.
    registerWriter(ctx, { pause: stop, resume: () => (created.stopping = false) });
    runningImports.set(ctx, (imports = created));
  }
  return imports;
}

function finish(ctx: AppContext, id: string, patch: Partial<typeof contactImports.$inferInsert>) {
  ctx.db.update(contactImports).set({ ...patch, finishedAt: new Date(ctx.now()) }).where(eq(contactImports.id, id)).run();
}

/**
 * Checkpoints (db/checkpoints.ts): one is asked for, not waited for, `ask` rows after the last wait, so most of the
 * log is folded on the other core while the import writes; every `wait` rows the import waits (the event loop free)
 * until one has folded everything, so the next commit starts the log again and it stays at what those rows wrote
 * (about 6 KB a row). Each checkpoint copies every page changed since the one before, and with a million diverse
 * contacts the phone and name indexes change all over within a few thousand rows: asking every 5,000 rows (waiting
 * every 30,000) cost a fifth more kernel time on a million rows.
 */
const CHECKPOINT_ROWS = { ask: 20_000, wait: 40_000 };

/**
 * Issue 29 item 2 bounds a million-row import at 400 MB of RSS. This thread's garbage (each batch's rows as strings,
 * their JSON, whose buffers live outside the JS heap) is left by the collector to grow the process by 100-150 MB
 * between its own full collections: a million diverse rows into the executable peaked at 452-506 MB, swinging between
 * 300 and 420 (scripts/bench/import.ts --rss-log). So a full collection, between two transactions, whenever the
 * process holds more than this: 300,000 rows peaked at 360 MB collecting after every batch of 10,000 rows, 422 MB
 * with a young generation's collection (bun:jsc edenGC) instead; a million at 410 MB collecting after a batch when
 * over 300 MB (the process grows 50-100 MB within a batch); checking between transactions, over 320 MB peaked at
 * 394 (diverse, load 13-16) and 402 (load 3.5), over 288 at 396 (diverse) and 328 (plain), load 3 (README,
 * Benchmarks). The full collection took 16-146 ms at a load average of 13-14 (about 60 MB of live heap), so it runs
 * only when the process is over budget. Collecting less, only once the process also grew since the last: 32 MB,
 * 5-8 collections in 200,000 diverse rows where this runs 45-61, the main thread 40.2 us a row against 46.0 (one
 * run each, load 15-17); 24 MB, a million diverse rows peaked at 431 MB (0.18 of the ceiling, load 14-22), and with
 * an asynchronous collection (Bun.gc(false)) at 508 MB. Neither shortened the longest hold of the loop's own work (430
 * and 447 ms on the million, 385 with this): that was the log's last checkpoint (the end of runCsvImport).
 * Since the writer stores the worker's packed batches (prepare.ts PackedBatch: no string a row on this thread, and no
 * substring in the kept errors holding a whole batch's text alive), a collection here finds 23-32 MB of live heap
 * where it found 45-70, and runs 8 times in 300,000 diverse rows where it ran over 100 (the server from source, which
 * holds more than the executable, at a load average of about 20).
 */
const GC_ABOVE = 288 * 1048576;
/**
 * ...and only once it grew by this much over the least it held since the last collection (import-pace.ts
 * collectionDue). What a collection cannot free (the page cache, the workers' heaps, the executable's pages mapped in)
 * leaves the process near or over GC_ABOVE, and over it alone the import collected again whatever the last one had
 * found to free; each collection is a hold of the event loop in a turn of its own (about 200 ms of wall time each at a
 * load average of 20). A million diverse rows into the executable, both rules run at the same time (load average
 * 17-28 on 2 cores): 68 collections (13.9 s of wall time) in 1,983 transactions before, 39 (10.1 s) in 2,001 after;
 * main thread 55.4 and 56.0 us a row, peak RSS 347 and 331 MB. Under bun --cpu-prof-md, whose own memory keeps the
 * process over GC_ABOVE, the collections had been 43% of the main thread's samples (300,000 rows, peak 523 MB).
 */
const GC_GROWN = 24 * 1048576;

/**
 * Reads the file and stores it in transactions of about SLICE_TARGET_MS each, the number of rows in the next one
 * following the time the last took. Each transaction's contacts and the job's counts commit together; the contacts'
 * names (contact_names) follow, sorted a large part at a time (name-order.ts), and the last transaction of names
 * marks the job done: a crash leaves counts that match what was stored, names the next start adds, and never a
 * finished import that still says running. The next batch is asked for before the current one is stored, so the
 * parser works on it meanwhile and the last batch is known as the last.
 * Transactions of a whole batch (10,000 rows) held the event loop for 1.3 s at a time on a million diverse rows, up
 * to 5.8 s on the loaded benchmark machine, with the connection's own checkpoints (an fsync of the database file)
 * on top. Short ones cost CPU: a commit writes every page it changed to the log, and a few hundred contacts change
 * about as many pages of the phone index and the search index as they have rows, where 10,000 share many; a million
 * rows took ~85 us of CPU a row on all threads against ~60 (scripts/bench/import.ts), in about the same time, as the
 * checkpoints now run on the other core.
 */
async function runCsvImport(ctx: AppContext, userId: string, id: string, path: string, options: CsvImportOptions, imports: RunningImports) {
  const importer = await ContactImporter.open(ctx, userId, {
    detailDuplicates: true, region: options.country ?? (await defaultCountryOfId(ctx, userId)), onDuplicate: options.onDuplicate, importId: id, namesLater: true, keepRejects: true,
  });
  const names = new ImportNames(ctx, userId, id);
  await ready(ctx.db);
  ctx.db.update(contactImports).set({ state: "running" }).where(eq(contactImports.id, id)).run();
  // The reported rows (capped lists, up to about 100 KB of JSON) are serialised again only when they changed: with a
  // transaction every few tens of milliseconds, doing it for every one would be a measurable share of the import.
  // Not when they grew: a full list changes without growing when a large file's rows come in phone order.
  let reported = -1;
  let namesNoted = false;
  // The counts after every transaction through statements prepared once: drizzle built the update anew each time,
  // 4% of the main thread's samples in a million-row import (bun --cpu-prof-md).
  const sql = ctx.db.$client;
  const counts = sql.prepare("UPDATE contact_imports SET rows_read = ?, created = ?, updated = ?, duplicates = ?, invalid = ?, progress = ? WHERE id = ?");
  const listsNow = sql.prepare("UPDATE contact_imports SET errors = ?, duplicate_details = ? WHERE id = ?");
  const save = (progress: number, done: boolean) => {
    const r = importer.results();
    const lists = importer.listed !== reported;
    reported = importer.listed;
    // The first transaction that creates a contact notes where the names to add start (with it, a restart adds them).
    const namesFrom = !namesNoted && importer.namesFrom !== null ? importer.namesFrom : undefined;
    if (namesFrom !== undefined) namesNoted = true;
    if (!done && namesFrom === undefined) {
      counts.run(r.rowsRead, r.created, r.updated, r.duplicates, r.invalid, progress, id);
      if (lists) listsNow.run(JSON.stringify(r.errors), JSON.stringify(r.duplicateDetails), id);
      return;
    }
    ctx.db
      .update(contactImports)
      .set({
        rowsRead: r.rowsRead, created: r.created, updated: r.updated, duplicates: r.duplicates, invalid: r.invalid, progress,
        ...(lists ? { errors: r.errors, duplicateDetails: r.duplicateDetails } : {}),
        ...(namesFrom !== undefined ? { namesFrom } : {}),
        ...(done ? { state: "done" as const, namesFrom: null, finishedAt: new Date(ctx.now()) } : {}),
      })
      .where(eq(contactImports.id, id))
      .run();
  };
  const release = await beginBulkWrites(ctx.db);
  const searchImported = await beginSearchImport(ctx.db);
  const checkpoints = holdCheckpoints(ctx.db.$client, ctx.log);
  const batches = preparedBatches(path, { region: importer.region, mapping: options.mapping, tag: options.tag, sortable: importer.room }, { log: ctx.log });
  let rows = SLICE_ROWS.first;
  const pace = { msPerRow: 0 };
  let sinceWaited = 0;
  let asked = false;
  const memory = { floor: Number.POSITIVE_INFINITY };
  try {
    let next = await batches.next();
    if (next.done) return await ctx.withTransaction(async () => save(100, true));
    while (!next.done) {
      const { batch, progress } = next.value;
      const after = await batches.next();
      for (let start = 0; start < batch.lines.length; ) {
        if (imports.stopping) throw new ImportStopped();
        const end = Math.min(batch.lines.length, start + rows);
        const last = !!after.done && end === batch.lines.length;
        const began = ownTime();
        await importer.store(batch, start, end, () => save(Math.min(99, Math.floor(progress * 100)), false));
        names.stored(importer.namesFrom, importer.created);
        if (last) break;
        const took = ownTime() - began;
        rows = nextSlice(pace, rows, end - start, took);
        sinceWaited += end - start;
        start = end;
        if (sinceWaited >= CHECKPOINT_ROWS.wait) {
          await checkpoints.checkpoint();
          sinceWaited = 0;
          asked = false;
        } else if (sinceWaited >= CHECKPOINT_ROWS.ask && !asked) {
          asked = true;
          void checkpoints.checkpoint();
        }
        // Let requests and timers run between transactions, and after one of names when a sorted part waits; a full
        // collection in its own turn when the process is over its budget and grew since the last (GC_ABOVE, GC_GROWN).
        await nextTurn();
        if (collectionDue(memory, process.memoryUsage.rss(), GC_ABOVE, GC_GROWN)) {
          Bun.gc(true);
          memory.floor = process.memoryUsage.rss();
          await nextTurn();
        }
        if (await names.step()) await nextTurn();
      }
      next = after;
    }
    await mergeDown(ctx, () => imports.stopping);
    // The names still to add, the last transaction marking the job done: a crash before leaves them to the next start.
    if (!(await names.finish(() => imports.stopping, () => save(100, true)))) throw new ImportStopped();
  } catch (err) {
    // The contacts stored before a refusal of the file keep their names; a stop leaves them to the next start.
    if (!(err instanceof ImportStopped) && !imports.stopping) await names.finish(() => imports.stopping, () => namesAdded(ctx, id));
    throw err;
  } finally {
    names.stop();
    await searchImported();
    // The rest of the log (the automerge setting's commit with it) is folded by the worker, waited for before the
    // connection checkpoints itself again: asked and released at once, the next commit (of any request) found the
    // log still full and folded it on the main thread: a million diverse rows held the event loop 385 ms of its own
    // work there (load 17-19), against 74 ms at most in the whole import waiting (load 1-8, the executable).
    await checkpoints.checkpoint();
    checkpoints.release();
    await release();
    await batches.return(undefined); // stops the parsing worker when the import ends early
  }
}

/**
 * Merges the search index's segments the import left (it merged eight at a time: importer.ts beginSearchImport) down
 * to what four at a time leaves, a step of about SLICE_TARGET_MS at a time (the pages of the next step follow the time
 * the last took), with a turn of the event loop between steps.
 */
async function mergeDown(ctx: AppContext, stopping: () => boolean) {
  let pages = MERGE_PAGES.first;
  for (;;) {
    if (stopping()) return;
    // Timed from after ready: a wait for another caller's transaction is no part of the step's cost.
    await ready(ctx.db);
    const began = ownTime();
    if (!(await mergeSearchIndex(ctx.db, pages))) return;
    const took = Math.max(ownTime() - began, 0.1);
    pages = Math.round(Math.max(MERGE_PAGES.min, Math.min(MERGE_PAGES.max, pages * 1.5, (pages * SLICE_TARGET_MS) / took)));
    await nextTurn();
  }
}
const MERGE_PAGES = { first: 32, min: 8, max: 512 };
