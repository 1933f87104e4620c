import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COUNT_CAP } from "../../src/contacts/search";
import { grantLicense } from "../../src/licenses/licenses";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
const ROWS = 12_000;
const FIRST = ["Ann", "Bob", "Cyd", "Dee", "Eve"];
type Stored = {
  rowid: number;
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string;
  phone_digits: string;
  created_at: number;
};
let stored: Stored[] = [];

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  await grantLicense(t.ctx, a.user.id, "enterprise", 30);
  const lines = Array.from({ length: ROWS }, (_, i) => {
    const first = i % 97 === 0 ? "Zed" : FIRST[i % FIRST.length];
    const email = i % 3 === 0 ? "" : `u${i}@example.com`;
    return `${first},L${i % 13},${email},+1 212 55${5 + Math.floor(i / 10_000)} ${String(i % 10_000).padStart(4, "0")}`;
  });
  const start = await t.api("/api/contacts/import/csv", {
    method: "POST",
    token: a.token,
    body: `first_name,last_name,email,phone\n${lines.join("\n")}\n`,
    headers: { "content-type": "text/csv" },
  });
  for (let i = 0; i < 500; i++) {
    const job = (await t.api(`/api/contacts/import/${start.body.id}`, { token: a.token })).body;
    if (job.state === "done") break;
    await Bun.sleep(20);
  }
  stored = t.ctx.db.$client
    .query("SELECT rowid, id, first_name, last_name, email, phone, phone_digits, created_at FROM contacts WHERE user_id = ?")
    .all(a.user.id) as Stored[];
});
afterAll(() => t?.stop());

/** SQLite's NOCASE, which the name order and first-name prefixes follow: ASCII capitals made small, nothing else. */
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** What a search must answer, worked out the slow way from every stored row. */
function expected(q: string, sort: "createdAt" | "name" | "phone", order: "asc" | "desc") {
  const digits = /^[\d\s().\-+\/]+$/.test(q) ? q.replace(/\D/g, "") : null;
  const term = digits ?? q.toLowerCase();
  const prefixes = [q, q.toLowerCase(), q[0]!.toUpperCase() + q.slice(1).toLowerCase(), q.toUpperCase()];
  const match = (c: Stored) =>
    term.length >= 3
      ? `${c.first_name} ${c.last_name} ${c.email ?? ""} ${c.phone_digits}`.toLowerCase().includes(term)
      : digits
        ? c.phone_digits.startsWith(digits)
        : prefixes.some((p) => fold(c.first_name).startsWith(fold(p)));
  const key = (c: Stored): (string | number)[] =>
    sort === "name" ? [fold(c.first_name), fold(c.last_name), c.rowid] : sort === "phone" ? [c.phone, c.rowid] : [c.created_at, c.rowid];
  const cmp = (x: Stored, y: Stored) => {
    const [kx, ky] = [key(x), key(y)];
    for (let i = 0; i < kx.length; i++) if (kx[i] !== ky[i]) return (kx[i]! < ky[i]! ? -1 : 1) * (order === "asc" ? 1 : -1);
    return 0;
  };
  return stored.filter(match).sort(cmp);
}

