import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contacts } from "../../db/schema";
import { fileBatches } from "../../src/contacts/import-pipeline";
import { collectionDue, nextSlice, ownTime } from "../../src/contacts/import-pace";
import { ContactImporter, mergeSearchIndex, ROWS_PER_BATCH } from "../../src/contacts/importer";
import { failInterruptedImports } from "../../src/contacts/csv-import";
import { grantLicense } from "../../src/licenses/licenses";
import { defaultCountryOfId } from "../../src/users/default-country";
import { waitFor } from "../support/wait";
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

async function waitJob(acc: Account, id: string, tries = 200) {
  for (let i = 0; i < tries; i++) {
    const r = await t.api(`/api/contacts/import/${id}`, { token: acc.token });
    if (r.body.state === "done" || r.body.state === "failed") return r.body;
    await Bun.sleep(20);
  }
  throw new Error("import did not finish");
}

function fill(userId: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({ id: crypto.randomUUID(), userId, phone: `+1999${String(i).padStart(7, "0")}` }));
  for (let i = 0; i < rows.length; i += 500) t.ctx.db.insert(contacts).values(rows.slice(i, i + 500)).run();
}

describe("JSON import", () => {
  test("created, duplicates with details, invalid with reasons; message when no phone at all", async () => {
    await t.api("/api/contacts", { method: "POST", token: a.token, body: { firstName: "Stored", lastName: "One", phone: "+14155550001" } });
    const r = await t.api("/api/contacts/import", {
      method: "POST",
      token: a.token,
      body: { contacts: [{ phone: "415-555-0002", firstName: "New" }, { phone: "(415) 555-0001", firstName: "Again" }, { phone: "4155550002", firstName: "Twice" }, { phone: "123" }, { firstName: "NoPhone" }] },
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toMatchObject({ created: 1, updated: 0, duplicates: 2, invalid: 2 });
    expect(r.body.results.duplicateDetails[0]).toMatchObject({ line: 2, attemptedName: "Again", existingName: "Stored One", phone: "+14155550001" });
    expect(r.body.results.errors).toEqual([{ line: 4, reason: "Invalid phone number: 123 (too short for a phone number)" }, { line: 5, reason: "Missing phone number" }]);
    const none = await t.api("/api/contacts/import", { method: "POST", token: a.token, body: { contacts: [{ firstName: "x", phone: "" }] } });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("No valid phone addresses found in the CSV file");
  });

  test("5,000 rows go ROWS_PER_BATCH per transaction with turns of the event loop between; lines and in-import duplicates across them", async () => {
    const acc = await t.signUpVerified();
    await grantLicense(t.ctx, acc.user.id, "enterprise", 30);
    const phone = (i: number) => `+1312557${String(i).padStart(4, "0")}`;
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ phone: phone(i), firstName: `Row${i + 1}` }));
    rows[ROWS_PER_BATCH + 3] = { phone: phone(2), firstName: "Again" }; // a number of the first transaction, in the second
    rows[4_999] = { phone: "123", firstName: "Bad" };
    // What the account holds, read at every turn while the request runs: between transactions, neither none nor all.
    const { answer: r, seen } = await valuesDuring(
      () => (t.ctx.db.$client.query("SELECT count(*) AS n FROM contacts WHERE user_id = ?").get(acc.user.id) as { n: number }).n,
      () => t.api("/api/contacts/import", { method: "POST", token: acc.token, body: { contacts: rows } }),
    );
    expect(r.body.results).toMatchObject({ created: 4_998, duplicates: 1, invalid: 1, errors: [{ line: 5_000, reason: "Invalid phone number: 123 (too short for a phone number)" }] });
    expect(r.body.results.duplicateDetails).toEqual([expect.objectContaining({ line: ROWS_PER_BATCH + 4, attemptedName: "Again", existingName: "Row3" })]);
    expect(seen.filter((n) => n > 0 && n < 4_998).length).toBeGreaterThanOrEqual(5);
  });
});

