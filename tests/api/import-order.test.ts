/**
 * A large import's rows reach the writer in phone order a window at a time (src/contacts/import-order.ts): what the
 * file's order decides (which of two rows sharing a number is stored, which rows the plan leaves out, which errors
 * and duplicates are listed, and in what order) stays the file's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diverseContacts, MAPPING } from "../../scripts/bench/import-data";
import { fileBatches } from "../../src/contacts/import-pipeline";
import { inPhoneOrder, ORDER_WINDOW } from "../../src/contacts/import-order";
import { ContactImporter, MAX_DUPLICATE_DETAILS, MAX_STORED_ERRORS } from "../../src/contacts/importer";
import type { PreparedBatch } from "../../src/contacts/prepare";
import { grantLicense } from "../../src/licenses/licenses";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

/** A prepared batch of [line, phone] rows (phone "" for an invalid row); each row's first name names its line. */
function batch(rows: [number, string][]): PreparedBatch {
  return {
    lines: rows.map(([l]) => l),
    phone: rows.map(([, p]) => p),
    row: rows.map(([l, p]) => (p ? `["L${l}"]` : "")),
    refused: rows.map(([l, p]) => (p ? "" : `[${l},"Missing phone number",null]`)),
  };
}

async function reorder(batches: [number, string][][], sortable: number, window: number) {
  async function* source() {
    for (const [k, rows] of batches.entries()) yield { batch: batch(rows), progress: (k + 1) / batches.length };
  }
  const out: { lines: number[]; first: string[]; progress: number }[] = [];
  for await (const { batch: b, progress } of inPhoneOrder(source(), sortable, window))
    out.push({ lines: b.lines, first: b.lines.map((l, i) => (b.row[i] ? JSON.parse(b.row[i]!)[0] : `L${l}`)), progress });
  return out;
}

/** Uploads a CSV as `acc` through the import job and answers the job once it is done (or the last state seen). */
async function importJob(t: TestServer, acc: Account, csv: string, query = "") {
  const start = await t.api(`/api/contacts/import/csv${query}`, { method: "POST", token: acc.token, body: csv, headers: { "content-type": "text/csv" } });
  expect(start.status).toBe(202);
  let job: any;
  for (let i = 0; i < 3_000 && job?.state !== "done"; i++) {
    await Bun.sleep(20);
    job = (await t.api(`/api/contacts/import/${start.body.id}`, { token: acc.token })).body;
  }
  return job;
}

describe("inPhoneOrder", () => {
  const file: [number, string][][] = [
    [[2, "+15"], [3, ""]],
    [[4, "+12"], [5, "+15"]],
    [[6, "+13"], [7, "+11"]],
  ];

  test("a window's rows in phone order, rows sharing a number in the file's order, invalid ones first; batches keep their sizes and progress", async () => {
    expect(await reorder(file, Infinity, 4)).toEqual([
      { lines: [3, 4], first: ["L3", "L4"], progress: 1 / 3 },
      { lines: [2, 5], first: ["L2", "L5"], progress: 2 / 3 },
      // The file's end, a part of a window, is sorted too.
      { lines: [7, 6], first: ["L7", "L6"], progress: 1 },
    ]);
  });

  test("past the rows the plan has room for, and in a file smaller than a window, the file's order", async () => {
    // Room for 5: the first window (4 rows) fits and is sorted; the next would end at row 6: as in the file.
    expect((await reorder(file, 5, 4)).map((b) => b.lines)).toEqual([[3, 4], [2, 5], [6, 7]]);
    expect((await reorder(file, Infinity, 10)).map((b) => b.lines)).toEqual([[2, 3], [4, 5], [6, 7]]);
    expect((await reorder(file, 0, 4)).map((b) => b.lines)).toEqual([[2, 3], [4, 5], [6, 7]]);
  });
});

