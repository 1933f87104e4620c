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
 * invalid), fields trimmed, tags as JSON. Column arrays, so a batch crosses to another thread as a few arrays
 * rather than thousands of objects.
 */
export type PreparedBatch = {
  lines: number[];
  /** E.164, or "" when the row is invalid. */
  phone: string[];
  /** Why the row is invalid, or "". */
  invalid: string[];
  first: string[];
  last: string[];
  email: string[];
  tags: string[];
  /** Custom fields as a JSON object, or "" when the row has none. */
  custom: string[];
  /**
   * The fields the insert reads, as a JSON array without the new contact's id (first, last, email or null, phone,
   * tags, custom), or "" when the row is invalid: made where the batch is prepared (the parsing worker), so the
   * writer only joins the rows it stores.
   */
  row: string[];
  /** A CSV row refused for its phone: its cells as the file had them, as a JSON array (the rejected rows' CSV); else "". */
  cells: string[];
  /** What the search index holds after the row's fields when its name needs letters folded (searchExtra), else "". */
  extra: string[];
};

/** A batch of these lines with its text columns still to fill. */
const withLines = (lines: number[]): PreparedBatch => ({ lines, phone: [], invalid: [], first: [], last: [], email: [], tags: [], custom: [], row: [], cells: [], extra: [] });

/** `lines[i]` is the line number reported for `rows[i]`, `cells[i]` its CSV record (kept when the row is refused). */
export function prepareBatch(rows: ImportRow[], lines: number[], phones: PhoneNormalizer, cells?: string[][]): PreparedBatch {
  const b = withLines(lines);
  const raws = rows.map((row) => (row.phone ? String(row.phone).trim() : ""));
  // Every phone first: a number without its country code is then explained with the codes the batch's numbers have.
  const valid = raws.map((raw) => (raw ? phones.normalize(raw) : null));
  rows.forEach((row, i) => {
    const raw = raws[i]!;
    const phone = valid[i];
    const first = (row.firstName ?? "").trim();
    const last = (row.lastName ?? "").trim();
    const email = (row.email ?? "").trim();
    const tags = JSON.stringify(row.tags ?? []);
    const custom = row.customFields && Object.keys(row.customFields).length ? JSON.stringify(row.customFields) : "";
    b.phone.push(phone ?? "");
    b.invalid.push(phone ? "" : raw ? phones.whyInvalid(raw) : "Missing phone number");
    b.first.push(first);
    b.last.push(last);
    b.email.push(email);
    b.tags.push(tags);
    b.custom.push(custom);
    b.row.push(phone ? JSON.stringify([first, last, email || null, phone, tags, custom]) : "");
    b.cells.push(phone || !cells ? "" : JSON.stringify(cells[i]));
    b.extra.push(phone ? searchExtra(first, last) : "");
  });
  return b;
}

const TEXT_COLUMNS = ["phone", "invalid", "first", "last", "email", "tags", "custom", "row", "cells", "extra"] as const;

/** The rows of several batches as one, in their order. */
export function concatBatches(batches: PreparedBatch[]): PreparedBatch {
  const all = withLines(batches.flatMap((b) => b.lines));
  for (const col of TEXT_COLUMNS) all[col] = batches.flatMap((b) => b[col]);
  return all;
}

/** The rows of a batch at the given indexes, in that order. */
export function pickRows(b: PreparedBatch, rows: number[]): PreparedBatch {
  const p = withLines(rows.map((i) => b.lines[i]!));
  for (const col of TEXT_COLUMNS) p[col] = rows.map((i) => b[col][i]!);
  return p;
}

/** Rows `start` to `end` (exclusive) of a batch, for storing a batch in several transactions. */
export function sliceBatch(b: PreparedBatch, start: number, end: number): PreparedBatch {
  const s = withLines(b.lines.slice(start, end));
  for (const col of TEXT_COLUMNS) s[col] = b[col].slice(start, end);
  return s;
}

/**
 * A batch as one string and its field lengths, for posting between threads: cloning one string and two
 * typed arrays costs a fraction of cloning 60,000 separate strings, on both threads.
 */
export type PackedBatch = { lines: Int32Array; text: string; lengths: Int32Array };

export function packBatch(b: PreparedBatch): PackedBatch {
  const n = b.lines.length;
  const lengths = new Int32Array(n * TEXT_COLUMNS.length);
  const parts: string[] = [];
  let k = 0;
  for (const col of TEXT_COLUMNS) {
    for (const s of b[col]) {
      lengths[k++] = s.length;
      parts.push(s);
    }
  }
  return { lines: Int32Array.from(b.lines), text: parts.join(""), lengths };
}

export function unpackBatch(p: PackedBatch): PreparedBatch {
  const n = p.lines.length;
  const b = withLines(Array.from(p.lines));
  let at = 0;
  let k = 0;
  for (const col of TEXT_COLUMNS) {
    const out = b[col];
    for (let i = 0; i < n; i++) {
      const len = p.lengths[k++]!;
      out.push(p.text.slice(at, at + len));
      at += len;
    }
  }
  return b;
}