describe("CSV import job", () => {
  test("a messy file: BOM, CRLF, semicolons, quotes with separators and newlines, bad rows, in-file and stored dupes", async () => {
    await t.api("/api/contacts", { method: "POST", token: b.token, body: { firstName: "Kept", phone: "+12025550100" } });
    await t.api("/api/contacts", { method: "POST", token: b.token, body: { firstName: "Full", lastName: "Name", email: "f@example.com", phone: "+12025550101" } });
    const csv =
      "\uFEFFFirst Name;Last Name;Phone Number;EMAIL;Tags\r\n" +
      'Ann;"Lee; Jr";(202) 555-0102;ann@example.com;"vip,new"\r\n' +
      '"Multi\nLine";Smith;202.555.0103;;\r\n' +
      "Bad;Row;not a phone;;\r\n" +
      "Empty;Phone;;;\r\n" +
      "Ann;Copy;+1 202 555 0102;;\r\n" +
      ";Surname;202-555-0100;kept@example.com;\r\n" +
      "Full;Name;2025550101;f@example.com;\r\n" +
      "Short;Row\r\n";
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: b.token, body: csv, headers: { "content-type": "text/csv" } });
    expect(start.status).toBe(202);
    const job = await waitJob(b, start.body.id);
    // Rows whose number is stored already leave that contact as it is (onDuplicate "skip"), and are listed.
    expect(job).toMatchObject({ state: "done", rowsRead: 8, created: 2, updated: 0, duplicates: 3, invalid: 3, progress: 100 });
    expect(job.duplicateDetails.map((d: any) => [d.line, d.attemptedName, d.existingName])).toEqual([
      [6, "Ann Copy", "Ann Lee; Jr"],
      [7, "Surname", "Kept"],
      [8, "Full Name", "Full Name"],
    ]);
    expect(job.created + job.updated + job.duplicates + job.invalid).toBe(job.rowsRead);
    expect(job.errors.map((e: any) => e.line)).toEqual([4, 5, 9]);
    const list = (await t.api("/api/contacts?sort=phone&order=asc", { token: b.token })).body.data;
    const ann = list.find((c: any) => c.phone === "+12025550102");
    expect(ann).toMatchObject({ firstName: "Ann", lastName: "Lee; Jr", email: "ann@example.com", tags: ["vip", "new"], source: "import" });
    expect(list.find((c: any) => c.phone === "+12025550103").firstName).toBe("Multi\nLine");
    expect(list.find((c: any) => c.phone === "+12025550100")).toMatchObject({ firstName: "Kept", lastName: "", email: null });
    expect((await t.api(`/api/contacts/import/${start.body.id}`, { token: a.token })).status).toBe(404);
  });

  test("multipart upload with tab separators; a file without a phone column fails clearly", async () => {
    const form = new FormData();
    form.append("file", new File(["name\tmobile\nJo Ann Doe\t+44 20 7946 0000\n"], "c.csv", { type: "text/csv" }));
    const res = await fetch(`${t.url}/api/contacts/import/csv`, { method: "POST", headers: { authorization: `Bearer ${b.token}` }, body: form });
    expect(res.status).toBe(202);
    const job = await waitJob(b, ((await res.json()) as any).id);
    expect(job).toMatchObject({ state: "done", created: 1, rowsRead: 1 });
    const jo = (await t.api("/api/contacts?q=7946", { token: b.token })).body.data[0];
    expect(jo).toMatchObject({ firstName: "Jo", lastName: "Ann Doe", phone: "+442079460000" });
    const bad = await t.api("/api/contacts/import/csv", { method: "POST", token: b.token, body: "email,first_name\nx@example.com,X\n", headers: { "content-type": "text/csv" } });
    expect([bad.status, bad.body.message]).toEqual([400, "No phone column found. Expected a header such as phone, phone_number or mobile."]);
  });

  test("a body without a phone column is refused at once with 400, queues no import and keeps no upload", async () => {
    const acc = await t.signUpVerified();
    for (const body of ["null", '{"a":', "email,first_name\nx@example.com,X\n"]) {
      const r = await t.api("/api/contacts/import/csv", { method: "POST", token: acc.token, body, headers: { "content-type": "text/csv" } });
      expect([r.status, r.body.message]).toEqual([400, "No phone column found. Expected a header such as phone, phone_number or mobile."]);
    }
    expect((await t.api("/api/contacts/import", { token: acc.token })).body.data).toEqual([]);
    expect(readdirSync(join(t.dataDir, "imports"))).toEqual([]);
  });

  test("preview of a multipart form reads the file field, not the form wrapper", async () => {
    const form = new FormData();
    form.append("file", new File(["name;mobile\nJo;+44 20 7946 0000\n"], "w.csv", { type: "text/csv" }));
    const res = await fetch(`${t.url}/api/contacts/import/preview`, { method: "POST", headers: { authorization: `Bearer ${b.token}` }, body: form });
    const body = (await res.json()) as any;
    expect([res.status, body.headers, body.delimiter]).toEqual([200, ["name", "mobile"], ";"]);
    const empty = new FormData();
    empty.append("other", "x");
    const none = await fetch(`${t.url}/api/contacts/import/preview`, { method: "POST", headers: { authorization: `Bearer ${b.token}` }, body: empty });
    expect([none.status, ((await none.json()) as any).message]).toEqual([400, "Please select a CSV file"]);
  });

  test("a file of several read chunks streams through: every row accounted for, the upload removed, bulk settings restored, the search index merged back", async () => {
    const c = await t.signUpVerified();
    await grantLicense(t.ctx, c.user.id, "enterprise", 30);
    const pragmas = () => ["temp_store", "cache_size", "wal_autocheckpoint"].map((name) => t.ctx.db.$client.query(`PRAGMA ${name}`).get());
    const before = pragmas();
    // About 2.4 MB, multi-byte names; every 50th phone invalid, every 40th row repeats the number 20 rows up.
    const rows = Array.from({ length: 60_000 }, (_, i) => {
      const n = i % 40 === 39 ? i - 20 : i;
      return `Zoë ${i},Ødegård,${i % 50 === 7 ? "not a phone" : `+1 (646) ${String(200 + Math.floor(n / 10_000))}-${String(n % 10_000).padStart(4, "0")}`}`;
    });
    const body = `first name,last name,phone\n${rows.join("\n")}\n`;
    // The search index's automerge setting at every turn while the import runs (distinct values): eight, four again after.
    const automerge = t.ctx.db.$client.query<{ v: number }, []>("SELECT v FROM contacts_fts_config WHERE k = 'automerge'");
    const { answer: job, seen } = await valuesDuring(
      () => automerge.get()?.v ?? 4,
      async () => {
        const start = await t.api("/api/contacts/import/csv", { method: "POST", token: c.token, body, headers: { "content-type": "text/csv" } });
        expect(start.status).toBe(202);
        return waitJob(c, start.body.id, 1000);
      },
    );
    expect(job).toMatchObject({ state: "done", rowsRead: 60_000, created: 57_300, updated: 0, duplicates: 1_500, invalid: 1_200, progress: 100 });
    expect(seen).toEqual([4, 8]);
    expect(automerge.get()?.v).toBe(4);
    // Merged down at the end: no level of segments left with four or more for a merge to take.
    expect(await mergeSearchIndex(t.ctx.db, 100_000)).toBe(false);
    t.ctx.db.$client.run("INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('integrity-check', 0)");
    const found = (await t.api(`/api/contacts?q=${encodeURIComponent("zoë 59998")}`, { token: c.token })).body.data;
    expect(found.map((x: any) => [x.firstName, x.lastName])).toEqual([["Zoë 59998", "Ødegård"]]);
    const consent = (await t.api(`/api/contacts/${found[0].id}/consent`, { token: c.token })).body.data;
    expect(consent.map((x: any) => [x.kind, x.source, x.text])).toEqual([["opt_in", "import", "Imported by the account owner"]]);
    const consents = t.ctx.db.$client.query("SELECT count(*) AS n FROM contact_consents WHERE user_id = ?").get(c.user.id) as { n: number };
    expect(consents.n).toBe(job.created);
    // The job is marked done with its last names; its clean-up follows (the log folded by the worker, the bulk
    // settings restored, the upload removed), which a poll that saw "done" may come before.
    await waitFor(() => readdirSync(join(t.dataDir, "imports")), (files) => files.length === 0);
    expect(pragmas()).toEqual(before);
  }, 30_000);

  test("a search index left merging eight segments at a time (the process stopped during an import) merges four again at the next start", async () => {
    const automerge = t.ctx.db.$client.query<{ v: number }, []>("SELECT v FROM contacts_fts_config WHERE k = 'automerge'");
    t.ctx.db.$client.run("INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', 8)");
    expect(automerge.get()?.v).toBe(8);
    await failInterruptedImports(t.ctx);
    expect(automerge.get()?.v).toBe(4);
  });

  test("stored in short transactions, each with its counts; a row is found by a search the moment the job says done", async () => {
    const c = await t.signUpVerified();
    await grantLicense(t.ctx, c.user.id, "enterprise", 30);
    const rows = Array.from({ length: 12_000 }, (_, i) => `Kai ${i},Østergård,+1 (718) ${200 + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, "0")}`);
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: c.token, body: `first name,last name,phone\n${rows.join("\n")}\n`, headers: { "content-type": "text/csv" } });
    expect(start.status).toBe(202);
    // Read from the database between two of the import's transactions: the first moment it says done.
    const state = t.ctx.db.$client.query<{ state: string }, [string]>("SELECT state FROM contact_imports WHERE id = ?");
    const deadline = Date.now() + 20_000;
    while (state.get(start.body.id)?.state !== "done" && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    const found = (await t.api(`/api/contacts?q=${encodeURIComponent("kai 11999")}`, { token: c.token })).body;
    expect([found.total, found.data.map((x: any) => [x.firstName, x.lastName])]).toEqual([1, [["Kai 11999", "Østergård"]]]);
    const commits = t.ctx.db.$client
      .query("SELECT count(*) AS n, sum(payload ->> '$.created') AS created FROM events WHERE subject_kind = 'import' AND subject_id = ?")
      .get(start.body.id) as { n: number; created: number };
    expect(commits.created).toBe(12_000);
    expect(commits.n).toBeGreaterThan(1);
  }, 30_000);

  test("a hostile file imports the same through the job's short transactions as in one transaction per batch", async () => {
    const [sliced, whole] = [await t.signUpVerified(), await t.signUpVerified()];
    for (const acc of [sliced, whole]) await grantLicense(t.ctx, acc.user.id, "enterprise", 30);
    // Quotes, separators and line breaks inside fields, NULs, formulas, long and right-to-left names, emoji, invalid
    // and missing phones, the same number written other ways, ragged rows, blank lines.
    const row = (i: number) => {
      const phone = i % 23 === 0 ? "call me" : i % 29 === 0 ? "" : i % 17 === 0 ? `+1 646-555-${String(i - 5).padStart(4, "0")}` : `(646) 555-${String(i).padStart(4, "0")}`;
      const first = [`"Ann, ""Jr"" ${i}"`, `=HYPERLINK("x") ${i}`, `"line\nbreak ${i}"`, `Nul\u0000${i}`, `${"é".repeat(300)}${i}`, `שלום ${i}`, `🙂 ${i}`][i % 7];
      const extra = i % 11 === 0 ? ",extra,columns" : i % 13 === 0 ? "" : `,e${i}@example.com,vip;${i % 3}`;
      return `${first},Łast${i},${phone}${extra}`;
    };
    const body = `\uFEFFfirst name,last name,phone,email,tags\r\n${Array.from({ length: 9_000 }, (_, i) => row(i)).join("\r\n")}\r\n\r\n`;
    const start = await t.api("/api/contacts/import/csv", { method: "POST", token: sliced.token, body, headers: { "content-type": "text/csv" } });
    expect(start.status).toBe(202);
    const job = await waitJob(sliced, start.body.id, 1000);

    // As imports stored it before: each prepared batch of the file in one transaction.
    const dir = mkdtempSync(join(tmpdir(), "smsdesk-import-"));
    const importer = await ContactImporter.open(t.ctx, whole.user.id, { detailDuplicates: true, region: await defaultCountryOfId(t.ctx, whole.user.id) });
    try {
      writeFileSync(join(dir, "f.csv"), body);
      for await (const { batch } of fileBatches(join(dir, "f.csv"), { region: importer.region })) await importer.store(batch);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const counts = (r: { rowsRead: number; created: number; updated: number; duplicates: number; invalid: number; errors: unknown; duplicateDetails: { existingContactId: string | null }[] }) => ({
      ...r,
      duplicateDetails: r.duplicateDetails.map((d) => ({ ...d, existingContactId: !!d.existingContactId })),
    });
    const { rowsRead, created, updated, duplicates, invalid, errors, duplicateDetails } = job;
    expect(counts({ rowsRead, created, updated, duplicates, invalid, errors, duplicateDetails })).toEqual(counts(importer.results()));
    expect(job.created).toBeGreaterThan(7_000);
    const stored = (userId: string) =>
      t.ctx.db.$client
        .query("SELECT first_name, last_name, email, phone, tags, custom_fields, status, source FROM contacts WHERE user_id = ? ORDER BY rowid")
        .all(userId);
    expect(stored(sliced.user.id)).toEqual(stored(whole.user.id));
  }, 60_000);

  test("an empty or blank upload is refused at once", async () => {
    for (const body of ["", " \r\n\t\n", "\uFEFF\n"]) {
      const r = await t.api("/api/contacts/import/csv", { method: "POST", token: b.token, body, headers: { "content-type": "text/csv" } });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("The CSV file is empty.");
    }
    expect(readdirSync(join(t.dataDir, "imports"))).toEqual([]);
  });

  test("one import per user at a time", async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `+1312${String(2000000 + i)}`).join("\n");
    const first = await t.api("/api/contacts/import/csv", { method: "POST", token: a.token, body: `phone\n${rows}\n`, headers: { "content-type": "text/csv" } });
    expect(first.status).toBe(202);
    const second = await t.api("/api/contacts/import/csv", { method: "POST", token: a.token, body: "phone\n+13125550000\n", headers: { "content-type": "text/csv" } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ message: "An import is already running. Please wait for it to finish.", importId: first.body.id });
    await waitJob(a, first.body.id);
  });
});

