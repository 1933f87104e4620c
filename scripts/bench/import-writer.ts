// The import's writer alone (issue 17): bun scripts/bench/import-writer.ts [rows=1000000] [rows per transaction=10000]
// Parses the import benchmark's diverse file (import-data.ts) into prepared batches first (timed: the parsing and
// validation rate of one thread), then times only ContactImporter.store over them on a fresh app database, split by
// statement, with the commits and the checkpoints apart: where a row's time goes in SQLite. The checkpoints run on
// this thread every 20,000 rows (the import has them on another) and are left out of the writer's time.
// Variants, to find what a part costs: NOTRIG=1 drops the per-row triggers on contacts, NOFTS=1 leaves the search
// index out, NONAME=1 drops the name index, CACHE_MB sets the page cache, MMAP_MB memory-maps the file, FTS_AUTOMERGE
// sets the search index's automerge, PAGE_SIZE the new database's page size, FILE_ORDER=1 stores the rows in the file's order,
// WINDOW the rows sorted by phone together.
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { csvBatches, fileChunks } from "../../src/contacts/csv-stream";
import { inPhoneOrder, ORDER_WINDOW } from "../../src/contacts/import-order";
import { packBatch } from "../../src/contacts/prepare";
import { beginBulkWrites, ContactImporter } from "../../src/contacts/importer";
import type { PackedBatch } from "../../src/contacts/prepare";
import { grantLicense } from "../../src/licenses/licenses";
import { openAppContext } from "../../src/server";
import { diverseContacts, MAPPING } from "./import-data";

const N = Number(process.argv[2] ?? 1_000_000);
const SLICE = Number(process.argv[3] ?? 0);

const dir = mkdtempSync(join(tmpdir(), "smsdesk-writer-"));
const csvPath = join(dir, "contacts.csv");
{
  const { lines } = diverseContacts(N);
  writeFileSync(csvPath, lines.join("\r\n") + "\r\n");
}
let t0 = performance.now();
const batches: PackedBatch[] = [];
// In phone order a window at a time, as the import hands rows to its writer (import-order.ts); FILE_ORDER=1: the file's.
const sortable = process.env.FILE_ORDER ? 0 : Number.POSITIVE_INFINITY;
// WINDOW=n: rows sorted by phone n at a time (the import's ORDER_WINDOW otherwise).
const window = Number(process.env.WINDOW || ORDER_WINDOW);
const parse = { region: "US" as const, mapping: MAPPING as never, sortable };
for await (const { batch } of inPhoneOrder(csvBatches(fileChunks(csvPath), Bun.file(csvPath).size, parse), sortable, window)) batches.push(packBatch(batch));
const parseSecs = (performance.now() - t0) / 1000;

if (process.env.PAGE_SIZE) {
  // A fresh database takes its page size from its first write: the WAL switch writes the header.
  mkdirSync(join(dir, "data"), { recursive: true });
  const fresh = new Database(join(dir, "data", "smsdesk.db"));
  fresh.exec(`PRAGMA page_size = ${Number(process.env.PAGE_SIZE)}`);
  fresh.exec("PRAGMA journal_mode = WAL");
  fresh.close();
}
const ctx = await openAppContext(loadConfig({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: join(dir, "data") }, []), () => {});
const userId = Bun.randomUUIDv7();
ctx.db.$client.run("INSERT INTO users (id, email, email_verified) VALUES (?, 'w@example.com', 1)", [userId]);
await grantLicense(ctx, userId, "enterprise", 30);

