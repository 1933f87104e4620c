// What marking MMS costs when a campaign's rows are written (issue 33, migration 0070): bun scripts/bench/mms-mark.ts
// [messages=100000]. A migrated in-memory database takes N queued campaign messages and a link of each to the
// campaign's one picture (message_media), 1,000 per transaction, three ways: without the trigger message_mms_linked
// (the cost before 0070), with it marking each row as its link is written (an UPDATE per row), and with the row
// marked as it is inserted (src/messages/outbox.ts enqueue: the trigger then finds nothing to change). CPU time, so
// the machine's load counts less; five rounds alternating, medians printed.
// Figures, 100,000 messages, 2 cores: at load 14.9 without 1,112 ms, trigger marking 1,418 ms (+27%), marked at
// insert 1,234 ms (+11%); at load 10.7 1,030, 1,377 (+34%), 1,214 (+18%). Rows and links only: the outbox writer's
// threads and events come on top of both.
import { cpus, loadavg } from "node:os";
import { migrateUpTo } from "../../db/client";

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = 5;

function run(trigger: boolean, markAtInsert: boolean): number {
  const db = migrateUpTo(Infinity);
  if (!trigger) db.exec("DROP TRIGGER message_mms_linked");
  db.exec(`INSERT INTO users (id, email) VALUES ('u', 'u@example.com'); INSERT INTO campaigns (id, user_id, name) VALUES ('k', 'u', 'K');
    INSERT INTO media (id, user_id, content_type, filename, size, status, held_by, created_at) VALUES ('f', 'u', 'image/jpeg', 'a.jpg', 1, 'stored', 'campaign:k', 0)`);
  const message = db.query(
    `INSERT INTO messages (id, user_id, campaign_id, phone, content, direction, status, kind, created_at, mms) VALUES (?, 'u', 'k', ?, 'hi', 'outbound', 'queued', 'campaign', 0, ?)`,
  );
  const link = db.query(`INSERT OR IGNORE INTO message_media (message_id, position, media_id) VALUES (?, 0, 'f')`);
  const start = process.cpuUsage();
  for (let c = 0; c < N; c += 1000) {
    db.transaction(() => {
      for (let i = c; i < Math.min(N, c + 1000); i++) {
        message.run(`m${i}`, `+1415${String(i).padStart(7, "0")}`, markAtInsert ? 1 : 0);
        link.run(`m${i}`);
      }
    })();
  }
  const used = process.cpuUsage(start);
  const marked = (db.query(`SELECT count(*) AS n FROM messages WHERE mms = 1`).get() as { n: number }).n;
  if (marked !== (trigger || markAtInsert ? N : 0)) throw new Error(`${marked} rows marked`);
  db.close();
  return (used.user + used.system) / 1000;
}

const runs = { without: [] as number[], trigger: [] as number[], atInsert: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  runs.without.push(run(false, false));
  runs.trigger.push(run(true, false));
  runs.atInsert.push(run(true, true));
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const [w, t, i] = [median(runs.without), median(runs.trigger), median(runs.atInsert)];
const more = (x: number) => `${Math.round((x / w - 1) * 100)}%`;
console.log(`${N} messages, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}, CPU ms (median of ${ROUNDS}):`);
console.log(`  without the trigger ${Math.round(w)}, trigger marking ${Math.round(t)} (+${more(t)}), marked at insert ${Math.round(i)} (+${more(i)})`);
