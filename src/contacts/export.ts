import { and, asc, eq, gt, or } from "drizzle-orm";
import { contacts } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { offsetAt, zoneOf } from "../time/zones";
import { searchCondition } from "./search";

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

const EXPORT_BATCH = 1000;

/**
 * The user's contacts matching the search `q` as a CSV download, oldest first, read 1,000 at a time as the client
 * takes them (keyset paging on createdAt, id), with times in the account's time zone. Each batch is read in a turn
 * of its own on the connection (ready), never inside another caller's open transaction.
 */
export async function contactsCsvResponse(ctx: AppContext, user: { id: string; timezone: string }, q: string | undefined): Promise<Response> {
  const cond = searchCondition(q, user.id, ctx.records.$engine);
  const encoder = new TextEncoder();
  const batch = (after: { createdAt: Date; id: string } | null) =>
    ctx.records
      .select()
      .from(contacts)
      .where(and(eq(contacts.userId, user.id), cond, after ? or(gt(contacts.createdAt, after.createdAt), and(eq(contacts.createdAt, after.createdAt), gt(contacts.id, after.id))) : undefined))
      .orderBy(asc(contacts.createdAt), asc(contacts.id))
      .limit(EXPORT_BATCH)
      .all();
  // The first batch is read before answering: a search the database refuses answers an error status, not a
  // 200 whose connection is cut halfway through.
  await ready(ctx.db);
  let rows = await batch(null);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${UTF8_BOM}firstName,lastName,email,phone,tags,status,${csvCell(`createdAt (${user.timezone})`)}\r\n`));
    },
    async pull(controller) {
      if (!rows.length) return controller.close();
      const last = rows[rows.length - 1]!;
      const text = rows
        .map((r) => [r.firstName, r.lastName, r.email, r.phone, r.tags.join(", "), r.status, formatInZone(r.createdAt, user.timezone)].map(csvCell).join(",") + "\r\n")
        .join("");
      controller.enqueue(encoder.encode(text));
      await ready(ctx.db);
      rows = await batch({ createdAt: last.createdAt, id: last.id });
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="contacts.csv"', "cache-control": "no-store" },
  });
}
