// Issue 11, item 1: contacts from the files people really have (Excel in Windows-1252, UTF-16, Google Contacts
// old and new, Outlook), column mapping, the default country, duplicates the user can see, and the export.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { contacts, contactImports } from "../../db/schema";
import { eq } from "drizzle-orm";
import { ChunkDecoder, detectEncoding } from "../../src/contacts/csv-stream";
import { failInterruptedImports, INTERRUPTED } from "../../src/contacts/csv-import";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { grantLicense } from "../../src/licenses/licenses";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
});
afterAll(() => t?.stop());

/** Windows-1252 bytes of text (every character used here is below U+0100, where 1252 and Latin-1 agree). */
function cp1252(text: string): Uint8Array {
  return Uint8Array.from([...text].map((c) => {
    const code = c.charCodeAt(0);
    if (code > 0xff) throw new Error(`not in the fixture's range: ${c}`);
    return code;
  }));
}
/** UTF-16LE with its byte-order mark, as Excel's "Unicode Text" and old Google exports write. */
function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    out[2 + i * 2] = text.charCodeAt(i) & 0xff;
    out[3 + i * 2] = text.charCodeAt(i) >> 8;
  }
  return out;
}
const utf8 = (s: string) => new TextEncoder().encode(s);

async function upload(acc: Account, path: string, body: Uint8Array, query: Record<string, string> = {}) {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`${t.url}${path}${qs ? `?${qs}` : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${acc.token}`, "content-type": "text/csv", origin: new URL(t.ctx.config.publicUrl).origin },
    body: new Blob([body as BlobPart]),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function importFile(acc: Account, body: Uint8Array, query: Record<string, string> = {}) {
  const start = await upload(acc, "/api/contacts/import/csv", body, query);
  expect(start.status).toBe(202);
  for (let i = 0; i < 300; i++) {
    const r = await t.api(`/api/contacts/import/${start.body.id}`, { token: acc.token });
    if (r.body.state === "done" || r.body.state === "failed") return r.body;
    await Bun.sleep(20);
  }
  throw new Error("import did not finish");
}

async function names(acc: Account) {
  const list = (await t.api("/api/contacts?pageSize=200&sort=phone&order=asc", { token: acc.token })).body.data as any[];
  return list.map((c) => ({ name: `${c.firstName} ${c.lastName}`.trim(), phone: c.phone, email: c.email, tags: c.tags, customFields: c.customFields }));
}

// The header rows exactly as the exports write them.
const GOOGLE_NEW_HEADER =
  "First Name,Middle Name,Last Name,Phonetic First Name,Phonetic Middle Name,Phonetic Last Name,Name Prefix,Name Suffix,Nickname,File As," +
  "Organization Name,Organization Title,Organization Department,Birthday,Notes,Photo,Labels,E-mail 1 - Label,E-mail 1 - Value," +
  "Phone 1 - Label,Phone 1 - Value,Phone 2 - Label,Phone 2 - Value,Address 1 - Label,Address 1 - Formatted,Address 1 - Street," +
  "Address 1 - City,Address 1 - PO Box,Address 1 - Region,Address 1 - Postal Code,Address 1 - Country,Address 1 - Extended Address," +
  "Website 1 - Label,Website 1 - Value";
const GOOGLE_OLD_HEADER =
  "Name,Given Name,Additional Name,Family Name,Yomi Name,Given Name Yomi,Additional Name Yomi,Family Name Yomi,Name Prefix,Name Suffix," +
  "Initials,Nickname,Short Name,Maiden Name,Birthday,Gender,Location,Billing Information,Directory Server,Mileage,Occupation,Hobby," +
  "Sensitivity,Priority,Subject,Notes,Language,Photo,Group Membership,E-mail 1 - Type,E-mail 1 - Value,Phone 1 - Type,Phone 1 - Value," +
  "Phone 2 - Type,Phone 2 - Value,Address 1 - Type,Address 1 - Formatted,Address 1 - Street,Address 1 - City,Address 1 - PO Box," +
  "Address 1 - Region,Address 1 - Postal Code,Address 1 - Country,Address 1 - Extended Address,Organization 1 - Type,Organization 1 - Name," +
  "Organization 1 - Yomi Name,Organization 1 - Title,Organization 1 - Department,Organization 1 - Symbol,Organization 1 - Location," +
  "Organization 1 - Job Description,Website 1 - Type,Website 1 - Value";
