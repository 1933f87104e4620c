import { afterAll, beforeAll, expect, test } from "bun:test";
import { compareKeys, foldName, nameKey } from "../../src/contacts/name-key";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

// A search in name order whose matches are mostly a few first names ("josie": the Josies and JOSIEs, one name
// folded) is sorted from those names' ranges of contact_names and from the other matches (a last name, an email); checked here against every
// stored row worked out the slow way, across pages and both orders. One account owns every contact, as the path needs.
let t: TestServer;
let a: Account;
const ROWS = 9_000;
const FIRST = ["Josie", "JOSIE", "Josephine", "José", "Amy", "Bob"];
type Stored = { rowid: number; id: string; first_name: string; last_name: string; email: string | null; phone_digits: string };
let stored: Stored[] = [];

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  const db = t.ctx.db.$client;
  const insert = db.prepare("INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, ?, ?, ?, ?, ?, 'manual')");
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const first = FIRST[i % FIRST.length]!;
      // Matches outside the clusters: a last name on every 40th row, an email on every 4th Bob.
      const last = i % 40 === 7 ? "Josiesson" : `L${(i * 7) % 17}`;
      const email = first === "Bob" && i % 4 === 1 ? `josie.fan${i}@example.com` : `u${i}@example.com`;
      insert.run(Bun.randomUUIDv7(), a.user.id, first, last, email, `+1212555${String(i).padStart(4, "0")}`);
    }
  })();
  stored = db.query("SELECT rowid, id, first_name, last_name, email, phone_digits FROM contacts WHERE user_id = ?").all(a.user.id) as Stored[];
});
afterAll(() => t?.stop());

const plain = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

function expected(q: string, order: "asc" | "desc") {
  const match = (c: Stored) => plain(`${c.first_name} ${c.last_name} ${c.email ?? ""} ${c.phone_digits}`).includes(plain(q));
  // The list's name order: the name key (first name then last, folded), ties in the order stored.
  const sign = order === "asc" ? 1 : -1;
  return stored.filter(match).sort((x, y) => sign * (compareKeys(nameKey(x.first_name, x.last_name), nameKey(y.first_name, y.last_name)) || x.rowid - y.rowid));
}

const cases: [string, "asc" | "desc", number][] = [
  ["josie", "asc", 1],
  ["josie", "asc", 2],
  ["josie", "desc", 1],
  ["josie", "desc", 40],
  ["JOSIE", "asc", 61],
  ["José", "asc", 1],
  ["jose", "desc", 1],
  ["jose", "asc", 31],
];
for (const [q, order, page] of cases) {
  test(`"${q}" by name ${order}, page ${page}: the same rows and total as a full scan`, async () => {
    const all = expected(q, order);
    expect(all.length).toBeGreaterThan(2_000);
    const r = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=name&order=${order}&page=${page}&pageSize=50`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual(all.slice((page - 1) * 50, page * 50).map((c) => c.id));
    expect(r.body.total).toBe(all.length);
  });
}

test("the rows of the clusters and the others meet on one page, in name order", async () => {
  // Josiesson's contacts are Amys and Bobs (after every Josie by first name), Bob's fans too: on the last page.
  const all = expected("josie", "asc");
  const last = Math.ceil(all.length / 50);
  const r = await t.api(`/api/contacts?q=josie&sort=name&order=asc&page=${last}&pageSize=50`, { token: a.token });
  const names = r.body.data.map((c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`);
  expect(new Set(names.map((n: string) => n.split(" ")[0]))).toEqual(new Set(all.slice((last - 1) * 50).map((c) => c.first_name)));
  expect(names).toEqual(all.slice((last - 1) * 50).map((c) => `${c.first_name} ${c.last_name}`));
});

