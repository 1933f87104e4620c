import Papa from "papaparse";
import { HttpError } from "../http/errors";
import { prepareBatch, type ImportRow, type PreparedBatch } from "./prepare";
import { PhoneNormalizer } from "./phones";
import type { CountryCode } from "libphonenumber-js";

export const NO_PHONE_COLUMN = "No phone column found. Expected a header such as phone, phone_number or mobile.";
export const EMPTY_CSV = "The CSV file is empty.";
export const CHUNK_BYTES = 1 << 20;
export const BATCH_ROWS = 10_000;
/**
 * Distinct numbers the import remembers validating. Validation costs microseconds, while a cache entry can
 * keep the whole parsed chunk its text was cut from alive: a large cache cost memory and saved nothing.
 */
const PHONE_CACHE = 4096;

type Field = "phone" | "email" | "firstName" | "lastName" | "name" | "tags";
export type HeaderMap = Partial<Record<Field, number>>;
// prettier-ignore
const HEADERS: Record<string, Field> = {
  phone: "phone", phone_number: "phone", phonenumber: "phone", "phone number": "phone", mobile: "phone", mobile_number: "phone",
  "mobile number": "phone", mobilenumber: "phone", cell: "phone", cell_phone: "phone", "cell phone": "phone",
  email: "email", email_address: "email", "email address": "email", "e-mail": "email",
  first_name: "firstName", firstname: "firstName", "first name": "firstName",
  last_name: "lastName", lastname: "lastName", "last name": "lastName",
  name: "name", full_name: "name", "full name": "name", tags: "tags",
};

/** Column index of each known field; header names are matched case-insensitively, trimmed. */
export function mapHeader(header: string[]): HeaderMap {
  const map: HeaderMap = {};
  header.forEach((h, i) => {
    const key = h
      .replace(/^\uFEFF/, "")
      .trim()
      .toLowerCase();
    const f = HEADERS[key.replace(/\s+/g, " ")];
    if (f && map[f] === undefined) map[f] = i;
  });
  return map;
}

export function toRow(cells: string[], m: HeaderMap): ImportRow {
  const get = (f: Field) => (m[f] === undefined ? "" : (cells[m[f]!] ?? "").trim());
  let firstName = get("firstName");
  let lastName = get("lastName");
  const name = get("name");
  if (name && !firstName && !lastName) {
    const [first, ...rest] = name.split(/\s+/);
    firstName = first ?? "";
    lastName = rest.join(" ");
  }
  const tags = get("tags");
  return { phone: get("phone"), email: get("email"), firstName, lastName, tags: tags ? splitTags(tags) : [] };
}

/** Tags of a cell such as "vip, new|2024": trimmed, without empty or repeated ones. */
function splitTags(cell: string): string[] {
  const tags = cell.split(/[,;|]/).map((t) => t.trim());
  return [...new Set(tags.filter(Boolean))];
}

/** The one of comma, semicolon and tab that splits the header line into the most fields. */
function detectDelimiter(firstLine: string): string {
  return [",", ";", "\t"].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0]![0];
}

// papaparse's parser handle: the piece its own file and stream readers drive chunk by chunk.
type ChunkParser = { parse(input: string, baseIndex: number, ignoreLastRow: boolean): Papa.ParseResult<string[]> };
const { ParserHandle } = Papa as unknown as { ParserHandle: new (config: Papa.ParseConfig<string[]>) => ChunkParser };

/** A file's bytes, `chunkBytes` at a time. */
export async function* fileChunks(path: string, chunkBytes = CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  const file = Bun.file(path);
  for (let off = 0; off < file.size; off += chunkBytes)
    yield new Uint8Array(await file.slice(off, off + chunkBytes).arrayBuffer());
}

/**
 * The records of a CSV arriving as chunks of UTF-8 bytes, decoded and parsed one chunk at a time the way
 * papaparse streams a file (the unfinished last record of a chunk is carried into the next), so no string of
 * the whole file is ever built. A byte-order mark is dropped; blank lines are skipped. `bytes` counts the
 * bytes consumed so far.
 */
export async function* csvRecords(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<{ records: string[][]; bytes: number }> {
  const decoder = new TextDecoder("utf-8");
  let parser: ChunkParser | null = null;
  let carried = "";
  let base = 0;
  let bytes = 0;
  const parse = (chunk: Uint8Array, last: boolean) => {
    bytes += chunk.length;
    const input = carried + decoder.decode(chunk, { stream: !last });
    if (!parser) {
      // Wait for a whole first line break (not a "\r" whose "\n" may be in the next chunk): papaparse guesses
      // the file's line breaks from its first input.
      const eol = input.search(/\r\n|\n|\r(?!$)/);
      if (eol < 0 && !last) {
        carried = input;
        return [];
      }
      parser = new ParserHandle({ delimiter: detectDelimiter(eol < 0 ? input : input.slice(0, eol)), skipEmptyLines: "greedy" });
    }
    const result = parser.parse(input, base, !last);
    if (!last) {
      carried = input.substring(result.meta.cursor - base);
      base = result.meta.cursor;
    }
    return result.data;
  };
  // One chunk behind the source, so the last chunk is known as the last (papaparse then ends the final record).
  let pending: Uint8Array | null = null;
  for await (const chunk of chunks) {
    if (pending) yield { records: parse(pending, false), bytes };
    pending = chunk;
  }
  if (pending) yield { records: parse(pending, true), bytes };
}

/**
 * A CSV as prepared batches of `batchRows` rows (phones validated, fields trimmed), with the share of its
 * `size` bytes read so far. The header is line 1 and each record after it one line (a record with quoted
 * line breaks counts once). Throws a 400 HttpError for a file without records or without a phone column.
 */
export async function* csvBatches(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  size: number,
  region: CountryCode | undefined,
  batchRows = BATCH_ROWS,
): AsyncGenerator<{ batch: PreparedBatch; progress: number }> {
  const phones = new PhoneNormalizer(region, PHONE_CACHE);
  let header: HeaderMap | null = null;
  let line = 1;
  let rows: ImportRow[] = [];
  let lines: number[] = [];
  let progress = 0;
  for await (const { records, bytes } of csvRecords(chunks)) {
    progress = size > 0 ? bytes / size : 1;
    let i = 0;
    if (!header) {
      if (!records.length) continue;
      header = mapHeader(records[0]!);
      if (header.phone === undefined) throw new HttpError(400, NO_PHONE_COLUMN);
      i = 1;
    }
    for (; i < records.length; i++) {
      rows.push(toRow(records[i]!, header));
      lines.push(++line);
      if (rows.length === batchRows) {
        yield { batch: prepareBatch(rows, lines, phones), progress };
        rows = [];
        lines = [];
      }
    }
  }
  if (!header) throw new HttpError(400, EMPTY_CSV);
  if (rows.length) yield { batch: prepareBatch(rows, lines, phones), progress };
}