describe("a CSV import larger than a window", () => {
  let t: TestServer;
  let c: Account;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    await t.signUpVerified(); // the first account is the administrator, whom no plan limits
    c = await t.signUpVerified();
  });
  afterAll(() => t?.stop());

  test("stored in phone order; the file's first rows are kept, over the limit its last are refused, errors and duplicates listed from its start", async () => {
    const rows = ORDER_WINDOW + 10_000;
    const room = ORDER_WINDOW + 2_000;
    const { planId } = await grantLicense(t.ctx, c.user.id, "enterprise", 30);
    t.ctx.db.$client.run("UPDATE plans SET monthly_contacts = ? WHERE id = ?", [room, planId]);

    // Numbers in no order (a multiplicative scramble of the row index); every 97th row has none; every 41st repeats
    // the number of the row 300 lines up, another person's name on it.
    const number = (i: number) => {
      const n = (i * 7_919) % 70_000; // 7,919 is prime: a different n for each row
      return `+1 (646) ${200 + Math.floor(n / 10_000)}-${String(n % 10_000).padStart(4, "0")}`;
    };
    const lines: string[] = [];
    const expected = { created: [] as number[], invalid: [] as number[], duplicates: [] as [number, number][] };
    for (let i = 0; i < rows; i++) {
      const line = i + 2;
      if (i % 97 === 50) {
        lines.push(`Row${line},Nobody,`);
        expected.invalid.push(line);
        continue;
      }
      const source = i >= 300 && i % 41 === 40 && (i - 300) % 97 !== 50 ? i - 300 : i;
      lines.push(`Row${line},Person,${number(source)}`);
      if (source !== i) expected.duplicates.push([line, source + 2]);
      else if (expected.created.length < room) expected.created.push(line);
      else expected.invalid.push(line);
    }
    expected.invalid.sort((x, y) => x - y);

    const job = await importJob(t, c, `first name,last name,phone\n${lines.join("\n")}\n`);
    expect(job).toMatchObject({ state: "done", rowsRead: rows, created: room, duplicates: expected.duplicates.length, invalid: expected.invalid.length });

    // The file's first errors and duplicates, in its order, each of a duplicate naming the first row with its number.
    expect(job.errors.map((e: any) => e.line)).toEqual(expected.invalid.slice(0, MAX_STORED_ERRORS));
    expect(job.errors[0].reason).toBe("Missing phone number");
    expect(job.errors.at(-1).reason).toContain("Contact limit reached");
    expect(job.duplicateDetails.map((d: any) => [d.line, d.attemptedName, d.existingName])).toEqual(
      expected.duplicates.slice(0, MAX_DUPLICATE_DETAILS).map(([line, first]) => [line, `Row${line} Person`, `Row${first} Person`]),
    );

    // Every contact stored is the file's first row with its number; those of the first window went in by number.
    const stored = t.ctx.db.$client.query("SELECT first_name AS name, phone FROM contacts WHERE user_id = ? ORDER BY rowid").all(c.user.id) as { name: string; phone: string }[];
    expect(stored.map((s) => Number(s.name.slice(3))).sort((x, y) => x - y)).toEqual(expected.created);
    const firstWindow = stored.filter((s) => Number(s.name.slice(3)) < ORDER_WINDOW + 2).map((s) => s.phone);
    expect(firstWindow.length).toBeGreaterThan(ORDER_WINDOW * 0.9);
    expect(firstWindow).toEqual([...firstWindow].sort());
    expect(stored.slice(firstWindow.length).map((s) => Number(s.name.slice(3)))).toEqual(expected.created.slice(firstWindow.length));
  }, 60_000);
});

