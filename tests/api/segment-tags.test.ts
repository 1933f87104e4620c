// Segments on tags (issue 29 item 3) read contact_tags, kept by triggers on contacts.tags (migration 0064): their
// counts and members must be exactly what json_each over each contact's tags gave (eq: exact, case and all;
// contains: without regard to case), after contacts are created, their tags edited, contacts deleted and imported.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let a: Account;
let b: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  b = await t.signUpVerified();
});
afterAll(() => t?.stop());

const CONDITIONS = {
  "eq vip": { tags: { eq: "vip" } },
  "eq VIP": { tags: { eq: "VIP" } },
  "contains vi": { tags: { contains: "vi" } },
  "contains NEWS": { tags: { contains: "NEWS" } },
  "contains gold, eq news": { tags: { contains: "gold", eq: "news" } },
} as const;
type Name = keyof typeof CONDITIONS;

/** The members as the json_each conditions before migration 0064 found them, by first name. */
function reference(acc: Account, name: Name): string[] {
  const ops = CONDITIONS[name].tags as Record<string, string>;
  const where = Object.entries(ops).map(([op, v]) =>
    op === "eq"
      ? [`EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)`, v]
      : [`EXISTS (SELECT 1 FROM json_each(tags) WHERE instr(lower(value), lower(?)) > 0)`, v],
  );
  const rows = t.ctx.db.$client
    .query(`SELECT first_name AS f FROM contacts WHERE user_id = ? AND ${where.map((w) => w[0]).join(" AND ")} ORDER BY first_name`)
    .all(acc.user.id, ...where.map((w) => w[1]!)) as { f: string }[];
  return rows.map((r) => r.f);
}

const segments = new Map<string, string>();
/** Each segment's count and members through the API, checked against the reference, by first name. */
async function members(acc: Account): Promise<Record<Name, string[]>> {
  const out = {} as Record<Name, string[]>;
  for (const name of Object.keys(CONDITIONS) as Name[]) {
    const key = `${acc.user.id}:${name}`;
    if (!segments.has(key)) {
      const s = await t.api("/api/segments", { method: "POST", token: acc.token, body: { name, conditions: CONDITIONS[name] } });
      expect(s.status).toBe(201);
      segments.set(key, s.body.id);
    }
    const id = segments.get(key)!;
    const count = (await t.api(`/api/segments/${id}/refresh`, { method: "POST", token: acc.token })).body.contactCount;
    const list = (await t.api(`/api/segments/${id}/contacts?page=1&pageSize=100`, { token: acc.token })).body;
    const names = list.data.map((c: { firstName: string }) => c.firstName).sort();
    expect(count).toBe(names.length);
    expect(list.total ?? names.length).toBe(names.length);
    expect(names).toEqual(reference(acc, name));
    out[name] = names;
  }
  // The table holds exactly each contact's text tags.
  const drift = t.ctx.db.$client
    .query(
      `SELECT (SELECT count(*) FROM (
         SELECT c.user_id, j.value, c.rowid FROM contacts AS c, json_each(c.tags) AS j WHERE c.user_id = ?1
         EXCEPT SELECT user_id, tag, contact_rowid FROM contact_tags WHERE user_id = ?1))
       + (SELECT count(*) FROM (
         SELECT user_id, tag, contact_rowid FROM contact_tags WHERE user_id = ?1
         EXCEPT SELECT c.user_id, j.value, c.rowid FROM contacts AS c, json_each(c.tags) AS j WHERE c.user_id = ?1)) AS n`,
    )
    .get(acc.user.id) as { n: number };
  expect(drift.n).toBe(0);
  return out;
}

async function contact(acc: Account, firstName: string, phone: string, tags: string[]): Promise<string> {
  const r = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName, phone, tags } });
  expect(r.status).toBe(201);
  return r.body.id;
}