describe("plan limit", () => {
  test("create answers 402 over the plan; imports report rows over the limit as invalid", async () => {
    const c = await t.signUpVerified();
    fill(c.user.id, 998); // starter trial: 1,000 contacts
    const ok = await t.api("/api/contacts", { method: "POST", token: c.token, body: { firstName: "Last", phone: "+16175550100" } });
    expect(ok.status).toBe(201);
    const imp = await t.api("/api/contacts/import", { method: "POST", token: c.token, body: { contacts: [{ phone: "+16175550101" }, { phone: "+16175550102" }, { phone: "+16175550100" }] } });
    expect(imp.body.results).toMatchObject({ created: 1, invalid: 1, duplicates: 1 });
    expect(imp.body.results.errors[0].reason).toContain("Contact limit reached");
    const over = await t.api("/api/contacts", { method: "POST", token: c.token, body: { firstName: "Over", phone: "+16175550103" } });
    expect(over.status).toBe(402);
    const job = await t.api("/api/contacts/import/csv", { method: "POST", token: c.token, body: "phone\n+16175550104\n+16175550105\n", headers: { "content-type": "text/csv" } });
    expect(await waitJob(c, job.body.id)).toMatchObject({ state: "done", created: 0, invalid: 2, rowsRead: 2 });
  });
});