const OUTLOOK_HEADER =
  "First Name,Middle Name,Last Name,Title,Suffix,Nickname,Given Yomi,Surname Yomi,E-mail Address,E-mail 2 Address,E-mail 3 Address," +
  "Home Phone,Home Phone 2,Business Phone,Business Phone 2,Mobile Phone,Car Phone,Other Phone,Primary Phone,Pager,Business Fax,Home Fax," +
  "Other Fax,Company Main Phone,Callback,Radio Phone,Telex,TTY/TDD Phone,IMAddress,Job Title,Department,Company,Office Location," +
  "Manager's Name,Assistant's Name,Assistant's Phone,Company Yomi,Business Street,Business City,Business State,Business Postal Code," +
  "Business Country/Region,Home Street,Home City,Home State,Home Postal Code,Home Country/Region,Other Street,Other City,Other State," +
  "Other Postal Code,Other Country/Region,Personal Web Page,Spouse,Schools,Hobby,Location,Web Page,Birthday,Anniversary,Notes";

/** A row for `header` with the named columns filled and every other column empty. */
function row(header: string, values: Record<string, string>): string {
  const cols = header.split(",");
  for (const k of Object.keys(values)) if (!cols.includes(k)) throw new Error(`no column ${k}`);
  return cols.map((c) => {
    const v = values[c] ?? "";
    return /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
  }).join(",");
}

export function googleNew() {
  return [
    GOOGLE_NEW_HEADER,
    row(GOOGLE_NEW_HEADER, { "First Name": "José", "Last Name": "Muñoz", Labels: "* myContacts", "E-mail 1 - Label": "* Home", "E-mail 1 - Value": "jose@example.com", "Phone 1 - Label": "Mobile", "Phone 1 - Value": "+1 415-555-0111 ::: +1 415-555-0112" }),
    row(GOOGLE_NEW_HEADER, { "First Name": "Zoë", "Last Name": "Brontë", Labels: "* myContacts ::: Friends", "Phone 1 - Label": "Mobile", "Phone 1 - Value": "(415) 555-0113", "Address 1 - Formatted": "1 Main St\nSpringfield" }),
  ].join("\r\n") + "\r\n";
}
export function googleOld() {
  return [
    GOOGLE_OLD_HEADER,
    row(GOOGLE_OLD_HEADER, { Name: "François Dupont", "Given Name": "François", "Family Name": "Dupont", "Group Membership": "* My Contacts", "E-mail 1 - Type": "* Home", "E-mail 1 - Value": "francois@example.com", "Phone 1 - Type": "Mobile", "Phone 1 - Value": "415-555-0121" }),
    row(GOOGLE_OLD_HEADER, { Name: "Åsa Ødegård", "Given Name": "Åsa", "Family Name": "Ødegård", "Phone 1 - Type": "Mobile", "Phone 1 - Value": "+47 412 34 567" }),
  ].join("\r\n") + "\r\n";
}