async function importCsv(acc: Account, csv: string, onDuplicate: "skip" | "update") {
  const start = await t.api(`/api/contacts/import/csv?onDuplicate=${onDuplicate}`, { method: "POST", token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
  expect(start.status).toBe(202);
  for (let i = 0; i < 300; i++) {
    const r = await t.api(`/api/contacts/import/${start.body.id}`, { token: acc.token });
    if (r.body.state === "done" || r.body.state === "failed") return r.body;
    await Bun.sleep(20);
  }
  throw new Error("import did not finish");
}

test("tag segments: several tags a contact, tag edits, deletes and a CSV import give what json_each gave", async () => {
  const ann = await contact(a, "Ann", "+14155550101", ["VIP", "news"]);
  const bob = await contact(a, "Bob", "+14155550102", ["vip"]);
  await contact(a, "Cid", "+14155550103", ["newsletter", "Vip Gold"]);
  const dee = await contact(a, "Dee", "+14155550104", []);
  await contact(a, "Eve", "+14155550105", ["news", "gold"]);
  // Another account's contacts with the same tags are never counted.
  await contact(b, "Zed", "+14155550101", ["vip", "news", "gold"]);

  expect(await members(a)).toEqual({
    "eq vip": ["Bob"],
    "eq VIP": ["Ann"],
    "contains vi": ["Ann", "Bob", "Cid"],
    "contains NEWS": ["Ann", "Cid", "Eve"],
    "contains gold, eq news": ["Eve"],
  });
  expect((await members(b))["contains vi"]).toEqual(["Zed"]);

  // Tag edits: one contact's tags replaced, bulk add and bulk remove.
  expect((await t.api(`/api/contacts/${ann}`, { method: "PUT", token: a.token, body: { firstName: "Ann", phone: "+14155550101", tags: ["news", "Gold"] } })).status).toBe(200);
  expect((await t.api("/api/contacts/bulk-tag", { method: "POST", token: a.token, body: { contactIds: [dee, bob], tags: ["vip"], action: "add" } })).status).toBe(200);
  expect((await t.api("/api/contacts/bulk-tag", { method: "POST", token: a.token, body: { contactIds: [bob], tags: ["vip"], action: "remove" } })).status).toBe(200);
  expect(await members(a)).toEqual({
    "eq vip": ["Dee"],
    "eq VIP": [],
    "contains vi": ["Cid", "Dee"],
    "contains NEWS": ["Ann", "Cid", "Eve"],
    "contains gold, eq news": ["Ann", "Eve"],
  });

  // A delete takes the contact's tags with it.
  expect((await t.api(`/api/contacts/${dee}`, { method: "DELETE", token: a.token })).status).toBe(200);
  expect((await members(a))["contains vi"]).toEqual(["Cid"]);

  // A CSV import: new contacts with tags, and (onDuplicate update) tags added to a stored contact.
  const job = await importCsv(a, "First Name,Phone,Tags\r\nFay,+14155550106,\"vip,NEWS\"\r\nGus,+14155550107,Vipers\r\nHal,+14155550108,\r\nEve,+14155550105,VIP\r\n", "update");
  expect(job).toMatchObject({ state: "done", created: 3, updated: 1 });
  expect(await members(a)).toEqual({
    "eq vip": ["Fay"],
    "eq VIP": ["Eve"],
    "contains vi": ["Cid", "Eve", "Fay", "Gus"],
    "contains NEWS": ["Ann", "Cid", "Eve", "Fay"],
    "contains gold, eq news": ["Ann", "Eve"],
  });
  expect((await members(b))["eq vip"]).toEqual(["Zed"]);
});

// Issue 29 item 3: a one-tag segment's page counts its contacts from contact_tags and, when they are few, sorts the
// page from them; when many, walks the list newest first. Both give the reference's order, deep pages too.
test("a one-tag segment's pages, from the tag's rows or by the walk, are the newest-first list of its contacts", async () => {
  const acc = await t.signUpVerified();
  const db = t.ctx.db.$client;
  const insert = db.prepare(`INSERT INTO contacts (id, user_id, first_name, last_name, phone, tags, status, source, created_at) VALUES (?, ?, ?, '', ?, ?, 'subscribed', 'import', ?)`);
  // 24,000 contacts: every 100th "rare" (240), every other "common" (12,000: past the count's cap of 10,000), both
  // of each 20th pair "paired" (2,400); created_at ties in pairs, broken by rowid (the paired tag's ties its own).
  db.transaction(() => {
    for (let i = 0; i < 24_000; i++) {
      const tags = [...(i % 100 === 7 ? ["rare"] : []), ...(i % 2 === 0 ? ["common"] : []), ...(i % 40 < 2 ? ["paired"] : [])];
      insert.run(Bun.randomUUIDv7(), acc.user.id, `C${i}`, `+1415${String(3_000_000 + i)}`, JSON.stringify(tags), 1_700_000_000_000 + Math.floor(i / 2));
    }
  })();
  const newestFirst = (tag: string) =>
    (db.query(`SELECT first_name AS f FROM contacts WHERE user_id = ? AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?) ORDER BY created_at DESC, rowid DESC`).all(acc.user.id, tag) as { f: string }[]).map((r) => r.f);
  for (const [tag, pages] of [
    ["rare", [1, 2, 5]],
    ["common", [1, 7, 239]],
    ["paired", [1, 2, 13]],
  ] as const) {
    const s = await t.api("/api/segments", { method: "POST", token: acc.token, body: { name: tag, conditions: { tags: { eq: tag } } } });
    const all = newestFirst(tag);
    for (const page of pages) {
      const list = (await t.api(`/api/segments/${s.body.id}/contacts?page=${page}&pageSize=50`, { token: acc.token })).body;
      expect({ tag, page, total: list.total, capped: list.totalCapped, names: list.data.map((c: { firstName: string }) => c.firstName) }).toEqual({
        tag,
        page,
        total: Math.min(all.length, 10_000),
        capped: all.length > 10_000,
        names: all.slice((page - 1) * 50, page * 50),
      });
    }
  }
});
