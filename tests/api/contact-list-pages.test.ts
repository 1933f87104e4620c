// The whole contact list's pages by number (issue 29 item 3): a page deeper than a saved position starts from it
// (src/contacts/list-marks.ts, every 5,000th row from the nearer end), and answers exactly what OFFSET answers, in
// every order, before and after the list changes (a contact added, removed, renamed, given another phone, an import's
// contacts and their names).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { deleteContact, listContacts } from "../../src/contacts/contacts";
import { markAhead } from "../../src/contacts/list-marks";
import { tagCondition, taggedFilter } from "../../src/contacts/filter-fields";
import { grantLicense } from "../../src/licenses/licenses";
import { nextTurn } from "../../src/time/next-turn";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
const ROWS = 12_000;

async function importCsv(lines: string[], during?: () => Promise<void>) {
  const start = await t.api("/api/contacts/import/csv", {
    method: "POST",
    token: a.token,
    body: `first_name,last_name,email,phone\n${lines.join("\n")}\n`,
    headers: { "content-type": "text/csv" },
  });
  expect(start.status).toBe(202);
  for (let i = 0; i < 1000; i++) {
    const job = (await t.api(`/api/contacts/import/${start.body.id}`, { token: a.token })).body;
    if (job.state === "done") return;
    await during?.();
    await Bun.sleep(10);
  }
  throw new Error("the import did not finish");
}

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  await grantLicense(t.ctx, a.user.id, "enterprise", 30);
  // Names and phones in another order than the rows': i scrambled (7,919 is prime to 12,000).
  await importCsv(
    Array.from({ length: ROWS }, (_, i) => {
      const k = (i * 7919) % ROWS;
      return `${["Ann", "Bob", "Émile", "zoë", "Łukasz"][k % 5]},L${String(k).padStart(5, "0")},,+1 212 55${5 + Math.floor(k / 10_000)} ${String(k % 10_000).padStart(4, "0")}`;
    }),
  );
});
afterAll(() => t?.stop());

type Sort = "createdAt" | "name" | "phone";
/** Page `page` as OFFSET reads it, straight from the tables. */
function expected(sort: Sort, order: "asc" | "desc", page: number): string[] {
  const dir = order.toUpperCase();
  const sql =
    sort === "name"
      ? `SELECT c.id FROM contact_names AS n CROSS JOIN contacts AS c ON c.rowid = n.contact_rowid WHERE n.user_id = ?1 ORDER BY n.name_key ${dir}, n.contact_rowid ${dir}`
      : `SELECT id FROM contacts WHERE user_id = ?1 ORDER BY ${sort === "phone" ? "phone" : "created_at"} ${dir}, rowid ${dir}`;
  return (t.ctx.db.$client.query(`${sql} LIMIT 50 OFFSET ${(page - 1) * 50}`).all(a.user.id) as { id: string }[]).map((x) => x.id);
}

const total = () => (t.ctx.db.$client.query("SELECT count(*) AS n FROM contacts WHERE user_id = ?").get(a.user.id) as { n: number }).n;

