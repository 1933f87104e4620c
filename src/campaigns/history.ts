import { csvCell, formatInZone, UTF8_BOM } from "../contacts/export";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { wallToInstant, zoneOffset } from "../time/zones";

/**
 * Sent Messages (/sent-messages, /analytics) done by the server: the date filters in the account's time zone,
 * the orders, and the CSV of the whole filtered history.
 */

export const HISTORY_RANGES = ["all", "today", "7d", "30d", "custom"] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];
export const HISTORY_SORTS = ["newest", "oldest", "recipients", "name"] as const;
export type HistorySort = (typeof HISTORY_SORTS)[number];

const DAY = 86_400_000;

/** "2026-03-14" as the epoch-ms of that day's start written as if UTC (a wall time), or a 400 naming the field. */
function wallDay(field: string, day: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(day);
  const at = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== day) throw badRequest(`${field} must be a date written YYYY-MM-DD`);
  return at;
}

/**
 * The instants [from, to) a date filter keeps, null for an open end. Today and the custom days are calendar days
 * of the account's zone (a custom range includes the whole of its end day); 7 and 30 days are the span up to now.
 */
export function rangeBounds(
  q: { range?: HistoryRange; from?: string; to?: string },
  timeZone: string,
  now: number,
): { from: number | null; to: number | null } {
  switch (q.range ?? "all") {
    case "today": {
      const wallNow = now + zoneOffset(timeZone, now);
      return { from: wallToInstant(timeZone, Math.floor(wallNow / DAY) * DAY), to: null };
    }
    case "7d":
      return { from: now - 7 * DAY, to: null };
    case "30d":
      return { from: now - 30 * DAY, to: null };
    case "custom": {
      const from = q.from ? wallDay("from", q.from) : null;
      const to = q.to ? wallDay("to", q.to) : null;
      if (from !== null && to !== null && from > to) throw badRequest("The start date must not be after the end date");
      return { from: from === null ? null : wallToInstant(timeZone, from), to: to === null ? null : wallToInstant(timeZone, to + DAY) };
    }
    default:
      return { from: null, to: null };
  }
}

// Its filters and orders are SQL of the campaigns' records (records.ts campaignPage).

const STATUS_LABELS: Record<string, string> = {
  draft: "Draft", scheduled: "Scheduled", sending: "Sending", paused: "Paused", completed: "Completed", failed: "Failed", cancelled: "Cancelled",
};

type HistoryRow = {
  name: string;
  status: string;
  sentAt: string | null;
  scheduledAt: string | null;
  fromNumber: string | null;
  content: string;
  counts: { recipients: number; delivered: number; failed: number };
  totalSent: number;
  successRate: number | null;
  humanClicks: number;
  clickRate: number | null;
};

const EXPORT_BATCH = 500;

/**
 * The filtered history as a CSV download, read a page at a time as the client takes it, times in the account's
 * zone, every text cell neutralised against spreadsheet formulas. The first page is read before answering, so a
 * refused query answers an error status rather than a cut-off 200. The file name carries today's date in the zone.
 */
export async function historyCsvResponse(
  user: { timezone: string },
  now: number,
  page: (page: number, pageSize: number) => Promise<HistoryRow[]>,
): Promise<Response> {
  const encoder = new TextEncoder();
  const zoned = (iso: string | null) => (iso ? formatInZone(new Date(iso), user.timezone) : "");
  let next = 1;
  let rows = await page(next, EXPORT_BATCH);
  const header = ["Campaign", "Status", `Sent at (${user.timezone})`, `Scheduled for (${user.timezone})`, "From", "Recipients", "Sent", "Delivered", "Failed", "Success rate (%)", "Human clicks", "Click rate (%)", "Message"];
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${UTF8_BOM}${header.map(csvCell).join(",")}\r\n`));
    },
    async pull(controller) {
      if (!rows.length) return controller.close();
      const text = rows
        .map(
          (c) =>
            [
              c.name, STATUS_LABELS[c.status] ?? c.status, zoned(c.sentAt), zoned(c.scheduledAt), c.fromNumber, c.counts.recipients, c.totalSent,
              c.counts.delivered, c.counts.failed, c.successRate, c.humanClicks, c.clickRate, c.content,
            ]
              .map(csvCell)
              .join(",") + "\r\n",
        )
        .join("");
      controller.enqueue(encoder.encode(text));
      rows = rows.length < EXPORT_BATCH ? [] : await page(++next, EXPORT_BATCH);
    },
  });
  const day = new Date(now + zoneOffset(user.timezone, now)).toISOString().slice(0, 10);
  return new Response(stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="sent-messages-${day}.csv"`,
      "cache-control": "no-store",
    },
  });
}