describe("encodings", () => {
  test("detected from the first bytes; a Windows-1252 byte after a long ASCII start switches that chunk on", () => {
    expect(detectEncoding(utf8("\uFEFFphone\n"))).toBe("utf-8");
    expect(detectEncoding(utf8("phone,name\nJosé"))).toBe("utf-8");
    expect(detectEncoding(cp1252("phone,name\nJosé"))).toBe("windows-1252");
    expect(detectEncoding(utf16le("phone\tname\r\n"))).toBe("utf-16le");
    expect(detectEncoding(utf16le("phone\tname\r\n").subarray(2))).toBe("utf-16le");
    const be = Uint8Array.from([0xfe, 0xff, 0, 0x41, 0, 0x42]);
    expect(detectEncoding(be)).toBe("utf-16be");

    // ASCII for the first chunk, then "Muñoz" in Windows-1252 with the ñ as the first chunk's last byte.
    const bytes = cp1252("name\nBob\nMuñoz\n");
    const cut = bytes.indexOf(0xf1) + 1;
    const d = new ChunkDecoder();
    const text = d.decode(bytes.subarray(0, cut), false) + d.decode(bytes.subarray(cut), true);
    expect(text).toBe("name\nBob\nMuñoz\n");
    expect(d.encoding).toBe("windows-1252");
    // Valid UTF-8 cut inside a character stays UTF-8.
    const u = utf8("name\nZoë Brontë\n");
    const d2 = new ChunkDecoder();
    const at = u.indexOf(0xc3) + 1;
    expect(d2.decode(u.subarray(0, at), false) + d2.decode(u.subarray(at), true)).toBe("name\nZoë Brontë\n");
    expect(d2.encoding).toBe("utf-8");
  });

  test("an Excel CSV in Windows-1252 and a UTF-16LE file import with every name intact", async () => {
    const acc = await t.signUpVerified();
    const excel = cp1252("First Name,Last Name,Phone,Email\r\nJosé,Muñoz,(415) 555-0101,jose@example.com\r\nZoë,Brontë,415.555.0102,\r\nFrançois,Lefèvre,+1 415 555 0103,françois@example.com\r\n");
    const job = await importFile(acc, excel);
    expect(job).toMatchObject({ state: "done", rowsRead: 3, created: 3, invalid: 0, duplicates: 0 });
    const tabbed = utf16le("Name\tMobile\r\nŁukasz Żółć\t+48 512 345 678\r\n李 小龍\t+1 415 555 0104\r\n");
    expect(await importFile(acc, tabbed)).toMatchObject({ state: "done", created: 2 });
    expect((await names(acc)).map((c) => [c.name, c.phone])).toEqual([
      ["José Muñoz", "+14155550101"],
      ["Zoë Brontë", "+14155550102"],
      ["François Lefèvre", "+14155550103"],
      ["李 小龍", "+14155550104"],
      ["Łukasz Żółć", "+48512345678"],
    ]);
  });
});

