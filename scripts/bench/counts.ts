// Campaign counts benchmark (issue 17 item 6): bun scripts/bench/counts.ts
// The cost of migration 0019's triggers on the send path's writes: N campaign messages inserted, then marked
// sending, sent and delivered in 1,000-row transactions on the real schema (in memory), with and without the
// triggers, interleaved five times; the best of each in CPU time, which the other work on a shared machine
// disturbs less than the wall clock.
import { Database } from "bun:sqlite";
import { migrationJournal, migrationSql } from "../../db/migrations/embedded";
const N = 50_000;
function fresh(withTriggers: boolean) {
  const db = new Database(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  for (const e of migrationJournal.entries) for (const s of migrationSql[e.tag]!.split("--> statement-breakpoint")) db.exec(s);
  if (!withTriggers) for (const t of ["insert", "update", "delete"]) db.exec(`DROP TRIGGER campaign_message_counts_${t}`);
  db.exec(`INSERT INTO users (id, email, password_hash) VALUES ('u','u@x','x')`);
  db.exec(`INSERT INTO campaigns (id, user_id, name) VALUES ('c','u','c')`);
  return db;
}
function run(withTriggers: boolean) {
  const db = fresh(withTriggers);
  const ins = db.prepare(`INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind) VALUES (?, 'u', 'c', ?, 'Hi', 'outbound', 'queued', 'campaign')`);
  const up1 = db.prepare(`UPDATE messages SET status = 'sending', attempts = attempts + 1, updated_at = ? WHERE id = ?`);
  const up2 = db.prepare(`UPDATE messages SET status = 'sent', sent_at = ?, provider_message_id = ? WHERE id = ?`);
  const up3 = db.prepare(`UPDATE messages SET status = 'delivered', delivered_at = ? WHERE id = ?`);
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i += 1000) db.transaction(() => { for (let j = i; j < i + 1000; j++) ins.run(`m${j}`, `+1415${String(j).padStart(7, "0")}`); })();
  for (const st of [up1, up2, up3]) for (let i = 0; i < N; i += 1000) db.transaction(() => {
    for (let j = i; j < i + 1000; j++) st === up2 ? st.run(1, `p${j}`, `m${j}`) : st.run(1, `m${j}`);
  })();
  const u = process.cpuUsage(t0);
  const ms = (u.user + u.system) / 1000;
  const c = db.query(`SELECT status, n FROM campaign_message_counts`).all();
  db.close();
  return { ms, c };
}
const best = { on: Infinity, off: Infinity };
for (let r = 0; r < 5; r++) {
  const off = run(false), on = run(true);
  best.off = Math.min(best.off, off.ms); best.on = Math.min(best.on, on.ms);
  if (r === 0) console.log("counts kept:", JSON.stringify(on.c));
}
console.log(`insert + 3 status updates of ${N} messages, best of 5, CPU time: without triggers ${best.off.toFixed(0)} ms, with ${best.on.toFixed(0)} ms (+${((best.on / best.off - 1) * 100).toFixed(1)}%)`);
