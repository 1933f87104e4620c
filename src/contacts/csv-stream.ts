import Papa from "papaparse";
import { HttpError } from "../http/errors";
import { prepareBatch, type ImportRow, type PreparedBatch } from "./prepare";
import { PhoneNormalizer } from "./phones";
import type { CountryCode } from "libphonenumber-js";
import { stripNul } from "../http/nul";

export const NO_PHONE_COLUMN = "No phone column found. Expected a header such as phone, phone_number or mobile.";
export const NO_PHONE_MAPPED = "Please choose the column that holds the phone number.";
export const EMPTY_CSV = "The CSV file is empty.";
export const CHUNK_BYTES = 1 << 20;
export const BATCH_ROWS = 10_000;
/**
 * Distinct numbers the import remembers validating. Validation costs microseconds, while a cache entry can
 * keep the whole parsed chunk its text was cut from alive: a large cache cost memory and saved nothing.
 */
const PHONE_CACHE = 4096;

/**
 * What a column holds: a contact field, a custom field (`custom:` and its name), or nothing (`skip`). The
 * import call takes one per column of the header; without one the header is mapped by suggestMapping.
 */
export type ColumnTarget = "firstName" | "lastName" | "fullName" | "phone" | "email" | "tags" | "skip" | `custom:${string}`;
export const COLUMN_TARGET = /^(firstName|lastName|fullName|phone|email|tags|skip|custom:\S.{0,99})$/s;

/**
 * The columns of each field, compiled from a mapping for the per-row work. Phone and email may come from several
 * columns (Outlook's Mobile, Business and Home Phone): a row takes the first that is not empty.
 */
export type HeaderMap = {
  phone: number[];
  email: number[];
  firstName: number;
  lastName: number;
  fullName: number;
  tags: number[];
  custom: [name: string, column: number][];
  /** A tag given to every row of the import, or "". */
  tag: string;
};

// Header names (lower case, runs of spaces as one) of the exports people bring: the spec's own (phone,
// phone_number, first_name...), this product's export, Google Contacts old (Given Name, Family Name) and new
// (First Name, Last Name), both with "Phone 1 - Value" and "E-mail 1 - Value", and Outlook (Mobile Phone,
// E-mail Address). For phone and email the lower rank wins when a file has several such columns.
// prettier-ignore
const KNOWN: Record<string, [ColumnTarget, number]> = {
  phone: ["phone", 0], phone_number: ["phone", 0], phonenumber: ["phone", 0], "phone number": ["phone", 0], mobile: ["phone", 0],
  mobile_number: ["phone", 0], "mobile number": ["phone", 0], mobilenumber: ["phone", 0], cell: ["phone", 0], cell_phone: ["phone", 0],
  "cell phone": ["phone", 0], "mobile phone": ["phone", 0], "phone 1 - value": ["phone", 1], "primary phone": ["phone", 2],
  "phone 2 - value": ["phone", 3], "home phone": ["phone", 4], "business phone": ["phone", 5], "other phone": ["phone", 6],
  email: ["email", 0], email_address: ["email", 0], "email address": ["email", 0], "e-mail": ["email", 0], "e-mail address": ["email", 0],
  "e-mail 1 - value": ["email", 1], "e-mail 2 address": ["email", 2], "e-mail 2 - value": ["email", 2],
  first_name: ["firstName", 0], firstname: ["firstName", 0], "first name": ["firstName", 0], "given name": ["firstName", 0],
  last_name: ["lastName", 0], lastname: ["lastName", 0], "last name": ["lastName", 0], "family name": ["lastName", 0], surname: ["lastName", 0],
  name: ["fullName", 0], full_name: ["fullName", 0], "full name": ["fullName", 0], "display name": ["fullName", 0],
  tags: ["tags", 0], categories: ["tags", 0], labels: ["tags", 0], "group membership": ["tags", 0],
};

const headerKey = (h: string) => h.replace(/^\uFEFF/, "").trim().toLowerCase().replace(/\s+/g, " ");

