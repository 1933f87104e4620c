/**
 * The contacts in name order live in contact_names (migration 0042): every write keeps it by triggers, except a CSV
 * import's, which adds its contacts' names after them, sorted a part at a time (src/contacts/name-order.ts). The list
 * sorted by name must show every contact, in the order a full sort of the contacts gives, whatever happened between
 * a contact's import and its name's (a rename, a delete, a restart).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { contactImports } from "../../db/schema";
import { diverseContacts, HEADER } from "../../scripts/bench/import-data";
import { hashPassword } from "../../src/auth/passwords";
import { listBackups, restoreBackup } from "../../src/backups/backups";
import type { AppContext } from "../../src/context";
import { INTERRUPTED } from "../../src/contacts/csv-import";
import { ContactImporter } from "../../src/contacts/importer";
import { compareKeys, nameKey, nameKeySql } from "../../src/contacts/name-key";
import { ImportNames } from "../../src/contacts/name-order";
import type { ImportRow } from "../../src/contacts/prepare";
import { grantLicense } from "../../src/licenses/licenses";
import { loadConfig } from "../../src/config";
import { startServer, type RunningServer } from "../../src/server";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";
import { databaseBefore } from "../support/old-database";

/** A contact's name key as the triggers write it (SQL), against which the keys written in JavaScript are checked. */
const KEY = nameKeySql("first_name", "last_name");

/** Contacts without their row of contact_names, and rows of contact_names that are no contact's name (both empty when right). */
function namesMismatch(ctx: AppContext) {
  const db = ctx.db.$client;
  return {
    missing: db.query(`SELECT count(*) AS n FROM (SELECT user_id, ${KEY}, rowid FROM contacts EXCEPT SELECT * FROM contact_names)`).get(),
    stray: db.query(`SELECT count(*) AS n FROM (SELECT * FROM contact_names EXCEPT SELECT user_id, ${KEY}, rowid FROM contacts)`).get(),
  };
}
const NONE = { missing: { n: 0 }, stray: { n: 0 } };

/**
 * A page of the owner's contacts in name order by a full sort of the contacts table itself (no contact_names), by
 * the name key the triggers compute in SQL (name-key.ts).
 */
function sortedIds(ctx: AppContext, userId: string, order: "ASC" | "DESC", pageSize: number, page: number) {
  return ctx.db.$client
    .query<{ id: string }, [string, number, number]>(
      `SELECT id FROM contacts NOT INDEXED WHERE user_id = ? ORDER BY ${KEY} ${order}, rowid ${order} LIMIT ? OFFSET ?`,
    )
    .all(userId, pageSize, (page - 1) * pageSize)
    .map((r) => r.id);
}

/** Rows of the benchmark's diverse contacts (accents, particles, a different last name on each) as import rows. */
function diverseRows(n: number): ImportRow[] {
  const { lines } = diverseContacts(n);
  const at = (name: string) => HEADER.indexOf(name);
  // The first four columns (names, email, phone) hold no comma or quote in this data.
  return lines.slice(1).map((line) => {
    const cells = line.split(",");
    return { firstName: cells[at("First Name")], lastName: cells[at("Last Name")], email: cells[at("Email")], phone: cells[at("Phone")] };
  });
}

