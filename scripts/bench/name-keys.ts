// Migration 0052 (issue 28 item 5) on a database of N contacts: bun scripts/bench/name-keys.ts [contacts=200000]
// Builds the database as the version before it left it (every earlier migration; the benchmark's diverse contacts
// with their rows of contact_names and of the search index as that version's triggers wrote them), then times what the
// first start after the upgrade does: the migration itself (openDatabase), and the keys written in JavaScript
// (keyEarlierNames) before the server answers.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { withTransaction } from "../../db/transaction";
import { migrationJournal, migrationSql } from "../../db/migrations/embedded";
import type { AppContext } from "../../src/context";
import { keyEarlierNames } from "../../src/contacts/name-order";
import { diverseContacts } from "./import-data";

const N = Number(process.argv[2] ?? 200_000);
const TAG = "0052_contact_name_keys";
const dir = mkdtempSync(join(tmpdir(), "smsdesk-name-keys-"));
const path = join(dir, "smsdesk.db");
try {
  const old = new Database(path, { create: true });
  old.exec("PRAGMA journal_mode = WAL");
  old.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  for (const entry of migrationJournal.entries.slice(0, migrationJournal.entries.findIndex((e) => e.tag === TAG))) {
    for (const statement of migrationSql[entry.tag]!.split("--> statement-breakpoint")) if (statement.trim()) old.exec(statement);
    old.query("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('x', ?)").run(entry.when);
  }
  old.run("INSERT INTO users (id, email) VALUES ('u-1', 'owner@example.com')");
  const { rows } = diverseContacts(N);
  const insert = old.prepare("INSERT OR IGNORE INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, 'u-1', ?, ?, ?, ?, 'manual')");
  let t0 = performance.now();
  old.transaction(() => {
    for (const [first, last, email, phone] of rows) insert.run(Bun.randomUUIDv7(), first, last, email, `+1${phone.replace(/\D/g, "").slice(-10)}`);
  })();
  const stored = (old.query("SELECT count(*) AS n FROM contacts").get() as { n: number }).n;
  old.close();
  console.log(`${stored.toLocaleString()} contacts stored as the version before ${TAG} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  // CPU time besides wall time: on a machine shared with other work, the wall time says little.
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(since);
    return (u.user + u.system) / 1000;
  };
  t0 = performance.now();
  let cpu = process.cpuUsage();
  const db = openDatabase(path);
  const migrated = performance.now() - t0;
  const migratedCpu = cpuMs(cpu);
  const lines: string[] = [];
  t0 = performance.now();
  cpu = process.cpuUsage();
  await keyEarlierNames({ db, log: (l: string) => lines.push(l), withTransaction: <T>(fn: () => Promise<T>) => withTransaction(db, fn) } as unknown as AppContext);
  const keyed = performance.now() - t0;
  const keyedCpu = cpuMs(cpu);
  const named = (db.$client.query("SELECT count(*) AS n FROM contact_names").get() as { n: number }).n;
  const folded = (db.$client.query(`SELECT count(*) AS n FROM contacts_fts WHERE contacts_fts MATCH '"strasse" OR "oren" OR "lukasz"'`).get() as { n: number }).n;
  db.$client.close();
  console.log(`migration            ${migrated.toFixed(0)} ms (CPU ${migratedCpu.toFixed(0)} ms)`);
  console.log(`keys at start        ${keyed.toFixed(0)} ms, CPU ${keyedCpu.toFixed(0)} ms (${((keyedCpu * 1000) / stored).toFixed(1)} us of CPU a contact; ${named.toLocaleString()} rows of contact_names; ${folded.toLocaleString()} found by a folded search)`);
  console.log(`log                  ${lines.join(" | ")}`);
  console.log(`load average         ${loadavg().map((l) => l.toFixed(2)).join(" ")} (${navigator.hardwareConcurrency} cores)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
