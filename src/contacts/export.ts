import { offsetAt, zoneOf } from "../time/zones";

/** Byte-order mark at the start of the export: without it Excel reads UTF-8 as the system code page ("JosÃ©"). */
export const UTF8_BOM = "\uFEFF";

const FORMULA_START = /^[=+\-@\t\r]/;
/** A phone number as this product writes one (E.164) or as people type one: digits, separators, a leading "+". */
const PHONE_LIKE = /^\+?[\d\s().\-\/]{3,25}$/;

/**
 * One CSV cell. A cell a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage return)
 * gets an apostrophe in front, except a phone number such as +14155550123, which spreadsheets take as a number
 * or text, never as a formula, and which must stay importable as written.
 */
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? "" : String(v);
  if (FORMULA_START.test(s) && !PHONE_LIKE.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** "2026-03-08 14:05:09": the wall-clock time of `at` in the time zone `zone`. */
export function formatInZone(at: Date, zone: string): string {
  const t = at.getTime();
  return new Date(t + offsetAt(zoneOf(zone), t)).toISOString().slice(0, 19).replace("T", " ");
}