describe("a CSV import's contacts in name order", () => {
  let t: TestServer;
  let acc: Account;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "enterprise", 30);
  });
  afterAll(async () => {
    await t.stop();
    // The names were sorted on the worker each time, which ended cleanly (else: "the name sorter stopped (...)").
    expect(t.logs.filter((l) => l.includes("name sorter"))).toEqual([]);
  });

  test("listed by name page after page as a full sort of the contacts lists them; first names of one or two letters found", async () => {
    const { lines } = diverseContacts(3_000);
    const start = await t.api("/api/contacts/import/csv?country=US", { method: "POST", token: acc.token, body: lines.join("\n"), headers: { "content-type": "text/csv" } });
    expect(start.status).toBe(202);
    const job = await waitFor(
      async () => (await t.api(`/api/contacts/import/${start.body.id}`, { token: acc.token })).body,
      (j) => j.state === "done" || j.state === "failed",
      30_000,
    );
    expect(job.state).toBe("done");
    expect(job.created).toBeGreaterThan(2_800);
    expect(t.ctx.db.select().from(contactImports).where(eq(contactImports.id, start.body.id)).get()!.namesFrom).toBeNull();
    expect(namesMismatch(t.ctx)).toEqual(NONE);
    const last = Math.ceil(job.created / 100);
    for (const [order, page] of [["asc", 1], ["asc", 7], ["asc", last], ["desc", 1], ["desc", 13]] as const) {
      const res = await t.api(`/api/contacts?sort=name&order=${order}&pageSize=100&page=${page}`, { token: acc.token });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(job.created);
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(sortedIds(t.ctx, acc.user.id, order === "asc" ? "ASC" : "DESC", 100, page));
    }
    // "Ma": first names starting with it as typed, in lower case, capitalised or in capitals (María, Mary, Mateo...).
    const ma = t.ctx.db.$client
      .query<{ id: string }, [string]>(
        `SELECT id FROM contacts NOT INDEXED WHERE user_id = ? AND substr(${KEY}, 1, 2) = 'ma' ORDER BY created_at DESC, rowid DESC`,
      )
      .all(acc.user.id)
      .map((r) => r.id);
    expect(ma.length).toBeGreaterThan(100);
    const byCreation = await t.api("/api/contacts?q=Ma&pageSize=50&page=2", { token: acc.token });
    expect(byCreation.body.total).toBe(ma.length);
    expect(byCreation.body.data.map((c: { id: string }) => c.id)).toEqual(ma.slice(50, 100));
    const byName = await t.api("/api/contacts?q=Ma&sort=name&order=asc&pageSize=50", { token: acc.token });
    const maSorted = sortedIds(t.ctx, acc.user.id, "ASC", 5_000, 1).filter((id) => ma.includes(id));
    expect(byName.body.data.map((c: { id: string }) => c.id)).toEqual(maSorted.slice(0, 50));
  }, 60_000);

  test("Name A-Z as people read it: accented letters with their base letter, any case (issue 28 item 5)", async () => {
    // Added one at a time (the triggers' keys, in SQL) and by a CSV import (keys made in JavaScript): the same order.
    const typed = await t.signUpVerified();
    const imported = await t.signUpVerified();
    const people = [["Zoë", "Quinn"], ["Łukasz", "Nowak"], ["JOHN", "Smith"], ["Íñigo", "Montoya"], ["adams", "Lee"], ["Ángel", "Ruiz"]];
    for (const [i, [firstName, lastName]] of people.entries()) {
      const res = await t.api("/api/contacts", { method: "POST", token: typed.token, body: { firstName, lastName, phone: `+1415555${String(300 + i).padStart(4, "0")}` } });
      expect(res.status).toBe(201);
    }
    const csv = `first_name,last_name,phone\n${people.map(([f, l], i) => `${f},${l},+1415555${String(300 + i).padStart(4, "0")}`).join("\n")}\n`;
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: imported.token, body: csv, headers: { "content-type": "text/csv" } });
    await waitFor(() => t.api(`/api/contacts/import/${start.body.id}`, { token: imported.token }).then((r) => r.body), (j) => j.state === "done", 30_000);
    const az = ["adams", "Ángel", "Íñigo", "JOHN", "Łukasz", "Zoë"];
    for (const acc of [typed, imported]) {
      const firstNames = async (query: string) =>
        (await t.api(`/api/contacts?${query}`, { token: acc.token })).body.data.map((c: { firstName: string }) => c.firstName);
      expect(await firstNames("sort=name&order=asc")).toEqual(az);
      expect(await firstNames("sort=name&order=desc")).toEqual([...az].reverse());
      // A search's matches sorted by name follow the same order; a prefix of one or two letters folds them too.
      expect(await firstNames("q=n&sort=name&order=asc")).toEqual([]);
      expect(await firstNames("q=an&sort=name&order=asc")).toEqual(["Ángel"]);
      expect(await firstNames("q=l&sort=name")).toEqual(["Łukasz"]);
      expect(await firstNames("q=%C3%8D&sort=name")).toEqual(["Íñigo"]);
      expect(await firstNames("q=o&sort=name&order=asc")).toEqual([]);
      expect(await firstNames("q=ui&sort=name&order=asc")).toEqual([]);
    }
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  });

  test("Name A-Z and Z-A page after page, exactly, as people read the names; the search folds ß, æ, ø, ł and accents both ways (issue 28 item 5)", async () => {
    // Typed one at a time (keys written by the triggers, in SQL) and by a CSV import (in JavaScript): the same pages.
    // NOCASE put every capital before "adams" and Ángel, Æsa, Émile, Íñigo, Łukasz, Østergaard after "Zoë".
    const people = [
      ["Zoë", "Quinn"], ["Ángel", "Ruiz"], ["Íñigo", "Montoya"], ["Łukasz", "Nowak"], ["adams", "Lee"], ["Mette", "Østergaard"],
      ["Æsa", "Berg"], ["Hans", "Straße"], ["Ana", "Straße"], ["JOHN", "Smith"], ["Mette", "Quist"], ["Hans", "Stuart"],
      ["Émile", "Zola"], ["Mette", "Olsen"], ["Hans", "Strand"], ["Ana", "Strasse"], ["Jose", "Alvarez"], ["José", "Álvarez"],
    ];
    // Names with the same key ("Ana Straße", "Ana Strasse"; "Jose Alvarez", "José Álvarez") in the order they were stored.
    const az = [
      "adams Lee", "Æsa Berg", "Ana Straße", "Ana Strasse", "Ángel Ruiz", "Émile Zola", "Hans Strand", "Hans Straße", "Hans Stuart",
      "Íñigo Montoya", "JOHN Smith", "Jose Alvarez", "José Álvarez", "Łukasz Nowak", "Mette Olsen", "Mette Østergaard", "Mette Quist", "Zoë Quinn",
    ];
    const phone = (i: number) => `+1415555${String(400 + i).padStart(4, "0")}`;
    const typed = await t.signUpVerified();
    for (const [i, [firstName, lastName]] of people.entries())
      expect((await t.api("/api/contacts", { method: "POST", token: typed.token, body: { firstName, lastName, phone: phone(i) } })).status).toBe(201);
    const imported = await t.signUpVerified();
    const csv = `first_name,last_name,phone\n${people.map(([f, l], i) => `${f},${l},${phone(i)}`).join("\n")}\n`;
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: imported.token, body: csv, headers: { "content-type": "text/csv" } });
    await waitFor(() => t.api(`/api/contacts/import/${start.body.id}`, { token: imported.token }).then((r) => r.body), (j) => j.state === "done", 30_000);
    for (const acc of [typed, imported]) {
      const page = async (query: string) => {
        const res = await t.api(`/api/contacts?${query}`, { token: acc.token });
        expect(res.status).toBe(200);
        return { total: res.body.total, names: res.body.data.map((c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`) };
      };
      for (const order of ["asc", "desc"] as const) {
        const expected = order === "asc" ? az : [...az].reverse();
        for (const n of [1, 2, 3, 4]) expect(await page(`sort=name&order=${order}&pageSize=5&page=${n}`)).toEqual({ total: 18, names: expected.slice((n - 1) * 5, n * 5) });
        expect(await page(`sort=name&order=${order}&pageSize=5&page=5`)).toEqual({ total: 18, names: [] });
      }
      // The search: each way of writing a name finds the others, listed by name.
      const found = async (q: string) => (await page(`q=${encodeURIComponent(q)}&sort=name&order=asc`)).names;
      for (const q of ["strasse", "Straße", "STRASSE", "STRAẞE", "straß"]) expect([q, await found(q)]).toEqual([q, ["Ana Straße", "Ana Strasse", "Hans Straße"]]);
      for (const q of ["jose", "José", "JOSÉ", "alvarez", "Álvarez"]) expect([q, await found(q)]).toEqual([q, ["Jose Alvarez", "José Álvarez"]]);
      for (const q of ["ostergaard", "Østergaard", "østerg", "OSTERG"]) expect([q, await found(q)]).toEqual([q, ["Mette Østergaard"]]);
      for (const q of ["aesa", "Æsa", "æs", "AES"]) expect([q, await found(q)]).toEqual([q, ["Æsa Berg"]]);
      for (const q of ["lukasz", "Łukasz", "ŁUK", "luk"]) expect([q, await found(q)]).toEqual([q, ["Łukasz Nowak"]]);
      for (const q of ["zoe", "Zoë", "inigo", "ÍÑIGO", "angel"]) expect([q, (await found(q)).length]).toEqual([q, 1]);
      // One or two letters: the first name's start, folded as the list's key folds it.
      expect(await found("Æ")).toEqual(["Æsa Berg"]);
      expect(await found("ae")).toEqual(["Æsa Berg"]);
      expect(await found("l")).toEqual(["Łukasz Nowak"]);
      expect(await found("a")).toEqual(["adams Lee", "Æsa Berg", "Ana Straße", "Ana Strasse", "Ángel Ruiz"]);
      expect(await page("q=e&sort=name&order=desc")).toEqual({ total: 1, names: ["Émile Zola"] });
    }
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  });

  test("every way a contact's name is written keys it as name-key.ts does, and indexes its folded letters for the search", async () => {
    // The key is written by the triggers (SQL) for every write but a CSV import's own inserts (JavaScript): whichever
    // path a contact is stored or renamed by, its row of contact_names holds nameKey of its names, once.
    const owner = await t.signUpVerified();
    await grantLicense(t.ctx, owner.user.id, "professional", 30);
    const call = async (path: string, method: string, body?: unknown, token = owner.token) => {
      const res = await t.api(path, { method, token, body, origin: token === owner.token ? undefined : false });
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    await call("/api/user/settings", "PATCH", { quietHoursEnabled: false });
    const provider = await call("/api/sms-providers", "POST", { provider: "simulator", displayName: "Simulator" });
    await call("/api/phone-numbers", "POST", { providerId: provider.id, phoneNumber: "+14155550100", isDefault: true });
    await t.confirm(owner);
    const key = (await call("/api/api-keys", "POST", { name: "Names", permissions: ["contacts:read", "contacts:write"] })).key as string;
    const inbound = (from: string, body: string) => call(`/api/sms-providers/${provider.id}/simulate-inbound`, "POST", { from, body });

    const typed = await call("/api/contacts", "POST", { firstName: "Zoë", lastName: "Quinn", phone: "+14155550601" });
    await call(`/api/contacts/${typed.id}`, "PUT", { firstName: "Łukasz", lastName: "Nowak", phone: "+14155550601" });
    await call("/api/contacts/import", "POST", { contacts: [{ firstName: "Íñigo", lastName: "Montoya", phone: "+14155550602" }] });
    const csv = "first_name,last_name,phone\nJörg,Straße,+14155550603\nadams,Lee,+14155550604\n";
    const job = await t.api("/api/contacts/import/csv", { method: "POST", token: owner.token, body: csv, headers: { "content-type": "text/csv" } });
    await waitFor(() => t.api(`/api/contacts/import/${job.body.id}`, { token: owner.token }).then((r) => r.body), (j) => j.state === "done", 30_000);
    await call("/api/v1/contacts/upsert", "POST", { phone: "+14155550605", firstName: "Ångström", lastName: "Æsir" }, key);
    await call("/api/v1/contacts/upsert", "POST", { phone: "+14155550604", firstName: "ADAMS" }, key);
    const viaApi = await call("/api/v1/contacts", "POST", { phone: "+14155550606", firstName: "Øystein", lastName: "Berg" }, key);
    await call(`/api/v1/contacts/${viaApi.id}`, "PATCH", { lastName: "Þórsson" }, key);
    await call("/api/keywords", "POST", { keyword: "JOIN", autoReply: "Welcome!" });
    await inbound("+14155550607", "JOIN");
    await inbound("+14155550608", "Hello there");
    await inbound("+14155550609", "STOP");
    const doomed = await call("/api/contacts", "POST", { firstName: "Émile", lastName: "Zola", phone: "+14155550610" });
    await call("/api/contacts/bulk-delete", "POST", { contactIds: [doomed.id] });

    const db = t.ctx.db.$client;
    const stored = () => db.query<{ r: number; f: string; l: string }, [string]>("SELECT rowid AS r, first_name AS f, last_name AS l FROM contacts WHERE user_id = ?").all(owner.user.id);
    await waitFor(() => stored().length, (n) => n === 9, 20_000);
    const keyed = db.query<{ r: number; k: string }, [string]>("SELECT contact_rowid AS r, name_key AS k FROM contact_names WHERE user_id = ? ORDER BY name_key, contact_rowid").all(owner.user.id);
    const byKey = stored()
      .map(({ r, f, l }) => ({ r, k: nameKey(f, l) }))
      .sort((a, b) => compareKeys(a.k, b.k) || a.r - b.r);
    expect(keyed).toEqual(byKey);
    const firstNames = async (query: string) =>
      (await t.api(`/api/contacts?${query}`, { token: owner.token })).body.data.map((c: { firstName: string }) => c.firstName);
    expect(await firstNames("sort=name&order=asc")).toEqual(["", "", "", "ADAMS", "Ångström", "Íñigo", "Jörg", "Łukasz", "Øystein"]);
    for (const [q, found] of [["strasse", "Jörg"], ["aesir", "Ångström"], ["oystein", "Øystein"], ["thorsson", "Øystein"], ["lukasz", "Łukasz"]])
      expect([q, await firstNames(`q=${q}`)]).toEqual([q, [found]]);
  });

  test("names in any case sort together, ASCII letters compared without their case; a prefix of one or two letters too", async () => {
    const owner = await t.signUpVerified();
    const people = [["bob", "Xu"], ["Alice", "Young"], ["ZOE", "Zhu"], ["carl", "Weir"], ["Émile", "Abel"], ["émile", "Babel"], ["adams", "Cole"], ["Adams", "Bell"]];
    for (const [i, [firstName, lastName]] of people.entries()) {
      const res = await t.api("/api/contacts", { method: "POST", token: owner.token, body: { firstName, lastName, phone: `+1415555${String(200 + i).padStart(4, "0")}` } });
      expect(res.status).toBe(201);
    }
    const names = async (query: string) =>
      (await t.api(`/api/contacts?${query}`, { token: owner.token })).body.data.map((c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`);
    const az = ["Adams Bell", "adams Cole", "Alice Young", "bob Xu", "carl Weir", "Émile Abel", "émile Babel", "ZOE Zhu"];
    expect(await names("sort=name&order=asc")).toEqual(az);
    // Without an order: names from A (numbers from the lowest), as the campaign history sorts; the newest first else.
    expect(await names("sort=name")).toEqual(az);
    expect(await names("sort=phone&pageSize=2")).toEqual(["bob Xu", "Alice Young"]);
    expect(await names("pageSize=2")).toEqual(["Adams Bell", "adams Cole"]);
    expect(await names("sort=name&order=desc")).toEqual([...az].reverse());
    expect(await names("q=AD&sort=name&order=asc")).toEqual(["Adams Bell", "adams Cole"]);
    expect(await names("q=zo&sort=createdAt&order=asc")).toEqual(["ZOE Zhu"]);
    expect(await names("q=%C3%A9m&sort=name&order=desc")).toEqual(["émile Babel", "Émile Abel"]);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  });

  test("names that cannot be read leave the job unfinished with where they start, for the next start; never done without them", async () => {
    const owner = await t.signUpVerified();
    const jobId = Bun.randomUUIDv7();
    t.ctx.db.insert(contactImports).values({ id: jobId, userId: owner.user.id, state: "running" }).run();
    const importer = await ContactImporter.open(t.ctx, owner.user.id, { namesLater: true, region: "US", importId: jobId });
    await importer.addRows(diverseRows(300));
    t.ctx.db.update(contactImports).set({ namesFrom: importer.namesFrom }).where(eq(contactImports.id, jobId)).run();
    const names = new ImportNames(t.ctx, owner.user.id, jobId);
    names.stored(importer.namesFrom, importer.created);
    // As when the database is closed under it by a stop: the read of the part fails.
    (names as unknown as { unsorted: { sort: () => Promise<never>; stop: () => void } }).unsorted = { sort: () => Promise.reject(new Error("closed")), stop: () => {} };
    let ended = 0;
    await expect(names.finish(() => false, () => ended++)).rejects.toThrow(`the names from contact ${importer.namesFrom} could not be read`);
    expect(ended).toBe(0);
    expect(t.ctx.db.select().from(contactImports).where(eq(contactImports.id, jobId)).get()!.namesFrom).toBe(importer.namesFrom);
    expect(t.logs.some((l) => l.includes(`the names from contact ${importer.namesFrom} could not be read: closed`))).toBe(true);
    // What the next start does with the job's record: every name added, then the job ended.
    const again = new ImportNames(t.ctx, owner.user.id, jobId, importer.namesFrom);
    expect(await again.finish(() => false, () => ended++)).toBe(true);
    expect(ended).toBe(1);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  });

  test("added a part at a time, the job's record following each; a contact renamed or deleted before its name was added is listed as it is", async () => {
    const owner = await t.signUpVerified();
    await grantLicense(t.ctx, owner.user.id, "enterprise", 30);
    const jobId = Bun.randomUUIDv7();
    t.ctx.db.insert(contactImports).values({ id: jobId, userId: owner.user.id, state: "running" }).run();
    const importer = await ContactImporter.open(t.ctx, owner.user.id, { namesLater: true, region: "US", importId: jobId });
    // Parts of 20,000: the first (24,000) is sorted on the worker, the rest (3,000, fewer than SORTED_FROM) on this thread.
    const names = new ImportNames(t.ctx, owner.user.id, jobId, null, 20_000);
    const rows = diverseRows(27_000);
    const named = () => (t.ctx.db.$client.query("SELECT count(*) AS n FROM contact_names WHERE user_id = ?").get(owner.user.id) as { n: number }).n;
    const record = () => t.ctx.db.select().from(contactImports).where(eq(contactImports.id, jobId)).get()!.namesFrom;

    await importer.addRows(rows.slice(0, 24_000));
    expect(importer.namesFrom).not.toBeNull();
    expect(named()).toBe(0);
    names.stored(importer.namesFrom, importer.created);
    // The part is sorted on the worker; its names then go in a transaction at a time.
    const maxRowid = (t.ctx.db.$client.query("SELECT max(rowid) AS m FROM contacts").get() as { m: number }).m;
    await waitFor(async () => (await names.step()) && record() === maxRowid + 1, Boolean, 10_000, 5);
    expect(named()).toBe(importer.created);

    await importer.addRows(rows.slice(24_000));
    names.stored(importer.namesFrom, importer.created); // fewer than a part since the last: nothing asked
    expect(await names.step()).toBe(false);
    // Two contacts of the second part, before their names are added: one renamed, one deleted.
    const pending = t.ctx.db.$client
      .query<{ id: string }, [string, number]>("SELECT id FROM contacts WHERE user_id = ? AND rowid > ? ORDER BY rowid LIMIT 2")
      .all(owner.user.id, maxRowid);
    const stored = (await t.api(`/api/contacts/${pending[0]!.id}`, { token: owner.token })).body;
    const renamed = await t.api(`/api/contacts/${pending[0]!.id}`, { method: "PUT", token: owner.token, body: { phone: stored.phone, firstName: "Aaron", lastName: "Renamed" } });
    expect(renamed.status).toBe(200);
    expect((await t.api(`/api/contacts/${pending[1]!.id}`, { method: "DELETE", token: owner.token })).status).toBe(200);

    let ended = 0;
    expect(await names.finish(() => false, () => ended++)).toBe(true);
    expect(ended).toBe(1);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
    expect(named()).toBe(importer.created - 1);
    const first = await t.api("/api/contacts?sort=name&order=asc&pageSize=100", { token: owner.token });
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(sortedIds(t.ctx, owner.user.id, "ASC", 100, 1));
    expect(first.body.data.find((c: { id: string }) => c.id === pending[0]!.id)).toMatchObject({ firstName: "Aaron", lastName: "Renamed" });
  }, 60_000);
});