describe("a file larger than a window imported again", () => {
  let t: TestServer;
  let c: Account;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    await t.signUpVerified();
    c = await t.signUpVerified();
    await grantLicense(t.ctx, c.user.id, "enterprise", 30);
  });
  afterAll(() => t?.stop());

  const imported = (csv: string, query = "") => importJob(t, c, csv, query);

  test("every row a stored contact's: the duplicates listed are the file's first lines, with the stored names; updated the same", async () => {
    const rows = ORDER_WINDOW + 5_000;
    const number = (i: number) => `+1 (917) ${200 + Math.floor(((i * 7_919) % 70_000) / 10_000)}-${String((i * 7_919) % 10_000).padStart(4, "0")}`;
    const file = (name: string) => `first name,last name,phone\n${Array.from({ length: rows }, (_, i) => `${name}${i},Again,${number(i)}`).join("\n")}\n`;
    expect(await imported(file("First"))).toMatchObject({ state: "done", created: rows, duplicates: 0 });

    // Once the list holds 100, a row of an earlier line met later in the window takes the place of the last: the
    // job's record is written again although the list did not grow (it once kept the first 100 met, in phone order).
    const again = await imported(file("Second"));
    expect(again).toMatchObject({ state: "done", created: 0, updated: 0, duplicates: rows });
    expect(again.duplicateDetails.map((d: any) => [d.line, d.attemptedName, d.existingName])).toEqual(
      Array.from({ length: MAX_DUPLICATE_DETAILS }, (_, k) => [k + 2, `Second${k} Again`, `First${k} Again`]),
    );

    const updated = await imported(file("Third"), "?onDuplicate=update");
    expect(updated).toMatchObject({ state: "done", created: 0, updated: rows, duplicates: 0 });
    const found = (await t.api(`/api/contacts?q=${encodeURIComponent("Third12345")}`, { token: c.token })).body.data;
    expect(found.map((x: any) => [x.firstName, x.phone])).toEqual([["Third12345", `+1917${number(12_345).replace(/\D/g, "").slice(4)}`]]);
  }, 60_000);
});

describe("phone order changes only the order rows are stored in", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ smtp: false });
    await t.signUpVerified();
  });
  afterAll(() => t?.stop());

  test("contacts as people have them (scripts/bench/import-data.ts), some stored already, updated: the same job and contacts as in the file's order", async () => {
    // Invalid numbers, numbers written again another way, accents, four custom fields: 2.25 windows.
    const { lines, rows } = diverseContacts(ORDER_WINDOW * 2 + ORDER_WINDOW / 4);
    const [byJob, byFile] = [await t.signUpVerified(), await t.signUpVerified()];
    for (const acc of [byJob, byFile]) {
      await grantLicense(t.ctx, acc.user.id, "enterprise", 30);
      // Every 50th row's number stored already, under another name.
      for (let i = 0; i < rows.length; i += 50) await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: `Stored${i}`, phone: rows[i]![3] } });
    }
    const csv = `${lines.join("\r\n")}\r\n`;
    const query = `?onDuplicate=update&country=US&mapping=${encodeURIComponent(JSON.stringify(MAPPING))}`;
    const job = await importJob(t, byJob, csv, query);

    // The same file in the file's order, a prepared batch a transaction.
    const dir = mkdtempSync(join(tmpdir(), "smsdesk-order-"));
    const importer = await ContactImporter.open(t.ctx, byFile.user.id, { detailDuplicates: true, region: "US", onDuplicate: "update" });
    try {
      writeFileSync(join(dir, "f.csv"), csv);
      for await (const { batch } of fileBatches(join(dir, "f.csv"), { region: "US", mapping: MAPPING as never })) await importer.store(batch);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const outcome = (r: any) => ({
      counts: [r.rowsRead, r.created, r.updated, r.duplicates, r.invalid],
      errors: r.errors,
      duplicates: r.duplicateDetails.map((d: any) => ({ ...d, existingContactId: !!d.existingContactId })),
    });
    expect(outcome(job)).toEqual(outcome(importer.results()));
    expect(job.updated).toBeGreaterThan(500);
    expect(job.duplicates).toBeGreaterThan(500);
    expect(job.invalid).toBeGreaterThan(500);
    const stored = (userId: string) =>
      t.ctx.db.$client.query("SELECT first_name, last_name, email, phone, tags, custom_fields, status, source FROM contacts WHERE user_id = ? ORDER BY phone").all(userId);
    expect(stored(byJob.user.id)).toEqual(stored(byFile.user.id));
  }, 120_000);
});
