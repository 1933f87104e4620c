// The contact list's orders, pages and searches answer alike on both engines (issue 31 item 1): the same rows in the
// same order as a sort of the stored contacts here, whatever reads them (SQLite's hand-chosen walks and saved
// positions, PostgreSQL's one statement and its trigram index). Run with SMSDESK_TEST_DATABASE=postgres for
// PostgreSQL. The contacts are stored by statements, not by the CSV import (served on SQLite only).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { compareKeys, nameKey } from "../../src/contacts/name-key";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
type Stored = { id: string; rowid: number; first: string; last: string; phone: string | null; email: string | null; createdAt: number };
let stored: Stored[] = [];

const FIRST = ["José", "Jose", "Joséphine", "ÁNGEL", "angel", "Zoë", "Łukasz", "Bob", "bob", "Straße", "Ann", "Jo"];
const LAST = ["Lee", "García", "Øster", "smith", "Smith", "Ng"];
// More than the list's saved positions' step (list-marks.ts MARK_EVERY, 5,000): deep pages are read from a mark.
const N = 12_000;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  const rows = Array.from({ length: N }, (_, i) => ({
    id: crypto.randomUUID(),
    first: FIRST[i % FIRST.length]!,
    last: LAST[(i * 7) % LAST.length]!,
    // Every seventh contact has an email and no phone: the phone order lists them first going up.
    phone: i % 7 === 3 ? null : `+1415${String(5_000_000 + ((i * 7919) % 4_999_999)).padStart(7, "0")}`,
    email: i % 7 === 3 || i % 5 === 0 ? `c${i}@${i % 2 ? "gmail.com" : "example.org"}` : null,
    // Three contacts a millisecond: ties are broken by the order they were stored in.
    createdAt: 1_700_000_000_000 + Math.floor(i / 3),
  }));
  for (let i = 0; i < N; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await t.ctx.records.$run(
      `INSERT INTO contacts (id, user_id, first_name, last_name, phone, email, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      chunk.flatMap((r) => [r.id, a.user.id, r.first, r.last, r.phone, r.email, r.createdAt]),
    );
  }
  const rowids = new Map((await t.ctx.records.$rows<{ id: string; r: number }>("SELECT id, rowid AS r FROM contacts WHERE user_id = ?", [a.user.id])).map((x) => [x.id, x.r]));
  stored = rows.map((r) => ({ ...r, rowid: rowids.get(r.id)! }));
}, 120_000);
afterAll(() => t?.stop());

const byCreated = (x: Stored, y: Stored) => x.createdAt - y.createdAt || x.rowid - y.rowid;
const byName = (x: Stored, y: Stored) => compareKeys(nameKey(x.first, x.last), nameKey(y.first, y.last)) || x.rowid - y.rowid;
// SQLite sorts NULL first going up, PostgreSQL is told to.
const byPhone = (x: Stored, y: Stored) =>
  x.phone === y.phone ? x.rowid - y.rowid : x.phone === null ? -1 : y.phone === null ? 1 : x.phone < y.phone ? -1 : 1;

async function page(query: string) {
  const r = await t.api(`/api/contacts?${query}`, { token: a.token });
  expect(r.status).toBe(200);
  return { ids: r.body.data.map((c: { id: string }) => c.id) as string[], total: r.body.total as number, capped: r.body.totalCapped as boolean };
}

/** Page `p` (50 a page) of the contacts sorted by `order`, as ids. */
const expected = (list: Stored[], order: (x: Stored, y: Stored) => number, dir: "asc" | "desc", p: number) => {
  const sorted = [...list].sort(order);
  if (dir === "desc") sorted.reverse();
  return sorted.slice((p - 1) * 50, p * 50).map((c) => c.id);
};

test("the whole list in each order, near either end and deep (from the saved positions), page for page", async () => {
  for (const [sort, order] of [["createdAt", byCreated], ["name", byName], ["phone", byPhone]] as const) {
    for (const dir of ["asc", "desc"] as const) {
      for (const p of [1, 2, 130, 201]) {
        const got = await page(`page=${p}&pageSize=50&sort=${sort}&order=${dir}`);
        expect({ sort, dir, p, ...got }).toEqual({ sort, dir, p, ids: expected(stored, order, dir, p), total: N, capped: false });
      }
    }
  }
}, 120_000);

test("a search finds names without regard to accents or case, emails and phone digits, in the list's order", async () => {
  const holds = (c: Stored, ...words: string[]) => {
    const text = `${c.first} ${c.last} ${c.email ?? ""} ${c.phone?.slice(1) ?? ""}`.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    return words.some((w) => text.includes(w));
  };
  const cases: [string, (c: Stored) => boolean][] = [
    ["jose", (c) => holds(c, "jose")],
    ["José", (c) => holds(c, "jose")],
    ["ANGEL", (c) => holds(c, "angel")],
    ["strasse", (c) => c.first === "Straße"],
    ["gmail.com", (c) => holds(c, "gmail.com")],
    ["c7@gmail", (c) => !!c.email?.startsWith("c7@gmail")],
    ["(415) 5", (c) => holds(c, "4155")],
  ];
  for (const [q, matches] of cases) {
    const found = stored.filter(matches);
    for (const [sort, order, dir] of [["createdAt", byCreated, "desc"], ["name", byName, "asc"], ["phone", byPhone, "asc"]] as const) {
      const got = await page(`q=${encodeURIComponent(q)}&page=2&pageSize=50&sort=${sort}&order=${dir}`);
      expect({ q, sort, ...got }).toEqual({ q, sort, ids: expected(found, order, dir, 2), total: Math.min(found.length, 10_000), capped: found.length > 10_000 });
    }
  }
  // One or two characters: the start of a first name, or of a phone's digits.
  const jo = stored.filter((c) => nameKey(c.first, "").startsWith("jo"));
  expect(await page("q=Jo&page=3&pageSize=50&sort=name&order=asc")).toEqual({ ids: expected(jo, byName, "asc", 3), total: jo.length, capped: false });
  expect((await page("q=zz&sort=name&order=asc")).total).toBe(0);
}, 120_000);
