// Tag segments over a million contacts (issue 29 item 3): a segment's count and first page by tag (eq and contains),
// as json_each over every contact's tags read them before migration 0064 and from contact_tags now, with the same
// results checked. One account's contacts from search-data.ts (1% vip, 30% newsletter, 60% customer).
//   bun scripts/bench/tag-segments.ts [contacts=1000000]
import { sql, type SQL } from "drizzle-orm";
import { contacts } from "../../db/schema";
import { loadConfig } from "../../src/config";
import { listContacts } from "../../src/contacts/contacts";
import { countTagged } from "../../src/contacts/filter-fields";
import { countContactsWhere } from "../../src/contacts/stats";
import { compileConditions } from "../../src/segments/conditions";
import { openAppContext } from "../../src/server";
import { benchData } from "./search-data";

const n = Number(process.argv[2] ?? 1_000_000);
const data = await benchData(n, 0);
const ctx = await openAppContext(loadConfig({ DATA_DIR: data.dir }, []), () => {});
const before = (op: string, tag: string): SQL =>
  op === "eq"
    ? sql`EXISTS (SELECT 1 FROM json_each(${contacts.tags}) WHERE value = ${tag})`
    : sql`EXISTS (SELECT 1 FROM json_each(${contacts.tags}) WHERE instr(lower(value), lower(${tag})) > 0)`;
const timeAsync = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const runs: number[] = [];
  let out!: T;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    out = await f();
    runs.push(performance.now() - t);
  }
  return [out, runs.sort((a, b) => a - b)[2]!]; // the median of 5
};
const page = { page: 1, pageSize: 50, sort: "createdAt", order: "desc" } as const;
for (const [op, tag] of [["eq", "vip"], ["eq", "newsletter"], ["contains", "VI"], ["contains", "letter"], ["eq", "nobody"]] as const) {
  const now = compileConditions({ tags: { [op]: tag } }, Date.now(), data.userId, "sqlite");
  const counted = compileConditions({ tags: { [op]: tag } }, Date.now(), data.userId, "sqlite", true);
  const [c0, t0] = await timeAsync(() => countContactsWhere(ctx, data.userId, before(op, tag)));
  const [c1, t1] = await timeAsync(() => countContactsWhere(ctx, data.userId, counted, true));
  const [c2, t2] = await timeAsync(() => countTagged(ctx, data.userId, op, tag)); // a segment of this one condition
  const [p0, u0] = await timeAsync(() => listContacts(ctx, data.userId, page, before(op, tag)));
  const [p1, u1] = await timeAsync(() => listContacts(ctx, data.userId, page, now));
  const same = c0 === c1 && c0 === c2 && JSON.stringify(p0) === JSON.stringify(p1);
  console.log(
    `tags ${op} ${JSON.stringify(tag).padEnd(12)} count ${String(c1).padStart(7)}: before ${t0.toFixed(1).padStart(7)} ms, now ${t1.toFixed(1).padStart(6)} ms (alone in its segment ${t2.toFixed(1).padStart(6)} ms); first page before ${u0.toFixed(1).padStart(7)} ms, now ${u1.toFixed(1).padStart(6)} ms${same ? "" : "  RESULTS DIFFER"}`,
  );
}
ctx.db.$client.close();
process.exit(0);