describe("names an import left when the process stopped", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-names-"));
  const env = { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SMSDESK_DEV: "", ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "names-test-pass" };
  let server: RunningServer | null = null;
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("are added at the next start; the job says interrupted with its counts, and the list by name shows every contact", async () => {
    server = await startServer(loadConfig(env, []), () => {});
    const ctx = server.ctx;
    const userId = (ctx.db.$client.query("SELECT id FROM users WHERE email = ?").get(env.ADMIN_EMAIL) as { id: string }).id;
    await grantLicense(ctx, userId, "enterprise", 30);
    // What a CSV job had committed when the process ended: its contacts, the counts, where its names start.
    const jobId = Bun.randomUUIDv7();
    ctx.db.insert(contactImports).values({ id: jobId, userId, state: "running" }).run();
    const importer = await ContactImporter.open(ctx, userId, { namesLater: true, region: "US", importId: jobId });
    await importer.addRows(diverseRows(1_200));
    ctx.db.update(contactImports).set({ created: importer.created, rowsRead: importer.rowsRead, namesFrom: importer.namesFrom }).where(eq(contactImports.id, jobId)).run();
    expect(namesMismatch(ctx).missing).toEqual({ n: importer.created });
    await server.stop();

    server = await startServer(loadConfig(env, []), () => {});
    const again = server.ctx;
    const job = await waitFor(() => again.db.select().from(contactImports).where(eq(contactImports.id, jobId)).get()!, (j) => j.namesFrom === null, 10_000);
    expect(job).toMatchObject({ state: "failed", error: INTERRUPTED, created: importer.created });
    expect(namesMismatch(again)).toEqual(NONE);
    const res = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: new URL(again.config.publicUrl).origin },
      body: JSON.stringify({ email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD }),
    });
    const token = ((await res.json()) as { token: string }).token;
    const page = await fetch(`${server.url}/api/contacts?sort=name&order=desc&pageSize=100&page=3`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await page.json()) as { total: number; data: { id: string }[] };
    expect(body.total).toBe(importer.created);
    expect(body.data.map((c) => c.id)).toEqual(sortedIds(again, userId, "DESC", 100, 3));
  }, 60_000);
});

