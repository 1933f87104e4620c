// What serving the records' drizzle statements on PostgreSQL costs over Bun.sql itself (issue 31 item 1,
// db/postgres/records-db.ts): the same point select by primary key and the same single-row insert, one after the
// other on one connection, through the records' PostgreSQL driver (drizzle's SQLite builder, the statement's text
// translated, rows mapped to values) and through Bun.sql with the statement written by hand. The records' select is
// measured twice: built by drizzle on every call (what most records do, on SQLite as well: drizzle's builder costs
// the same on either engine) and prepared once (db/prepared.ts, as the hot paths do), which leaves the driver's own
// cost. Alternated rounds; prints operations per second and the ratio records / Bun.sql (1.0: costs nothing).
//
//   node_modules/.bin/bun scripts/bench/pg-records.ts [operations per round, default 3000]
//   (SMSDESK_TEST_POSTGRES=postgres://user@host:port names another server; 127.0.0.1:5432 by default)
import { SQL } from "bun";
import { eq, sql } from "drizzle-orm";
import { migratePostgres } from "../../db/postgres/migrate";
import { openPostgresRecords } from "../../db/postgres/records-db";
import { templates, users } from "../../db/schema";
import { throwawayDatabase } from "../../tests/support/postgres";

const N = Number(process.argv[2] ?? 3000);
const pg = await throwawayDatabase();
await migratePostgres(pg.sql);
const one = new SQL(pg.url, { max: 1 });
const records = openPostgresRecords(one);
await records.db.insert(users).values({ id: "u1", email: "u1@example.com", passwordHash: "x" });
await records.db.insert(templates).values({ id: "t1", userId: "u1", name: "Welcome", category: "retail", content: "Hi" });

const rate = async (work: (i: number) => Promise<unknown>) => {
  const t = performance.now();
  for (let i = 0; i < N; i++) await work(i);
  return (N * 1000) / (performance.now() - t);
};
const prepared = records.db.select().from(templates).where(eq(templates.id, sql.placeholder("id"))).prepare();
const select = {
  prepared: () => prepared.get({ id: "t1" }),
  records: () => records.db.select().from(templates).where(eq(templates.id, "t1")).get(),
  raw: () => one.unsafe("select * from templates where id = $1", ["t1"]),
};
let k = 0;
const insert = {
  records: () => records.db.insert(templates).values({ id: `r${k++}`, userId: "u1", name: "n", category: "retail", content: "c" }),
  raw: () =>
    one.unsafe("insert into templates (id, user_id, name, category, content, usage_count, created_at) values ($1, $2, $3, $4, $5, 0, $6)", [
      `b${k++}`, "u1", "n", "retail", "c", Date.now(),
    ]),
};
const best = new Map<string, number>();
for (let round = 0; round < 3; round++)
  for (const [kind, ways] of [["select", select], ["insert", insert]] as [string, Record<string, () => Promise<unknown>>][]) {
    const order = Object.entries(ways);
    for (const [who, work] of round % 2 ? order.reverse() : order)
      best.set(`${kind} ${who}`, Math.max(best.get(`${kind} ${who}`) ?? 0, await rate(work)));
  }
const line = (kind: string, who: string) => {
  const [mine, raw] = [best.get(`${kind} ${who}`)!, best.get(`${kind} raw`)!];
  return `${kind}s/s ${who.padEnd(9)} ${mine.toFixed(0).padStart(6)} / Bun.sql ${raw.toFixed(0).padStart(6)} = ${(mine / raw).toFixed(2)}`;
};
console.log(line("select", "records"));
console.log(line("select", "prepared"));
console.log(line("insert", "records"));
await one.close();
await pg.drop();