const importer = await ContactImporter.open(ctx, userId, { detailDuplicates: true, region: "US" });
// Each statement the writer runs, timed where it is called.
const spent = new Map<string, number>();
const wrap = (name: string, field: string, method: "all" | "run" | "get") => {
  const stmt = (importer as any)[field];
  const orig = stmt[method].bind(stmt);
  stmt[method] = (...args: unknown[]) => {
    const a = performance.now();
    try {
      return orig(...args);
    } finally {
      spent.set(name, (spent.get(name) ?? 0) + performance.now() - a);
    }
  };
};
wrap("insert contacts", "insert", "run");
wrap("insert consents", "consents", "run");
wrap("insert consents", "someConsents", "run");
wrap("search index", "index", "run");
const sql = ctx.db.$client;
if (process.env.NOTRIG) sql.exec("DROP TRIGGER contact_totals_ai; DROP TRIGGER contact_rollups_insert");
if (process.env.NONAME) sql.exec("DROP INDEX contacts_user_name_idx");
if (process.env.NOFTS) (importer as any).index = { run: () => {} };
const release = await beginBulkWrites(ctx.db);
sql.exec("PRAGMA wal_autocheckpoint = 0");
if (process.env.FTS_AUTOMERGE) sql.run(`INSERT INTO contacts_fts(contacts_fts, rank) VALUES ('automerge', ${Number(process.env.FTS_AUTOMERGE)})`);
if (process.env.MMAP_MB) sql.exec(`PRAGMA mmap_size = ${Number(process.env.MMAP_MB) * 1048576}`);
if (process.env.CACHE_MB) sql.exec(`PRAGMA cache_size = -${Number(process.env.CACHE_MB) * 1024}`);
// Commits timed apart from the transaction's body.
const transaction = sql.transaction.bind(sql);
(sql as any).transaction = (fn: () => void) => {
  const inner = () => {
    const a = performance.now();
    fn();
    spent.set("body", (spent.get("body") ?? 0) + performance.now() - a);
  };
  return transaction(inner);
};
let transactions = 0;
let longest = 0;
let checkpointed = 0;
let checkpointMs = 0;
/** Bytes this process wrote with write calls (the log's frames, the checkpoints' pages). */
const written = () => Number(/wchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? 0);
const written0 = written();
t0 = performance.now();
const cpu0 = process.cpuUsage();
for (const b of batches) {
  const step = SLICE || b.lines.length;
  for (let s = 0; s < b.lines.length; s += step) {
    const a = performance.now();
    await importer.store(b, s, Math.min(b.lines.length, s + step));
    longest = Math.max(longest, performance.now() - a);
    transactions++;
    // Checkpoints as the import asks them (on another thread there), timed apart.
    if (transactions * step >= checkpointed + 20_000) {
      const c = performance.now();
      sql.exec("PRAGMA wal_checkpoint(PASSIVE)");
      checkpointed = transactions * step;
      checkpointMs += performance.now() - c;
    }
  }
}
const secs = (performance.now() - t0 - checkpointMs) / 1000;
const cpu = process.cpuUsage(cpu0);
const wrote = written() - written0;
await release();
const r = importer.results();
const us = (ms: number) => ((ms * 1000) / N).toFixed(1);
console.log(`rows ${N.toLocaleString()}, ${transactions} transactions of ${SLICE || "10,000"} rows; created ${r.created}, duplicates ${r.duplicates}, invalid ${r.invalid}`);
console.log(`parse + validate (one thread, before): ${parseSecs.toFixed(1)} s, ${Math.round(N / parseSecs).toLocaleString()} rows/s`);
console.log(`writer: ${secs.toFixed(1)} s, ${Math.round(N / secs).toLocaleString()} rows/s; ${us(secs * 1000)} us a row (CPU ${((cpu.user + cpu.system) / N).toFixed(1)} us, kernel ${(cpu.system / N).toFixed(1)} us); longest transaction ${longest.toFixed(0)} ms`);
const body = spent.get("body") ?? 0;
spent.delete("body");
let named = 0;
for (const [k, ms] of spent) {
  named += ms;
  console.log(`  ${k.padEnd(28)} ${us(ms)} us a row`);
}
console.log(`  ${"rest of the body (event...)".padEnd(28)} ${us(body - named)} us a row`);
console.log(`  ${"begin and commit".padEnd(28)} ${us(secs * 1000 - body)} us a row`);
console.log(`  ${"checkpoints (not counted)".padEnd(28)} ${us(checkpointMs)} us a row`);
console.log(`written ${(wrote / 1e9).toFixed(2)} GB (${(wrote / N / 1024).toFixed(1)} KB a row, checkpoints included)`);
console.log(`page size ${sql.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size} bytes`);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
ctx.db.$client.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
