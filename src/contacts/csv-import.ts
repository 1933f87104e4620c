import { and, desc, eq, inArray } from "drizzle-orm";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { contactImports } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest, conflict, HttpError, notFound } from "../http/errors";
import { EMPTY_CSV } from "./csv-stream";
import { preparedBatches } from "./import-pipeline";
import { beginBulkWrites, ContactImporter } from "./importer";

export const MAX_CSV_BYTES = 100 * 1024 * 1024;
const TOO_LARGE = "The CSV file is too large (100 MB at most).";

export function jobView(j: typeof contactImports.$inferSelect) {
  return {
    id: j.id,
    state: j.state,
    rowsRead: j.rowsRead,
    created: j.created,
    updated: j.updated,
    duplicates: j.duplicates,
    invalid: j.invalid,
    errors: j.errors,
    progress: j.progress,
    ...(j.error ? { error: j.error } : {}),
    createdAt: j.createdAt.toISOString(),
    finishedAt: j.finishedAt ? j.finishedAt.toISOString() : null,
  };
}

export function getImportJob(ctx: AppContext, userId: string, id: string) {
  const j = ctx.db.select().from(contactImports).where(and(eq(contactImports.userId, userId), eq(contactImports.id, id))).get();
  if (!j) throw notFound("Import not found");
  return jobView(j);
}

export function listImportJobs(ctx: AppContext, userId: string) {
  return ctx.db.select().from(contactImports).where(eq(contactImports.userId, userId)).orderBy(desc(contactImports.createdAt)).limit(20).all().map(jobView);
}

/** Uploads waiting for or being read by an import, one file per job (removed when the job ends). */
const uploadsDir = (ctx: AppContext) => join(ctx.config.dataDir, "imports");

/** At start: jobs a previous process left queued or running can never finish, and their uploads can go. */
export function failInterruptedImports(ctx: AppContext) {
  rmSync(uploadsDir(ctx), { recursive: true, force: true });
  ctx.db
    .update(contactImports)
    .set({ state: "failed", error: "The server restarted while this import was running. Contacts imported before the restart were kept; please upload the file again to import the rest.", finishedAt: new Date(ctx.now()) })
    .where(inArray(contactImports.state, ["queued", "running"]))
    .run();
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
      sink.write(chunk);
    }
  } finally {
    await sink.end();
  }
  return { blank };
}

/**
 * Receives a CSV upload, a text/csv body or the `file` field of a multipart form, into a file of its own under
 * the data folder: a body is streamed there as it arrives, so a large upload is never held in memory. Answers
 * the file's path; 400 for a missing or blank file, 413 over 100 MB.
 */
export async function receiveCsvUpload(ctx: AppContext, request: Request): Promise<string> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_CSV_BYTES) throw new HttpError(413, TOO_LARGE);
  let body: AsyncIterable<Uint8Array> | null = request.body;
  if ((request.headers.get("content-type") ?? "").includes("multipart/form-data")) {
    const form = await request.formData().catch(() => null);
    const file = form?.get("file");
    if (!file || typeof file === "string") throw badRequest("Please select a CSV file");
    body = file.stream();
  }
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

/**
 * Queues an import of an uploaded CSV file (receiveCsvUpload; the job removes it when done, as does a
 * refusal here) and runs it in the background; answers its id at once.
 */
export function startCsvImport(ctx: AppContext, userId: string, path: string): string {
  const running = and(eq(contactImports.userId, userId), inArray(contactImports.state, ["queued", "running"]));
  const busy = ctx.db.select({ id: contactImports.id }).from(contactImports).where(running).get();
  if (busy) {
    rmSync(path, { force: true });
    throw conflict("An import is already running. Please wait for it to finish.", { importId: busy.id });
  }
  const id = Bun.randomUUIDv7();
  ctx.db.insert(contactImports).values({ id, userId, state: "queued", createdAt: new Date(ctx.now()) }).run();
  setTimeout(() => {
    runCsvImport(ctx, userId, id, path)
      .catch((err) => {
        ctx.log(`import ${id} failed: ${(err as Error)?.stack ?? err}`);
        finish(ctx, id, { state: "failed", error: err instanceof HttpError ? err.message : "The import failed unexpectedly." });
      })
      .finally(() => rmSync(path, { force: true }));
  }, 0);
  return id;
}

function finish(ctx: AppContext, id: string, patch: Partial<typeof contactImports.$inferInsert>) {
  ctx.db.update(contactImports).set({ ...patch, finishedAt: new Date(ctx.now()) }).where(eq(contactImports.id, id)).run();
}

async function runCsvImport(ctx: AppContext, userId: string, id: string, path: string) {
  const importer = new ContactImporter(ctx, userId);
  ctx.db.update(contactImports).set({ state: "running" }).where(eq(contactImports.id, id)).run();
  const save = (progress: number) => {
    const r = importer.results();
    ctx.db
      .update(contactImports)
      .set({ rowsRead: r.rowsRead, created: r.created, updated: r.updated, duplicates: r.duplicates, invalid: r.invalid, errors: r.errors, progress })
      .where(eq(contactImports.id, id))
      .run();
  };
  const release = beginBulkWrites(ctx.db.$client);
  try {
    for await (const { batch, progress } of preparedBatches(path, importer.region, { log: ctx.log })) {
      importer.store(batch);
      save(Math.min(99, Math.floor(progress * 100)));
      // Let requests and timers run between transactions: the next batch is often already waiting.
      await new Promise((r) => setTimeout(r, 0));
    }
  } finally {
    release();
  }
  save(100);
  finish(ctx, id, { state: "done", progress: 100 });
}
