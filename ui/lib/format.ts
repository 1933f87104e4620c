import { auth } from "./auth";

/** "Just now", "N hours ago", "Yesterday", "N days ago", as the spec's recent activity shows. */
export function timeAgo(iso: string, now = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  const hours = Math.floor(ms / 3_600_000);
  if (hours < 1) return "Just now";
  if (hours < 24) return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  const days = Math.floor(hours / 24);
  return days === 1 ? "Yesterday" : `${days} days ago`;
}

export const formatNumber = (n: number, locale?: string) => new Intl.NumberFormat(locale).format(n);

/** "1 campaign", "1,592 segments": a count with its noun in the singular for exactly one. */
export const countOf = (n: number, one: string, many: string, locale?: string) => `${formatNumber(n, locale)} ${n === 1 ? one : many}`;

/**
 * A moment as the signed-in account reads it: in its locale and its time zone (Account Settings), not the
 * browser's. A laptop abroad, or an agency managing a client in another zone, saw drip steps and tables an hour or
 * more off the campaigns and chats, which already used the account's zone. `fallback` for no moment.
 */
export function accountTime(at: string | number | Date | null | undefined, opts: { date?: "only"; fallback?: string } = {}): string {
  if (at === null || at === undefined) return opts.fallback ?? "—";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return opts.fallback ?? "—";
  const user = auth.value.user;
  const style: Intl.DateTimeFormatOptions = opts.date === "only" ? { dateStyle: "medium" } : { dateStyle: "medium", timeStyle: "short" };
  try {
    return new Intl.DateTimeFormat(user?.locale, { ...style, timeZone: user?.timezone }).format(d);
  } catch {
    // A zone or locale the browser does not know: its own.
    return new Intl.DateTimeFormat(undefined, style).format(d);
  }
}
