import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { messages } from "../../db/schema";
import { BULK_CHUNK, optedOutReader, optInContact, optOutContact } from "../../src/contacts/contacts";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { valuesDuring } from "../support/turns";

let t: TestServer;
let a: Account;
let b: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  a = await t.signUpVerified();
  b = await t.signUpVerified();
});
afterAll(() => t?.stop());

const post = (acc: Account, path: string, body: unknown) => t.api(path, { method: "POST", token: acc.token, body });

describe("contacts CRUD", () => {
  test("create stores E.164, validates in the spec's wording, 409 on a duplicate phone", async () => {
    const r = await post(a, "/api/contacts", { firstName: "Ann", lastName: "Lee", phone: "(415) 555-2671", tags: [" vip ", ""], customFields: { city: "SF" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ firstName: "Ann", phone: "+14155552671", tags: ["vip"], customFields: { city: "SF" }, status: "subscribed", source: "manual", totalSpent: 0 });
    expect(typeof r.body.createdAt).toBe("string");
    expect((await post(a, "/api/contacts", { phone: "4155550000" })).body.message).toBe("Please enter at least a first or last name");
    expect((await post(a, "/api/contacts", { firstName: "X" })).body.message).toBe("Please enter either a phone number or email address");
    const bad = await post(a, "/api/contacts", { firstName: "X", phone: "12345" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Please enter a valid phone number");
    const dup = await post(a, "/api/contacts", { firstName: "Dup", phone: "+1 415 555 2671" });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ message: "A contact with this phone number already exists", existingContactId: r.body.id });
    const uk = await post(a, "/api/contacts", { firstName: "Brit", phone: "020 7946 0958", country: "GB" });
    expect(uk.body.phone).toBe("+442079460958");
  });

  test("two creates of one phone at once: one 201, one 409, one contact", async () => {
    const both = await Promise.all([1, 2].map((i) => post(b, "/api/contacts", { firstName: `Twin ${i}`, phone: "+14155550199" })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.ctx.records.$rows(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND phone = '+14155550199'`, [b.user.id])).toEqual([{ n: 1 }]);
    expect((await t.api(`/api/contacts/${both.find((r) => r.status === 201)!.body.id}`, { method: "DELETE", token: b.token })).status).toBe(200);
  });

  test("list, search by digits in any format and by name, stats, paging limits", async () => {
    await post(a, "/api/contacts", { firstName: "Zed", email: "zed@example.com" });
    const list = await t.api("/api/contacts?page=1&pageSize=2", { token: a.token });
    expect(list.body).toMatchObject({ page: 1, pageSize: 2 });
    expect(list.body.total).toBe(3); // Ann and Brit from the test above, and Zed
    expect(list.body.data.length).toBe(2);
    const byDigits = await t.api(`/api/contacts?q=${encodeURIComponent("(415) 555")}`, { token: a.token });
    expect(byDigits.body.data.map((c: any) => c.firstName)).toEqual(["Ann"]);
    expect((await t.api("/api/contacts?q=zed@exa", { token: a.token })).body.data[0].firstName).toBe("Zed");
    expect((await t.api("/api/contacts?q=an", { token: a.token })).body.data[0].firstName).toBe("Ann");
    expect((await t.api("/api/contacts?pageSize=500", { token: a.token })).status).toBe(400);
    const stats = await t.api("/api/contacts/stats", { token: a.token });
    expect(stats.body).toEqual({ total: 3, email: 1, sms: 2 });
    expect((await t.api("/api/contacts", { token: b.token })).body.total).toBe(0);
  });

  test("two updates giving one phone to two contacts at once: one 200, one 409 naming the contact that has it", async () => {
    const c = await t.signUpVerified();
    const ids: string[] = [];
    for (const phone of ["+12125550181", "+12125550182"]) ids.push((await post(c, "/api/contacts", { firstName: "Pair", phone })).body.id);
    const both = await Promise.all(ids.map((id) => t.api(`/api/contacts/${id}`, { method: "PUT", token: c.token, body: { firstName: "Pair", phone: "+12125550189" } })));
    const ok = both.find((r) => r.status === 200)!;
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)!.body).toMatchObject({ message: "A contact with this phone number already exists", existingContactId: ok.body.id });
  });

  test("update, delete and another user's id answers 404", async () => {
    const c = (await post(a, "/api/contacts", { firstName: "Upd", phone: "+1 212 555 0143" })).body;
    const u = await t.api(`/api/contacts/${c.id}`, { method: "PUT", token: a.token, body: { firstName: "Updated", phone: "+12125550143", email: "u@example.com" } });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ firstName: "Updated", email: "u@example.com" });
    expect((await t.api(`/api/contacts/${c.id}`, { method: "PUT", token: b.token, body: { firstName: "x", email: "x@example.com" } })).status).toBe(404);
    expect((await t.api(`/api/contacts/${c.id}`, { method: "DELETE", token: b.token })).status).toBe(404);
    expect((await t.api(`/api/contacts/${c.id}/consent`, { token: b.token })).status).toBe(404);
    expect((await t.api(`/api/contacts/${c.id}/opt-out`, { method: "POST", token: b.token, body: {} })).status).toBe(404);
    expect((await t.api(`/api/contacts/${c.id}`, { method: "DELETE", token: a.token })).status).toBe(200);
    expect((await t.api(`/api/contacts/${c.id}`, { token: a.token })).status).toBe(404);
  });

  test("opt-out is logged and never undone by create or import; only the contact's own opt-in re-subscribes", async () => {
    const c = (await post(a, "/api/contacts", { firstName: "Stop", phone: "+1 646 555 0101" })).body;
    const o = await post(a, `/api/contacts/${c.id}/opt-out`, { text: "asked by phone" });
    expect(o.body.status).toBe("opted_out");
    const log = (await t.api(`/api/contacts/${c.id}/consent`, { token: a.token })).body.data;
    expect(log.map((x: any) => [x.kind, x.source])).toEqual([["opt_in", "manual"], ["opt_out", "manual"]]);
    expect(log[1].text).toBe("asked by phone");
    await post(a, "/api/contacts/import", { contacts: [{ phone: "+16465550101", firstName: "Again", lastName: "Later" }] });
    expect((await t.api(`/api/contacts/${c.id}`, { token: a.token })).body.status).toBe("opted_out");
    // The sending engine's check at the moment of sending (the outbox store's reader).
    const optedOut = await optedOutReader(t.ctx);
    expect(optedOut(a.user.id, "+16465550101")).toBe(true);
    expect(optedOut(b.user.id, "+16465550101")).toBe(false);
    await optInContact(t.ctx, a.user.id, "+16465550101", "keyword", "START");
    expect(optedOut(a.user.id, "+16465550101")).toBe(false);
    const fresh = await optOutContact(t.ctx, a.user.id, "+16465550199", "keyword", "STOP");
    expect(fresh.status).toBe("opted_out");
  });

  test("two STOPs from one unknown number at once: one contact, created once, both opt-outs logged", async () => {
    const c = await t.signUpVerified();
    const both = await Promise.all([1, 2].map(() => optOutContact(t.ctx, c.user.id, "+16465550177", "keyword", "STOP")));
    expect(both.map((r) => [r.id, r.status])).toEqual([[both[0]!.id, "opted_out"], [both[0]!.id, "opted_out"]]);
    expect(await t.ctx.records.$rows("SELECT kind FROM contact_consents WHERE user_id = ?", [c.user.id])).toEqual([{ kind: "opt_out" }, { kind: "opt_out" }]);
    const events = await t.ctx.records.$rows("SELECT type FROM events WHERE user_id = ? AND type LIKE 'contact.%' ORDER BY id", [c.user.id]);
    expect(events).toEqual([{ type: "contact.created" }, { type: "contact.opted_out" }]);
  });
});

describe("bulk, duplicates, merge, export", () => {
  test("bulk tag and bulk delete", async () => {
    const ids = [];
    for (const p of ["+13125550111", "+13125550112"]) ids.push((await post(a, "/api/contacts", { firstName: "Bulk", phone: p })).body.id);
    expect((await post(a, "/api/contacts/bulk-tag", { contactIds: ids, tags: [" ", ""], action: "add" })).status).toBe(400);
    expect((await post(a, "/api/contacts/bulk-tag", { contactIds: ids, tags: [" promo ", "x"], action: "add" })).body).toEqual({ updated: 2 });
    expect((await t.api(`/api/contacts/${ids[0]}`, { token: a.token })).body.tags).toEqual(["promo", "x"]);
    expect((await post(a, "/api/contacts/bulk-tag", { contactIds: ids, tags: ["x"], action: "remove" })).body).toEqual({ updated: 2 });
    expect((await post(b, "/api/contacts/bulk-delete", { contactIds: ids })).body.deleted).toBe(0);
    expect((await post(a, "/api/contacts/bulk-delete", { contactIds: ids })).body).toEqual({ deleted: 2, message: "2 contacts deleted" });
    const listed = (await t.api("/api/contacts?pageSize=1", { token: a.token })).body.total;
    expect(listed).toBe((await t.api("/api/contacts/stats", { token: a.token })).body.total);
  });

  test("bulk tag and delete of many contacts go a chunk per transaction with turns of the event loop between; messages stay, detached", async () => {
    const acc = await t.signUpVerified();
    const n = BULK_CHUNK * 2 + 1;
    const db = t.ctx.records;
    const ids = Array.from({ length: n }, () => Bun.randomUUIDv7());
    await t.ctx.withTransaction(async () => {
      for (const [i, id] of ids.entries()) {
        await db.$run(`INSERT INTO contacts (id, user_id, first_name, phone) VALUES (?, ?, 'Many', ?)`, [id, acc.user.id, `+1312556${String(i).padStart(4, "0")}`]);
        await db.$run(`INSERT INTO messages (id, user_id, contact_id, phone, content, direction, status, kind) VALUES (?, ?, ?, ?, 'x', 'outbound', 'delivered', 'single')`, [Bun.randomUUIDv7(), acc.user.id, id, `+1312556${String(i).padStart(4, "0")}`]);
      }
    });
    const count = async (sql: string) => (await db.$rows<{ n: number }>(sql, [acc.user.id]))[0]!.n;
    // A count read at every turn of the event loop while a request runs: between two chunks it is neither all of
    // them nor none.
    const between = async (sql: string, request: () => Promise<unknown>) => {
      const { answer, seen } = await valuesDuring(() => count(sql), request);
      return { answer, seen: seen.filter((x) => x > 0 && x < n).sort((x, y) => x - y) };
    };
    const tagged = await between(`SELECT count(*) AS n FROM contacts WHERE user_id = ? AND tags LIKE '%"many"%'`, () =>
      post(acc, "/api/contacts/bulk-tag", { contactIds: ids, tags: ["many"], action: "add" }),
    );
    expect(tagged).toEqual({ answer: expect.objectContaining({ body: { updated: n } }), seen: [BULK_CHUNK, 2 * BULK_CHUNK] });
    expect(await count("SELECT count(*) AS n FROM events WHERE user_id = ? AND type = 'contact.tagged'")).toBe(n);

    const deleted = await between("SELECT count(*) AS n FROM contacts WHERE user_id = ?", () =>
      post(acc, "/api/contacts/bulk-delete", { contactIds: [...ids, crypto.randomUUID()] }),
    );
    expect(deleted).toEqual({ answer: expect.objectContaining({ body: { deleted: n, message: `${n} contacts deleted` } }), seen: [n - 2 * BULK_CHUNK, n - BULK_CHUNK] });
    expect(await db.$rows("SELECT count(*) AS n, count(contact_id) AS linked FROM messages WHERE user_id = ?", [acc.user.id])).toEqual([{ n, linked: 0 }]);
    expect((await t.api("/api/contacts/stats", { token: acc.token })).body.total).toBe(0);
  });

  test("duplicates by digits and merge moving tags, fields, consent and messages", async () => {
    const p1 = (await post(a, "/api/contacts", { firstName: "Prim", phone: "+13055550123", tags: ["a"], customFields: { k: "primary" } })).body;
    // legacy formatting of the same number, as older data may hold
    const legacyId = crypto.randomUUID();
    await t.ctx.records.$run(`INSERT INTO contacts (id, user_id, first_name, phone, tags, custom_fields) VALUES (?, ?, 'Legacy', '+1 (305) 555-0123', '["b"]', '{"k":"other","z":"1"}')`, [legacyId, a.user.id]);
    await t.ctx.records.$run(`INSERT INTO contact_consents (id, contact_id, user_id, kind, source, text) VALUES (?, ?, ?, 'opt_in', 'keyword', 'JOIN')`, [crypto.randomUUID(), legacyId, a.user.id]);
    await t.ctx.records.insert(messages).values({ id: crypto.randomUUID(), userId: a.user.id, contactId: legacyId, phone: "+13055550123", content: "hi", direction: "inbound" }).run();
    const d = await t.api("/api/contacts/duplicates", { token: a.token });
    const group = d.body.data.find((g: any) => g.contacts.some((c: any) => c.id === legacyId));
    expect(group.contacts.map((c: any) => c.id).sort()).toEqual([p1.id, legacyId].sort());
    expect((await post(a, "/api/contacts/merge", { mergeContactIds: [legacyId] })).body.message).toBe("Please select which contact to keep as primary.");
    expect((await post(b, "/api/contacts/merge", { primaryContactId: p1.id, mergeContactIds: [legacyId] })).status).toBe(404);
    const m = await post(a, "/api/contacts/merge", { primaryContactId: p1.id, mergeContactIds: [legacyId] });
    expect(m.status).toBe(200);
    expect(m.body.tags).toEqual(["a", "b"]);
    expect(m.body.customFields).toEqual({ k: "primary", z: "1" });
    expect((await t.api(`/api/contacts/${legacyId}`, { token: a.token })).status).toBe(404);
    const consent = (await t.api(`/api/contacts/${p1.id}/consent`, { token: a.token })).body.data;
    expect(consent.some((c: any) => c.text === "JOIN")).toBe(true);
    const moved = await t.ctx.records.$rows<{ contact_id: string }>("SELECT contact_id FROM messages WHERE user_id = ?", [a.user.id]);
    expect(moved.every((r) => r.contact_id === p1.id)).toBe(true);
  });

  test("duplicate groups without a digits index: two older spellings and no E.164 one, paged in order of the digits", async () => {
    const c = await t.signUpVerified();
    const insert = async (name: string, phone: string, at: number) => {
      const id = crypto.randomUUID();
      await t.ctx.records.$run(`INSERT INTO contacts (id, user_id, first_name, phone, created_at) VALUES (?, ?, ?, ?, ?)`, [id, c.user.id, name, phone, at]);
      return id;
    };
    const late = await insert("Late", "1-212-555-0100", 3000);
    const early = await insert("Early", "+1 (212) 555-0100", 1000);
    const canonical = (await post(c, "/api/contacts", { firstName: "Canon", phone: "+19175550100" })).body.id;
    const legacy = await insert("Legacy", "1.917.555.0100", 2000);
    await insert("Alone", "(305) 555-0199", 1000);
    const indexes = t.ctx.records.$engine === "sqlite" ? "SELECT name FROM sqlite_master WHERE type = 'index'" : "SELECT indexname AS name FROM pg_indexes";
    const names = (await t.ctx.records.$rows<{ name: string }>(indexes)).map((x) => x.name);
    expect(names).toContain("contacts_user_phone_idx");
    expect(names).not.toContain("contacts_user_digits_idx");
    const first = (await t.api("/api/contacts/duplicates?page=1&pageSize=1", { token: c.token })).body;
    expect(first.total).toBe(2);
    expect(first.data.map((g: any) => g.contacts.map((m: any) => m.id))).toEqual([[early, late]]);
    expect(first.data[0].phone).toBe("+1 (212) 555-0100");
    const second = (await t.api("/api/contacts/duplicates?page=2&pageSize=1", { token: c.token })).body;
    expect(second.data.map((g: any) => g.contacts.map((m: any) => m.id).sort())).toEqual([[canonical, legacy].sort()]);
    // One or two digits read the (user_id, phone) index from "+": E.164 phones starting with them.
    const byDigits = (await t.api("/api/contacts?q=19&sort=phone&order=asc", { token: c.token })).body;
    expect(byDigits.data.map((m: any) => m.id)).toEqual([canonical]);
  });

  test("export streams CSV with formulas neutralised, and honours q", async () => {
    await post(a, "/api/contacts", { firstName: "=HYPERLINK(\"x\")", lastName: "@evil", email: "-x@example.com", phone: "+17185550100", tags: ["+t"] });
    const r = await t.api("/api/contacts/export.csv", { token: a.token });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/csv");
    const lines = r.text.split("\r\n");
    expect(lines[0]).toBe("firstName,lastName,email,phone,tags,status,createdAt (America/New_York)");
    const evil = lines.find((l) => l.includes("HYPERLINK"))!;
    // A phone number is written as it is: spreadsheets never run "+1718..." as a formula.
    expect(evil).toContain(`"'=HYPERLINK(""x"")",'@evil,'-x@example.com,+17185550100,'+t,subscribed,`);
    const q = await t.api("/api/contacts/export.csv?q=7185550", { token: a.token });
    expect(q.text.trim().split("\r\n").length).toBe(2);
    expect((await t.api("/api/contacts/export.csv", { token: b.token })).text.trim()).toBe("firstName,lastName,email,phone,tags,status,createdAt (America/New_York)");
  });
});