describe("column mapping", () => {
  test("preview: encoding, delimiter, headers, the first 5 rows and the suggested mapping of each known export", async () => {
    const acc = await t.signUpVerified();
    const excel = cp1252("Vorname;Nachname;Handy;Kundennummer\r\n" + Array.from({ length: 7 }, (_, i) => `Jürgen;Groß;0151 2345678${i};K-${i}`).join("\r\n"));
    const p = await upload(acc, "/api/contacts/import/preview", excel);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ encoding: "windows-1252", delimiter: ";", headers: ["Vorname", "Nachname", "Handy", "Kundennummer"], mapping: ["skip", "skip", "skip", "skip"] });
    expect(p.body.rows).toHaveLength(5);
    expect(p.body.rows[0]).toEqual(["Jürgen", "Groß", "0151 23456780", "K-0"]);
    expect(p.body.defaultCountry).toBe("US");

    const gNew = (await upload(acc, "/api/contacts/import/preview", utf8(googleNew()))).body;
    const mapped = (b: any) => Object.fromEntries(b.headers.map((h: string, i: number) => [h, b.mapping[i]]).filter(([, m]: string[]) => m !== "skip"));
    expect(mapped(gNew)).toEqual({ "First Name": "firstName", "Last Name": "lastName", Labels: "tags", "E-mail 1 - Value": "email", "Phone 1 - Value": "phone" });
    expect(gNew.rows[1][0]).toBe("Zoë");
    const gOld = (await upload(acc, "/api/contacts/import/preview", utf8(googleOld()))).body;
    expect(mapped(gOld)).toEqual({ Name: "fullName", "Given Name": "firstName", "Family Name": "lastName", "Group Membership": "tags", "E-mail 1 - Value": "email", "Phone 1 - Value": "phone" });
    const outlook = (await upload(acc, "/api/contacts/import/preview", utf8(OUTLOOK_HEADER + "\r\n"))).body;
    expect(mapped(outlook)).toEqual({ "First Name": "firstName", "Last Name": "lastName", "E-mail Address": "email", "Mobile Phone": "phone" });
    const spec = (await upload(acc, "/api/contacts/import/preview", utf8("email,phone_number,firstname,lastname\n"))).body;
    expect(spec.mapping).toEqual(["email", "phone", "firstName", "lastName"]);

    // Only the first 64 KB is read: a preview of a large file answers from its start.
    const big = utf8("phone,name\n" + "4155550100,Ann\n".repeat(20_000));
    const bp = await upload(acc, "/api/contacts/import/preview", big);
    expect(bp.status).toBe(200);
    expect(bp.body.rows).toEqual(Array(5).fill(["4155550100", "Ann"]));
    expect((await upload(acc, "/api/contacts/import/preview", new Uint8Array(0))).body.message).toBe("The CSV file is empty.");
  });

  test("both Google Contacts formats and an Outlook export import with every name intact (both were refused)", async () => {
    const acc = await t.signUpVerified();
    expect(await importFile(acc, utf8(googleNew()))).toMatchObject({ state: "done", created: 2, invalid: 0 });
    expect(await importFile(acc, utf8(googleOld()))).toMatchObject({ state: "done", created: 2, invalid: 0 });
    const outlook = [
      OUTLOOK_HEADER,
      row(OUTLOOK_HEADER, { "First Name": "Renée", "Last Name": "Zellweger", "E-mail Address": "renee@example.com", "Business Phone": "+1 212 555 0100", "Mobile Phone": "(415) 555-0131" }),
      row(OUTLOOK_HEADER, { "First Name": "Søren", "Last Name": "Kierkegaard", "Mobile Phone": "+45 20 12 34 56", Notes: "met at the fair, \"VIP\"" }),
    ].join("\r\n");
    expect(await importFile(acc, utf8(outlook))).toMatchObject({ state: "done", created: 2, invalid: 0 });
    // Google's labels are tags, without its own "* myContacts" group.
    expect((await names(acc)).map((c) => [c.name, c.tags])).toEqual([
      ["José Muñoz", []],
      ["Zoë Brontë", ["Friends"]],
      ["François Dupont", []],
      ["Renée Zellweger", []],
      ["Søren Kierkegaard", []],
      ["Åsa Ødegård", []],
    ]);
    expect((await names(acc)).map((c) => [c.name, c.phone, c.email])).toEqual([
      ["José Muñoz", "+14155550111", "jose@example.com"],
      ["Zoë Brontë", "+14155550113", null],
      ["François Dupont", "+14155550121", "francois@example.com"],
      ["Renée Zellweger", "+14155550131", "renee@example.com"],
      ["Søren Kierkegaard", "+4520123456", null],
      ["Åsa Ødegård", "+4741234567", null],
    ]);
  });

  test("a chosen mapping: full name split, custom field, tags column, skipped column, and a tag on every row", async () => {
    const acc = await t.signUpVerified();
    const csv = utf8("Kunde,Telefon,Geburtstag,Gruppen,Intern\nAnna Maria Schmidt,+49 30 1234567,1990-04-01,vip;newsletter,x\nBen Ng,+1 415 555 0141,,,y\n");
    const mapping = JSON.stringify(["fullName", "phone", "custom:Birthday", "tags", "skip"]);
    const job = await importFile(acc, csv, { mapping, tag: "spring-fair" });
    expect(job).toMatchObject({ state: "done", created: 2 });
    expect(await names(acc)).toEqual([
      { name: "Ben Ng", phone: "+14155550141", email: null, tags: ["spring-fair"], customFields: {} },
      { name: "Anna Maria Schmidt", phone: "+49301234567", email: null, tags: ["vip", "newsletter", "spring-fair"], customFields: { Birthday: "1990-04-01" } },
    ]);
    const list = (await t.api("/api/contacts?q=Anna", { token: acc.token })).body.data;
    expect([list[0].firstName, list[0].lastName]).toEqual(["Anna", "Maria Schmidt"]);

    // A mapping the file cannot take is refused before the import is queued.
    const noPhone = await upload(acc, "/api/contacts/import/csv", csv, { mapping: JSON.stringify(["fullName", "skip", "skip", "skip", "skip"]) });
    expect([noPhone.status, noPhone.body.message]).toEqual([400, "Please choose the column that holds the phone number."]);
    const wrong = await upload(acc, "/api/contacts/import/csv", csv, { mapping: JSON.stringify(["fullName", "phone"]) });
    expect([wrong.status, wrong.body.message]).toEqual([400, "The column mapping names 2 columns but the file has 5. Please choose the columns again."]);
    const bad = await upload(acc, "/api/contacts/import/csv", csv, { mapping: JSON.stringify(["nickname"]) });
    expect([bad.status, bad.body.message]).toEqual([400, "Each column maps to firstName, lastName, fullName, phone, email, tags, skip or custom:<name>"]);
    const badCountry = await upload(acc, "/api/contacts/import/csv", csv, { country: "XX" });
    expect([badCountry.status, badCountry.body.message]).toEqual([400, "Please choose a valid country"]);
  });
});