/**
 * The mapping a header gets without the user's say: each known field from its best column (one column per
 * field), everything else skipped.
 */
export function suggestMapping(header: string[]): ColumnTarget[] {
  const best = new Map<ColumnTarget, [column: number, rank: number]>();
  header.forEach((h, i) => {
    const known = KNOWN[headerKey(h)];
    if (!known) return;
    const had = best.get(known[0]);
    if (!had || known[1] < had[1]) best.set(known[0], [i, known[1]]);
  });
  const mapping: ColumnTarget[] = header.map(() => "skip");
  for (const [target, [column]] of best) mapping[column] = target;
  return mapping;
}

/** Compiles a mapping (one target per column; missing ones skip) and the import's tag for toRow. */
export function compileMapping(mapping: readonly ColumnTarget[], tag = ""): HeaderMap {
  const m: HeaderMap = { phone: [], email: [], firstName: -1, lastName: -1, fullName: -1, tags: [], custom: [], tag: tag.trim() };
  mapping.forEach((target, i) => {
    if (target === "phone" || target === "email" || target === "tags") m[target].push(i);
    else if (target === "firstName" || target === "lastName" || target === "fullName") {
      if (m[target] < 0) m[target] = i;
    } else if (target.startsWith("custom:")) m.custom.push([target.slice(7).trim(), i]);
  });
  return m;
}

/** The column map of a header: the given mapping, else the suggested one. */
export function mapHeader(header: string[], mapping?: readonly ColumnTarget[], tag = ""): HeaderMap {
  return compileMapping(mapping ?? suggestMapping(header), tag);
}

const cell = (cells: string[], i: number) => (i < 0 ? "" : (cells[i] ?? "").trim());
const firstFilled = (cells: string[], cols: number[]) => {
  for (const i of cols) {
    const v = cell(cells, i);
    if (v) return v;
  }
  return "";
};

export function toRow(cells: string[], m: HeaderMap): ImportRow {
  let firstName = cell(cells, m.firstName);
  let lastName = cell(cells, m.lastName);
  if (!firstName && !lastName && m.fullName >= 0) {
    const [first, ...rest] = cell(cells, m.fullName).split(/\s+/);
    firstName = first ?? "";
    lastName = rest.join(" ");
  }
  let phone = firstFilled(cells, m.phone);
  // Google Contacts puts every number of one label in one cell: "+1 415-555-0100 ::: +1 415-555-0199".
  if (phone.includes(":::")) phone = phone.slice(0, phone.indexOf(":::")).trim();
  let tags: string[] = [];
  for (const i of m.tags) {
    const v = cell(cells, i);
    if (v) tags = tags.length ? [...new Set([...tags, ...splitTags(v)])] : splitTags(v);
  }
  if (m.tag && !tags.includes(m.tag)) tags = [...tags, m.tag];
  const row: ImportRow = { phone, email: firstFilled(cells, m.email), firstName, lastName, tags };
  if (m.custom.length) {
    const custom: Record<string, string> = {};
    for (const [name, i] of m.custom) {
      const v = cell(cells, i);
      if (v) custom[name] = v;
    }
    row.customFields = custom;
  }
  return row;
}

/**
 * Tags of a cell such as "vip, new|2024" or Google's "* myContacts ::: Friends": trimmed, without empty or
 * repeated ones, and without Google's own groups (a leading "* "), which every contact of the export is in.
 */
function splitTags(cell: string): string[] {
  const tags = cell.split(/[,;|]|:::/).map((t) => t.trim());
  return [...new Set(tags.filter((t) => t && !t.startsWith("* ")))];
}

export type Encoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/**
 * The encoding of a file from its first bytes: a byte-order mark says UTF-8 or UTF-16; UTF-16 without one shows
 * as zero bytes in every other position; otherwise UTF-8 when the bytes are valid UTF-8, else Windows-1252 (what
 * Excel on Windows writes for "CSV (Comma delimited)", and a superset of Latin-1 for the accents people type).
 */