// One or two letters in creation or phone order: a walk of that order keeps the contacts whose name key starts with
// the letters folded ("jo": every Josie, JOSIE, Josephine and José), stopping when the page is full.
const prefixCases: [string, "createdAt" | "phone", "asc" | "desc", number][] = [
  ["jo", "createdAt", "desc", 1],
  ["JO", "createdAt", "asc", 3],
  ["Jó", "phone", "asc", 2],
  ["b", "phone", "desc", 4],
];
for (const [q, sort, order, page] of prefixCases) {
  test(`"${q}" by ${sort} ${order}, page ${page}: the same rows and total as a full scan`, async () => {
    const byRow = new Map(
      (t.ctx.db.$client.query("SELECT rowid, created_at AS at, phone FROM contacts WHERE user_id = ?").all(a.user.id) as { rowid: number; at: number; phone: string }[]).map((r) => [r.rowid, r]),
    );
    const key = (c: Stored) => (sort === "phone" ? byRow.get(c.rowid)!.phone : byRow.get(c.rowid)!.at);
    const sign = order === "asc" ? 1 : -1;
    const all = stored
      .filter((c) => nameKey(c.first_name, c.last_name).startsWith(foldName(q)))
      .sort((x, y) => sign * (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : x.rowid - y.rowid));
    const r = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=${sort}&order=${order}&page=${page}&pageSize=50`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual(all.slice((page - 1) * 50, page * 50).map((c) => c.id));
    expect(r.body.total).toBe(all.length);
  });
}

// Pages of the whole list past its middle are read from the other end in the reverse order: the same rows.
test("pages past the middle, the last and one beyond it: the same rows as a full scan, in every order", async () => {
  const byRow = new Map(
    (t.ctx.db.$client.query("SELECT rowid, created_at AS at, phone FROM contacts WHERE user_id = ?").all(a.user.id) as { rowid: number; at: number; phone: string }[]).map((r) => [r.rowid, r]),
  );
  const keyOf = { createdAt: (c: Stored) => byRow.get(c.rowid)!.at, phone: (c: Stored) => byRow.get(c.rowid)!.phone, name: (c: Stored) => nameKey(c.first_name, c.last_name) };
  for (const sort of ["createdAt", "phone", "name"] as const) {
    for (const order of ["asc", "desc"] as const) {
      const sign = order === "asc" ? 1 : -1;
      const key = keyOf[sort] as (c: Stored) => string | number;
      const cmp = (x: Stored, y: Stored) => {
        const [kx, ky] = [key(x), key(y)];
        const byKey = typeof kx === "string" ? compareKeys(kx, ky as string) : kx - (ky as number);
        return sign * (byKey || x.rowid - y.rowid);
      };
      const all = [...stored].sort(cmp);
      for (const [page, pageSize] of [[90, 50], [91, 50], [92, 50], [150, 50], [180, 50], [181, 50], [46, 199]] as const) {
        const r = await t.api(`/api/contacts?sort=${sort}&order=${order}&page=${page}&pageSize=${pageSize}`, { token: a.token });
        expect(r.status).toBe(200);
        expect({ sort, order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({
          sort,
          order,
          page,
          ids: all.slice((page - 1) * pageSize, page * pageSize).map((c) => c.id),
        });
        expect(r.body.total).toBe(ROWS);
      }
    }
  }
});

test("past 20,000 matches the clusters' page still holds the matches stored after the first 20,000 (read after them)", async () => {
  // Its own installation (the path needs one account owning every contact): 22,000 Josies (two spellings, one name
  // key), then 1,000 Amy Josiessons and 1,000 Bobs stored last, whose rowids come after the first 20,001 matches:
  // the Amys sort before every Josie, so the first pages are theirs only if the matches after those are read.
  const own = await startTestServer({ smtp: false });
  try {
    const acc = await own.signUpVerified();
    const db = own.ctx.db.$client;
    const insert = db.prepare("INSERT INTO contacts (id, user_id, first_name, last_name, phone, source) VALUES (?, ?, ?, ?, ?, 'manual')");
    db.transaction(() => {
      for (let i = 0; i < 24_000; i++) {
        const [first, last] = i < 22_000 ? [i % 2 ? "JOSIE" : "Josie", `L${(i * 7) % 17}`] : i < 23_000 ? ["Amy", "Josiesson"] : ["Bob", `L${i % 5}`];
        insert.run(Bun.randomUUIDv7(), acc.user.id, first, last, `+1${[646, 718, 917][Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")}`);
      }
    })();
    const rows = db.query("SELECT rowid, id, first_name, last_name FROM contacts WHERE user_id = ?").all(acc.user.id) as Stored[];
    for (const [order, page] of [["asc", 1], ["asc", 20], ["asc", 21], ["desc", 1], ["desc", 200]] as const) {
      const sign = order === "asc" ? 1 : -1;
      const all = rows
        .filter((c) => plain(`${c.first_name} ${c.last_name}`).includes("josie"))
        .sort((x, y) => sign * (compareKeys(nameKey(x.first_name, x.last_name), nameKey(y.first_name, y.last_name)) || x.rowid - y.rowid));
      expect(all.length).toBe(23_000);
      const r = await own.api(`/api/contacts?q=josie&sort=name&order=${order}&page=${page}&pageSize=50`, { token: acc.token });
      expect(r.status).toBe(200);
      expect({ order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({ order, page, ids: all.slice((page - 1) * 50, page * 50).map((c) => c.id) });
      expect({ total: r.body.total, capped: r.body.totalCapped }).toEqual({ total: 10_000, capped: true });
    }
  } finally {
    own.stop();
  }
}, 120_000);

test("matches that are exactly whole first names holding the term are paged from those names' rows; one match more and they are not", async () => {
  // Its own installation (one account owning every contact). "josiel" matches exactly the Josiels and Jøsiels (one
  // name key; the index finds "Jøsiel" through its text folded again, ø being a letter it leaves), every one of them:
  // their ranges of contact_names are the matches. "josie" matches the Josies and JØSIEs too and one Bob by his
  // email: counted one more than the names' rows, the page is read from the matches, Bob first.
  const own = await startTestServer({ smtp: false });
  try {
    const acc = await own.signUpVerified();
    const db = own.ctx.db.$client;
    const insert = db.prepare("INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, source) VALUES (?, ?, ?, ?, ?, ?, 'manual')");
    const names = ["Jøsie", "JOSIE", "Josiel", "Jøsiel", "Bob"];
    db.transaction(() => {
      for (let i = 0; i < 12_500; i++) {
        const email = i === 12_004 ? "bob.josie@example.com" : null;
        insert.run(Bun.randomUUIDv7(), acc.user.id, names[i % 5]!, `L${(i * 7) % 17}`, email, `+1${[646, 718][Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")}`);
      }
    })();
    const rows = db.query("SELECT rowid, id, first_name, last_name, email FROM contacts WHERE user_id = ?").all(acc.user.id) as Stored[];
    const cases: [string, "asc" | "desc", number, number][] = [
      ["josiel", "asc", 1, 5_000],
      ["josiel", "asc", 51, 5_000],
      ["josiel", "asc", 100, 5_000],
      ["josiel", "desc", 1, 5_000],
      ["josiel", "desc", 52, 5_000],
      ["josie", "asc", 1, 10_001],
      ["josie", "desc", 201, 10_001],
    ];
    for (const [q, order, page, total] of cases) {
      const sign = order === "asc" ? 1 : -1;
      // As the index matches: the text folded as nameKey folds it (ø as o) holds the term.
      const all = rows
        .filter((c) => foldName(`${c.first_name} ${c.last_name} ${c.email ?? ""}`).includes(q))
        .sort((x, y) => sign * (compareKeys(nameKey(x.first_name, x.last_name), nameKey(y.first_name, y.last_name)) || x.rowid - y.rowid));
      expect({ q, total: all.length }).toEqual({ q, total });
      const r = await own.api(`/api/contacts?q=${q}&sort=name&order=${order}&page=${page}&pageSize=50`, { token: acc.token });
      expect(r.status).toBe(200);
      expect({ q, order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({ q, order, page, ids: all.slice((page - 1) * 50, page * 50).map((c) => c.id) });
      expect({ q, total: r.body.total, capped: r.body.totalCapped }).toEqual({ q, total: Math.min(total, 10_000), capped: total > 10_000 });
    }
    const first = await own.api(`/api/contacts?q=josie&sort=name&order=asc&page=1&pageSize=50`, { token: acc.token });
    expect(first.body.data[0].firstName).toBe("Bob");
  } finally {
    own.stop();
  }
}, 120_000);