describe("international lists (issue 28 item 4)", () => {
  test("'00' before a country code and Mexican mobiles written '+52 1' import; a number without its code says how it was read", async () => {
    const acc = await t.signUpVerified();
    const csv = utf8(
      "name,phone\n" +
        "Jonas Weber,0049 160 1234567\n" +
        "Amelia Clarke,0044 7500 123456\n" +
        "Lucía Hernández,0052 55 1234 5678\n" +
        "Mateo García,+52 1 55 8765 4321\n" +
        "Sofía Ruiz,+521 33 1234 5678\n" +
        "Oliver Brown,07911 123456\n" +
        "Ava Stone,(415) 555-0123\n",
    );
    const job = await importFile(acc, csv);
    expect(job).toMatchObject({
      state: "done", rowsRead: 7, created: 6, invalid: 1,
      errors: [{ line: 7, reason: "Invalid phone number: 07911 123456 (read as a United States number: add +44 or choose the country)" }],
    });
    expect((await names(acc)).map((c) => [c.name, c.phone])).toEqual([
      ["Ava Stone", "+14155550123"],
      ["Amelia Clarke", "+447500123456"],
      ["Jonas Weber", "+491601234567"],
      ["Sofía Ruiz", "+523312345678"],
      ["Lucía Hernández", "+525512345678"],
      ["Mateo García", "+525587654321"],
    ]);
    // The same numbers written the other way are the same contacts.
    const again = await importFile(acc, utf8("name,phone\nJonas Weber,+49 160 1234567\nMateo García,+52 55 8765 4321\n"));
    expect(again).toMatchObject({ created: 0, duplicates: 2, invalid: 0 });
  });
});

