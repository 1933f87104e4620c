// What the order of an import's rows costs the app's schema (issue 17, src/contacts/import-order.ts):
// bun scripts/bench/import-order.ts [rows=1000000] [rows per transaction=500]
// The import benchmark's diverse contacts (import-data.ts), phones in E.164, inserted by one bare prepared statement
// into a fresh database made by the app's migrations: in the file's order (the baseline), then sorted by phone, then
// sorted by name; rows per second and CPU a row, and each order's rate against the file order's.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { beginBulkWrites } from "../../src/contacts/importer";
import { normalizePhone } from "../../src/contacts/phones";
import { diverseContacts } from "./import-data";

const N = Number(process.argv[2] ?? 1_000_000);
const TX = Number(process.argv[3] ?? 500);
type Row = readonly [string, string, string, string];
const fileOrder = diverseContacts(N)
  .rows.map((r) => [r[0], r[1], r[2], normalizePhone(r[3], "US") ?? ""] as const)
  .filter((r): r is Row => !!r[3]);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

async function insertAll(data: readonly Row[]) {
  const dir = mkdtempSync(join(tmpdir(), "smsdesk-order-"));
  const connection = openDatabase(join(dir, "b.db"));
  const db = connection.$client;
  const owner = Bun.randomUUIDv7();
  db.run("INSERT INTO users (id, email) VALUES (?, 'o@example.com')", [owner]);
  await beginBulkWrites(connection);
  // As import.ts's bare-insert baseline: the connection's own checkpoint every 128 MB of log.
  db.exec("PRAGMA wal_autocheckpoint = 32768");
  const ins = db.prepare("INSERT OR IGNORE INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, ?, ?, ?, ?, ?, 'import')");
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < data.length; i += TX) {
    db.transaction(() => {
      for (let j = i; j < Math.min(data.length, i + TX); j++) ins.run(Bun.randomUUIDv7(), owner, ...data[j]!);
    })();
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { rate: data.length / secs, secs, cpuUs: (cpu.user + cpu.system) / data.length, kernel: cpu.system / 1e6 };
}

const f = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`${f(fileOrder.length)} valid rows, ${f(TX)} a transaction`);
let baseline = 0;
for (const [order, data] of [
  ["file", fileOrder],
  ["phone", [...fileOrder].sort((a, b) => cmp(a[3], b[3]))],
  ["name", [...fileOrder].sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]))],
] as const) {
  const r = await insertAll(data);
  baseline ||= r.rate;
  console.log(`${order.padEnd(6)} ${f(r.rate)} rows/s (${(r.rate / baseline).toFixed(2)}x the file order), ${r.secs.toFixed(1)} s, CPU ${r.cpuUs.toFixed(1)} us a row (${r.kernel.toFixed(1)} s in the kernel)`);
}
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
