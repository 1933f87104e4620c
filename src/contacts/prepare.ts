import { searchExtra } from "./name-key";
import type { PhoneNormalizer } from "./phones";

export type ImportRow = {
  phone?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  tags?: string[];
  customFields?: Record<string, string>;
};

/**
 * Import rows after everything that needs no database: the phone validated to E.164 (or the reason the row is
 * invalid), fields trimmed, each row as the JSON its statement reads. Column arrays, so a window of rows is sorted
 * (import-order.ts) and cut into batches without making objects of its rows.
 */
export type PreparedBatch = {
  lines: number[];
  /** E.164, or "" when the row is invalid. */
  phone: string[];
  /**
   * A valid row's fields as a JSON array, [first, last, email or null, phone, tags (JSON text), custom fields (JSON
   * text, or "" when none), what the search index holds after its fields when its name needs letters folded
   * (searchExtra) or null]; "" when the row is invalid.
   */
  row: string[];
  /** An invalid row as a JSON array, [line, reason, its cells as the CSV had them or null]; "" when the row is valid. */
  refused: string[];
};

const COLUMNS = ["lines", "phone", "row", "refused"] as const;

/** A batch of these lines with its text columns still to fill. */
const withLines = (lines: number[]): PreparedBatch => ({ lines, phone: [], row: [], refused: [] });

/** `lines[i]` is the line number reported for `rows[i]`, `cells[i]` its CSV record (kept when the row is refused). */
export function prepareBatch(rows: ImportRow[], lines: number[], phones: PhoneNormalizer, cells?: string[][]): PreparedBatch {
  const b = withLines(lines);
  const raws = rows.map((row) => (row.phone ? String(row.phone).trim() : ""));
  // Every phone first: a number without its country code is then explained with the codes the batch's numbers have.
  const valid = raws.map((raw) => (raw ? phones.normalize(raw) : null));
  rows.forEach((row, i) => {
    const raw = raws[i]!;
    const phone = valid[i];
    b.phone.push(phone ?? "");
    if (!phone) {
      b.row.push("");
      b.refused.push(JSON.stringify([lines[i], raw ? phones.whyInvalid(raw) : "Missing phone number", cells?.[i] ?? null]));
      return;
    }
    const first = (row.firstName ?? "").trim();
    const last = (row.lastName ?? "").trim();
    const email = (row.email ?? "").trim();
    const tags = JSON.stringify(row.tags ?? []);
    const custom = row.customFields && Object.keys(row.customFields).length ? JSON.stringify(row.customFields) : "";
    b.row.push(JSON.stringify([first, last, email || null, phone, tags, custom, searchExtra(first, last) || null]));
    b.refused.push("");
  });
  return b;
}

/** The rows of several batches as one, in their order. */
export function concatBatches(batches: PreparedBatch[]): PreparedBatch {
  const all = withLines([]);
  for (const col of COLUMNS) (all[col] as unknown[]) = batches.flatMap((b) => b[col] as unknown[]);
  return all;
}

/** The rows of a batch at the given indexes, in that order. */
export function pickRows(b: PreparedBatch, rows: number[]): PreparedBatch {
  const p = withLines([]);
  for (const col of COLUMNS) (p[col] as unknown[]) = rows.map((i) => b[col][i]!);
  return p;
}

/**
 * A batch as the writer stores it (importer.ts ContactImporter.store), made where it was prepared (the parsing
 * worker) and posted to the writer as typed arrays and two strings: the writer takes a transaction's rows as one
 * slice of `rows` and makes no string of a row it stores. Row i's text in `rows` (or `refused`) ends, with the comma
 * after it, at rowEnds[i] (refusedEnds[i]) and starts where row i - 1's ends; a row not in it takes no text there.
 */
export type PackedBatch = {
  lines: Int32Array;
  /** A valid row's number (E.164 without its "+"), 0 for an invalid row. */
  phones: Float64Array;
  /** 1 where a valid row's name needs letters folded in the search index (its row's last value is not null). */
  folded: Uint8Array;
  /** The valid rows, each as the JSON array the insert reads, [contact id, consent id, ...its PreparedBatch row], and a comma. */
  rows: string;
  rowEnds: Int32Array;
  /** The invalid rows, each as its PreparedBatch refused array and a comma. */
  refused: string;
  refusedEnds: Int32Array;
};

/** Packs a prepared batch, giving each valid row the ids of its contact and of its opt-in (Bun.randomUUIDv7). */
export function packBatch(b: PreparedBatch): PackedBatch {
  const n = b.lines.length;
  const p: PackedBatch = {
    lines: Int32Array.from(b.lines),
    phones: new Float64Array(n),
    folded: new Uint8Array(n),
    rows: "",
    rowEnds: new Int32Array(n),
    refused: "",
    refusedEnds: new Int32Array(n),
  };
  const rows: string[] = [];
  const refused: string[] = [];
  let rowsAt = 0;
  let refusedAt = 0;
  for (let i = 0; i < n; i++) {
    const row = b.row[i]!;
    if (row) {
      const text = `["${Bun.randomUUIDv7()}","${Bun.randomUUIDv7()}",${row.slice(1)},`;
      rows.push(text);
      rowsAt += text.length;
      p.phones[i] = Number(b.phone[i]!.slice(1));
      p.folded[i] = row.endsWith(",null]") ? 0 : 1;
    } else {
      refused.push(b.refused[i]!, ",");
      refusedAt += b.refused[i]!.length + 1;
    }
    p.rowEnds[i] = rowsAt;
    p.refusedEnds[i] = refusedAt;
  }
  p.rows = rows.join("");
  p.refused = refused.join("");
  return p;
}

/** The buffers of a packed batch, to transfer when posting it to another thread. */
export const packedBuffers = (p: PackedBatch) => [p.lines.buffer, p.phones.buffer, p.folded.buffer, p.rowEnds.buffer, p.refusedEnds.buffer];

/** Rows `start` to `end` (exclusive) of a packed batch's `rows` (or `refused`) as one JSON array, "" when none is there. */
export function packedSlice(text: string, ends: Int32Array, start: number, end: number): string {
  const from = start ? ends[start - 1]! : 0;
  const to = end ? ends[end - 1]! : 0;
  return to > from ? `[${text.slice(from, to - 1)}]` : "";
}

/** Row i's JSON array in a packed batch's `rows` (or `refused`), parsed. */
export function packedRow<T>(text: string, ends: Int32Array, i: number): T {
  return JSON.parse(text.slice(i ? ends[i - 1]! : 0, ends[i]! - 1)) as T;
}

/** A valid row of a packed batch, parsed. */
export type StoredRow = [id: string, consentId: string, first: string, last: string, email: string | null, phone: string, tags: string, custom: string, extra: string | null];