export function detectEncoding(head: Uint8Array, whole = true): Encoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  const n = Math.min(head.length, 4096) & ~1;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenZeros++;
    if (head[i + 1] === 0) oddZeros++;
  }
  if (n >= 4 && oddZeros > n / 8 && evenZeros === 0) return "utf-16le";
  if (n >= 4 && evenZeros > n / 8 && oddZeros === 0) return "utf-16be";
  try {
    // Of a file's first chunk, a character the cut split is left for the next chunk to finish.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: !whole });
    return "utf-8";
  } catch {
    return "windows-1252";
  }
}

/** How many bytes at the end of `b` begin a UTF-8 sequence that the next chunk would finish. */
function unfinishedUtf8(b: Uint8Array): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 3); i--) {
    const byte = b[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return b.length - i < need ? b.length - i : 0;
  }
  return 0;
}

/**
 * Decodes a file chunk by chunk in the encoding its first chunk shows (detectEncoding); a byte-order mark is
 * dropped. A file that looked like UTF-8 at first and then has a byte that is not (an accented name past the
 * first megabyte of an Excel export) is read as Windows-1252 from that chunk on, with the bytes the UTF-8
 * decoder was holding for the next chunk.
 */
export class ChunkDecoder {
  encoding: Encoding | null = null;
  private decoder: TextDecoder | null = null;
  /** Before the encoding is known: the first bytes, when too few to tell. After: the unfinished UTF-8 sequence. */
  private held: Uint8Array = new Uint8Array(0);

  /** A chunk's text with its NUL characters dropped (src/http/nul.ts: no cell means one, and none is stored). */
  decode(chunk: Uint8Array, last: boolean): string {
    return stripNul(this.decodeText(chunk, last));
  }