describe("the import's transactions", () => {
  test("the next one's rows follow the pace of the last full one; a slice the batch's end cut short does not grow it", () => {
    const pace = { msPerRow: 0 };
    // 500 rows in 20 ms: 0.04 ms a row, so 500 fit the 20 ms target.
    expect(nextSlice(pace, 500, 500, 20)).toBe(500);
    // The batch's last 84 rows in 2 ms (the commit's fixed cost spread over few rows): the pace stays 0.04 ms a row.
    // Before, this doubled the next transaction.
    expect(nextSlice(pace, 500, 84, 2)).toBe(500);
    expect(pace.msPerRow).toBe(0.04);
    // A slow one (100 ms for 500 rows) shrinks the next to what fits at its pace...
    expect(nextSlice(pace, 500, 500, 100)).toBe(100);
    // ...and the pace coming back grows it by half at a time.
    expect(nextSlice(pace, 100, 100, 4)).toBe(150);
    expect(nextSlice(pace, 150, 150, 6)).toBe(225);
    // A short slice slower than the pace counts: 50 rows in 10 ms.
    expect(nextSlice(pace, 225, 50, 10)).toBe(100);
    // Never under 50 rows, never over a batch.
    expect(nextSlice(pace, 100, 100, 1000)).toBe(50);
    expect(nextSlice({ msPerRow: 0 }, 9000, 9000, 1)).toBe(10_000);
  });

  test("a full collection is due over the budget once the process grew by the step over the least it held since the last", () => {
    const MB = 1048576;
    const memory = { floor: Number.POSITIVE_INFINITY };
    // Under the budget: never, however much it grew.
    expect(collectionDue(memory, 200 * MB, 288 * MB, 24 * MB)).toBe(false);
    expect(memory.floor).toBe(200 * MB);
    expect(collectionDue(memory, 288 * MB, 288 * MB, 24 * MB)).toBe(false);
    // Over it, and 90 MB over the least it held.
    expect(collectionDue(memory, 290 * MB, 288 * MB, 24 * MB)).toBe(true);
    // The collection left 300 MB (what it cannot free): over the budget, but not collected again until 24 MB more.
    memory.floor = 300 * MB;
    expect(collectionDue(memory, 310 * MB, 288 * MB, 24 * MB)).toBe(false);
    expect(collectionDue(memory, 323 * MB, 288 * MB, 24 * MB)).toBe(false);
    expect(collectionDue(memory, 324 * MB, 288 * MB, 24 * MB)).toBe(true);
    // The process gave memory back after: the step counts from the least it held since.
    memory.floor = 320 * MB;
    expect(collectionDue(memory, 296 * MB, 288 * MB, 24 * MB)).toBe(false);
    expect(memory.floor).toBe(296 * MB);
    expect(collectionDue(memory, 319 * MB, 288 * MB, 24 * MB)).toBe(false);
    expect(collectionDue(memory, 320 * MB, 288 * MB, 24 * MB)).toBe(true);
  });

  test("a transaction is timed without the time its thread waited for a CPU: between its CPU time and the wall time", () => {
    const wall = performance.now();
    const cpu = process.threadCpuUsage();
    const own = ownTime();
    let x = 0;
    while (performance.now() - wall < 30) x += Math.sqrt(x + 1);
    const tookOwn = ownTime() - own;
    const used = process.threadCpuUsage(cpu);
    const tookWall = performance.now() - wall;
    // In ms, like performance.now(); on a busy machine the wall time is longer, never the own time.
    expect(tookOwn).toBeLessThanOrEqual(tookWall + 0.5);
    expect(tookOwn).toBeGreaterThanOrEqual((used.user + used.system) / 1000 - 5);
    expect(x).toBeGreaterThan(0);
  });
});
