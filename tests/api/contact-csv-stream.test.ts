import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { csvBatches, csvRecords, EMPTY_CSV, NO_PHONE_COLUMN } from "../../src/contacts/csv-stream";
import { preparedBatches } from "../../src/contacts/import-pipeline";
import { packBatch, unpackBatch, type PreparedBatch } from "../../src/contacts/prepare";

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
  expect(batches.flatMap((b) => b.invalid)).toEqual(["", "Invalid phone number: not a phone", "Missing phone number", ""]);
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

test("the parsing worker and the in-process fallback give the same batches; packing between threads is lossless", async () => {
  const path = join(dir, "big.csv");
  const rows = Array.from(
    { length: 25_000 },
    (_, i) => `"Nom ${i}, fils",${i % 7 ? `+1 212 555 ${String(i % 10_000).padStart(4, "0")}` : "n/a"},é${i}@example.com`,
  );
  writeFileSync(path, `name,phone,email\n${rows.join("\n")}\n`);
  const collect = async (worker: boolean) => {
    const out: PreparedBatch[] = [];
    for await (const { batch } of preparedBatches(path, { region: "US" }, { worker })) out.push(batch);
    return out;
  };
  const viaWorker = await collect(true);
  expect(viaWorker.map((b) => b.lines.length)).toEqual([10_000, 10_000, 5_000]);
  expect(viaWorker).toEqual(await collect(false));
  expect(viaWorker[0]!.first[1]).toBe("Nom");
  expect(viaWorker[0]!.email[1]).toBe("é1@example.com");
  expect(unpackBatch(packBatch(viaWorker[2]!))).toEqual(viaWorker[2]!);
});