  private decodeText(chunk: Uint8Array, last: boolean): string {
    if (!this.decoder) {
      chunk = this.held.length ? concat(this.held, chunk) : chunk;
      this.held = new Uint8Array(0);
      if (chunk.length < 4 && !last) {
        this.held = chunk;
        return "";
      }
      this.encoding = detectEncoding(chunk, last);
      this.decoder = new TextDecoder(this.encoding, { fatal: this.encoding === "utf-8" });
    }
    if (this.encoding !== "utf-8") return this.decoder.decode(chunk, { stream: !last });
    try {
      const text = this.decoder.decode(chunk, { stream: !last });
      const recent = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : concat(this.held, chunk).slice(-3);
      this.held = recent.slice(recent.length - unfinishedUtf8(recent));
      return text;
    } catch {
      this.encoding = "windows-1252";
      this.decoder = new TextDecoder("windows-1252");
      return this.decoder.decode(concat(this.held, chunk), { stream: !last });
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The one of comma, semicolon and tab that splits the header line into the most fields. */
export function detectDelimiter(firstLine: string): string {
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
 * The records of a CSV arriving as chunks of bytes (UTF-8, UTF-16 or Windows-1252: ChunkDecoder), decoded and
 * parsed one chunk at a time the way papaparse streams a file (the unfinished last record of a chunk is carried
 * into the next), so no string of the whole file is ever built. A byte-order mark is dropped; blank lines are
 * skipped. `bytes` counts the bytes consumed so far.
 */
export async function* csvRecords(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<{ records: string[][]; bytes: number }> {
  const decoder = new ChunkDecoder();
  let parser: ChunkParser | null = null;
  let carried = "";
  let base = 0;
  let bytes = 0;
  const parse = (chunk: Uint8Array, last: boolean) => {
    bytes += chunk.length;
    const input = carried + decoder.decode(chunk, last);
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

/** How a file's rows become contacts: the country of numbers without "+", the columns, a tag for every row. */
export type ParseOptions = {
  region: CountryCode | undefined;
  mapping?: ColumnTarget[];
  tag?: string;
  /** Rows that may come in phone order rather than the file's (import-order.ts): the contacts the plan has room for. */
  sortable?: number;
};

/** The header's columns as the import maps them; a 400 HttpError when the mapping does not fit or no column is the phone. */
function importHeader(names: string[], opts: ParseOptions): HeaderMap {
  if (opts.mapping && opts.mapping.length !== names.length) {
    throw new HttpError(400, `The column mapping names ${opts.mapping.length} columns but the file has ${names.length}. Please choose the columns again.`);
  }
  const header = mapHeader(names, opts.mapping, opts.tag);
  if (!header.phone.length) throw new HttpError(400, opts.mapping ? NO_PHONE_MAPPED : NO_PHONE_COLUMN);
  return header;
}

/**
 * Checks a file's header line the way the import will, reading no further than its first records, so a file the
 * import would refuse is refused before it is queued. Throws the same 400 HttpErrors as csvBatches. Answers the
 * header row's cells (null for a file without records), which the job keeps for its rejected rows' CSV.
 */
export async function checkImportHeader(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: ParseOptions): Promise<string[] | null> {
  for await (const { records } of csvRecords(chunks)) {
    if (!records.length) continue;
    importHeader(records[0]!, opts);
    return records[0]!.map((h) => h.replace(/^\uFEFF/, ""));
  }
  return null;
}

/**
 * A CSV as prepared batches of `batchRows` rows (phones validated, fields trimmed), with the share of its
 * `size` bytes read so far. The header is line 1 and each record after it one line (a record with quoted
 * line breaks counts once). Throws a 400 HttpError for a file without records or without a phone column.
 */
export async function* csvBatches(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  size: number,
  opts: ParseOptions,
  batchRows = BATCH_ROWS,
): AsyncGenerator<{ batch: PreparedBatch; progress: number }> {
  const phones = new PhoneNormalizer(opts.region, PHONE_CACHE);
  let header: HeaderMap | null = null;
  let line = 1;
  let rows: ImportRow[] = [];
  let lines: number[] = [];
  let cells: string[][] = [];
  let progress = 0;
  for await (const { records, bytes } of csvRecords(chunks)) {
    progress = size > 0 ? bytes / size : 1;
    let i = 0;
    if (!header) {
      if (!records.length) continue;
      header = importHeader(records[0]!, opts);
      i = 1;
    }
    for (; i < records.length; i++) {
      rows.push(toRow(records[i]!, header));
      cells.push(records[i]!);
      lines.push(++line);
      if (rows.length === batchRows) {
        yield { batch: prepareBatch(rows, lines, phones, cells), progress };
        rows = [];
        lines = [];
        cells = [];
      }
    }
  }
  if (!header) throw new HttpError(400, EMPTY_CSV);
  if (rows.length) yield { batch: prepareBatch(rows, lines, phones, cells), progress };
}

export const PREVIEW_BYTES = 64 * 1024;
export const PREVIEW_ROWS = 5;

/**
 * What the import dialog shows before an import: the file's encoding and delimiter, its header, its first rows
 * and the mapping suggestMapping makes. `head` is the file or its first bytes (`whole` false: the record the
 * cut fell in is left out).
 */
export function previewCsv(head: Uint8Array, whole: boolean) {
  const decoder = new ChunkDecoder();
  let text = decoder.decode(head, true);
  if (!whole) text = text.slice(0, Math.max(0, text.search(/[\r\n][^\r\n]*$/)));
  const eol = text.search(/\r\n|\n|\r/);
  const delimiter = detectDelimiter(eol < 0 ? text : text.slice(0, eol));
  const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: "greedy", preview: PREVIEW_ROWS + 1 });
  const [header, ...rows] = parsed.data;
  if (!header?.some((h) => h.trim())) throw new HttpError(400, EMPTY_CSV);
  const headers = header.map((h) => h.replace(/^\uFEFF/, "").trim());
  return { encoding: decoder.encoding!, delimiter, headers, rows, mapping: suggestMapping(headers) };
}