/** Pages near both ends, and deeper than a mark from either end (pages 101-140 of 240 lie 5,000 rows from both). */
async function checkPages(pages = [1, 2, 101, 102, 120, 139, 140, 200, Math.ceil(total() / 50)]) {
  const n = total();
  for (const sort of ["createdAt", "name", "phone"] as const) {
    for (const order of ["asc", "desc"] as const) {
      for (const page of pages) {
        const r = await t.api(`/api/contacts?sort=${sort}&order=${order}&page=${page}&pageSize=50`, { token: a.token });
        expect(r.status).toBe(200);
        expect({ sort, order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({ sort, order, page, ids: expected(sort, order, page) });
        expect({ total: r.body.total, totalCapped: r.body.totalCapped }).toEqual({ total: n, totalCapped: false });
      }
    }
  }
}

test("every order's pages, deep or not, are OFFSET's, and again when asked a second time (from the marks)", async () => {
  await checkPages();
  await checkPages();
  // Past the last page: nothing, with the total.
  const past = await t.api(`/api/contacts?sort=name&order=desc&page=${ROWS / 50 + 1}&pageSize=50`, { token: a.token });
  expect({ rows: past.body.data.length, total: past.body.total }).toEqual({ rows: 0, total: ROWS });
}, 120_000);

test("after a contact is added, removed, renamed or given another phone, the pages follow", async () => {
  await checkPages([120]);
  const added = await t.api("/api/contacts", { method: "POST", token: a.token, body: { firstName: "Aaron", lastName: "Aardvark", phone: "+16465559999" } });
  expect(added.status).toBe(201);
  await checkPages([102, 120, 139]);
  const first = expected("name", "asc", 1)[1]!;
  expect((await t.api(`/api/contacts/${first}`, { method: "DELETE", token: a.token })).status).toBe(200);
  await checkPages([102, 120, 139]);
  // A rename to the end of the name order, and a phone to the end of the phone order, of a contact near the start.
  const [renamed, rephoned] = expected("name", "asc", 2);
  const put = async (id: string, body: object) => {
    const c = (await t.api(`/api/contacts/${id}`, { token: a.token })).body;
    const r = await t.api(`/api/contacts/${id}`, { method: "PUT", token: a.token, body: { firstName: c.firstName, lastName: c.lastName, phone: c.phone, ...body } });
    expect(r.status).toBe(200);
  };
  await put(renamed!, { firstName: "Zzz" });
  await checkPages([102, 120, 139]);
  await put(rephoned!, { phone: "+17185550001" });
  await checkPages([102, 120, 139]);
}, 120_000);

test("an import's contacts and their names, added after them, move the pages too, while it runs and after", async () => {
  await checkPages([120]);
  // Names before every other, asked for deep pages while the import adds them.
  const deep = async () => {
    for (const sort of ["name", "createdAt"]) expect((await t.api(`/api/contacts?sort=${sort}&order=asc&page=120&pageSize=50`, { token: a.token })).status).toBe(200);
  };
  await importCsv(
    Array.from({ length: 3000 }, (_, i) => `Aa${String(i).padStart(4, "0")},Early,,+1 646 555 ${String(i).padStart(4, "0")}`),
    deep,
  );
  await checkPages([101, 120, 140, 180]);
}, 120_000);

test("a delete begun while a page is read never lands inside it: the page answers its rows and total as before the delete, or as after it", async () => {
  // A deep page (from the marks), a search's page and a tag segment's page, each with the delete of one of its rows
  // begun in the same turn: the page's total, rowids and rows are read in one transaction, which the delete waits for
  // (or, if its turn came first, the page is read after it). Read in turns of their own, the total came before the
  // delete and the rowids after it.
  const tagged = await t.api("/api/contacts/bulk-tag", { method: "POST", token: a.token, body: { contactIds: expected("createdAt", "desc", 1).slice(0, 5), tags: ["race"] } });
  expect(tagged.body).toEqual({ updated: 5 });
  const deep = { page: 120, pageSize: 50, sort: "name", order: "asc" } as const;
  const race = await taggedFilter(t.ctx, a.user.id, "eq", "race");
  const cases: [string, () => ReturnType<typeof listContacts>][] = [
    ["deep page", () => listContacts(t.ctx, a.user.id, deep)],
    ["search", () => listContacts(t.ctx, a.user.id, { ...deep, page: 2, q: "Bob" })],
    // As a segment of the one tag lists it (segments.ts segmentContacts).
    ["tag", () => listContacts(t.ctx, a.user.id, { page: 1, pageSize: 50, sort: "createdAt", order: "desc" }, tagCondition(t.ctx.records.$engine, a.user.id, "eq", "race"), race)],
  ];
  const whole = (name: string, p: Awaited<ReturnType<typeof listContacts>>) => ({ name, ids: p.data.map((c) => c.id), total: p.total });
  for (const [name, read] of cases) {
    const before = await read();
    const victim = before.data[1]!.id;
    // A turn of its own, as a request's: the last delete's records let go (db/transaction.ts ready) hold no
    // transaction back, so the page's usually begins at once and the delete waits for it.
    await nextTurn();
    const reading = read();
    const deleting = deleteContact(t.ctx, a.user.id, victim);
    const [page] = await Promise.all([reading, deleting]);
    const after = await read();
    expect({ name, has: after.data.some((c) => c.id === victim), total: after.total }).toEqual({ name, has: false, total: before.total - 1 });
    expect([whole(name, before), whole(name, after)]).toContainEqual(whole(name, page));
  }
});

test("a deep page's marks are made a few at a time, other work running between, and the page is OFFSET's", async () => {
  // 50,000 contacts more (their names added by the triggers): page 601 by name, 30,000 rows from the start and
  // fewer than from the end, starts from the sixth mark, more than markAhead makes in one turn.
  const db = t.ctx.db.$client;
  const insert = db.prepare("INSERT INTO contacts (id, user_id, first_name, last_name, phone, source) VALUES (?, ?, ?, ?, ?, 'manual')");
  db.transaction(() => {
    for (let i = 0; i < 50_000; i++) insert.run(Bun.randomUUIDv7(), a.user.id, ["Cy", "Dee"][i % 2]!, `M${(i * 7919) % 50_000}`, `+1646${String(1_000_000 + i)}`);
  })();
  expect(total()).toBeGreaterThan(60_050);
  let ranBetween = false;
  let making = true;
  setImmediate(() => (ranBetween = making));
  const page = { page: 601, pageSize: 50, sort: "name", order: "asc" } as const;
  await markAhead(t.ctx, a.user.id, page);
  making = false;
  expect(ranBetween).toBe(true);
  expect((await listContacts(t.ctx, a.user.id, page)).data.map((c) => c.id)).toEqual(expected("name", "asc", 601));
  await checkPages([1, 600, 601, 602, Math.ceil(total() / 50) - 601, Math.ceil(total() / 50)]);
}, 120_000);