describe("search over many contacts", () => {
  const cases: [string, "createdAt" | "name" | "phone", "asc" | "desc", number][] = [
    ["zed", "createdAt", "desc", 1],
    ["zed", "name", "asc", 2],
    ["ann", "createdAt", "desc", 1],
    ["ann", "createdAt", "asc", 4],
    ["ann", "name", "desc", 2],
    ["ann", "phone", "asc", 3],
    ["example.com", "createdAt", "desc", 7],
    ["L12", "createdAt", "desc", 2],
    ["212 556", "phone", "desc", 1],
    ["An", "name", "asc", 3],
    ["an", "name", "desc", 1],
    ["a", "createdAt", "desc", 2],
    ["Ze", "phone", "asc", 1],
    ["12", "createdAt", "desc", 5],
    ["Xy", "createdAt", "desc", 1],
    // Sorted by name or phone, more matches than the count cap: the page is sorted from the matches.
    ["212", "name", "asc", 3],
    ["212", "phone", "desc", 2],
    ["example.com", "name", "desc", 4],
    // Email addresses, whole or in part: their matches are those of the part up to the "@", checked (emailMatches).
    ["123@example.com", "createdAt", "desc", 1],
    ["U123@Example.COM", "name", "asc", 1],
    ["u1234@example.com", "phone", "desc", 1],
    ["@example.com", "createdAt", "desc", 3],
  ];
  for (const [q, sort, order, page] of cases) {
    test(`"${q}" by ${sort} ${order}, page ${page}: the same rows and total as a full scan`, async () => {
      const all = expected(q, sort, order);
      const r = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=${sort}&order=${order}&page=${page}&pageSize=50`, {
        token: a.token,
      });
      expect(r.status).toBe(200);
      expect(r.body.data.map((c: any) => c.id)).toEqual(all.slice((page - 1) * 50, page * 50).map((c) => c.id));
      expect({ total: r.body.total, totalCapped: r.body.totalCapped }).toEqual({
        total: Math.min(all.length, COUNT_CAP),
        totalCapped: all.length > COUNT_CAP,
      });
    });
  }

  test("the unfiltered list's pages by creation and phone, both ways, the first, past the middle and the last", async () => {
    for (const sort of ["createdAt", "phone"] as const) {
      for (const order of ["asc", "desc"] as const) {
        const col = sort === "phone" ? "phone" : "created_at";
        const all = [...stored].sort((x, y) => (x[col] === y[col] ? x.rowid - y.rowid : x[col] < y[col] ? -1 : 1) * (order === "asc" ? 1 : -1));
        for (const page of [1, 2, 150, 240, 241]) {
          const r = await t.api(`/api/contacts?sort=${sort}&order=${order}&page=${page}&pageSize=50`, { token: a.token });
          expect(r.status).toBe(200);
          const want = all.slice((page - 1) * 50, page * 50).map((c) => c.id);
          expect({ sort, order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({ sort, order, page, ids: want });
          expect(r.body.total).toBe(ROWS);
        }
      }
    }
  });

  test("counts stop at the cap and say so; the unfiltered list keeps its exact total", async () => {
    const capped = await t.api("/api/contacts?q=212&pageSize=1", { token: a.token });
    expect(capped.body).toMatchObject({ total: COUNT_CAP, totalCapped: true });
    // In every order: by name the page is read from contact_names, and the total still from the counters.
    for (const sort of ["createdAt", "name", "phone"]) {
      const all = await t.api(`/api/contacts?pageSize=1&sort=${sort}`, { token: a.token });
      expect(all.body).toMatchObject({ total: ROWS, totalCapped: false });
    }
  });
});

test("the counters follow creates, email changes and deletes", async () => {
  const withEmail = stored.filter((c) => c.email).length;
  expect((await t.api("/api/contacts/stats", { token: a.token })).body).toEqual({ total: ROWS, email: withEmail, sms: ROWS });
  const c = stored.find((x) => x.email)!;
  await t.api(`/api/contacts/${c.id}`, {
    method: "PUT",
    token: a.token,
    body: { firstName: c.first_name, phone: c.phone, email: "" },
  });
  const extra = (
    await t.api("/api/contacts", { method: "POST", token: a.token, body: { firstName: "Mail", email: "only@example.com" } })
  ).body;
  expect((await t.api("/api/contacts/stats", { token: a.token })).body).toEqual({ total: ROWS + 1, email: withEmail, sms: ROWS });
  await t.api(`/api/contacts/${extra.id}`, { method: "DELETE", token: a.token });
  await t.api(`/api/contacts/${stored.find((x) => !x.email)!.id}`, { method: "DELETE", token: a.token });
  expect((await t.api("/api/contacts/stats", { token: a.token })).body).toEqual({
    total: ROWS - 1,
    email: withEmail - 1,
    sms: ROWS - 1,
  });
});

test("a search's total counts only the owner's contacts, whether or not another account has any", async () => {
  const zed = async () => (await t.api("/api/contacts?q=zed&pageSize=1", { token: a.token })).body;
  const alone = await zed();
  const scan = t.ctx.db.$client
    .query("SELECT count(*) AS n FROM contacts WHERE user_id = ? AND lower(first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits) LIKE '%zed%'")
    .get(a.user.id) as { n: number };
  expect(alone.total).toBe(scan.n);
  const b = await t.signUpVerified();
  const theirs = await Promise.all(
    ["+13125550101", "+13125550102"].map(async (phone) => (await t.api("/api/contacts", { method: "POST", token: b.token, body: { firstName: "Zed", phone } })).body.id),
  );
  expect((await zed()).total).toBe(alone.total);
  expect((await t.api("/api/contacts?q=zed", { token: b.token })).body.total).toBe(2);
  for (const id of theirs) await t.api(`/api/contacts/${id}`, { method: "DELETE", token: b.token });
  expect((await zed()).total).toBe(alone.total);
});

test("a search finds names with or without their accents, however each contact was stored or changed", async () => {
  const c = await t.signUpVerified();
  const names = (q: string) =>
    t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=name&order=asc`, { token: c.token }).then((r) => {
      expect(r.status).toBe(200);
      return r.body.data.map((x: { firstName: string; lastName: string }) => `${x.firstName} ${x.lastName}`);
    });
  // Imported (the importer indexes its own rows) and added one by one (the insert trigger does).
  const start = await t.api("/api/contacts/import/csv", {
    method: "POST",
    token: c.token,
    body: "first_name,last_name,phone\nJosé,Álvarez,+13125550201\nJose,Alvarez,+13125550202\nZoë,Müller,+13125550203\n",
    headers: { "content-type": "text/csv" },
  });
  for (let i = 0; i < 500; i++) {
    if ((await t.api(`/api/contacts/import/${start.body.id}`, { token: c.token })).body.state === "done") break;
    await Bun.sleep(20);
  }
  const added = await t.api("/api/contacts", { method: "POST", token: c.token, body: { firstName: "Françoise", lastName: "Lefèvre", phone: "+13125550204" } });
  expect(added.status).toBe(201);
  // By name the two have the same key (issue 28 item 5: letters with their base letter): in the order they were stored.
  expect(await names("jose")).toEqual(["José Álvarez", "Jose Alvarez"]);
  expect(await names("JOSÉ")).toEqual(["José Álvarez", "Jose Alvarez"]);
  expect(await names("alvarez")).toEqual(["José Álvarez", "Jose Alvarez"]);
  expect(await names("muller")).toEqual(["Zoë Müller"]);
  expect(await names("zoe")).toEqual(["Zoë Müller"]);
  expect(await names("francoise lefevre")).toEqual(["Françoise Lefèvre"]);
  // A changed name is found by its new letters only (the update trigger).
  const put = await t.api(`/api/contacts/${added.body.id}`, { method: "PUT", token: c.token, body: { firstName: "Renée", lastName: "Lefèvre", phone: "+13125550204" } });
  expect(put.status).toBe(200);
  expect(await names("francoise")).toEqual([]);
  expect(await names("renee")).toEqual(["Renée Lefèvre"]);
});

test("a search for an email address answers what the search index answers, in every order, whatever the contacts hold", async () => {
  const d = await t.signUpVerified();
  // Candidates of the part up to the "@" ("ann.lee@") that do not hold the whole address, matches in other cases
  // and inside longer addresses, an accented email the index folds ("ä" is "a"), and a name holding an "@".
  const people: [string, string, string | null, string][] = [
    ["Ann", "Lee", "ann.lee@gmail.com", "+13125550301"],
    ["Bea", "Lee", "ANN.LEE@Gmail.com.mx", "+13125550302"],
    ["Cy", "Lee", "xann.lee@gmail.com", "+13125550303"],
    ["Di", "Lee", "ann.lee@gmail.co", "+13125550304"],
    ["Ed", "Lee", "ann.lee@yahoo.com", "+13125550305"],
    ["Flo", "Lee", null, "+13125550306"],
    ["Gus", "Lee", "ann.lee@gmäil.com", "+13125550307"],
  ];
  const ids: string[] = [];
  for (const [firstName, lastName, email, phone] of people) {
    const r = await t.api("/api/contacts", { method: "POST", token: d.token, body: { firstName, lastName, phone, ...(email ? { email } : {}) } });
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  const firsts = async (q: string, sort = "createdAt", order = "asc") => {
    const r = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=${sort}&order=${order}`, { token: d.token });
    expect(r.status).toBe(200);
    return { names: r.body.data.map((c: { firstName: string }) => c.firstName), total: r.body.total };
  };
  expect(await firsts("ann.lee@gmail.com")).toEqual({ names: ["Ann", "Bea", "Cy", "Gus"], total: 4 });
  expect(await firsts("Ann.Lee@Gmail.Com", "name", "desc")).toEqual({ names: ["Gus", "Cy", "Bea", "Ann"], total: 4 });
  expect(await firsts("ann.lee@gmail.com", "phone", "desc")).toEqual({ names: ["Gus", "Cy", "Bea", "Ann"], total: 4 });
  expect(await firsts("ann.lee@gmail.co")).toEqual({ names: ["Ann", "Bea", "Cy", "Di", "Gus"], total: 5 });
  expect(await firsts("lee@yahoo")).toEqual({ names: ["Ed"], total: 1 });
  expect(await firsts("@gmail.com.mx")).toEqual({ names: ["Bea"], total: 1 });
  expect(await firsts("nobody@gmail.com")).toEqual({ names: [], total: 0 });
  // Without the accented one, every candidate is checked here; and a name holding an "@" is found by its name.
  await t.api(`/api/contacts/${ids[6]}`, { method: "DELETE", token: d.token });
  const named = await t.api("/api/contacts", { method: "POST", token: d.token, body: { firstName: "Hal", lastName: "ann.lee@gmail.com", phone: "+13125550308" } });
  expect(named.status).toBe(201);
  expect(await firsts("ann.lee@gmail.com")).toEqual({ names: ["Ann", "Bea", "Cy", "Hal"], total: 4 });
  await t.api(`/api/contacts/${named.body.id}`, { method: "DELETE", token: d.token });
  expect(await firsts("ann.lee@gmail.com", "name", "asc")).toEqual({ names: ["Ann", "Bea", "Cy"], total: 3 });
});

test("a search in name or phone order over more matches than the cap gives the search index's rows, walked or not", async () => {
  const e = await t.signUpVerified();
  await grantLicense(t.ctx, e.user.id, "enterprise", 30);
  // 12,000 contacts: the first 1,000 in name order (Aaron) without a match; the Zoës' last names hold the term, with
  // letters the index folds ("ä", "ö": only the index can say) or not ("Zzgmajl.cöm" cannot match whatever "ö" is).
  const lines = Array.from({ length: 12_000 }, (_, i) => {
    const kind = i < 1000 || i >= 3000 ? 0 : i % 50 === 7 ? 1 : i % 50 === 9 ? 2 : i % 50 === 11 ? 3 : i % 50 === 13 ? 4 : 0;
    const special = ["", "Zzgmäil.com", "Zzgmail.comez", "Zzgmail.cöm", "Zzgmajl.cöm"][kind];
    const first = i < 1000 ? "Aaron" : special ? "Zoë" : ["Ann", "José", "Zoë", "Łukasz", "Bob"][i % 5];
    const email = i < 1000 ? `a${i}@yahoo.com` : special || i % 50 === 3 ? "" : `e${i}@gmail.com`;
    return `${first},${special || `L${i}`},${email},+1 312 55${5 + Math.floor(i / 10_000)} ${String(i % 10_000).padStart(4, "0")}`;
  });
  const start = await t.api("/api/contacts/import/csv", {
    method: "POST",
    token: e.token,
    body: `first_name,last_name,email,phone\n${lines.join("\n")}\n`,
    headers: { "content-type": "text/csv" },
  });
  for (let i = 0; i < 500; i++) {
    if ((await t.api(`/api/contacts/import/${start.body.id}`, { token: e.token })).body.state === "done") break;
    await Bun.sleep(20);
  }
  const db = t.ctx.db.$client;
  const matches = (db.query(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND rowid IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH '"gmail.com"')`).get(e.user.id) as { n: number }).n;
  expect(matches).toBe(10_740);
  const ids = (sql: string) => (db.query(sql).all(e.user.id) as { id: string }[]).map((x) => x.id);
  const matched = `contacts.user_id = ?1 AND contacts.rowid IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH '"gmail.com"')`;
  const cases: ["name" | "phone", "asc" | "desc", number][] = [
    ["name", "asc", 1],
    ["name", "desc", 1],
    ["name", "desc", 3],
    ["name", "asc", 30],
    ["phone", "asc", 2],
    ["phone", "desc", 1],
  ];
  for (const [sort, order, page] of cases) {
    const dir = order.toUpperCase();
    const want = ids(
      sort === "name"
        ? `SELECT contacts.id FROM contact_names AS n CROSS JOIN contacts ON contacts.rowid = n.contact_rowid WHERE n.user_id = ?1 AND ${matched} ORDER BY n.name_key ${dir}, n.contact_rowid ${dir} LIMIT 50 OFFSET ${(page - 1) * 50}`
        : `SELECT contacts.id FROM contacts WHERE ${matched} ORDER BY contacts.phone ${dir}, contacts.rowid ${dir} LIMIT 50 OFFSET ${(page - 1) * 50}`,
    );
    expect(want).toHaveLength(50);
    for (const q of ["gmail.com", "GMAIL.COM"]) {
      const r = await t.api(`/api/contacts?q=${encodeURIComponent(q)}&sort=${sort}&order=${order}&page=${page}&pageSize=50`, { token: e.token });
      expect(r.status).toBe(200);
      expect({ sort, order, page, ids: r.body.data.map((c: { id: string }) => c.id) }).toEqual({ sort, order, page, ids: want });
      expect({ total: r.body.total, totalCapped: r.body.totalCapped }).toEqual({ total: COUNT_CAP, totalCapped: true });
    }
  }
  // By name Z-A, the first page holds the 40 Zoës whose last names hold the term in ASCII, then 10 of those whose
  // names the index folds to hold it ("Zzgmajl.cöm", before them, never matches).
  const first = await t.api(`/api/contacts?q=gmail.com&sort=name&order=desc&pageSize=50`, { token: e.token });
  const last = first.body.data.map((c: { lastName: string }) => c.lastName);
  expect(last.slice(0, 40)).toEqual(Array(40).fill("Zzgmail.comez"));
  expect(new Set(last.slice(40))).toEqual(new Set(["Zzgmäil.com", "Zzgmail.cöm"]));
}, 60_000);
