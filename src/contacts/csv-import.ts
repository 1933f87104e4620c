import { and, desc, eq, inArray } from "drizzle-orm";
import Papa from "papaparse";
import { contactImports } from "../../db/schema";
import type { AppContext } from "../context";
import { conflict, HttpError, notFound } from "../http/errors";
import { ContactImporter, type ImportRow } from "./importer";

export const NO_PHONE_COLUMN = "No phone column found. Expected a header such as phone, phone_number or mobile.";
export const CHUNK_BYTES = 1 << 20; // about 20,000 rows per slice; the event loop runs between slices

type Field = "phone" | "email" | "firstName" | "lastName" | "name" | "tags";
const HEADERS: Record<string, Field> = {
  phone: "phone", phone_number: "phone", phonenumber: "phone", "phone number": "phone", mobile: "phone", mobile_number: "phone",
  "mobile number": "phone", mobilenumber: "phone", cell: "phone", cell_phone: "phone", "cell phone": "phone",
  email: "email", email_address: "email", "email address": "email", "e-mail": "email",
  first_name: "firstName", firstname: "firstName", "first name": "firstName",
  last_name: "lastName", lastname: "lastName", "last name": "lastName",
  name: "name", full_name: "name", "full name": "name", tags: "tags",
};

/** Column index of each known field; header names are matched case-insensitively, trimmed. */
export function mapHeader(header: string[]): Partial<Record<Field, number>> {
  const map: Partial<Record<Field, number>> = {};
  header.forEach((h, i) => {
    const f = HEADERS[h.replace(/^\uFEFF/, "").trim().toLowerCase().replace(/\s+/g, " ")];
    if (f && map[f] === undefined) map[f] = i;
  });
  return map;
}

export function toRow(cells: string[], m: Partial<Record<Field, number>>): ImportRow {
  const get = (f: Field) => (m[f] === undefined ? "" : (cells[m[f]!] ?? "").trim());
  let firstName = get("firstName");
  let lastName = get("lastName");
  const name = get("name");
  if (name && !firstName && !lastName) {
    const [first, ...rest] = name.split(/\s+/);
    firstName = first ?? "";
    lastName = rest.join(" ");
  }
  const tags = get("tags");
  return {
    phone: get("phone"),
    email: get("email"),
    firstName,
    lastName,
    tags: tags ? [...new Set(tags.split(/[,;|]/).map((t) => t.trim()).filter(Boolean))] : [],
  };
}

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

/** At start: jobs a previous process left queued or running can never finish. */
export function failInterruptedImports(ctx: AppContext) {
  ctx.db
    .update(contactImports)
    .set({ state: "failed", error: "The server restarted while this import was running. Contacts imported before the restart were kept; please upload the file again to import the rest.", finishedAt: new Date(ctx.now()) })
    .where(inArray(contactImports.state, ["queued", "running"]))
    .run();
}

/** Queues an import of a CSV text for a user and runs it in the background; answers its id at once. */
export function startCsvImport(ctx: AppContext, userId: string, text: string): string {
  const busy = ctx.db.select({ id: contactImports.id }).from(contactImports).where(and(eq(contactImports.userId, userId), inArray(contactImports.state, ["queued", "running"]))).get();
  if (busy) throw conflict("An import is already running. Please wait for it to finish.", { importId: busy.id });
  const id = Bun.randomUUIDv7();
  ctx.db.insert(contactImports).values({ id, userId, state: "queued", createdAt: new Date(ctx.now()) }).run();
  setTimeout(() => {
    runCsvImport(ctx, userId, id, text).catch((err) => {
      ctx.log(`import ${id} failed: ${(err as Error)?.stack ?? err}`);
      finish(ctx, id, { state: "failed", error: err instanceof HttpError ? err.message : "The import failed unexpectedly." });
    });
  }, 0);
  return id;
}

function finish(ctx: AppContext, id: string, patch: Partial<typeof contactImports.$inferInsert>) {
  ctx.db.update(contactImports).set({ ...patch, finishedAt: new Date(ctx.now()) }).where(eq(contactImports.id, id)).run();
}

async function runCsvImport(ctx: AppContext, userId: string, id: string, input: string) {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  ctx.db.update(contactImports).set({ state: "running" }).where(eq(contactImports.id, id)).run();
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = [",", ";", "\t"].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0]![0];
  let importer: ContactImporter | null = null;
  let header: Partial<Record<Field, number>> | null = null;
  let line = 1; // the header is line 1; each record after it is one line (records with quoted newlines count once)
  const save = (progress: number) => {
    if (!importer) return;
    const r = importer.results();
    ctx.db
      .update(contactImports)
      .set({ rowsRead: r.rowsRead, created: r.created, updated: r.updated, duplicates: r.duplicates, invalid: r.invalid, errors: r.errors, progress })
      .where(eq(contactImports.id, id))
      .run();
  };
  await new Promise<void>((resolve, reject) => {
    Papa.parse<string[]>(text, {
      delimiter,
      skipEmptyLines: "greedy",
      chunkSize: CHUNK_BYTES,
      chunk(results: Papa.ParseResult<string[]>, parser: Papa.Parser) {
        try {
          let rows = results.data;
          if (!header) {
            const head = rows[0] ?? [];
            header = mapHeader(head);
            rows = rows.slice(1);
            if (header.phone === undefined) {
              parser.abort();
              reject(new HttpError(400, NO_PHONE_COLUMN));
              return;
            }
            importer = new ContactImporter(ctx, userId);
          }
          const m = header;
          const batch = rows.map((cells: string[]) => toRow(cells, m));
          const lines = batch.map(() => ++line);
          for (let i = 0; i < batch.length; i += 10_000) importer!.addBatch(batch.slice(i, i + 10_000), lines.slice(i, i + 10_000));
          save(Math.min(99, Math.floor(((results.meta.cursor ?? 0) / Math.max(1, text.length)) * 100)));
          parser.pause();
          setTimeout(() => parser.resume(), 0);
        } catch (err) {
          parser.abort();
          reject(err);
        }
      },
      complete: () => resolve(),
      error: (err: Error) => reject(new HttpError(400, `The CSV file could not be read: ${err.message}`)),
    });
  });
  if (!header) throw new HttpError(400, "The CSV file is empty.");
  if (!importer) throw new HttpError(400, NO_PHONE_COLUMN);
  save(100);
  finish(ctx, id, { state: "done", progress: 100 });
}
