import { isoToZonedInput, statusBadge, toCsv, zonedInputToIso, type Campaign } from "../campaigns/model";

export type DateRange = "all" | "today" | "7d" | "30d" | "custom";
export type SortOrder = "newest" | "oldest" | "recipients" | "name";
export type HistoryFilter = { q: string; range: DateRange; from: string; to: string; sort: SortOrder };

const DAY_MS = 86_400_000;

/** When a campaign started sending. */
export const campaignTime = (c: Campaign) => new Date(c.sentAt ?? c.createdAt).getTime();

/** SMS campaigns that started sending; drafts and scheduled ones that have not started are on the campaigns screen. */
export const historyOf = (campaigns: Campaign[]) => campaigns.filter((c) => c.type !== "email" && c.sentAt !== null);

/** Midnight of a calendar day ("2026-03-14") in the account's time zone, as epoch ms. */
const startOfDay = (day: string, timeZone: string) => new Date(zonedInputToIso(`${day}T00:00`, timeZone) ?? NaN).getTime();

/** [from, to) in epoch ms for a date filter; a custom range includes its whole end day. */
export function rangeBounds(f: Pick<HistoryFilter, "range" | "from" | "to">, timeZone: string, now: number): [number, number] {
  const today = isoToZonedInput(new Date(now).toISOString(), timeZone).slice(0, 10);
  switch (f.range) {
    case "today":
      return [startOfDay(today, timeZone), Infinity];
    case "7d":
      return [now - 7 * DAY_MS, Infinity];
    case "30d":
      return [now - 30 * DAY_MS, Infinity];
    case "custom": {
      const from = f.from ? startOfDay(f.from, timeZone) : -Infinity;
      const to = f.to ? startOfDay(f.to, timeZone) + DAY_MS : Infinity;
      return [Number.isNaN(from) ? -Infinity : from, Number.isNaN(to) ? Infinity : to];
    }
    default:
      return [-Infinity, Infinity];
  }
}

export function filterHistory(campaigns: Campaign[], f: HistoryFilter, timeZone: string, now = Date.now()): Campaign[] {
  const q = f.q.trim().toLowerCase();
  const digits = q.replace(/\D/g, "");
  const [from, to] = rangeBounds(f, timeZone, now);
  const rows = campaigns.filter((c) => {
    const t = campaignTime(c);
    if (t < from || t >= to) return false;
    if (!q) return true;
    return (
      c.name.toLowerCase().includes(q) ||
      c.content.toLowerCase().includes(q) ||
      c.recipients.some((r) => r.toLowerCase().includes(q) || (digits.length >= 3 && r.replace(/\D/g, "").includes(digits)))
    );
  });
  const by: Record<SortOrder, (a: Campaign, b: Campaign) => number> = {
    newest: (a, b) => campaignTime(b) - campaignTime(a),
    oldest: (a, b) => campaignTime(a) - campaignTime(b),
    recipients: (a, b) => b.counts.recipients - a.counts.recipients || campaignTime(b) - campaignTime(a),
    name: (a, b) => a.name.localeCompare(b.name),
  };
  return rows.sort(by[f.sort]);
}

/** The delivery rate of the stat card: delivered over sent, rounded; 0 with nothing sent. */
export const deliveryRate = (sent: number, delivered: number) => {
  const base = Math.max(sent, delivered);
  return base > 0 ? Math.round((delivered / base) * 100) : 0;
};

export function historyCsv(rows: Campaign[]): string {
  return toCsv([
    [
      "Campaign",
      "Status",
      "Sent at",
      "Scheduled for",
      "From",
      "Recipients",
      "Sent",
      "Delivered",
      "Failed",
      "Success rate (%)",
      "Message",
    ],
    ...rows.map((c) => [
      c.name,
      statusBadge(c.status).label,
      c.sentAt ?? "",
      c.scheduledAt ?? "",
      c.fromNumber ?? "",
      c.counts.recipients,
      c.totalSent,
      c.counts.delivered,
      c.counts.failed,
      c.successRate ?? "",
      c.content,
    ]),
  ]);
}

/** "sent-messages-2026-03-14.csv", dated in the account's time zone. */
export const exportFileName = (timeZone: string, now = Date.now()) =>
  `sent-messages-${isoToZonedInput(new Date(now).toISOString(), timeZone).slice(0, 10)}.csv`;