describe("rejected rows to download (issue 28 item 4)", () => {
  test("every row refused for its phone, in the file's own columns with its line and problem, imports again once fixed", async () => {
    const acc = await t.signUpVerified();
    const other = await t.signUpVerified();
    // 60 bad rows among good ones: more than the dialog lists (50).
    const rows = ["Name;Mobile;City;Notes"];
    for (let i = 0; i < 120; i++) {
      if (i % 2) rows.push(`Guest ${i};07911 123${String(i).padStart(3, "0")};Leeds;`);
      else rows.push(`Host ${i};(415) 555-${String(1000 + i)};Oakland;"likes ""quotes"", commas"`);
    }
    rows.push("No Number;;Bath");
    rows.push("Formula;=1+2;York;@SUM(A1)");
    const job = await importFile(acc, utf8(rows.join("\n") + "\n"));
    expect(job).toMatchObject({ state: "done", rowsRead: 122, created: 60, invalid: 62, rejectedRows: 62 });
    const res = await fetch(`${t.url}/api/contacts/import/${job.id}/rejected.csv`, { headers: { authorization: `Bearer ${acc.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="rejected-rows-\d{4}-\d{2}-\d{2}\.csv"$/);
    const withBom = (r: Response) => r.arrayBuffer().then((b) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b));
    const text = await withBom(res);
    const lines = text.split("\r\n");
    expect(lines.length).toBe(64); // header, 62 rows, the empty string after the last line break
    expect(lines[0]).toBe("\uFEFFName,Mobile,City,Notes,Line,Problem");
    expect(lines[1]).toBe("Guest 1,07911 123001,Leeds,,3,Invalid phone number: 07911 123001 (read as a United States number: add its country code (+44 or +964) or choose the country)");
    expect(lines[60]).toBe("Guest 119,07911 123119,Leeds,,121,Invalid phone number: 07911 123119 (read as a United States number: add its country code (+44 or +964) or choose the country)");
    // A short row is padded to the header's columns; a cell a spreadsheet would run is quoted as text.
    expect(lines[61]).toBe("No Number,,Bath,,122,Missing phone number");
    expect(lines[62]).toBe("Formula,'=1+2,York,'@SUM(A1),123,Invalid phone number: =1+2 (too short for a phone number)");
    expect(lines[63]).toBe("");

    // Fixed (the country code added) and imported again: Line and Problem are columns an import skips.
    const fixed = text.replaceAll(",07911 123", ",+44 7911 123");
    const again = await importFile(acc, utf8(fixed));
    expect(again).toMatchObject({ state: "done", rowsRead: 62, created: 60, invalid: 2, rejectedRows: 2 });
    const guest = (await t.api("/api/contacts?q=Guest%20119", { token: acc.token })).body.data;
    expect(guest.map((c: any) => [c.firstName, c.lastName, c.phone])).toEqual([["Guest", "119", "+447911123119"]]);

    // Another account's import is not found; an import with no refused rows downloads its header alone.
    const theirs = await fetch(`${t.url}/api/contacts/import/${job.id}/rejected.csv`, { headers: { authorization: `Bearer ${other.token}` } });
    expect([theirs.status, ((await theirs.json()) as any).message]).toEqual([404, "Import not found"]);
    const clean = await importFile(other, utf8("phone,first_name\n+14155550100,Ada\n"));
    expect(clean).toMatchObject({ created: 1, rejectedRows: 0 });
    const none = await fetch(`${t.url}/api/contacts/import/${clean.id}/rejected.csv`, { headers: { authorization: `Bearer ${other.token}` } });
    expect(await withBom(none)).toBe("\uFEFFphone,first_name,Line,Problem\r\n");
  });
});

describe("default country", () => {
  test("with English (United Kingdom) and the default country United States, US numbers without + import", async () => {
    const acc = await t.signUpVerified();
    const uk = await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { locale: "en-GB", timezone: "Europe/London" } });
    expect(uk.body).toMatchObject({ locale: "en-GB", defaultCountry: "GB", defaultCountryChosen: false });
    const set = await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { defaultCountry: "us" } });
    expect(set.body).toMatchObject({ locale: "en-GB", defaultCountry: "US", defaultCountryChosen: true });
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { defaultCountry: "ZZ" } })).body.message).toBe("Please choose a valid country");

    const csv = utf8("name,phone\nAva Stone,(415) 555-0123\nLiam Hart,07911 123456\n");
    const job = await importFile(acc, csv);
    expect(job).toMatchObject({ created: 1, invalid: 1, errors: [{ line: 3, reason: "Invalid phone number: 07911 123456 (read as a United States number: add its country code (+44 or +964) or choose the country)" }] });
    // One import may override it.
    expect(await importFile(acc, csv, { country: "GB" })).toMatchObject({ created: 1, duplicates: 0, invalid: 1 });
    expect((await names(acc)).map((c) => c.phone)).toEqual(["+14155550123", "+447911123456"]);

    // The contact form reads numbers in it too; the JSON import takes the same override.
    const form = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Mo", phone: "(212) 555-0199" } });
    expect([form.status, form.body.phone]).toEqual([201, "+12125550199"]);
    const json = await t.api("/api/contacts/import", { method: "POST", token: acc.token, body: { contacts: [{ phone: "020 7946 0958", firstName: "Pip" }], country: "GB", tag: "london" } });
    expect(json.body.results).toMatchObject({ created: 1 });
  });

  test("until chosen: the first sender number's country, else the time zone's (not the language's)", async () => {
    const acc = await t.signUpVerified();
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { locale: "en-GB" } });
    expect((await t.api("/api/user/settings", { token: acc.token })).body.defaultCountry).toBe("US"); // America/New_York
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone: "Australia/Sydney" } });
    expect((await t.api("/api/user/settings", { token: acc.token })).body.defaultCountry).toBe("AU");
    const provider = await t.api("/api/sms-providers", { method: "POST", token: acc.token, body: { provider: "simulator", displayName: "Sim", credentials: {} } });
    expect(provider.status).toBe(201);
    const number = await t.api("/api/phone-numbers", { method: "POST", token: acc.token, body: { phoneNumber: "+447911123456", providerId: provider.body.id } });
    expect(number.status).toBe(201);
    expect((await t.api("/api/user/settings", { token: acc.token })).body.defaultCountry).toBe("GB");
  });
});

describe("duplicates the user can see", () => {
  test("skipped rows are listed with both names (capped, with the total); update brings the row's details in", async () => {
    const acc = await t.signUpVerified();
    const sofia = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Sofia", lastName: "Martinez", phone: "+14155550150", tags: ["regular"] } });
    const csv = utf8("first_name,last_name,phone,email\nMia,Martinez,(415) 555-0150,mia@example.com\nNew,Person,415 555 0151,\nMia,Again,4155550150,\n");
    const job = await importFile(acc, csv, { tag: "fair" });
    expect(job).toMatchObject({ created: 1, updated: 0, duplicates: 2 });
    expect(job.duplicateDetails).toEqual([
      { line: 2, attemptedName: "Mia Martinez", existingName: "Sofia Martinez", phone: "+14155550150", existingContactId: sofia.body.id },
      { line: 4, attemptedName: "Mia Again", existingName: "Sofia Martinez", phone: "+14155550150", existingContactId: sofia.body.id },
    ]);

    const updated = await importFile(acc, csv, { onDuplicate: "update", tag: "fair" });
    // Row 3 brings nothing new, row 4 repeats row 2's number: both stay listed as duplicates.
    expect(updated).toMatchObject({ created: 0, updated: 1, duplicates: 2 });
    const stored = (await t.api(`/api/contacts/${sofia.body.id}`, { token: acc.token })).body;
    expect(stored).toMatchObject({ firstName: "Mia", lastName: "Martinez", email: "mia@example.com", tags: ["regular", "fair"], status: "subscribed" });

    // 150 duplicates: the first 100 are listed, the count is whole.
    const many = "phone,name\n" + Array.from({ length: 150 }, (_, i) => `4155550150,Copy ${i}`).join("\n");
    const capped = await importFile(acc, utf8(many));
    expect(capped.duplicates).toBe(150);
    expect(capped.duplicateDetails).toHaveLength(100);
    expect(capped.duplicateDetails[99]).toMatchObject({ line: 101, attemptedName: "Copy 99", existingName: "Mia Martinez" });
  });

  test("adding a contact with an existing number answers 409 with the existing contact's id and name", async () => {
    const acc = await t.signUpVerified();
    const first = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Sofia", lastName: "Martinez", phone: "+14155550160" } });
    const again = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Mia", lastName: "Martinez", phone: "(415) 555-0160" } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "A contact with this phone number already exists", existingContactId: first.body.id, existingName: "Sofia Martinez", code: "conflict" });
  });
});

describe("export", () => {
  test("a UTF-8 BOM, phones as written, formulas neutralised, times in the account's zone", async () => {
    const acc = await t.signUpVerified();
    await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { timezone: "America/Los_Angeles" } });
    const a = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "José", lastName: "Muñoz", phone: "+14155550170", tags: ["vip", "-1"] } });
    const b = await t.api("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "=HYPERLINK(\"x\")", lastName: "@risk", email: "b@example.com", phone: "+447911123456" } });
    t.ctx.db.update(contacts).set({ createdAt: new Date("2026-07-04T16:30:05Z") }).where(eq(contacts.id, a.body.id)).run();
    t.ctx.db.update(contacts).set({ createdAt: new Date("2026-12-24T08:00:00Z") }).where(eq(contacts.id, b.body.id)).run();
    const res = await fetch(`${t.url}/api/contacts/export.csv`, { headers: { authorization: `Bearer ${acc.token}` } });
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(3)).split("\r\n")).toEqual([
      "firstName,lastName,email,phone,tags,status,createdAt (America/Los_Angeles)",
      "José,Muñoz,,+14155550170,\"vip, -1\",subscribed,2026-07-04 09:30:05",
      "\"'=HYPERLINK(\"\"x\"\")\",'@risk,b@example.com,+447911123456,,subscribed,2026-12-24 00:00:00",
      "",
    ]);
  });
});

describe("import finish", () => {
  test("the counts commit with each batch and the done state with the last names; an interrupted import is failed at start-up with its counts", async () => {
    const acc = await t.signUpVerified();
    const job = await importFile(acc, utf8("phone\n4155550180\n4155550181\n"));
    expect(job).toMatchObject({ state: "done", progress: 100, created: 2, rowsRead: 2 });
    expect(job.finishedAt).not.toBeNull();
    // The done state commits with the import's last names (src/contacts/name-order.ts), after every batch: when
    // marking the job done fails, the job says failed with counts that match what was stored, and the contacts it
    // stored still get their names (the list sorted by name shows them).
    const big = await t.signUpVerified();
    await grantLicense(t.ctx, big.user.id, "enterprise", 30);
    t.ctx.db.$client.run(`CREATE TRIGGER test_refuse_done BEFORE UPDATE OF state ON contact_imports WHEN new.state = 'done'
      BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      const rows = Array.from({ length: 10_001 }, (_, i) => `+1 646 ${String(200 + Math.floor(i / 10_000))} ${String(i % 10_000).padStart(4, "0")}`);
      const failed = await importFile(big, utf8(`phone\n${rows.join("\n")}\n`));
      expect(failed).toMatchObject({ state: "failed", rowsRead: 10_001, created: 10_001 });
      expect((await t.api("/api/contacts/stats", { token: big.token })).body.total).toBe(10_001);
      const byName = await t.api("/api/contacts?sort=name&order=desc&pageSize=100&page=101", { token: big.token });
      expect(byName.body.data.map((c: { phone: string }) => c.phone)).toEqual(["+16462000000"]);
      // The names of the failed last transaction too (the first in descending order, by rowid as the names are empty).
      const first = await t.api("/api/contacts?sort=name&order=desc&pageSize=1", { token: big.token });
      expect(first.body.data[0].phone).toBe("+16462010000");
      expect(t.ctx.db.$client.query("SELECT count(*) AS n FROM contact_names WHERE user_id = ?").get(big.user.id)).toEqual({ n: 10_001 });
    } finally {
      t.ctx.db.$client.run("DROP TRIGGER test_refuse_done");
    }

    // A job a crashed process left running, with the counts of the batches it committed.
    const id = Bun.randomUUIDv7();
    t.ctx.db.insert(contactImports).values({ id, userId: acc.user.id, state: "running", rowsRead: 10_000, created: 9_990, duplicates: 10, progress: 40 }).run();
    await failInterruptedImports(t.ctx);
    const after = (await t.api(`/api/contacts/import/${id}`, { token: acc.token })).body;
    expect(after).toMatchObject({ state: "failed", error: INTERRUPTED, rowsRead: 10_000, created: 9_990 });
  }, 60_000);
});
