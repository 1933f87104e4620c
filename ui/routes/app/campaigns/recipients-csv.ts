import Papa from "papaparse";
import { isValidPhone } from "./model";

/** Header names the contacts import reads as the phone column (compared lower-cased, spaces collapsed). */
const PHONE_HEADERS = new Set([
  "phone",
  "phone_number",
  "phonenumber",
  "phone number",
  "mobile",
  "mobile_number",
  "mobile number",
  "mobilenumber",
  "cell",
  "cell_phone",
  "cell phone",
]);

export type CsvRecipients = {
  phones: string[];
  /** The header of the column read, or "column N" when the file has no recognised header. */
  column: string | null;
  rows: number;
  invalid: number;
  duplicates: number;
};

export const NO_PHONES_IN_CSV = "No valid phone addresses found in the CSV file";

const looksLikePhone = (v: string) => /^[+\d\s\-().]{7,24}$/.test(v.trim()) && v.replace(/\D/g, "").length >= 7;
const headerKey = (h: string) =>
  h
    .replace(/^\uFEFF/, "")
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ");

/** The column most of whose first rows look like phone numbers, for files without a known header. */
function guessPhoneColumn(rows: string[][]): number {
  const sample = rows.slice(0, 200);
  const width = Math.max(0, ...sample.map((r) => r.length));
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < width; i++) {
    const score = sample.filter((r) => looksLikePhone(r[i] ?? "")).length;
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  return best;
}

/** Phone numbers of a CSV file, read in the browser: known phone header first, else the column that looks like phones. */
export function recipientsFromCsv(text: string): CsvRecipients {
  const rows = Papa.parse<string[]>(text, { skipEmptyLines: "greedy" }).data.filter((r) => Array.isArray(r));
  const first = rows[0];
  if (!first) return { phones: [], column: null, rows: 0, invalid: 0, duplicates: 0 };

  let col = first.findIndex((h) => PHONE_HEADERS.has(headerKey(h)));
  let body = rows.slice(1);
  let column: string | null = col >= 0 ? first[col]!.trim() : null;
  if (col < 0) {
    col = guessPhoneColumn(rows);
    if (col < 0) return { phones: [], column: null, rows: rows.length, invalid: rows.length, duplicates: 0 };
    const headerless = looksLikePhone(first[col] ?? "");
    body = headerless ? rows : body;
    column = headerless ? `column ${col + 1}` : first[col]!.trim() || `column ${col + 1}`;
  }

  const seen = new Set<string>();
  const phones: string[] = [];
  let invalid = 0;
  let duplicates = 0;
  for (const r of body) {
    const value = (r[col] ?? "").trim();
    if (!isValidPhone(value)) {
      invalid++;
      continue;
    }
    const digits = value.replace(/\D/g, "");
    if (seen.has(digits)) {
      duplicates++;
      continue;
    }
    seen.add(digits);
    phones.push(value);
  }
  return { phones, column, rows: body.length, invalid, duplicates };
}
