// The search index alone (issue 29 item 1): what building contacts_fts (FTS5 trigram, contentless) costs a row, by
// rows per transaction: bun scripts/bench/fts-build.ts [rows=1000000] [rows per transaction...=500 2000]
// AUTOMERGE (default 8, as during an import), CRISIS (crisismerge), PGSZ set the index's options. The bodies are
// import-data.ts's plain rows as the importer indexes them; a checkpoint every 20,000 rows; then the merge down to
// what automerge 4 leaves (csv-import.ts mergeDown). It answers whether writing the index in bulk, after the
// contacts, would pay: at a load average of 9-12 on 2 cores, 300,000 rows, CPU a row on this thread: 500 a
// transaction 13.4 us, 2,000 10.6, 8,000 9.1 (automerge 8); 550 12.1, 1,500 10.6 (automerge 8); 550 10.3, 1,500 9.1
// (automerge 16, crisismerge 64, but a longer merge down: 2.8-3.8 s against 1.0-3.8). So the floor, tokenizing and
// writing the trigrams, is about 9 us a row: building the index in larger transactions would save about 3-4 us of
// the main thread's ~40 a row.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { plainContacts } from "./import-data";

const N = Number(process.argv[2] ?? 1_000_000);
const sizes = process.argv.slice(3).map(Number);
const automerge = Number(process.env.AUTOMERGE ?? 8);
const { rows } = plainContacts(N);
for (const per of sizes.length ? sizes : [500, 2000]) {
  const dir = mkdtempSync(join(tmpdir(), "fts-"));
  const db = new Database(join(dir, "x.db"));
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 0");
  db.exec("CREATE TABLE c (rowid INTEGER PRIMARY KEY, body TEXT)");
  db.exec("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='trigram remove_diacritics 1', content='', contentless_delete=1)");
  if (process.env.PGSZ) db.run(`INSERT INTO f(f, rank) VALUES ('pgsz', ${Number(process.env.PGSZ)})`);
  db.run(`INSERT INTO f(f, rank) VALUES ('automerge', ${automerge})`);
  if (process.env.CRISIS) db.run(`INSERT INTO f(f, rank) VALUES ('crisismerge', ${Number(process.env.CRISIS)})`);
  const ins = db.prepare("INSERT INTO c (rowid, body) SELECT value ->> 0, value ->> 1 FROM json_each(?)");
  const B = 10000;
  db.transaction(() => {
    for (let i = 0; i < N; i += B) ins.run(JSON.stringify(rows.slice(i, i + B).map((r, k) => [i + k + 1, `${r[0]} ${r[1]} ${r[2]} ${r[3].replace(/\D/g, "")}`])));
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const idx = db.prepare("INSERT INTO f(rowid, body) SELECT rowid, body FROM c WHERE rowid BETWEEN ? AND ?");
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let longest = 0, cps = 0;
  for (let i = 1; i <= N; i += per) {
    const a = performance.now();
    db.transaction(() => idx.run(i, i + per - 1))();
    longest = Math.max(longest, performance.now() - a);
    if (Math.floor(i / 20000) !== Math.floor((i + per) / 20000)) { const c = performance.now(); db.exec("PRAGMA wal_checkpoint(PASSIVE)"); cps += performance.now() - c; }
  }
  const build = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // merge down to what automerge 4 leaves
  db.run("INSERT INTO f(f, rank) VALUES ('automerge', 4)");
  const m0 = performance.now();
  let steps = 0;
  for (;;) { const before = db.query("SELECT total_changes() n").get() as any; db.run("INSERT INTO f(f, rank) VALUES ('merge', 500)"); steps++; if ((db.query("SELECT total_changes() n").get() as any).n - before.n < 2) break; }
  const merge = performance.now() - m0;
  const segs = (db.query("SELECT count(*) n FROM f_data").get() as any).n;
  console.log(`per ${per}: build ${(build / 1000).toFixed(1)} s wall (checkpoints ${(cps / 1000).toFixed(1)}), CPU ${((cpu.user + cpu.system) / N).toFixed(1)} us/row (kernel ${(cpu.system / N).toFixed(1)}), longest ${longest.toFixed(0)} ms; merge down ${(merge / 1000).toFixed(1)} s in ${steps} steps; f_data rows ${segs}; load ${loadavg()[0]!.toFixed(1)}`);
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
