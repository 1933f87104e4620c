import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { csvBatches, csvRecords, EMPTY_CSV, NO_PHONE_COLUMN } from "../../src/contacts/csv-stream";
import { preparedBatches } from "../../src/contacts/import-pipeline";
import { packBatch, packedRow, packedSlice, type PackedBatch, type PreparedBatch, type StoredRow } from "../../src/contacts/prepare";

const dir = mkdtempSync(join(tmpdir(), "smsdesk-csv-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (s: string) => new TextEncoder().encode(s);
const chunked = (b: Uint8Array, size: number) =>
  Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));
async function records(b: Uint8Array, size: number) {
  const out: string[][] = [];
  for await (const { records } of csvRecords(chunked(b, size))) out.push(...records);
  return out;
}

test("records parsed chunk by chunk equal the whole file parsed at once, wherever the chunks are cut", async () => {
  const text =
    "\uFEFFname;phone;note\r\n" +
    '"Zoë ""Z"" Ødegård";+47 22 12 34 56;"two\r\nlines; and a ; separator"\r\n' +
    "\r\n" +
    "José;(415) 555-0100;日本語のメモ\r\n" +
    '   \r\n"";x;\r\n' +
    "Ann;202.555.0101;last line without a line break";
  const whole = Papa.parse<string[]>(text.slice(1), { delimiter: ";", skipEmptyLines: "greedy" }).data;
  expect(whole.length).toBe(5);
  for (let size = 1; size <= 40; size++) expect(await records(bytes(text), size)).toEqual(whole);
  expect(await records(bytes(text), 1 << 20)).toEqual(whole);
});

test("batches carry line numbers and validated phones; a file without records or a phone column is refused", async () => {
  const csv = "first_name,phone\nA,4155550100\n\nB,not a phone\nC,\nD,+1 415 555 0100\n";
  const batches: PreparedBatch[] = [];
  let progress = 0;
  for await (const b of csvBatches(chunked(bytes(csv), 7), csv.length, { region: "US" }, 2)) {
    batches.push(b.batch);
    progress = b.progress;
  }
  expect(batches.map((b) => b.lines)).toEqual([
    [2, 3],
    [4, 5],
  ]);
  expect(batches.flatMap((b) => b.phone)).toEqual(["+14155550100", "", "", "+14155550100"]);
  expect(batches.flatMap((b) => b.refused)).toEqual([
    "",
    '[3,"Invalid phone number: not a phone",["B","not a phone"]]',
    '[4,"Missing phone number",["C",""]]',
    "",
  ]);
  expect(batches.flatMap((b) => b.row)).toEqual(['["A","",null,"+14155550100","[]","",null]', "", "", '["D","",null,"+14155550100","[]","",null]']);
  expect(progress).toBe(1);
  const failure = async (csv: string) => {
    try {
      for await (const _ of csvBatches([bytes(csv)], csv.length, { region: "US" }));
    } catch (err) {
      return (err as Error).message;
    }
  };
  expect(await failure("email,name\nx@example.com,X\n")).toBe(NO_PHONE_COLUMN);
  expect(await failure("\n \n")).toBe(EMPTY_CSV);
});

test("the parsing worker and the in-process fallback give the same batches, packed as the writer reads them", async () => {
  const path = join(dir, "big.csv");
  const rows = Array.from(
    { length: 25_000 },
    (_, i) => `"Nom ${i}, fils",${i % 7 ? `+1 212 555 ${String(i % 10_000).padStart(4, "0")}` : "n/a"},é${i}@example.com`,
  );
  writeFileSync(path, `name,phone,email\n${rows.join("\n")}\n`);
  const collect = async (worker: boolean) => {
    const out: PackedBatch[] = [];
    for await (const { batch } of preparedBatches(path, { region: "US" }, { worker })) out.push(batch);
    return out;
  };
  // Each row's contact and opt-in ids are made as it is packed: the same batches but for them.
  const uuid = /"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"/g;
  const withoutIds = (b: PackedBatch) => {
    const ids = b.rows.match(uuid)!;
    expect(new Set(ids).size).toBe(ids.length);
    const rows = b.rows.replace(uuid, '"id"');
    const ends = Array.from(b.rowEnds, (end, i) => end - 74 * (i + 1 - Array.from(b.phones.subarray(0, i + 1)).filter((p) => !p).length));
    return { ...b, rows, rowEnds: ends };
  };
  const viaWorker = await collect(true);
  expect(viaWorker.map((b) => b.lines.length)).toEqual([10_000, 10_000, 5_000]);
  expect(viaWorker.map(withoutIds)).toEqual((await collect(false)).map(withoutIds));
  const [first, second] = viaWorker;
  // Row 1 ("Nom 1, fils"), valid; row 0 has no valid number.
  expect(packedRow<StoredRow>(first!.rows, first!.rowEnds, 1).slice(2)).toEqual(["Nom", "1, fils", "é1@example.com", "+12125550001", "[]", "", null]);
  expect(first!.phones[1]).toBe(12125550001);
  expect([first!.phones[0], first!.lines[0]]).toEqual([0, 2]);
  expect(packedRow(first!.refused, first!.refusedEnds, 0)).toEqual([2, "Invalid phone number: n/a", ["Nom 0, fils", "n/a", "é0@example.com"]]);
  // A range of rows is one slice of the text: the valid ones in `rows`, the others in `refused`.
  const range = JSON.parse(packedSlice(second!.rows, second!.rowEnds, 8, 12)) as StoredRow[];
  expect(range.map((r) => r[5])).toEqual([10_008, 10_009, 10_011].map((i) => `+1212555${String(i % 10_000).padStart(4, "0")}`));
  expect(JSON.parse(packedSlice(second!.refused, second!.refusedEnds, 8, 12))).toEqual([[10_012, "Invalid phone number: n/a", ["Nom 10010, fils", "n/a", "é10010@example.com"]]]);
  expect(packedSlice(second!.refused, second!.refusedEnds, 0, 1)).toBe("");
});

test("a packed row's name that needs letters folded for the search is marked", () => {
  const packed = packBatch({ lines: [2, 3], phone: ["+1", "+2"], row: ['["José","",null,"+1","[]","","jose"]', '["Ann","",null,"+2","[]","",null]'], refused: ["", ""] });
  expect(Array.from(packed.folded)).toEqual([1, 0]);
  expect(Array.from(packed.phones)).toEqual([1, 2]);
});