test("migration 0042: the names of contacts stored before it are in contact_names, in the list's order, and the name index of contacts is gone", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-names-0042-"));
  const old = databaseBefore(dataDir, "0042_contact_names");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword("old-password-1"));
  const contact = old.query("INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES (?, 'u-1', ?, ?, ?, ?)");
  contact.run("c-1", "Zoë", "Müller", "+13125550101", 1);
  contact.run("c-2", "Ann", "Lee", "+13125550102", 2);
  contact.run("c-3", "Ann", "Adams", "+13125550103", 3);
  contact.run("c-4", "", "", "+13125550104", 4);
  old.close();
  const t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  try {
    const token = (await t.login("old@example.com", "old-password-1")).token;
    const res = await t.api("/api/contacts?sort=name&order=asc", { token });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(["c-4", "c-3", "c-2", "c-1"]);
    expect((await t.api("/api/contacts?q=An&sort=name&order=desc", { token })).body.data.map((c: { id: string }) => c.id)).toEqual(["c-2", "c-3"]);
    expect(t.ctx.db.$client.query("SELECT name FROM sqlite_master WHERE name = 'contacts_user_name_idx'").all()).toEqual([]);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  } finally {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("only the CSV importer stores contacts as source 'import', the one write the triggers that key names leave to it", () => {
  // Any other path storing 'import' rows would list no name for them and leave them out of the search.
  const root = join(import.meta.dir, "..", "..");
  const writers = [...new Bun.Glob("src/**/*.ts").scanSync(root)].filter((file) => {
    const text = readFileSync(join(root, file), "utf8");
    return /source:\s*"import"/.test(text) || (/INTO\s+contacts\s*\(/.test(text) && /'import'/.test(text));
  });
  expect(writers).toEqual(["src/contacts/importer.ts"]);
});

test("migration 0052: names stored before it are keyed at the next start, listed as people read them and found folded", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "smsdesk-names-0052-"));
  const old = databaseBefore(dataDir, "0052_contact_name_keys");
  old.query("INSERT INTO users (id, email, password_hash, email_verified) VALUES ('u-1', 'old@example.com', ?, 1)").run(await hashPassword("old-password-1"));
  const contact = old.query("INSERT INTO contacts (id, user_id, first_name, last_name, phone, created_at) VALUES (?, 'u-1', ?, ?, ?, ?)");
  const people = [["Zoë", "Quinn"], ["Łukasz", "Nowak"], ["JOHN", "Smith"], ["Íñigo", "Montoya"], ["adams", "Lee"], ["Ángel", "Ruiz"], ["Øystein", "Straße"]];
  people.forEach(([first, last], i) => contact.run(`c-${i}`, first!, last!, `+1312555${String(110 + i).padStart(4, "0")}`, i));
  old.close();
  const t = await startTestServer({ smtp: false, env: { DATA_DIR: dataDir } });
  try {
    const token = (await t.login("old@example.com", "old-password-1")).token;
    const firstNames = async (query: string) => (await t.api(`/api/contacts?${query}`, { token })).body.data.map((c: { firstName: string }) => c.firstName);
    expect(await firstNames("sort=name&order=asc")).toEqual(["adams", "Ángel", "Íñigo", "JOHN", "Łukasz", "Øystein", "Zoë"]);
    for (const q of ["strasse", "STRAßE", "oystein", "øyst"]) expect(await firstNames(`q=${encodeURIComponent(q)}`)).toEqual(["Øystein"]);
    expect(await firstNames("q=lukasz")).toEqual(["Łukasz"]);
    expect(t.ctx.db.$client.query("SELECT count(*) AS n FROM contact_names_pending").get()).toEqual({ n: 0 });
    expect(t.logs.filter((l) => /names of \d+ contacts keyed/.test(l)).map((l) => l.replace(/in \d+ ms/, "in N ms"))).toEqual([
      "contacts: the names of 7 contacts keyed for the list by name in N ms",
    ]);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
    // The backup taken before the migrations, restored: keyed again as it opens.
    await t.api("/api/contacts", { method: "POST", token, body: { firstName: "Émile", lastName: "Zola", phone: "+13125550199" } });
    const before = listBackups(dataDir).find((b) => b.reason === "before-migrations")!;
    expect(before.manifest!.schema).toBe("0051_credentials_made_by_session");
    await restoreBackup(t.ctx, before.id);
    const again = (await t.login("old@example.com", "old-password-1")).token;
    const restored = await t.api("/api/contacts?sort=name&order=asc", { token: again });
    expect(restored.body.data.map((c: { firstName: string }) => c.firstName)).toEqual(["adams", "Ángel", "Íñigo", "JOHN", "Łukasz", "Øystein", "Zoë"]);
    expect(t.logs.filter((l) => /names of \d+ contacts keyed/.test(l)).length).toBe(2);
    expect(namesMismatch(t.ctx)).toEqual(NONE);
  } finally {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
